def test_ok():
    assert len("ok") == 2
