import sys

import pytest

BACKENDS = ["memory", pytest.param("disk", marks=pytest.mark.slow)]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def store(backend):
    return {"backend": backend}


@pytest.fixture(params=[1, pytest.param(2, marks=[pytest.mark.network])])
def remote(request):
    return request.param


@pytest.fixture(params=[pytest.param(
    "new", marks=pytest.mark.skipif(sys.version_info < (3, 0), reason="py2"))])
def flavour(request):
    return request.param
