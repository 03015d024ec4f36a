def test_c():
    x = [1,2]   # odd   spacing kept
    assert x == [1, 2]
