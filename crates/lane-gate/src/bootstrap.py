"""lane-gate's bootstrap: the first code of every pytest run the gate starts (DESIGN §9.6).

It runs before ``import pytest`` and before any project module, in ``python -P``, and sets up
what the vote relies on while the code on trial runs in the same interpreter:

- the **outcome channel**: each test report as pytest makes it, and the run's exit status,
  written as JSON lines to a pipe whose descriptor comes from the gate on stdin (neither the
  environment nor ``argv`` names it); stdin is then ``/dev/null``;
- the **origins** of the project's modules: a finder first on ``sys.meta_path`` records, for
  every module of the project's top-level names, where the rest of the import system loads it
  from (the loader's origin, not ``__file__``), and compiles every such Python source from its
  bytes (a ``__pycache__`` is never read for product code);
- when the configuration asks for it, the **tracer** (coverage.py's measurement core), limited
  to the product files the patch changed and on only while a changed module's body runs and
  while the tests run (until the voters have run every changed line), with one context for the
  voters' tests (``v``) and one for the others' (``n``), saved to a data file outside the tree;
- a **snapshot** of the identities the run depends on (built-ins, the import system's hooks, the
  file callables of ``io``, ``os`` and ``pathlib``, pytest's runner and report entry points,
  hypothesis's strategies and settings), compared before each test and at the end; and each
  test as collected (its function, its code, its hypothesis settings), compared before and
  after it runs.

The gate reads the channel from outside the process and judges it (report-contradicts-stream,
foreign-product-code, unexercised-change, tracer-tampered, runtime-tampered). Nothing here
decides the vote.

Configuration, one JSON line on stdin: ``path`` (folders put first on ``sys.path``, and on
``PYTHONPATH`` for children), ``channel`` (the descriptor), ``product`` (top-level module names
of the project), ``trace`` (null, or ``patterns``: the changed product files by their import path,
``data_file``, ``voters``: test ids that vote, and ``per_test``: each voter in a context of its own,
``v|`` and its id, so the mutants know voters that ran each changed statement),
and ``mutant`` (null, or ``suffix`` and ``source``: the product file by its import path, and the
mutated source the run compiles in its place, DESIGN §12).
pytest's arguments are ``sys.argv[1:]``.
"""

import sys

# References taken before any other code runs: what product code later does to the modules
# does not reach them.
import builtins as _builtins
import io as _io
import json as _json
import os as _os
import time as _time

_write = _os.write
_getpid = _os.getpid
_monotonic = _time.monotonic
_gettrace = sys.gettrace
_dumps = _json.dumps
_compile = compile
_isinstance = isinstance
_id = id
_getattr = getattr
_type = type


def _read_config():
    line = sys.stdin.buffer.readline()
    null = _os.open(_os.devnull, _os.O_RDONLY)
    _os.dup2(null, 0)
    _os.close(null)
    return _json.loads(line)


CONFIG = _read_config()
CHANNEL = CONFIG["channel"]
PID = _getpid()


#: Records not yet written: a test's phases go out together after its teardown.
_PENDING = []


def send(record, later=False):
    """One JSON line on the channel; `later` keeps it until the next record that is not."""
    _PENDING.append(_dumps(record, separators=(",", ":")))
    if later:
        return
    data = ("\n".join(_PENDING) + "\n").encode()
    del _PENDING[:]
    view = memoryview(data)
    while view:
        n = _write(CHANNEL, view)
        view = view[n:]


# ---- sys.path, as the gate's earlier bootstrap did -----------------------------------------
_path = [d for d in CONFIG.get("path", []) if d]
sys.path[0:0] = _path
if _path:
    _os.environ["PYTHONPATH"] = _os.pathsep.join(_path)
if sys.pycache_prefix:
    # A module of the interpreter's own installation (standard library, site-packages) that is
    # not under the tree reads its classic __pycache__ (no cold compile of pytest and hypothesis
    # on every run); everything else reads bytecode only from the fresh prefix.
    import _frozen_importlib_external as _be

    def _warm():
        real, join = _os.path.realpath, _os.path.join
        tree = join(real(_os.getcwd()), "")
        roots = {join(real(d), "") for d in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                              sys.base_exec_prefix) if d}
        roots = tuple(r for r in roots if not r.startswith(tree))
        cached = _be.cache_from_source

        def cache_from_source(path, debug_override=None, *, optimization=None):
            pyc = cached(path, debug_override, optimization=optimization)
            source = real(_os.fspath(path))
            if source.startswith(roots) and not source.startswith(tree):
                head = _os.path.dirname(_os.fspath(path))
                return join(head, "__pycache__", _os.path.basename(pyc))
            return pyc

        _be.cache_from_source = cache_from_source

    _warm()
    del _warm, _be


