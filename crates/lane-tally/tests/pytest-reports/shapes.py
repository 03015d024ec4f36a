"""The test module the reports beside it were written from, with pytest 9.2.0:

    python -m pytest -p no:cacheprovider -q -o junit_family=xunit1 -o junit_logging=all \
        --junitxml=xunit1.xml tests/test_shapes.py
    python -m pytest -p no:cacheprovider -q -o junit_family=xunit2 -o junit_logging=all \
        --junitxml=xunit2.xml tests/test_shapes.py
    python -m pytest -p no:cacheprovider -q -o junit_family=xunit2 \
        --junitxml=plain.xml tests/test_shapes.py -k "param or skip"
    python -m pytest -p no:cacheprovider -q --junitxml=empty.xml tests/test_shapes.py \
        -k nothing_matches

(with a pytest.ini registering the merge, witness and freeze marks; the folder the run was
in is taken out of the paths in the reports). `crates/lane-tally/tests/report_layout.rs`
reads them.
"""
import sys

import pytest


@pytest.fixture
def broken():
    raise RuntimeError("setup <broke> & failed")


@pytest.fixture
def bad_teardown():
    yield 1
    raise RuntimeError("teardown broke")


@pytest.mark.merge
@pytest.mark.parametrize("v", ["a&b", "<c>", 'q"d', "t\tab", "new\nline", "é"])
def test_param(v, record_property):
    record_property("replay", "caps/" + v)
    print("out <" + v + "> & more")
    assert v


@pytest.mark.merge
def test_fails():
    print("captured stdout")
    sys.stderr.write("captured stderr <x>\n")
    assert 1 == 2, "one is not two & <never>"


@pytest.mark.merge
def test_setup_error(broken):
    pass


@pytest.mark.merge
def test_teardown_error(bad_teardown):
    assert bad_teardown == 1


@pytest.mark.merge
def test_skipped():
    pytest.skip("no network <here>")


@pytest.mark.merge
@pytest.mark.skipif(True, reason="marked skip")
def test_skipif():
    pass


@pytest.mark.freeze
@pytest.mark.xfail(reason="known & tracked")
def test_xfail():
    assert False


@pytest.mark.freeze
@pytest.mark.xfail(reason="now passes", strict=True)
def test_xpass_strict():
    pass


@pytest.mark.freeze
@pytest.mark.xfail(reason="passes loosely")
def test_xpass():
    pass


class TestGroup:
    @pytest.mark.witness
    def test_in_class(self):
        assert True


def test_suite_property(record_testsuite_property):
    record_testsuite_property("run", "lanes & <co>")
