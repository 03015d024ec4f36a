import pytest

FIXTURE = pytest.fixture