# ---- strict comparisons ------------------------------------------------------------------
#: The changed product files, by their import path (`pkg/core.py`): classes defined there that
#: derive from a value type have their comparisons checked against that type's own.
_CHANGED = tuple("/" + p[3:] for p in (CONFIG.get("trace") or {}).get("patterns", ())
                 if p.startswith("**/"))
#: The voting tests' modules, absolute: comparisons made by their code are checked.
_VOTER_FILES = frozenset(
    _os.path.join(_os.getcwd(), v.partition("::")[0])
    for v in (CONFIG.get("trace") or {}).get("voters", ()))
_COMPARISONS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__")
#: Set once the run's channel is known to the guard (the `send` of the current test).
_FORGED = []


def _changed_file(path):
    return bool(_CHANGED) and _isinstance(path, str) and path.endswith(_CHANGED)


def _value_types():
    import decimal
    import fractions
    return (str, bytes, int, float, complex, tuple, list, dict, set, frozenset, bytearray,
            decimal.Decimal, fractions.Fraction)


def _guard_comparisons(module):
    """Wraps the comparison and truthiness methods a changed product class derived from a value
    type brings (its own or a mixin's, anything found before the value type on its MRO): when a
    voting test's code compares with it, the value type's own method answers too, and a
    different answer is recorded."""
    values = _value_types()
    for obj in list(vars(module).values()):
        # defined here, or built here by types.new_class (whose classes name `types`)
        if not _isinstance(obj, _type) or _getattr(obj, "__module__", None) not in (
                module.__name__, "types"):
            continue
        base = next((b for b in obj.__mro__[1:] if b in values), None)
        if base is None:
            continue
        for name in _COMPARISONS:
            owner = next((c for c in obj.__mro__ if name in vars(c)), None)
            if owner is None or owner in values or owner is object:
                continue
            if base.__mro__.count(owner):
                continue
            _wrap(obj, name, _getattr(obj, name), base)


def _wrap(cls, name, method, base):
    own = _getattr(base, name, None)
    if own is None and name == "__bool__":
        length = _getattr(base, "__len__", None)
        own = (lambda self: length(self) != 0) if length is not None else None
    if own is None:
        return
    label = cls.__module__ + "." + cls.__qualname__ + "." + name
    getframe = sys._getframe

    def checked(self, *args):
        answer = method(self, *args)
        caller = getframe(1).f_code.co_filename
        if caller in _VOTER_FILES:
            try:
                truth = own(self, *args)
            except Exception:
                truth = NotImplemented
            if truth is not NotImplemented and answer is not NotImplemented:
                if bool(answer) != bool(truth):
                    _FORGED.append(label + " answered " + repr(bool(answer)) + " where "
                                   + base.__qualname__ + "." + name + " answers "
                                   + repr(bool(truth)))
        return answer

    checked.__name__ = name
    checked.__qualname__ = cls.__qualname__ + "." + name
    _type.__setattr__(cls, name, checked)


# ---- origins of the project's modules --------------------------------------------------------
import importlib.machinery as _machinery  # noqa: E402

_PRODUCT = frozenset(CONFIG.get("product", []))
#: ("/" + the mutated file's import path, its mutated source), or None.
_MUTANT = (("/" + CONFIG["mutant"]["suffix"], CONFIG["mutant"]["source"])
           if CONFIG.get("mutant") else None)
_SourceFileLoader = _machinery.SourceFileLoader
_ExtensionFileLoader = _machinery.ExtensionFileLoader
_SourcelessFileLoader = _machinery.SourcelessFileLoader


