"""pytest-lanes-gate: the pytest side of lanes.

Registers the three lane markers, checks the collection contract (exactly one lane per test, no
unconditional skip) with lane-scan's rule ids and messages in a project that has adopted lanes,
offers the ``lane_replay`` fixture for freeze tests, and records each test's runtime lanes,
file and line as JUnit properties for lane-tally's ``lane-drift``.

It runs inside the process under test, so what it records corroborates lane-scan's static
reading of the source; it never replaces it.
"""

from __future__ import annotations

import ast
import hashlib
import os
import tempfile
from pathlib import Path

import pytest
from _pytest.doctest import DoctestItem

__version__ = "0.1.0"

#: The lanes in lane-scan's order (messages list them in this order).
LANES = ("merge", "witness", "freeze")

MARKER_HELP = {
    "merge": "votes on the patch: a property over a generated domain (@given) or a "
    "human-written oracle with an owner: line (lanes)",
    "witness": "locked golden bytes or a dated characterization: may fail a patch, never "
    "approves it (lanes)",
    "freeze": "a known intermittent failure with a freeze-ledger ticket: runs, never votes "
    "(lanes)",
}

#: The JUnit properties this plugin writes on every test case of an adopted project.
PROP_MARKS = "lanes_marks"
PROP_FILE = "lanes_file"
PROP_LINE = "lanes_line"
PROP_TEST = "lanes_test"
#: The property lane-tally reads for a freeze case's capsule.
PROP_REPLAY = "replay"

#: Where ``lane_replay`` writes capsules, relative to the rootdir.
REPLAY_DIR = Path(".lanes") / "replay"

#: The names ``-p`` may give this plugin (its module and its entry point).
PLUGIN_NAMES = ("pytest_lanes_gate",)

#: The ini key giving every doctest item (module docstrings and text files) its lane: a
#: docstring cannot carry a decorator, so the project chooses one lane for all of them.
DOCTEST_LANE_KEY = "lanes_doctest_lane"

_STATE = pytest.StashKey["_State"]()


class _State:
    def __init__(self) -> None:
        self.deselected: list[pytest.Item] = []
        self.adopted = False
        # file -> {first line of a definition (decorator or def): the def's own line}
        self.def_lines: dict[str, dict[int, int]] = {}
        # The lane of doctest items (``lanes_doctest_lane``), or None.
        self.doctest_lane: str | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lanes", "lanes: merge, witness and freeze lanes")
    group.addoption(
        "--lanes-contract",
        choices=("fail", "record"),
        default="fail",
        help="fail (default): stop before any test runs when the lane contract is broken; "
        "record: only record each test's runtime lanes (lane-gate's mode: its static scan "
        "judges the contract)",
    )
    parser.addini(
        DOCTEST_LANE_KEY,
        help="the lane (merge, witness or freeze) of every doctest item: pytest-lanes-gate adds "
        "its mark to each at collection, and lane-scan reads the same key (lanes)",
        type="string",
        default="",
    )


def pytest_configure(config: pytest.Config) -> None:
    for lane in LANES:
        config.addinivalue_line("markers", f"{lane}: {MARKER_HELP[lane]}")
    state = _State()
    value = (config.getini(DOCTEST_LANE_KEY) or "").strip()
    if value:
        if value not in LANES:
            where = config.inipath if config.inipath is not None else "the configuration"
            raise pytest.UsageError(
                f"{where}: {DOCTEST_LANE_KEY} is {value!r}: the lane of the project's doctest "
                f"items is one of {', '.join(LANES)}"
            )
        state.doctest_lane = value
    plugins = getattr(config.option, "plugins", None) or []
    state.adopted = any(p in PLUGIN_NAMES for p in plugins)
    config.stash[_STATE] = state


def pytest_deselected(items) -> None:
    # Deselected items (``-m merge``, ``-k``) still count for "has this project adopted lanes".
    if items:
        config = items[0].config
        if _STATE in config.stash:
            config.stash[_STATE].deselected.extend(items)


