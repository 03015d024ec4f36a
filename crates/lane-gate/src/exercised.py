"""Which changed product statements the voters executed (DESIGN §9.6, unexercised-change).

lane-gate runs this after the lanes, in a fresh ``python -I`` of the lanes' interpreter (no
project code is imported: the product files are only parsed), with coverage.py's own parser
(statements, the lines of a multi-line statement, possible branch arcs) and the data files the
bootstrap's tracer saved (one context per test: ``v`` + id for a voter, ``n`` + id otherwise;
the collection's, when the modules are imported, is the empty one and counts as the voters').

Input, one JSON object on stdin: ``data_files`` (the tracer's), ``files`` (absolute path ->
the changed line numbers; every line for a new file). Output, one JSON object on stdout: per
file, ``statements`` (each changed statement: ``line``, ``last``, whether a voter ``ran`` it,
the ``tests`` (voters) that did, and the branch arcs from it that no voter took, ``missed``),
or ``error`` when the file does not parse.

Not executable for the rule: docstrings and comments (coverage's parser never counts them), the
body of ``if TYPE_CHECKING:`` and of ``if __name__ == "__main__":``, the bodies of ``@overload``
and abstract methods and of methods in a ``Protocol`` class.
"""

import ast
import json
import sys

from coverage import CoverageData
from coverage.parser import PythonParser

_ABSTRACT = {"abstractmethod", "abstractproperty", "abstractclassmethod", "abstractstaticmethod"}


def _name(node):
    """The last name of a Name / Attribute / Subscript / Call chain (``typing.Protocol[T]``)."""
    while isinstance(node, (ast.Subscript, ast.Call)):
        node = node.value if isinstance(node, ast.Subscript) else node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


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


def exempt_lines(tree):
    """(lines no test is expected to run, lines whose branch into such a body is exempt)."""
    lines = set()
    guards = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (_name(node.test) == "TYPE_CHECKING"
                                         or _is_main_check(node.test)):
            lines.update(_span(node.body))
            guards.add(node.lineno)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(_name(d) in _ABSTRACT or _name(d) == "overload" for d in node.decorator_list):
                lines.update(_span(node.body))
        elif isinstance(node, ast.ClassDef) and any(_name(b) == "Protocol" for b in node.bases):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines.update(_span(item.body))
    return lines, guards


def judge(path, changed, data):
    try:
        with open(path, "rb") as f:
            source = f.read()
        text = source.decode("utf-8")
        tree = ast.parse(source, filename=path)
        parser = PythonParser(text=text, filename=path, exclude=None)
        parser.parse_source()
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as e:
        return {"error": str(e)}
    exempt, guards = exempt_lines(tree)
    # A voter's context, or the collection's (the empty one): a module-level statement runs when
    # the voting process imports its module.
    data.set_query_contexts(["^v", "^$"])
    ran = parser.translate_lines(data.lines(path) or [])
    arcs = parser.translate_arcs(data.arcs(path) or [])
    by_line = data.contexts_by_lineno(path)
    possible = parser.arcs()
    exits = parser.exit_counts()
    last_of = {}
    for line in range(1, len(text.splitlines()) + 2):
        first = parser.first_line(line)
        last_of[first] = max(last_of.get(first, first), line)
    statements = {}
    for line in sorted(changed):
        first = parser.first_line(line)
        if first not in parser.statements or first in exempt or first in statements:
            continue
        tests = set()
        for number in range(first, last_of.get(first, first) + 1):
            tests.update(c[1:] for c in by_line.get(number, ()) if c.startswith("v"))
        missed = []
        if first in ran and exits.get(first, 0) > 1 and first not in guards:
            missed = sorted(a for a in possible if a[0] == first and a not in arcs
                            and a[1] not in exempt)
        statements[first] = {"line": first, "last": last_of.get(first, first),
                             "ran": first in ran, "tests": sorted(tests), "missed": missed}
    return {"statements": [statements[k] for k in sorted(statements)]}


def main():
    request = json.load(sys.stdin)
    data = CoverageData(no_disk=True)
    for name in request["data_files"]:
        part = CoverageData(basename=name)
        part.read()
        data.update(part)
    out = {path: judge(path, lines, data) for path, lines in sorted(request["files"].items())}
    json.dump(out, sys.stdout, sort_keys=True)


main()