class _SourceOnly(_SourceFileLoader):
    """Loads a product module from its source bytes, never from a bytecode cache."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        if _MUTANT is not None and path.endswith(_MUTANT[0]):
            send({"k": "mutant", "path": path})
            return _compile(_MUTANT[1], path, "exec", dont_inherit=True)
        return _compile(self.get_data(path), path, "exec", dont_inherit=True)

    def exec_module(self, module):
        changed = _changed_file(self.get_filename(module.__name__))
        # A changed module's own body counts as run (its definitions, its constants): the tracer
        # is on while it executes, wherever the import happens.
        traced = changed and _TRACER is not None and _TRACER.module_begins(module.__name__)
        try:
            super().exec_module(module)
        finally:
            if traced:
                _TRACER.module_ends(module.__name__)
        if changed:
            _guard_comparisons(module)


def _kind(loader, origin):
    if _isinstance(loader, _SourceFileLoader) and origin and origin.endswith(".py"):
        return "source"
    if _isinstance(loader, _ExtensionFileLoader):
        return "extension"
    if _isinstance(loader, _SourcelessFileLoader):
        return "sourceless"
    if origin is None:
        return "namespace"
    return "other"


class _ProductFinder:
    """First on sys.meta_path: finds a product module as the finders after it would, records
    where it loads from, and loads its source without bytecode."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] not in _PRODUCT:
            return None
        spec = None
        after = False
        for finder in list(sys.meta_path):
            if finder is self:
                after = True
                continue
            find = _getattr(finder, "find_spec", None) if after else None
            if find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        if spec is None:
            return None
        kind = _kind(spec.loader, spec.origin)
        send({"k": "origin", "module": fullname, "origin": spec.origin, "kind": kind,
              "loader": _type(spec.loader).__module__ + "." + _type(spec.loader).__qualname__})
        if kind == "source":
            spec.loader = _SourceOnly(fullname, spec.origin)
            spec.cached = None
        return spec


_FINDER = _ProductFinder()
sys.meta_path.insert(0, _FINDER)


# ---- the tracer --------------------------------------------------------------------------
_TRACE = CONFIG.get("trace")
_VOTERS = frozenset(_TRACE["voters"]) if _TRACE else frozenset()
_PER_TEST = bool(_TRACE and _TRACE.get("per_test"))


class _Coverage:
    """Whether the voters have run every changed statement and every arc from a changed line:
    then the tracer has nothing left to learn and stops for good."""

    def __init__(self, cov, lines):
        self.cov = cov
        self.lines = {"/" + suffix: [tuple(r) for r in ranges] for suffix, ranges in lines.items()}
        self.needed = {}  # measured file -> (parser, statements, arcs) the voters must run
        self.last = None

    def _needed(self, path, ranges):
        from coverage.parser import PythonParser
        with open(path, encoding="utf-8") as f:
            parser = PythonParser(text=f.read(), filename=path, exclude=None)
        parser.parse_source()
        exits = parser.exit_counts()
        statements = {s for s in parser.statements if any(a <= s <= b for a, b in ranges)}
        arcs = {a for a in parser.arcs() if a[0] in statements and exits.get(a[0], 0) > 1}
        return parser, statements, arcs

    def complete(self):
        """Asked between tests; looks at most every quarter second (the data is flushed to look,
        and what the look finds decides nothing but when the tracer stops)."""
        now = _monotonic()
        if self.last is not None and now - self.last < 0.25:
            return False
        self.last = now
        try:
            data = self.cov.get_data()
            data.set_query_contexts(["^v", "^$"])
            measured = data.measured_files()
            for suffix, ranges in self.lines.items():
                names = [m for m in measured if m.endswith(suffix)]
                if not names:
                    return False
                for name in names:
                    if name not in self.needed:
                        self.needed[name] = self._needed(name, ranges)
                    parser, statements, arcs = self.needed[name]
                    if not statements <= parser.translate_lines(data.lines(name) or []):
                        return False
                    if not arcs <= parser.translate_arcs(data.arcs(name) or []):
                        return False
            return True
        except Exception:
            return False