def lane_test_id(item: pytest.Item) -> str:
    """The item's test id as lanes writes it: the node id without parametrization."""
    nodeid = item.nodeid
    original = getattr(item, "originalname", None)
    if original and nodeid.endswith(item.name):
        return nodeid[: len(nodeid) - len(item.name)] + original
    return nodeid


def runtime_lanes(item: pytest.Item) -> list[str]:
    """The lane marks that reach the item now, in lane-scan's order."""
    names = {m.name for m in item.iter_markers()}
    return [lane for lane in LANES if lane in names]


def _is_test_function(item: pytest.Item) -> bool:
    # Python test functions and methods (unittest's included), and doctest items (their lane
    # comes from ``lanes_doctest_lane``); items of other plugins have no lane marks of their own.
    return isinstance(item, (pytest.Function, DoctestItem))


@pytest.hookimpl(tryfirst=True)
def pytest_itemcollected(item: pytest.Item) -> None:
    # Before any ``pytest_collection_modifyitems`` (``-m`` deselection included) sees the item.
    if not isinstance(item, DoctestItem):
        return
    state = item.config.stash.get(_STATE, None)
    if state is not None and state.doctest_lane is not None:
        item.add_marker(state.doctest_lane)


def _root_relative(config: pytest.Config, path: Path) -> str:
    root = Path(config.rootpath)
    try:
        return Path(os.path.relpath(path, root)).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _def_lines(state: _State, filename: str) -> dict[int, int]:
    """For every function definition in ``filename``: its first line (the first decorator's,
    as the code object records it) -> the ``def`` line (what lane-scan reports)."""
    cached = state.def_lines.get(filename)
    if cached is not None:
        return cached
    lines: dict[int, int] = {}
    try:
        tree = ast.parse(Path(filename).read_bytes(), filename)
    except (OSError, SyntaxError, ValueError):
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                lines[first] = node.lineno
    state.def_lines[filename] = lines
    return lines


def location(item: pytest.Item) -> tuple[str, int]:
    """The root-relative file defining the test function and its ``def`` line (1-based)."""
    config = item.config
    state = config.stash[_STATE]
    func = getattr(item, "function", None)
    code = getattr(func, "__code__", None)
    if code is not None and code.co_filename and os.path.isfile(code.co_filename):
        first = code.co_firstlineno
        line = _def_lines(state, code.co_filename).get(first, first)
        return _root_relative(config, Path(code.co_filename)), line
    path, line0, _ = item.location
    return _root_relative(config, Path(config.invocation_params.dir) / path), (line0 or 0) + 1


def contract_problems(items) -> list[tuple[str, int, str, str]]:
    """lane-scan's collection rules over the items, once per test id:
    ``(file, line, rule, message)`` sorted."""
    seen: set[str] = set()
    problems = []
    for item in items:
        if not _is_test_function(item):
            continue
        tid = lane_test_id(item)
        if tid in seen:
            continue
        seen.add(tid)
        file, line = location(item)
        lanes = runtime_lanes(item)
        if not lanes and isinstance(item, DoctestItem):
            problems.append(
                (file, line, "unmarked", f"doctest {tid} has no lane: give every doctest item "
                 f"its lane with `{DOCTEST_LANE_KEY} = merge` (or witness, freeze) in the pytest "
                 "configuration")
            )
        elif not lanes:
            problems.append(
                (file, line, "unmarked", f"{tid} has no lane: mark it merge, witness or freeze")
            )
        elif len(lanes) > 1:
            problems.append(
                (file, line, "multiple-lanes", f"{tid} is in {len(lanes)} lanes: {', '.join(lanes)}")
            )
        if any(True for _ in item.iter_markers("skip")):
            problems.append(
                (
                    file,
                    line,
                    "unconditional-skip",
                    f"{tid} is skipped unconditionally: a skip deletes evidence",
                )
            )
    problems.sort()
    return problems


