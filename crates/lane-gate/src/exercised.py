"""Which changed product statements the voters executed (DESIGN §9.6, unexercised-change).

lane-gate runs this after the lanes, in a fresh ``python -I`` of the lanes' interpreter (no
project code is imported: the product files are only parsed), with coverage.py's own parser
(statements, the lines of a multi-line statement, possible branch arcs) and the data files the
bootstrap's tracer saved (a context for the voters' tests, ``v``, one for the others', ``n``;
the collection's, when the modules are imported, is the empty one and counts as the voters').

Input, one JSON object on stdin: ``data_files`` (the tracer's) and ``files``: each changed
file's absolute path -> ``lines`` (the changed lines, inclusive ranges) and ``suffix`` (its path
below the folder it imports from: a copy of the same bytes loaded from elsewhere counts as the
file). Output, one JSON object on stdout: per file, ``statements`` (each changed statement:
``line``, ``last``, its first line's ``text``, whether a voter ``ran`` it, the branch arcs
from it that no voter took, ``missed``, and ``tests``: the voters that ran it, where the run gave
each voter a context of its own, ``v|`` and its id), or ``error`` when the file does not parse.

Not executable for the rule: docstrings and comments (coverage's parser never counts them); the
body of ``if TYPE_CHECKING:`` (the name imported from ``typing`` and bound nowhere else) and of
``if __name__ == "__main__":``, at a module's or a class's top level (run once at import, or
never); and the trivial bodies (``...``, ``pass``, a docstring, ``raise NotImplementedError``) of
``@overload`` and abstract methods and of methods in a ``Protocol`` class, the decorator or base
imported from ``typing``, ``typing_extensions`` or ``abc``. A name bound otherwise (a module's own
``TYPE_CHECKING = ...``, its own ``overload``), a block inside a function (asked on every call),
or a body that computes (``super()`` reaches an abstract method's body) is code like any other.
"""

import ast
import json
import sys

from coverage import CoverageData
from coverage.parser import PythonParser

_ABSTRACT = {"abstractmethod", "abstractproperty", "abstractclassmethod", "abstractstaticmethod"}


_TYPING = ("typing", "typing_extensions")


class _Bindings:
    """What each name of a module is bound to: an import (``(module, name)``, or ``(module,
    None)`` for ``import module``) or anything else (``None``), wherever in the module."""

    def __init__(self, tree):
        self.of = {}
        self.star = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self._bind(alias.asname, (alias.name, None))
                    else:
                        top = alias.name.partition(".")[0]
                        self._bind(top, (top, None))
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name == "*":
                        self.star = True
                    elif node.level == 0:
                        self._bind(alias.asname or alias.name, (node.module, alias.name))
                    else:
                        self._bind(alias.asname or alias.name, None)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self._bind(node.id, None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._bind(node.name, None)
            elif isinstance(node, ast.arg):
                self._bind(node.arg, None)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                for name in node.names:
                    self._bind(name, None)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self._bind(node.name, None)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                self._bind(node.name, None)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                self._bind(node.rest, None)

    def _bind(self, name, source):
        self.of.setdefault(name, []).append(source)

    def resolves(self, node, modules, names):
        """Whether `node` (``X`` or ``module.X``, subscripted or called) is one of `names` from
        one of `modules` and nothing else."""
        while isinstance(node, (ast.Subscript, ast.Call)):
            node = node.value if isinstance(node, ast.Subscript) else node.func
        if self.star:
            return False
        if isinstance(node, ast.Name):
            sources = self.of.get(node.id, [])
            return bool(sources) and all(
                s is not None and s[0] in modules and s[1] in names for s in sources)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            sources = self.of.get(node.value.id, [])
            return node.attr in names and bool(sources) and all(
                s is not None and s[1] is None and s[0] in modules for s in sources)
        return False


def _is_main_check(test):
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    mains = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and mains)


def _span(body):
    return range(body[0].lineno, body[-1].end_lineno + 1)


def _trivial(body):
    """A body that computes nothing: docstrings, ``...``, ``pass``, ``raise NotImplementedError``."""
    for statement in body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and (
                statement.value.value is Ellipsis or isinstance(statement.value.value, str)):
            continue
        if isinstance(statement, ast.Raise) and statement.cause is None:
            raised = statement.exc
            if isinstance(raised, ast.Call) and not raised.keywords and all(
                    isinstance(a, ast.Constant) for a in raised.args):
                raised = raised.func
            if isinstance(raised, ast.Name) and raised.id == "NotImplementedError":
                continue
        return False
    return True