class _Tracer:
    """coverage.py's tracer, on only where a changed line's run counts: a changed module's own
    body while it is imported, and the tests, from the first one on, until the voters have run
    every changed statement and arc. Off elsewhere: the collection's machinery makes most of a
    run's Python calls, and the tracer's cost is per call. The tracer function that should be
    installed is known at every moment (None while off); any other is recorded."""

    def __init__(self, cov, lines):
        self.cov = cov
        self.covered = _Coverage(cov, lines)
        #: The trace function the tracer installed, None while off.
        self.fn = None
        #: "" (a module's body during the collection), then "v" (voters) or "n" (the others).
        self.context = ""
        #: Every changed line has run under a voter: off for good.
        self.done = False

    def intact(self):
        return _gettrace() is self.fn

    def _on(self):
        self.cov.start()
        self.fn = _gettrace()

    def _off(self):
        self.cov.stop()
        self.fn = None

    def module_begins(self, name):
        """Before a changed module's body: on, unless it already is (a test imports it)."""
        if self.fn is not None or self.done:
            return False
        if not self.intact():
            send({"k": "tracer", "where": "the import of " + name})
        self._on()
        return True

    def module_ends(self, name):
        if not self.intact():
            send({"k": "tracer", "where": "the import of " + name})
        self._off()

    def test_begins(self, test):
        """Before each test: on (it stays on between tests), in the test's context."""
        if self.done:
            return
        if self.fn is not None and self.covered.complete():
            self._off()
            self.done = True
            return
        if self.fn is None:
            self._on()
        # Two contexts, voters' and the others' (a switch saves the tracer's data), or, where the
        # mutants need each statement's voters, one per voter (a switch that saves nothing costs
        # little, and only the tests that ran a changed line leave data).
        if test not in _VOTERS:
            context = "n"
        elif _PER_TEST:
            context = "v|" + test
        else:
            context = "v"
        if context != self.context:
            self.cov.switch_context(context)
            self.context = context

    def finish(self):
        if not self.intact():
            send({"k": "tracer", "where": "the end of the run"})
        if self.fn is not None:
            self._off()
        self.cov.save()


_TRACER = None
if _TRACE:
    try:
        import coverage as _coverage
    except ImportError as e:
        send({"k": "fatal", "what": "coverage", "detail": str(e)})
        raise SystemExit(3)
    _TRACER = _Tracer(_coverage.Coverage(data_file=_TRACE["data_file"], config_file=False,
                                         branch=True, include=_TRACE["patterns"],
                                         auto_data=False),
                      _TRACE.get("lines", {}))


# ---- pytest, hypothesis, and the snapshot --------------------------------------------------
import pathlib as _pathlib  # noqa: E402

import pytest  # noqa: E402

import _pytest.reports as _reports  # noqa: E402
import _pytest.runner as _runner  # noqa: E402

_WATCHED_CALLABLES = {
    "io": (_io, ("open", "open_code", "FileIO", "BufferedReader", "TextIOWrapper")),
    "os": (_os, ("open", "read", "write", "stat", "lstat", "fstat", "listdir", "scandir",
                 "replace", "rename", "remove", "unlink", "fspath", "getcwd", "_exit",
                 "dup2", "close")),
    "_pytest.runner": (_runner, ("pytest_runtest_protocol", "runtestprotocol", "call_and_report",
                                 "call_runtest_hook", "CallInfo")),
    "_pytest.reports": (_reports, ("TestReport", "CollectReport", "BaseReport")),
    "pytest": (pytest, ("main", "fail", "skip", "xfail", "raises", "approx")),
}

#: Classes whose own attributes (as their __dict__ holds them: a classmethod stays the same
#: object, where getattr would bind a new one) are watched.
_WATCHED_CLASSES = {
    "pathlib.Path": (_pathlib.Path, ("open", "read_text", "read_bytes", "write_text",
                                     "write_bytes", "exists", "is_file", "stat")),
    "pathlib.PurePath": (_pathlib.PurePath, ("__str__", "__fspath__")),
    "_pytest.reports.TestReport": (_reports.TestReport, ("__init__", "from_item_and_call")),
    "_pytest.reports.BaseReport": (_reports.BaseReport, ("passed", "failed", "skipped",
                                                         "_to_json")),
    "_pytest.runner.CallInfo": (_runner.CallInfo, ("from_call", "__init__")),
}


