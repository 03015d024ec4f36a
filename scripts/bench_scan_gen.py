#!/usr/bin/env python3
"""Writes the benchmark tree for scripts/bench-scan, deterministically.

    bench_scan_gen.py DIR [--shape bench|short] [--files 5000] [--tests-per-file 20]

DIR/pytest.ini registers the lanes; DIR/tests is a package of packages (d000, d001, ...) of test
modules, each holding exactly --tests-per-file tests (counted without parametrization).

Shape `bench` (the default): longer tests with docstrings, in a mix of styles: module pytestmark, `import pytest as pt`, `from pytest import mark` with module-level
aliases, marks imported from a helper module of the tree (relative and absolute), decorated
classes, class pytestmark, same-module base classes and parametrize. Every test is in exactly one
lane and carries its attachments (an `owner:` docstring line; `locked_on=` on witness marks).

Shape `short` (many short tests, 22 per file by default): each module has a few
functions, most with several stacked `@pytest.mark.parametrize` over lists of values (one name,
several names with tuples, `pytest.param` with ids and marks), and test classes whose
`pytestmark` (a list) gives the lane; the owner is in the module docstring. Every test is in
exactly one lane here too.

Prints the number of files and tests written.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

FILES_PER_DIR = 100
LOCKED_ON = "2026-01-15"

PYTEST_INI = """\
[pytest]
markers =
    merge: votes on the patch
    witness: corroborates hash-locked bytes
    freeze: ledger-backed flake
"""

LANEMARKS = '''\
"""Lane marks shared by the generated modules."""
import pytest

merge_lane = pytest.mark.merge
golden = pytest.mark.witness(locked_on="{LOCKED_ON}")
frozen = pytest.mark.freeze
'''


def body(n: int, indent: str) -> str:
    """A few realistic lines of arithmetic with assertions; varies with n."""
    a, b = n % 97 + 1, n % 13 + 2
    return (f'{indent}"""Splits {a} * {b} into equal parts.\n\n'
            f'{indent}owner: team-{n % 9}\n{indent}"""\n'
            f"{indent}total = {a} * {b}\n"
            f"{indent}parts = [total // {b}] * {b}\n"
            f"{indent}assert sum(parts) == total, (total, parts)\n"
            f"{indent}assert str(total).isdigit()\n")


def helper(n: int) -> str:
    return (f"def _helper_{n}(values):\n"
            f"    \"\"\"Not a test: a helper with a docstring and a loop.\"\"\"\n"
            f"    out = []\n"
            f"    for value in values:\n"
            f"        out.append(value * {n % 7 + 1})\n"
            f"    return out\n\n\n")


def functions(start: int, count: int, deco: list[str], param: str | None, seed: int) -> str:
    """`count` test functions; every third is parametrized when `param` is given."""
    out = []
    for k in range(count):
        n = seed * 31 + start + k
        lines = list(deco)
        args = ""
        if param and k % 3 == 0:
            lines.append(f'{param}("x", [{n % 5}, {n % 5 + 1}, {n % 5 + 2}])')
            args = "x"
        lines.append(f"def test_func_{start + k}({args}):")
        text = "\n".join(lines) + "\n" + body(n, "    ")
        if args:
            text += "    assert x >= 0\n"
        out.append(text + "\n\n")
    return "".join(out)


def methods(start: int, count: int, deco: list[str], seed: int) -> str:
    out = []
    for k in range(count):
        n = seed * 17 + start + k
        lines = [f"    {d}" for d in deco]
        lines.append(f"    def test_method_{start + k}(self):")
        out.append("\n".join(lines) + "\n" + body(n, "        ") + "\n")
    return "".join(out)


def module(i: int, per_file: int) -> str:
    """Test module number i, in one of four styles, with exactly per_file tests."""
    style = i % 4
    nfunc = per_file - 12 if per_file >= 12 else per_file
    ncls = (per_file - nfunc) // 2
    head = f'"""Generated test module {i} (style {style})."""\n'
    if style == 0:
        # Module pytestmark; a base class in the same module; plain pytest.
        return (head + "import pytest\n\npytestmark = [pytest.mark.merge]\n\n\n" + helper(i)
                + functions(0, nfunc, [], "@pytest.mark.parametrize", i)
                + ("class BaseChecks:\n" + methods(0, 2, [], i) + "\n"
                   f"class TestDerived{i}(BaseChecks):\n" + methods(2, ncls - 2, [], i) + "\n"
                   f"class TestPlain{i}:\n" + methods(0, ncls, [], i) if ncls else ""))
    if style == 1:
        # `import pytest as pt`; decorated class; class-level pytestmark.
        witness = f'pt.mark.witness(locked_on="{LOCKED_ON}")'
        return (head + "import pytest as pt\n\n\n" + helper(i)
                + functions(0, nfunc, [f"@{witness}"], "@pt.mark.parametrize", i)
                + (f"@{witness}\nclass TestDecorated{i}:\n" + methods(0, ncls, [], i) + "\n"
                   + f"class TestClassMark{i}:\n    pytestmark = {witness}\n\n"
                   + methods(0, ncls, [], i) if ncls else ""))
    if style == 2:
        # `from pytest import mark` and module-level aliases.
        half = nfunc // 2
        return (head + "from pytest import mark\n\nmerge = mark.merge\nfreeze = mark.freeze\n\n\n"
                + helper(i)
                + functions(0, half, ["@merge"], "@mark.parametrize", i)
                + functions(half, nfunc - half, ["@freeze"], None, i)
                + (f"@merge\nclass TestAliased{i}:\n" + methods(0, ncls, [], i) + "\n"
                   f"class TestMethodMarks{i}:\n" + methods(0, ncls, ["@freeze"], i)
                   if ncls else ""))
    # Marks imported from a helper module of the tree, relative and absolute.
    return (head + "import pytest\n\nfrom ..lanemarks import golden, merge_lane\n"
            "from tests.lanemarks import frozen\n\n\n" + helper(i)
            + functions(0, nfunc, ["@merge_lane"], "@pytest.mark.parametrize", i)
            + (f"@golden\nclass TestImported{i}:\n" + methods(0, ncls, [], i) + "\n"
               f"class TestFrozen{i}:\n    pytestmark = [frozen]\n\n" + methods(0, ncls, [], i)
               if ncls else ""))


