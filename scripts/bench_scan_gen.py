#!/usr/bin/env python3
"""Writes the benchmark tree for scripts/bench-scan, deterministically.

    bench_scan_gen.py DIR [--files 5000] [--tests-per-file 20]

DIR/pytest.ini registers the lanes; DIR/tests is a package of packages (d000, d001, ...) of test
modules, each holding exactly --tests-per-file tests (counted without parametrization) in a mix
of styles: module pytestmark, `import pytest as pt`, `from pytest import mark` with module-level
aliases, marks imported from a helper module of the tree (relative and absolute), decorated
classes, class pytestmark, same-module base classes and parametrize. Every test is in exactly one
lane and carries its attachments (an `owner:` docstring line; `locked_on=` on witness marks).
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--tests-per-file", type=int, default=20)
    args = parser.parse_args()
    if args.tests_per_file < 1 or args.files < 1:
        parser.error("--files and --tests-per-file must be positive")
    root: Path = args.dir
    tests = root / "tests"
    if tests.exists():
        shutil.rmtree(tests)
    tests.mkdir(parents=True)
    (root / "pytest.ini").write_text(PYTEST_INI)
    (tests / "__init__.py").write_text("")
    (tests / "lanemarks.py").write_text(LANEMARKS.replace("{LOCKED_ON}", LOCKED_ON))
    for i in range(args.files):
        folder = tests / f"d{i // FILES_PER_DIR:03d}"
        if i % FILES_PER_DIR == 0:
            folder.mkdir()
            (folder / "__init__.py").write_text("")
        (folder / f"test_mod_{i:05d}.py").write_text(module(i, args.tests_per_file))
    print(f"files {args.files} tests {args.files * args.tests_per_file}")


if __name__ == "__main__":
    main()