def _snapshot():
    snap = {}
    for name, value in vars(_builtins).items():
        snap["builtins." + name] = _id(value)
    for where, (obj, names) in _WATCHED_CALLABLES.items():
        for name in names:
            snap[where + "." + name] = _id(_getattr(obj, name, None))
    for where, (cls, names) in _WATCHED_CLASSES.items():
        own = vars(cls)
        for name in names:
            snap[where + "." + name] = _id(own.get(name))
    snap["sys.meta_path"] = tuple(_id(f) for f in sys.meta_path if f is not _FINDER)
    snap["sys.path_hooks"] = tuple(_id(h) for h in sys.path_hooks)
    if _HYPOTHESIS:
        strategies, settings = _HYPOTHESIS
        for name, value in vars(strategies).items():
            if not name.startswith("_"):
                snap["hypothesis.strategies." + name] = _id(value)
        for name in ("_profiles", "load_profile", "register_profile", "get_profile"):
            snap["hypothesis.settings." + name] = _id(_getattr(settings, name, None))
    return snap


def _watched_places():
    """Each (namespace, name) the snapshot watches, taken once: the fingerprint reads these."""
    places = [(vars(_builtins), name) for name in vars(_builtins)]
    for obj, names in _WATCHED_CALLABLES.values():
        places += [(vars(obj), name) for name in names]
    for cls, names in _WATCHED_CLASSES.values():
        places += [(vars(cls), name) for name in names]
    if _HYPOTHESIS:
        strategies, settings = _HYPOTHESIS
        places += [(vars(strategies), n) for n in vars(strategies) if not n.startswith("_")]
        places += [(vars(settings), n) for n in ("_profiles", "load_profile",
                                                   "register_profile", "get_profile")]
    return places


def _fingerprint(places, manager):
    """The identities of what the snapshot watches, cheaply: the full comparison runs only when
    this moves (a change, or an allowed hook appended)."""
    ids = [_id(space.get(name)) for space, name in places]
    ids += [_id(f) for f in sys.meta_path]
    ids += [_id(h) for h in sys.path_hooks]
    ids.append(frozenset(_id(p) for p in manager.get_plugins()))
    return ids


#: hypothesis's strategies module and settings class, once imported by the snapshot.
_HYPOTHESIS = ()


def _watch_hypothesis(run):
    """When hypothesis's pytest plugin is loaded, takes hypothesis's strategies and
    settings into the snapshot, and has `settings.load_profile` say when the project's code
    calls it: a profile is the base's tests' business (a conftest may load one), never the
    product's."""
    global _HYPOTHESIS
    if "_hypothesis_pytestplugin" not in sys.modules:
        return
    # The plugin imports hypothesis only when a test needs it: the snapshot imports it now,
    # before any code of the project can reach it.
    try:
        import hypothesis
        import hypothesis.strategies as strategies
    except ImportError:
        return
    settings = hypothesis.settings

    def guarded(what, call):
        def guard(*args, **kwargs):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            product = _isinstance(caller, str) and caller.partition(".")[0] in _PRODUCT
            if product:
                run.tampered("hypothesis.settings." + what, "called from " + caller)
            answer = call(*args, **kwargs)
            if not product:
                # the test surface chose the profile: the new baseline
                run.profile = _effective(settings)
            return answer
        return guard

    # The settings class refuses assignment through its metaclass; the gate is not the project.
    for name in ("load_profile", "register_profile"):
        _type.__setattr__(settings, name, staticmethod(guarded(name, _getattr(settings, name))))
    _HYPOTHESIS = (strategies, settings)


def _effective(settings):
    """The settings a test without its own would run with, and the run's forced seed (the
    gate's), as text (every value)."""
    try:
        core = sys.modules.get("hypothesis.core")
        seed = _getattr(core, "global_force_seed", None) if core is not None else None
        return repr(settings.default) + ", seed " + repr(seed)
    except Exception as e:  # a profile that cannot be read is a change too
        return "unreadable: " + _type(e).__name__


