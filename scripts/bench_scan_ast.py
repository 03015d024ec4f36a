#!/usr/bin/env python3
"""The Python `ast` baseline for scripts/bench-scan: lane-scan's marker extraction, in Python.

    bench_scan_ast.py [ROOT]

Walks ROOT (default: .) the way pytest does with its default settings (test_*.py / *_test.py
files, Test* classes without __init__, test* functions and methods, pytest's default
norecursedirs), parses every test file with `ast` (nothing is imported), and resolves lane marks
from function decorators, class decorators, class and module `pytestmark` (a mark or a list),
same-module base classes, and aliases: `import pytest as pt`, `from pytest import mark [as m]`,
`merge = pytest.mark.merge`, and names imported from modules inside the tree (absolute or
relative). Single process, as a Python scanner usually is. Prints one line:

    tests N merge N witness N freeze N unmarked N multiple N files N
"""

from __future__ import annotations

import ast
import fnmatch
import os
import sys
from pathlib import Path

LANES = ("merge", "witness", "freeze")
NORECURSE = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")

# An alias value: ("pytest",) the module, ("mark",) pytest.mark, ("marks", [names]) mark objects.
PYTEST = ("pytest",)
MARK = ("mark",)


class Scanner:
    def __init__(self, root: Path):
        self.root = root
        self.module_aliases: dict[Path, dict[str, tuple]] = {}

    # --- alias tables --------------------------------------------------------------------
    def resolve_module(self, current: Path, module: str | None, level: int) -> Path | None:
        """The file of an imported module inside the tree, or None."""
        parts = module.split(".") if module else []
        if level:
            base = current.parent
            for _ in range(level - 1):
                base = base.parent
            candidates = [base]
        else:
            candidates = [self.root, current.parent]
        for base in candidates:
            target = base.joinpath(*parts) if parts else base
            for path in (target.with_suffix(".py") if parts else None, target / "__init__.py"):
                if path is not None and path.is_file():
                    return path
        return None

    def aliases_of(self, path: Path, tree: ast.Module | None = None) -> dict[str, tuple]:
        """Module-level names that mean pytest, pytest.mark or lane marks."""
        cached = self.module_aliases.get(path)
        if cached is not None:
            return cached
        self.module_aliases[path] = {}  # import cycles end here
        if tree is None:
            try:
                tree = ast.parse(path.read_bytes(), filename=str(path))
            except (SyntaxError, ValueError, OSError):
                return {}
        table: dict[str, tuple] = {}
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "pytest":
                        table[alias.asname or "pytest"] = PYTEST
            elif isinstance(node, ast.ImportFrom):
                if node.module == "pytest" and not node.level:
                    for alias in node.names:
                        if alias.name == "mark":
                            table[alias.asname or "mark"] = MARK
                    continue
                for alias in node.names:
                    source = self.resolve_module(path, node.module, node.level)
                    if source is not None:
                        value = self.aliases_of(source).get(alias.name)
                        if value is not None:
                            table[alias.asname or alias.name] = value
                        continue
                    sub = self.resolve_module(
                        path, f"{node.module}.{alias.name}" if node.module else alias.name,
                        node.level)
                    if sub is not None:
                        table[alias.asname or alias.name] = ("module", sub)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                marks = self.marks_of(node.value, table)
                if marks is not None:
                    table[node.targets[0].id] = ("marks", marks)
        self.module_aliases[path] = table
        return table

    def marks_of(self, expr: ast.expr, table: dict[str, tuple]) -> list[str] | None:
        """Mark names an expression stands for, or None when it is not a mark."""
        if isinstance(expr, ast.Call):
            return self.marks_of(expr.func, table)
        if isinstance(expr, (ast.List, ast.Tuple)):
            out: list[str] = []
            for elt in expr.elts:
                out.extend(self.marks_of(elt, table) or [])
            return out
        if isinstance(expr, ast.Name):
            value = table.get(expr.id)
            return list(value[1]) if value and value[0] == "marks" else None
        if isinstance(expr, ast.Attribute):
            owner = expr.value
            if isinstance(owner, ast.Name):
                value = table.get(owner.id)
                if value == MARK:
                    return [expr.attr]
                if value and value[0] == "module":
                    found = self.aliases_of(value[1]).get(expr.attr)
                    return list(found[1]) if found and found[0] == "marks" else None
            if isinstance(owner, ast.Attribute) and owner.attr == "mark" \
                    and isinstance(owner.value, ast.Name) and table.get(owner.value.id) == PYTEST:
                return [expr.attr]
        return None

    # --- tests -----------------------------------------------------------------------------
    def decorator_marks(self, node, table) -> list[str]:
        out: list[str] = []
        for deco in node.decorator_list:
            out.extend(self.marks_of(deco, table) or [])
        return out

    def class_marks(self, cls: ast.ClassDef, table, classes) -> list[str]:
        out = self.decorator_marks(cls, table)
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
                out.extend(self.marks_of(stmt.value, table) or [])
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes and classes[base.id] is not cls:
                out.extend(self.class_marks(classes[base.id], table, classes))
        return out

    def methods(self, cls: ast.ClassDef, classes, seen=None) -> dict[str, ast.AST]:
        """Test methods by name, own ones overriding those of same-module bases."""
        seen = seen or set()
        found: dict[str, ast.AST] = {}
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes and base.id not in seen:
                found.update(self.methods(classes[base.id], classes, seen | {cls.name}))
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and stmt.name.startswith("test"):
                found[stmt.name] = stmt
        return found

    def scan_class(self, cls, inherited, table, classes, emit) -> None:
        if any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in cls.body):
            return
        marks = inherited + self.class_marks(cls, table, classes)
        for func in self.methods(cls, classes).values():
            emit(marks + self.decorator_marks(func, table))
        for stmt in cls.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
                self.scan_class(stmt, marks, table, classes, emit)

    def scan_file(self, path: Path, emit) -> None:
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError):
            return
        table = self.aliases_of(path, tree)
        module_marks: list[str] = []
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
                module_marks.extend(self.marks_of(node.value, table) or [])
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and node.name.startswith("test"):
                emit(module_marks + self.decorator_marks(node, table))
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                self.scan_class(node, module_marks, table, classes, emit)


def test_files(root: Path):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not any(fnmatch.fnmatch(d, p) for p in NORECURSE)
                         and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg")))
        for name in sorted(files):
            if fnmatch.fnmatch(name, "test_*.py") or fnmatch.fnmatch(name, "*_test.py"):
                yield Path(folder) / name


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    scanner = Scanner(root)
    counts = {"tests": 0, "merge": 0, "witness": 0, "freeze": 0, "unmarked": 0, "multiple": 0}

    def emit(marks: list[str]) -> None:
        lanes = {m for m in marks if m in LANES}
        counts["tests"] += 1
        if len(lanes) == 1:
            counts[lanes.pop()] += 1
        elif lanes:
            counts["multiple"] += 1
        else:
            counts["unmarked"] += 1

    files = 0
    for path in test_files(root):
        files += 1
        scanner.scan_file(path, emit)
    print(" ".join(f"{k} {v}" for k, v in counts.items()) + f" files {files}")


if __name__ == "__main__":
    main()
