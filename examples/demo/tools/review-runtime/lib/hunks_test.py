from hunks import split


def test_two_hunks():
    assert len(list(split("@@ a\n+x\n@@ b\n-y\n"))) == 2