def _top_level_ifs(tree):
    """The ``if`` statements at a module's or a class's top level (not inside a function)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.If):
                yield child
            stack.append(child)


def exempt_lines(tree):
    """(lines no test is expected to run, lines whose branch into such a body is exempt)."""
    bound = _Bindings(tree)
    lines = set()
    guards = set()
    for node in _top_level_ifs(tree):
        if bound.resolves(node.test, _TYPING, {"TYPE_CHECKING"}) or _is_main_check(node.test):
            lines.update(_span(node.body))
            guards.add(node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _trivial(node.body):
            if any(bound.resolves(d, ("abc",), _ABSTRACT)
                   or bound.resolves(d, _TYPING, {"overload"}) for d in node.decorator_list):
                lines.update(_span(node.body))
        elif isinstance(node, ast.ClassDef) and any(
                bound.resolves(b, _TYPING, {"Protocol"}) for b in node.bases):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _trivial(
                        item.body):
                    lines.update(_span(item.body))
    return lines, guards


def _measured(data, path, suffix):
    """The measured files that are `path`: itself, or a copy of its bytes loaded from elsewhere
    by the same import path (a non-editable install of this tree)."""
    found = []
    own = None
    for name in sorted(data.measured_files()):
        if name == path:
            found.append(name)
        elif name.endswith("/" + suffix):
            if own is None:
                with open(path, "rb") as f:
                    own = f.read()
            try:
                with open(name, "rb") as f:
                    same = f.read() == own
            except OSError:
                same = False
            if same:
                found.append(name)
    return found


def _changed(first, last, ranges):
    return any(a <= last and first <= b for a, b in ranges)


def judge(path, request, data):
    try:
        with open(path, "rb") as f:
            source = f.read()
        text = source.decode("utf-8")
        tree = ast.parse(source, filename=path)
        parser = PythonParser(text=text, filename=path, exclude=None)
        parser.parse_source()
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as e:
        return {"error": str(e)}
    ranges = [tuple(r) for r in request["lines"]]
    exempt, guards = exempt_lines(tree)
    # A voter's context, or the collection's (the empty one): a module-level statement runs when
    # the voting process imports its module.
    data.set_query_contexts(["^v", "^$"])
    lines = set()
    arcs = set()
    tests_of = {}
    for name in _measured(data, path, request["suffix"]):
        lines.update(data.lines(name) or [])
        arcs.update(data.arcs(name) or [])
        for line, contexts in (data.contexts_by_lineno(name) or {}).items():
            voters = {c[2:] for c in contexts if c.startswith("v|")}
            if voters:
                tests_of.setdefault(parser.first_line(line), set()).update(voters)
    ran = parser.translate_lines(lines)
    arcs = parser.translate_arcs(arcs)
    possible = parser.arcs()
    exits = parser.exit_counts()
    source_lines = text.splitlines()
    last_of = {}
    for line in range(1, len(source_lines) + 1):
        first = parser.first_line(line)
        last_of[first] = max(last_of.get(first, first), line)
    statements = []
    for first in sorted(parser.statements):
        last = last_of.get(first, first)
        if first in exempt or not _changed(first, last, ranges):
            continue
        missed = []
        if first in ran and exits.get(first, 0) > 1 and first not in guards:
            missed = sorted(a for a in possible if a[0] == first and a not in arcs
                            and a[1] not in exempt)
        shown = source_lines[first - 1].strip() if first <= len(source_lines) else ""
        if len(shown) > 100:
            shown = shown[:97] + "..."
        statements.append({"line": first, "last": last, "text": shown,
                           "ran": first in ran, "missed": missed,
                           "tests": sorted(tests_of.get(first, ()))})
    return {"statements": statements}


def main():
    request = json.load(sys.stdin)
    data = CoverageData(no_disk=True)
    for name in request["data_files"]:
        part = CoverageData(basename=name)
        part.read()
        data.update(part)
    out = {path: judge(path, asked, data) for path, asked in sorted(request["files"].items())}
    json.dump(out, sys.stdout, sort_keys=True)


main()
