import pytest


@pytest.mark.merge
def test_hidden_folder_is_ignored():
    assert True is not False
