def test_d():
    assert len("d") == 1