# What to run next when a test has no lane, on the interrupted line too (the line `pytest -q`
# ends with): the codemod gives every unmarked test its lane and lists for a human what it
# leaves.
FIX_HINT = (
    "run `lane-scan --fix` to give unmarked tests their lanes (`lane-scan --diff` shows the "
    "edits first)"
)


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    everything = list(session.items) + list(state.deselected)
    if not state.adopted:
        state.adopted = any(
            runtime_lanes(item) for item in everything if _is_test_function(item)
        )
    if not state.adopted or config.getoption("lanes_contract") != "fail":
        return
    problems = contract_problems(everything)
    if not problems:
        return
    lines = [f"{file}:{line}: {rule}: {message}" for file, line, rule, message in problems]
    hint = any(rule == "unmarked" for _, _, rule, _ in problems)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.section("lanes contract (pytest-lanes-gate)", red=True, bold=True)
        for text in lines:
            reporter.line(text, red=True)
        reporter.line(
            "every test needs exactly one lane mark (merge, witness or freeze) and no "
            "unconditional skip; `lane-scan --explain RULE` says why and how to fix it"
        )
        if hint:
            reporter.line(FIX_HINT)
    raise session.Interrupted(
        f"{len(problems)} lanes contract error{'s' if len(problems) != 1 else ''} "
        f"(pytest-lanes-gate): {lines[0]}" + (f"; {FIX_HINT}" if hint else "")
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call) -> None:
    # The teardown report is the one JUnit takes a case's properties from; by then every mark
    # a fixture or hook could add has been added.
    if call.when != "teardown" or not _is_test_function(item):
        return
    state = item.config.stash.get(_STATE, None)
    if state is None or not state.adopted:
        return
    if any(name == PROP_MARKS for name, _ in item.user_properties):
        return
    file, line = location(item)
    item.user_properties.extend(
        [
            (PROP_MARKS, ",".join(runtime_lanes(item))),
            (PROP_FILE, file),
            (PROP_LINE, str(line)),
            (PROP_TEST, lane_test_id(item)),
        ]
    )


def _capsule_name(nodeid: str, name: str | None) -> str:
    """One capsule per item (each parametrized case its own): the node id made a file name,
    with a digest of it so that two ids never share a file."""
    digest = hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:12]
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in nodeid).strip("._")
    if name is not None:
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            raise ValueError(f"lane_replay: name {name!r} must be a plain file name")
        return f"{safe[:80]}-{digest}-{name}"
    return f"{safe[:80]}-{digest}.bin"


@pytest.fixture
def lane_replay(request: pytest.FixtureRequest):
    """Writes a freeze test's capsule (the input that reproduces its failure) under the
    rootdir and records it as the case's ``replay`` property.

    ``path = lane_replay(data, name=None)``: ``data`` is bytes (a str is written as UTF-8);
    the file is replaced atomically; the returned path is absolute. Only freeze tests may use
    it: a capsule is what their ledger ticket replays.
    """
    item = request.node
    lanes = runtime_lanes(item)
    if lanes != ["freeze"]:
        pytest.fail(
            f"lane_replay: {lane_test_id(item)} is not a freeze test (its lanes: "
            f"{', '.join(lanes) or 'none'}); only a freeze test records a replay capsule",
            pytrace=False,
        )
    root = Path(request.config.rootpath)

    def write(data, name: str | None = None) -> Path:
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"lane_replay: expected bytes or str, got {type(data).__name__}")
        folder = root / REPLAY_DIR
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / _capsule_name(item.nodeid, name)
        fd, tmp = tempfile.mkstemp(prefix=".capsule.", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(bytes(data))
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        rel = target.relative_to(root).as_posix()
        item.user_properties[:] = [p for p in item.user_properties if p[0] != PROP_REPLAY]
        item.user_properties.append((PROP_REPLAY, rel))
        return target

    return write
