import pytest


@pytest.mark.merge
def test_uses_backend(backend):
    assert backend


@pytest.mark.merge
def test_through_store(store):
    assert store["backend"]


@pytest.mark.merge
@pytest.mark.usefixtures("remote")
def test_by_usefixtures():
    assert True


@pytest.mark.merge
@pytest.mark.parametrize("backend", ["given"])
def test_parametrized_directly(backend):
    assert backend == "given"


@pytest.mark.merge
def test_plain():
    assert True


@pytest.mark.merge
class TestInClass:
    @pytest.fixture(params=[pytest.param(0, marks=pytest.mark.witness_like)])
    def local(self, request):
        return request.param

    def test_local(self, local):
        assert local == 0

    def test_flavour(self, flavour):
        assert flavour == "new"