SHORT_LANES = (
    "pytest.mark.merge",
    'pytest.mark.witness(locked_on="' + LOCKED_ON + '")',
    "pytest.mark.freeze",
)


def short_params(n: int, count: int) -> list[str]:
    """`count` stacked parametrize decorators (names p0, p1, ...) whose values vary with n."""
    out = []
    for j in range(count):
        kind = (n + j) % 3
        if kind == 0:
            values = ", ".join(str((n * 7 + j + v) % 50) for v in range(3 + (n + j) % 4))
            out.append(f'@pytest.mark.parametrize("p{j}", [{values}])')
        elif kind == 1:
            pairs = ", ".join(f'({v}, "s{(n + v) % 11}")' for v in range(2 + n % 3))
            out.append(f'@pytest.mark.parametrize("p{j}, q{j}", [{pairs}])')
        else:
            out.append(f'@pytest.mark.parametrize("p{j}", [pytest.param({n % 9}, id="low"), '
                       f'pytest.param({n % 9 + 10}, id="high", marks=pytest.mark.slow), '
                       f"{n % 9 + 20}])")
    return out


def short_args(decorators: list[str]) -> list[str]:
    args = []
    for d in decorators:
        names = d.split('"')[1]
        args.extend(a.strip() for a in names.split(","))
    return args


def short_test(name: str, n: int, indent: str, deco: list[str], self_arg: bool) -> str:
    """One short test: its decorators, a signature and two or three lines."""
    params = short_params(n, n % 3 + 1) if n % 4 != 3 else []
    args = (["self"] if self_arg else []) + short_args(params)
    lines = [f"{indent}{d}" for d in deco + params]
    lines.append(f"{indent}def {name}({', '.join(args)}):")
    lines.append(f"{indent}    value = {n % 13} + {n % 7}")
    lines.append(f"{indent}    assert value == {n % 13 + n % 7}")
    if args[1 if self_arg else 0:]:
        lines.append(f"{indent}    assert {args[-1]} is not None")
    return "\n".join(lines) + "\n"


def short_module(i: int, per_file: int) -> str:
    """Short-shape module i: per_file tests, about a quarter of them functions."""
    nfunc = max(1, per_file // 4) if per_file > 1 else per_file
    rest = per_file - nfunc
    nclass = (rest + 3) // 4 if rest else 0
    out = [f'"""Generated short-test module {i}.\n\nowner: team-{i % 9}\n"""\n'
           "import pytest\n\n\n"]
    func_lane = SHORT_LANES[i % 3]
    for k in range(nfunc):
        out.append(short_test(f"test_short_{k}", i * 29 + k, "", [f"@{func_lane}"], False))
        out.append("\n\n")
    for c in range(nclass):
        count = rest // nclass + (1 if c < rest % nclass else 0)
        lane = SHORT_LANES[(i + c + 1) % 3]
        extra = ", pytest.mark.slow" if c % 2 else ""
        out.append(f"class TestGroup{c}:\n    pytestmark = [pytest.mark.unit, {lane}{extra}]\n\n")
        for k in range(count):
            out.append(short_test(f"test_case_{k}", i * 31 + c * 7 + k, "    ", [], True))
            out.append("\n")
        out.append("\n")
    return "".join(out).rstrip("\n") + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--tests-per-file", type=int, default=None,
                        help="default: 20 (bench), 22 (short)")
    parser.add_argument("--shape", choices=("bench", "short"), default="bench")
    args = parser.parse_args()
    if args.tests_per_file is None:
        args.tests_per_file = 22 if args.shape == "short" else 20
    if args.tests_per_file < 1 or args.files < 1:
        parser.error("--files and --tests-per-file must be positive")
    root: Path = args.dir
    tests = root / "tests"
    if tests.exists():
        shutil.rmtree(tests)
    tests.mkdir(parents=True)
    (root / "pytest.ini").write_text(
        PYTEST_INI + ("    unit: a unit test\n    slow: a slow case\n" if args.shape == "short" else ""))
    (tests / "__init__.py").write_text("")
    (tests / "lanemarks.py").write_text(LANEMARKS.replace("{LOCKED_ON}", LOCKED_ON))
    for i in range(args.files):
        folder = tests / f"d{i // FILES_PER_DIR:03d}"
        if i % FILES_PER_DIR == 0:
            folder.mkdir()
            (folder / "__init__.py").write_text("")
        (folder / f"test_mod_{i:05d}.py").write_text(
            (short_module if args.shape == "short" else module)(i, args.tests_per_file))
    print(f"files {args.files} tests {args.files * args.tests_per_file}")


if __name__ == "__main__":
    main()
