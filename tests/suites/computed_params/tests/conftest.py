"""Fixtures whose params are written empty, computed empty, or computed with values."""
import pytest


def no_cases():
    return []


@pytest.fixture(params=[])
def written_empty(request):
    return request.param


@pytest.fixture(params=no_cases())
def computed_empty(request):
    return request.param


@pytest.fixture(params=list(range(2)))
def computed_full(request):
    return request.param


@pytest.fixture(params=["a", "b"])
def written_full(request):
    return request.param