def _test_identity(item):
    """What runs as `item` and with which hypothesis settings: the test function and its code,
    for a hypothesis test the inner test and its code, its settings object, its @seed and its
    @reproduce_failure. Taken when the test is collected, compared before it runs: the
    project's code replacing any of them (a function's code swapped, a settings attribute set on
    the test) changes what the base's test checks."""
    obj = _getattr(item, "obj", None)
    obj = _getattr(obj, "__func__", obj)
    found = [_id(obj), _id(_getattr(obj, "__code__", None))]
    if _getattr(obj, "is_hypothesis_test", False):
        inner = _getattr(_getattr(obj, "hypothesis", None), "inner_test", None)
        found += [_id(inner), _id(_getattr(inner, "__code__", None)),
                  repr(_getattr(obj, "_hypothesis_internal_use_settings", None)),
                  repr(_getattr(obj, "_hypothesis_internal_use_seed", None)),
                  repr(_getattr(obj, "_hypothesis_internal_use_reproduce_failure", None))]
    return found


def _from_product(obj):
    """Whether `obj` (a finder, a hook) was made by the project's code: its class or function is
    defined in a module of the project's top-level names."""
    if _isinstance(obj, _type) or _getattr(obj, "__code__", None) is not None:
        module = _getattr(obj, "__module__", None)
    else:
        module = _getattr(_type(obj), "__module__", None)
    return _isinstance(module, str) and module.partition(".")[0] in _PRODUCT


def _hooks(before, now, key, live):
    """What changed in an import-system list: a hook removed, one put in front of the gate's
    finder, or one the project's code added (a library's own finder, six's, is not judged)."""
    changed = []
    old = before.get(key, ())
    new = now.get(key, ())
    if any(i not in new for i in old):
        changed.append(key + " (a hook was removed)")
    if key == "sys.meta_path":
        if sys.meta_path.count(_FINDER) != 1:
            changed.append("sys.meta_path (the gate's finder was removed)")
        else:
            ahead = sys.meta_path[: sys.meta_path.index(_FINDER)]
            if any(_id(f) not in old for f in ahead):
                changed.append("sys.meta_path (a finder was put in front of the gate's)")
    # A hook the project's code adds after the last standard one (tlz's finder, appended) only
    # sees what nothing else finds: it cannot shadow a module on disk. One put before it can.
    standard = [i for i, h in enumerate(live) if _id(h) in old]
    last = standard[-1] if standard else len(live)
    ahead = [h for h in live[:last] if h is not _FINDER and _id(h) not in old]
    if any(_from_product(h) for h in ahead):
        changed.append(key + " (the project's code added a hook ahead of the standard ones)")
    return changed


#: Names the interpreter itself rebinds: `_` (the last expression value a doctest printed).
_REBOUND = frozenset({"builtins._"})


def _changes(before, now):
    """Built-ins may gain names (gettext installs `_`); they may not lose or change one. Every
    other watched callable must stay the object it was."""
    changed = []
    for key, value in before.items():
        if key in ("sys.meta_path", "sys.path_hooks") or key in _REBOUND:
            continue
        if now.get(key, None) != value:
            changed.append(key)
    changed += _hooks(before, now, "sys.meta_path", sys.meta_path)
    changed += _hooks(before, now, "sys.path_hooks", sys.path_hooks)
    return sorted(changed)


