import pytest


@pytest.fixture(autouse=True, params=["a", pytest.param("b", marks=pytest.mark.network)])
def everywhere(request):
    return request.param


@pytest.fixture
def backend(backend):
    return backend + "!"