class _Run:
    """The bootstrap's own plugin: integrity before each test, one channel record per report."""

    def __init__(self):
        self.snapshot = None
        self.seen = None
        self.places = []
        self.where = "the collection"
        self.manager = None
        self.plugins = set()
        #: hypothesis's effective profile as the test surface left it (None: not watched).
        self.profile = None
        #: Each collected test's identity (`_test_identity`), by node id.
        self.identities = {}
        #: The test running now.
        self.item = None

    def tampered(self, what, how):
        send({"k": "tamper", "where": self.where, "what": [what + " (" + how + ")"]})

    def check(self, where):
        if _TRACER is not None and not _TRACER.intact():
            send({"k": "tracer", "where": where})
        if _FORGED:
            send({"k": "forged", "where": self.where, "what": sorted(set(_FORGED))})
            del _FORGED[:]
        if self.snapshot is None:
            return
        seen = _fingerprint(self.places, self.manager)
        if seen == self.seen:
            changed = self.profile_changed()
            if changed:
                send({"k": "tamper", "where": where, "what": changed})
            return
        self.seen = seen
        changed = _changes(self.snapshot, _snapshot())
        changed += self.new_plugins()
        changed += self.profile_changed()
        if changed:
            send({"k": "tamper", "where": where, "what": changed})
            # Report a change once, where it was first seen.
            self.snapshot = _snapshot()

    def profile_changed(self):
        """hypothesis's effective profile changed other than through the test surface's
        load_profile or register_profile (a profile mutated in place, its current name or the
        default set directly)."""
        if not _HYPOTHESIS or self.profile is None:
            return []
        now = _effective(_HYPOTHESIS[1])
        if now == self.profile:
            return []
        self.profile = now
        return ["hypothesis.settings.default (the effective profile changed: " + now + ")"]

    def new_plugins(self):
        """pytest plugins the project's code registered since the last look (a conftest's own
        hooks are the test surface's; a product module's are not)."""
        if self.manager is None:
            return []
        found = []
        for plugin in self.manager.get_plugins():
            if _id(plugin) in self.plugins:
                continue
            self.plugins.add(_id(plugin))
            name = _getattr(plugin, "__name__", "")
            if _isinstance(plugin, _type(sys)):
                if name.rpartition(".")[2] == "conftest":
                    continue
                product = name.partition(".")[0] in _PRODUCT
            else:
                product = _from_product(plugin)
            if product:
                found.append("pytest's plugins (the project's code registered "
                             + (name or _type(plugin).__name__) + ")")
        return found

    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config, parser, args):
        # Taken once pytest, its import hook and the named plugins are loaded, before the first
        # conftest.py is imported: no code of the project has run yet.
        _watch_hypothesis(self)
        self.snapshot = _snapshot()
        self.manager = early_config.pluginmanager
        self.plugins = {_id(p) for p in self.manager.get_plugins()}
        self.places = _watched_places()
        # The watched objects stay referenced: none is freed, so no replacement can reuse an id.
        self.kept = [space.get(name) for space, name in self.places]
        self.seen = _fingerprint(self.places, self.manager)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session):
        # The initial conftests have loaded their profiles: the effective one is the baseline.
        if _HYPOTHESIS:
            self.profile = _effective(_HYPOTHESIS[1])

    @pytest.hookimpl(tryfirst=True)
    def pytest_itemcollected(self, item):
        try:
            self.identities[item.nodeid] = _test_identity(item)
        except Exception:  # a test that cannot be looked at is pytest's to report
            pass

    def check_test(self, item, test):
        """The test is what was collected (before it runs, and after: its own settings changed
        in place while it ran count too); a change is reported once."""
        known = self.identities.get(item.nodeid)
        if known is None:
            return
        try:
            now = _test_identity(item)
        except Exception as e:
            now = ["unreadable: " + _type(e).__name__]
        if now != known:
            self.identities[item.nodeid] = now
            send({"k": "tamper", "where": test, "what": [
                "the test " + test + " (its function, its code or its hypothesis settings"
                " changed after it was collected)"]})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        test = _test_id(item)
        self.check(test)
        self.check_test(item, test)
        self.item = item
        self.where = test
        if _TRACER is not None:
            _TRACER.test_begins(test)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report):
        item = self.item
        if report.when == "teardown" and item is not None and item.nodeid == report.nodeid:
            self.check_test(item, self.where)
        send({"k": "report", "id": report.nodeid, "when": report.when,
              "outcome": report.outcome, "xfail": bool(_getattr(report, "wasxfail", None))},
             later=report.when != "teardown")

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report):
        if report.outcome != "passed":
            send({"k": "collect", "id": report.nodeid, "outcome": report.outcome})

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        self.check("the end of the session")
        send({"k": "session", "status": int(exitstatus)})


def _test_id(item):
    nodeid = item.nodeid
    original = _getattr(item, "originalname", None)
    if original and nodeid.endswith(item.name):
        return nodeid[: len(nodeid) - len(item.name)] + original
    return nodeid


def main():
    run = _Run()
    send({"k": "start", "pid": PID})
    try:
        status = pytest.main(plugins=[run])
    except Exception:
        # Raised out of pytest.main before any session ran: pytest refused the configuration
        # (a conftest hook with an argument its hookspec lacks, a plugin that does not
        # register). pytest's own command prints the traceback and exits 1, like failed tests;
        # here it is the internal error it is (3), so the gate says pytest could not run.
        import traceback

        traceback.print_exc()
        status = 3
    if _TRACER is not None:
        _TRACER.finish()
    send({"k": "end", "status": int(status)})
    raise SystemExit(int(status))


main()
