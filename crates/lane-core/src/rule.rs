//! The rule catalogue: the one place a rule lives. Every rule id any lanes tool reports, with
//! its severity, the tool that reports it, a one-line summary, an explanation, how to fix it and
//! whether an acknowledgment may let it pass (DESIGN §9.3), and the constants its detection
//! names. `--explain RULE` on every binary prints an entry; the rule sections of
//! docs/evidence.md are generated from here (`evidence_md`), and a test fails when they drift.
//!
//! The entries are grouped by the tool whose section carries the rule. Adding a rule (the
//! steps docs/architecture.md walks through): its entry below in its tool's group (and a
//! constant beside it if the rule names one), one rule file in that tool's `rules/` holding the
//! decision and the message, registered by one line in the tool's detector table, and its
//! tests; then `LANES_WRITE_DOCS=1 cargo test -p lane-core --test rules_documented` rewrites the
//! docs.

use crate::problem::Severity;

/// `expiring-soon`: a ticket expiring within this many days (0 = today) draws the warning.
pub const SOON_DAYS: i64 = 7;

/// `expiry-too-far`: the default horizon of freeze-ledger's `--max-days`.
pub const DEFAULT_MAX_DAYS: u32 = 90;

/// `file-too-large`: the largest source file lane-scan reads (2 MiB, over five times the
/// largest test file of CPython, NumPy, SymPy or pyparsing). Also the most source bytes parsed
/// at once across all threads, which bounds peak memory (docs/robustness.md).
pub const SOURCE_MAX_BYTES: u64 = 2 << 20;
/// `weakened-search`: a property setting `max_examples` below this searches less than
/// hypothesis's default.
pub const MIN_MAX_EXAMPLES: u64 = 100;

/// The rules that make a suite illegal (the tally table's last row): they reject the job.
pub const ILLEGAL: &[Rule] = &[Rule::UnconditionalSkip, Rule::Unmarked, Rule::MultipleLanes];

macro_rules! rules {
    ($( $variant:ident = $id:literal, $sev:ident, $tool:literal, acknowledgeable: $ack:literal,
        summary: $summary:literal, explanation: $explain:literal, fix: $fix:literal; )*) => {
        /// A rule id. `Rule::id()` is the kebab-case id written into documents.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule { $( $variant, )* }

        impl Rule {
            pub const ALL: &'static [Rule] = &[ $( Rule::$variant, )* ];

            pub fn id(self) -> &'static str {
                match self { $( Rule::$variant => $id, )* }
            }

            /// The severity the rule reports with.
            pub fn severity(self) -> Severity {
                match self { $( Rule::$variant => Severity::$sev, )* }
            }

            /// The tool whose section carries this rule's problems.
            pub fn tool(self) -> &'static str {
                match self { $( Rule::$variant => $tool, )* }
            }

            /// One line: when the rule fires.
            pub(crate) fn summary(self) -> &'static str {
                match self { $( Rule::$variant => $summary, )* }
            }

            /// Why it matters, after the summary.
            pub(crate) fn explanation(self) -> &'static str {
                match self { $( Rule::$variant => $explain, )* }
            }

            /// How to fix it.
            pub fn fix(self) -> &'static str {
                match self { $( Rule::$variant => $fix, )* }
            }

            /// Whether the rule flags a change for review rather than a broken invariant, so an
            /// acknowledgment from outside the patch may let it pass (DESIGN §9.3).
            pub fn acknowledgeable(self) -> bool {
                match self { $( Rule::$variant => $ack, )* }
            }

            pub fn from_id(id: &str) -> Option<Rule> {
                match id { $( $id => Some(Rule::$variant), )* _ => None }
            }
        }
    };
}

rules! {
    // ---- lane-scan ----
    Unmarked = "unmarked", Error, "lane-scan", acknowledgeable: false,
        summary: "a collected test has no lane",
        explanation: "Every test pytest collects must carry exactly one of the marks merge, witness or freeze. A test without a lane is not a default merge vote: the gate cannot know what it is evidence of. Doctest items (text files, and module docstrings with --doctest-modules) cannot carry a mark: they take the lane of the ini key `lanes_doctest_lane`, and without it each is unmarked.",
        fix: "add @pytest.mark.merge (a property or a human-written oracle), @pytest.mark.witness (locked bytes) or @pytest.mark.freeze (a known flake with a ledger row), or delete the test. For doctest items set `lanes_doctest_lane = merge` (or freeze) in the pytest configuration (pytest-lanes-gate adds that mark to every doctest item at collection).";
    MultipleLanes = "multiple-lanes", Error, "lane-scan", acknowledgeable: false,
        summary: "more than one distinct lane reaches a test",
        explanation: "Lanes are exclusive. Marks from the function, its classes, base classes and pytestmark all reach a test; when two different lanes arrive the test would both vote and not vote.",
        fix: "keep one lane, usually by moving the test out of the marked class or module.";
    ParamLaneMark = "param-lane-mark", Error, "lane-scan", acknowledgeable: false,
        summary: "a lane mark inside pytest.param(..., marks=...)",
        explanation: "A lane mark given to one parameter set splits a single test id across lanes, and test ids in the evidence have no parameters.",
        fix: "split the cases into separate test functions, one per lane.";
    UnconditionalSkip = "unconditional-skip", Error, "lane-scan", acknowledgeable: false,
        summary: "a test is skipped unconditionally",
        explanation: "A skip deletes evidence. pytest.mark.skip, unittest.skip, skipif with a constant-true condition, pytest.skip() at the top of a test body or at module level, and skip marks in pytestmark or pytest.param all hide a test from the vote.",
        fix: "move a flaky test to the freeze lane with a ledger row, or delete it.";
    ConditionalSkip = "conditional-skip", Warning, "lane-scan", acknowledgeable: false,
        summary: "skipif with a real condition",
        explanation: "A test skipped on some platforms is fine, but a skipped merge test does not vote: lane-tally reports merge-skipped when it does not run where the gate runs. Make sure the condition is false on the gate's runner.",
        fix: "Nothing, if the condition is false where the gate runs. If it can be true on the gate's runner, the test will not vote there (`merge-skipped`); drop the condition or run the gate where it holds.";
    XfailInVotingLane = "xfail-in-voting-lane", Error, "lane-scan", acknowledgeable: false,
        summary: "xfail or expectedFailure on a merge or witness test",
        explanation: "An expected failure in a voting lane turns a failing voter into a silent pass.",
        fix: "make the test pass, delete it, or move the known failure to the freeze lane with a ledger row.";
    RetryInVotingLane = "retry-in-voting-lane", Error, "lane-scan", acknowledgeable: false,
        summary: "a retry reaches a merge or witness test",
        explanation: "A voter that passes on its second try has not passed. A flaky mark (pytest-rerunfailures, flaky) or --reruns / --force-flaky in the configuration's addopts reaches merge and witness tests.",
        fix: "remove the retry; a genuinely intermittent test belongs in the freeze lane.";
    UnresolvedMarker = "unresolved-marker", Error, "lane-scan", acknowledgeable: false,
        summary: "a mark expression cannot be resolved statically",
        explanation: "lane-scan never runs the code it reads, so a decorator or pytestmark value computed at run time (pytestmark = make_marks(), getattr(pytest.mark, name)) could carry any lane or skip.",
        fix: "write the marks literally, e.g. pytestmark = [pytest.mark.merge].";
    MissingAttachment = "missing-attachment", Error, "lane-scan", acknowledgeable: false,
        summary: "a test lacks the attachment its lane requires",
        explanation: "merge property tests (@given) need a 'shrinking:' note in the docstring; human-written merge tests need an 'owner:' line in the docstring; witness tests need fixture= (golden bytes, locked in lanes.lock) or locked_on= (characterization date).",
        fix: "add the attachment the message names.";
    MissingFixture = "missing-fixture", Error, "lane-scan", acknowledgeable: false,
        summary: "a witness fixture= path does not exist",
        explanation: "The golden file a witness test names (relative to the test file's folder) is not on disk, so its bytes cannot be locked.",
        fix: "correct the path or add the file and lock it with lane-lock lock.";
    Tautology = "tautology", Error, "lane-scan", acknowledgeable: false,
        summary: "a merge test whose assertions cannot fail",
        explanation: "assert True, assert x == x and similar assertions pass whatever the code does, so the test cannot fail a wrong patch and must not vote. Counted: literals (assert 'text', assert [1]), isinstance(x, object), and a literal or a name the test body itself bound compared with itself (applied = f(x); assert applied == applied checks nothing about applied). Not counted: a value the body built by calling a class of the project that defines __eq__ itself, found through the test module's imports, compared with itself (u = URL(...); assert u == u tests URL.__eq__; a function's result, a class lane-scan cannot resolve, one without its own __eq__ and one of the test tree still count); a parameter (a @given value, a fixture) or a module-level object compared with itself (packaging's assert Infinity == Infinity): that tests the object's own __eq__, a reflexivity property real suites write on purpose; nor two evaluations of a call (f() == f()), which test that the code returns the same thing each time.",
        fix: "assert a property of the code under test (a round trip, an inverse, a known input/output pair).";
    NoAssertion = "no-assertion", Warning, "lane-scan", acknowledgeable: false,
        summary: "a merge test with no assertion",
        explanation: "A merge test without assert, pytest.raises / pytest.warns, pytest.fail, raise AssertionError or self.assert* only proves the code does not crash. A helper of the test tree the test calls (a function of its module, of a conftest or of a test-tree module it imports, such as tests/helpers.py, or for a test method a method of its class or of a base class the scan resolves, called as self.name(...)) that does one of these counts, followed up to 8 calls deep; a method of another object (a fixture's), product code or anything lane-scan cannot resolve does not. Consider asserting the behaviour you rely on.",
        fix: "Assert the behaviour the test relies on (`assert`, `pytest.raises`, `pytest.warns`, `self.assert*`). A warning only: it does not fail the gate.";
    ParseError = "parse-error", Error, "lane-scan", acknowledgeable: false,
        summary: "a Python file does not parse",
        explanation: "A test file that cannot be parsed cannot be scanned, so its tests are unknown and the gate fails closed. The other files are still scanned. Fix the syntax error at the reported line and column.",
        fix: "Fix the syntax error at the reported line and column; lane-scan parses Python 3 source without importing it.";
    RuntimeHook = "runtime-hook", Warning, "lane-scan", acknowledgeable: false,
        summary: "a conftest.py hook can change marks or outcomes at run time",
        explanation: "Hooks such as pytest_collection_modifyitems or pytest_runtest_makereport can add marks, deselect tests or rewrite results after lane-scan has read the source. The tally still matches every reported case against the scan, but review these hooks by hand.",
        fix: "Review the hook by hand. If it only adds logging, leave it; if it changes marks, deselects tests or rewrites outcomes, remove it — lanes reads marks from the source.";
    UnregisteredMarker = "unregistered-marker", Error, "lane-scan", acknowledgeable: false,
        summary: "merge, witness and freeze are not all registered markers",
        explanation: "The gate runs pytest with --strict-markers, which fails on unregistered marks.",
        fix: "register them in the pytest configuration, e.g. markers = merge: votes / witness: locked bytes / freeze: ledger-backed flake.";
    EmptyMergeLane = "empty-merge-lane", Error, "lane-scan", acknowledgeable: false,
        summary: "no merge test at all",
        explanation: "Only merge tests can approve a patch; with none, nothing can vote and the gate fails closed.",
        fix: "write at least one property or human-written oracle in the merge lane.";
    FreezeOverBudget = "freeze-over-budget", Error, "lane-scan", acknowledgeable: false,
        summary: "more freeze tests than merge tests",
        explanation: "Freeze count is a queue length. When it outgrows the merge lane the suite is parking failures instead of specifying behaviour.",
        fix: "replay and promote or delete frozen tests; do not raise the budget.";
    FileTooLarge = "file-too-large", Error, "lane-scan", acknowledgeable: false,
        summary: "a Python file is larger than lane-scan reads (SOURCE_MAX_BYTES, 2 MiB)",
        explanation: "lane-scan refuses a source file over SOURCE_MAX_BYTES (2 MiB) without reading it, so that a hostile file in a patch cannot exhaust the CI runner's memory: parsing costs up to about 170 bytes of memory per byte of source that does not parse. The largest test files of real suites are under 0.4 MB (CPython's test_typing.py, pyparsing's test_unit.py, SymPy's test_spin.py). Its tests are unknown, so the gate fails closed.",
        fix: "Split the file into smaller test modules, or move generated data out of Python source into a data file the test reads.";
    TestRedefined = "test-redefined", Error, "lane-scan", acknowledgeable: false,
        summary: "a collected test name is bound more than once in its module or class",
        explanation: "pytest runs whatever the name is bound to last (a second def, `test_x = other`, an import as the name), while the scan judges one definition. Definitions in both branches of an if or try whose condition the scan cannot decide are refused too; sys.version_info and sys.platform comparisons are decided for the target interpreter and only the branch that runs counts.",
        fix: "Give each test one definition: rename or delete the other binding, or guard alternatives with a sys.version_info / sys.platform condition.";
    CodingCookie = "coding-cookie", Error, "lane-scan", acknowledgeable: false,
        summary: "a source file declares an encoding other than UTF-8",
        explanation: "CPython and pytest decode a file with the encoding its PEP 263 coding cookie names, while lane-scan reads UTF-8: with another encoding the scan would judge different text than the one that runs. utf-8, utf8, utf_8 (any case) and ascii are accepted.",
        fix: "Save the file as UTF-8 and remove the cookie (or declare utf-8).";
    UnsafeAddopts = "unsafe-addopts", Error, "lane-scan", acknowledgeable: false,
        summary: "addopts holds an option that changes what runs or how it is reported",
        explanation: "addopts is added to every pytest run, the gate's too. Options that change selection, collection, the rootdir, the report or hypothesis's search (positional paths, -k, -m, --deselect, -p NAME, --co, -o, --rootdir, --confcutdir, --junitxml, --pyargs, --lf, --ff, --sw, --hypothesis-seed, --hypothesis-profile, snapshot-update flags) would make the run differ from what was scanned. A bare argument after an option lanes does not know is refused too: it may be a path.",
        fix: "Remove the option from addopts; pass it on the command line of a local run instead. Write an unknown option's value as --opt=VALUE.";
    UnknownAddopts = "unknown-addopts", Warning, "lane-scan", acknowledgeable: false,
        summary: "addopts holds an option lanes does not know",
        explanation: "lanes knows which pytest and common plugin options change nothing it relies on (verbosity, --tb, -W, --cov, -n, -x ...) and which change what runs (unsafe-addopts). An option it does not know could be either; it is named so a human can check it.",
        fix: "Check the option does not change selection, collection or reports; if it does, remove it from addopts. A warning only.";
    SwallowedFailure = "swallowed-failure", Error, "lane-scan", acknowledgeable: false,
        summary: "a merge test's assertion can never fail the test",
        explanation: "An assert inside a try whose handler catches AssertionError, Exception, BaseException or everything and lets it go (no raise, no pytest.fail, nothing kept for a later assert), an assert inside contextlib.suppress of those, or an assert on an `or` with an operand that cannot be false (`assert x == y or True`) cannot fail a wrong patch, so the test must not vote.",
        fix: "Let the assertion fail: remove the try / suppress, re-raise or call pytest.fail in the handler, or keep the failures and assert on them afterwards (`failures.append(e)` ... `assert not failures`).";
    WeakenedSearch = "weakened-search", Warning, "lane-scan", acknowledgeable: false,
        summary: "a merge property searches a narrowed or shortened domain",
        explanation: "The property filters its inputs with assume(), sets max_examples below 100 (hypothesis's default), sets phases without generate, sets derandomize=True, or runs under a hypothesis profile loaded in a conftest.py that does. Real suites do these on purpose, so on its own this only informs; the domain attachment records the @given arguments, every assume() and the effective settings, and lane-tally --base reports a change of them as domain-changed.",
        fix: "Nothing, if the narrowing is intended. Otherwise widen the strategy instead of filtering, and keep max_examples at 100 or more. A warning only.";
    RuntimeTestDefinition = "runtime-test-definition", Error, "lane-scan", acknowledgeable: false,
        summary: "a test module creates test classes or functions at run time",
        explanation: "type(name, bases, namespace), a class or def statement in a loop, writes through globals(), locals() or vars(), setattr on sys.modules or on a class, a metaclass other than abc.ABCMeta on a test class, or a test name bound to a call's result: the tests (or methods) they create exist only once the module runs, so lane-scan cannot know every test of the module or every mark of them. Its tests would reach the tally as unknown-test with no explanation; the scan says so here instead.",
        fix: "Write each test as a def or class statement at module (or class) level, and express variation with @pytest.mark.parametrize or a parametrized fixture; for unittest suites, one method per case, or subTest inside one method.";
    ItemCreatingHook = "item-creating-hook", Error, "lane-scan", acknowledgeable: false,
        summary: "a conftest or plugin module of the project defines a hook that creates test items",
        explanation: "pytest_collect_file, pytest_collect_directory, pytest_pycollect_makeitem and pytest_pycollect_makemodule in a conftest.py or in a plugin module the configuration loads (-p NAME in addopts, pytest_plugins) make test items (from YAML, text or generated code) that no static reading of Python can list. Every test in the folders the hook reaches is unknown to lane-scan.",
        fix: "Turn the generated cases into ordinary tests: a test function parametrized over the data files (@pytest.mark.parametrize with a literal or a glob read in the test module), with lane marks written in the source. Installed plugins are not the project's own code and are not flagged.";
    UnresolvedTestBase = "unresolved-test-base", Error, "lane-scan", acknowledgeable: false,
        summary: "a test class derives from a base lane-scan cannot read",
        explanation: "The class's tests, its marks and whether it is a unittest.TestCase come from its bases. A base that is neither a class of the test tree nor one lane-scan knows holds no tests (builtins, unittest.TestCase, abc, typing, enum, collections, dataclasses) is unknown: inherited tests and marks would be missed. Only classes that look like tests (named by python_classes, or with test methods) are reported.",
        fix: "Derive test classes from classes defined in the test tree (a shared base module under the tests folder) or from unittest.TestCase directly. A base computed at run time (a call, a subscript) should become a plain class statement.";
    UnresolvedCollectIgnore = "unresolved-collect-ignore", Error, "lane-scan", acknowledgeable: false,
        summary: "a conftest sets collect_ignore or collect_ignore_glob in a way lane-scan cannot read",
        explanation: "pytest leaves out of collection the paths a conftest lists in collect_ignore and the patterns in collect_ignore_glob (relative to the conftest's folder; the nearest conftest defining the list decides). lane-scan reads literal lists of strings, + of them, +=, .append and .extend at module level, under if conditions on sys.version_info, sys.platform and os.name decided for the target interpreter. A value computed at run time (a call, a comprehension, a variable), a change inside a function, a loop or a try block, or a condition it cannot decide (an import that may fail, an environment variable) leaves it unsure which files pytest collects under that folder: tests would be reported that pytest never runs, or missed.",
        fix: "Write the lists as literals at module level of the conftest, and make the variation a condition on sys.version_info or sys.platform; to skip tests when an optional dependency is missing, use pytest.importorskip in the test module (its tests then stay visible and get their lanes).";
    UnseenDoctests = "unseen-doctests", Error, "lane-scan", acknowledgeable: false,
        summary: "with --doctest-modules, a module's doctest items cannot all be read statically",
        explanation: "With --doctest-modules pytest imports every Python module it walks (conftest.py included; not __main__.py or a setuptools setup.py) and collects, through doctest.DocTestFinder, one test per docstring holding examples: the module's, and those of the functions, classes, methods, static and class methods, properties and nested classes defined in it, and the entries of its __test__ dict, named `path.py::module.Class.name`. lane-scan reads these from the source and gives them the lane of `lanes_doctest_lane`. It cannot read a docstring set at run time (`__doc__ = ...` computed, `f.__doc__ = ...`, `setattr(x, \"__doc__\", ...)`, a `__doc__` key given to type()), a decorator it does not know on an object whose docstrings hold examples (it may replace the object, rename it, or drop its docstring: a cached_property's examples are collected on some Python versions only), an object with examples bound under if/try/a loop (whether it exists depends on run time), a function or class made by a call from one with examples, a string with examples that is no docstring it can place (a nested function's), or a __test__ entry that is not a string or a function or class of the module. Nor can it know the module names when the config sets consider_namespace_packages = true: pytest then names a module by the first folder above it under which Python's import system finds it at run time, which depends on sys.path (python -m pytest puts the working folder first, the pytest script does not), so every module's items may be named `ns.pkg.mod.f` or `pkg.mod.f` (reported once, at the config line). Those items would reach the tally as unknown tests or be missed.",
        fix: "Make the docstrings literal and the objects plain definitions at module or class level: write the docstring in the def (not assigned afterwards), use decorators that keep the function (functools.wraps inside, or staticmethod, classmethod, property, functools.lru_cache), define the object unconditionally (choose the implementation inside it), or move the examples into a doctest text file or a marked test that runs doctest.testmod; with --doctest-modules leave consider_namespace_packages off (or give the namespace folders an __init__.py and drop the option).";
    FixMarkers = "fix-markers", Warning, "lane-scan", acknowledgeable: false,
        summary: "lane-scan --fix registers the lane markers the pytest configuration lacks",
        explanation: "pytest's --strict-markers refuses an unregistered mark, and lane-scan reports unregistered-marker. --fix adds the missing merge, witness and freeze lines to the markers value of the file pytest already reads (pytest.ini, .pytest.ini, tox.ini [pytest], setup.cfg [tool:pytest], pyproject.toml [tool.pytest.ini_options] or [tool.pytest], pytest.toml), or writes a pytest.ini when there is none. Every other byte of the file is kept. Nothing is added when required_plugins names pytest-lanes-gate, which registers them.",
        fix: "Nothing to do: review the diff (lane-scan --diff) and commit it.";
    FixProperty = "fix-property", Warning, "lane-scan", acknowledgeable: false,
        summary: "lane-scan --fix gives an unmarked hypothesis property (@given) the merge lane",
        explanation: "A property checks an invariant over a generated domain: it can tell a wrong patch from a right one, so it votes. The merge lane then asks for a 'shrinking:' note (in its docstring, its class's or its module's): --fix --shrinking NOTE writes one into the module docstring, or lists the modules that lack one.",
        fix: "Nothing to do if the property asserts behaviour the patch must keep; otherwise mark it by hand before running --fix.";
    FixSnapshot = "fix-snapshot", Warning, "lane-scan", acknowledgeable: false,
        summary: "lane-scan --fix gives an unmarked test that takes a snapshot fixture the witness lane",
        explanation: "A test that takes syrupy's or pytest-snapshot's snapshot fixture (or syrupy's snapshot_* ones), or a pytest-regressions *_regression fixture, compares output with stored golden bytes: it corroborates those bytes and may fail a patch, but never approves one.",
        fix: "Lock the snapshot files with lane-lock lock, as for any witness.";
    FixFreezeCandidate = "fix-freeze-candidate", Warning, "lane-scan", acknowledgeable: false,
        summary: "lane-scan --fix lists an unmarked xfail, skipped or retried test for a human instead of giving it a lane",
        explanation: "A test the scan's own lane rules refuse as a voter cannot vote: an unconditional skip (unconditional-skip: skip, unittest.skip, a skipif / skipIf / skipUnless whose condition the scan decides as skipping for the target interpreter, one reaching it from a class or module pytestmark, pytest.skip() in its body or at module level), an expected failure (xfail-in-voting-lane: xfail, unittest.expectedFailure) or a retry (retry-in-voting-lane: a flaky mark). --fix decides by the same facts the scan judges, and prints the rule and place that refuse each candidate; a conditional skip the scan cannot decide keeps the test's normal lane (conditional-skip). A known failure belongs in the freeze lane, which needs a ledger ticket (seed, input digest, expiry, replay job) that only a human can vouch for. --fix writes no ticket; it lists the test (and with --mark-freeze marks it freeze, so freeze-ledger check keeps asking for the ticket). A skipped test stays unconditional-skip in any lane. An xfail or skip inside one parameter set (pytest.param(..., marks=...)) is that parameter's, not the test's: its other parameters vote, so the test gets the lane the other rules give it, and is listed (never marked freeze) so that a human moves that parameter to a test of its own or fixes it.",
        fix: "Write its ticket with freeze-ledger add and mark it @pytest.mark.freeze (or run --fix --mark-freeze), or make it pass and let --fix give it a voting lane.";
    FixMerge = "fix-merge", Warning, "lane-scan", acknowledgeable: false,
        summary: "lane-scan --fix gives any other unmarked test the merge lane",
        explanation: "A test that is not a property, takes no snapshot fixture and is not an expected failure or skip is a human-written input/output check: it votes. One pytestmark per module when the whole module gets merge, a class decorator when a class is uniform, a decorator on the test otherwise. Doctest items, which cannot carry a mark, get it through `lanes_doctest_lane = merge` in the config file pytest reads: a docstring's examples are a human-written oracle, and a patch that changes them is doctest-changed. The merge lane then asks for an owner (a doctest's from its module's docstring or CODEOWNERS).",
        fix: "Nothing to do if the test checks behaviour; a flaky one belongs in the freeze lane with a ticket.";
    FixOwner = "fix-owner", Warning, "lane-scan", acknowledgeable: false,
        summary: "lane-scan --fix lists (or with --owner TEAM writes) the owner of modules whose merge tests have none",
        explanation: "A human-written merge test needs an owner: an owner: line in its docstring, its class's or its module's, or a CODEOWNERS entry (.github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS, .gitlab/CODEOWNERS; last match wins) for its file. --fix lists each module whose merge tests have none; --fix --owner TEAM adds an owner: line to the module's docstring (a new docstring when it has none), never replacing one.",
        fix: "Run lane-scan --fix --owner TEAM, add a CODEOWNERS entry, or write owner: lines by hand.";
    CapabilityAdded = "capability-added", Error, "lane-scan", acknowledgeable: true,
        summary: "product code the patch added or changed does more than plain computation",
        explanation: "Product code runs inside the pytest process that votes on it, so what a patch's product lines may touch is defined positively, and everything else is shown to a maintainer before the patch lands. Plain: calls of what the module or project defines or of a callable the function received; the standard library's computing modules (math, decimal values, fractions, re, string, textwrap, unicodedata, collections, itertools, functools, operator with literal names, enum, dataclasses, typing, abc, copy, heapq, bisect, datetime, json, base64, hashlib, struct, html, urllib.parse, ipaddress, csv, os.path's string functions, threading's locks, logging through a logger; docs/capabilities.md lists every entry); a third-party module the base's product code already imports; operations on values; writes to self, cls and objects the function created; definitions (functions, classes, dataclasses with their generated methods). Not plain, each a class of the finding: introspection (frames, code, tracebacks, generators, class internals such as __dict__, __class__, __globals__, co_*, a log record's pathname and lineno, a private attribute of an object the module does not define), dynamic code (exec, eval, compile, __import__, importlib, type() with three arguments, types.new_class, computed attribute names, metaclasses, redefined attribute access), reaching out (writes to objects the function did not create: monkeypatching, sys.modules and import caches, process-wide logging and warnings settings; imports of test machinery), state that outlives a call (global and nonlocal, module-level objects changed from a function, function attributes, class-level mutable containers, the random module's shared generator, decimal's context), the environment (environment variables, sys beyond a few constants, the working directory and file system, hash() of strings, high-resolution clocks, thread introspection, tracer queries), processes, threads, exit (atexit handlers included), descriptors and files, the comparison protocol (a class that defines or assigns what a test's own checks call: equality, ordering, truthiness, length, hashing, membership, __exit__; functools.total_ordering; other dunder methods such as __call__, __iter__ or operators compute values like any method), native code (ctypes, cffi, mmap), a standard-library name the table does not list, and a name bound nowhere the scan can see. Names are followed through imports, aliases at module level and inside functions, star imports and assignments. One finding per function, listing each use's line and class. With --base (lane-scan --changed) it is an error on the changed lines; without a base every product file is judged and the findings are warnings.",
        fix: "Read the listed lines. If the capability is needed, acknowledge the patch (`--ack TEXT`, naming its commit) after reading them; otherwise write the change as plain computation (pass values in as arguments, keep state on objects, compare plain values).";
    TestAwareCode = "test-aware-code", Error, "lane-scan", acknowledgeable: false,
        summary: "product code branches on being under test or reaches into the test run",
        explanation: "Product code the patch changed (lane-scan --changed DIFF; lane-gate passes its --base diff, and without --base judges every product file) reads PYTEST_* environment variables (PYTEST_CURRENT_TEST, PYTEST_VERSION ...), asks sys.modules for pytest or _pytest, reads sys._called_from_test, imports pytest or _pytest (unless the project declares a pytest11 entry point: it is a pytest plugin), names pytest's report options (--junitxml), or writes (open for writing, Path.write_text / write_bytes) to a path built from a literal under a test folder (tests, test, testing, or a testpaths entry). Code in a string literal that product code runs with exec, eval or compile (written in the call, or bound to the name it passes; through `from builtins import exec as run` and `builtins.exec` too; strings inside such strings four deep) is read the same way and reported at the call; a string built at run time is not read, and is capability-added like every exec. A library that knows it is being tested, or can touch the run, can pass any suite: it runs inside the pytest process that judges it. An atexit handler is no finding here: libraries register them for cleanup, so it is a capability (capability-added) a maintainer reads. Product files are the Python files that are not test modules, conftest.py files, or under a test folder.",
        fix: "Remove the code, including code run from a string: product behaviour must not depend on the test run. Test-only switches belong in fixtures or conftest.py (test surface, reviewed as such).";
    UndecidedTestBranch = "undecided-test-branch", Error, "lane-scan", acknowledgeable: false,
        summary: "a test is defined under an if (in a class body or at module level) that lane-scan cannot decide",
        explanation: "A module body and a class body run once, at import: of `if COND: def test_a ... else: def test_b ...` only one branch defines its tests (methods, module-level test functions, test classes). lane-scan decides conditions on sys.version_info, sys.platform, os.name, the implementation's name and sys.builtin_module_names (and constants, not / and / or of them) for the target interpreter (--python, or the python on PATH, asked in isolated mode), and collects only the tests of the branch taken. Any other condition (an import that may have failed, an environment variable, a module attribute) leaves it unknown whether the test exists: the scan keeps it and reports it here, since it may list a test pytest never collects, or give it the wrong definition.",
        fix: "Make the condition one lane-scan can decide (sys.version_info, sys.platform, os.name, platform.python_implementation(), sys.implementation.name, a literal name in or not in sys.builtin_module_names, or a name whose module-level value is built from those: lane-scan follows it into the module it is imported from), or define the test unconditionally and skip inside it with @pytest.mark.skipif(COND, reason=...) so the test always exists and its skip is visible. If no interpreter answered, pass --python PATH.";
    EmptyParameterSet = "empty-parameter-set", Error, "lane-scan", acknowledgeable: false,
        summary: "a parametrize with an empty list of values fails collection (empty_parameter_set_mark = fail_at_collect)",
        explanation: "pytest gives a test parametrized over an empty list one item with the mark the ini key empty_parameter_set_mark names: skip (the default; lane-scan reports unconditional-skip), xfail (lane-scan reports the xfail), or fail_at_collect, which makes the whole module a collection error: none of its tests run. lane-scan reads empty lists and tuples written in the parametrize call or in a used fixture's params= (the fixture's def is named). Parameter sets computed at run time (a call, a generator reading data files, a name bound to [] that is often filled later) cannot be counted statically: the test's evidence records them as empty_params (each computed set's file:line and the mark an empty one gets). If such a set comes out empty, pytest gives the test a single item with the parameter id NOTSET (test_x[NOTSET]) carrying that mark; lane-tally reports it as merge-skipped, witness-skipped or missing-freeze-run and says it is the empty computed set, and under fail_at_collect the module's collection error rejects.",
        fix: "Give the parametrize at least one parameter set, or remove the test; do not ship a parametrize over an empty list.";
    DoctestChanged = "doctest-changed", Error, "lane-scan", acknowledgeable: true,
        summary: "the patch changes the text of a doctest item",
        explanation: "With --doctest-modules (or a doctest text file) the examples in a docstring are a test, and they live in a product file: a patch that changes a function and the expected output of its examples together would pass its own doctest, and the file is product code, so the base's test surface does not replace it. lane-scan (with the lines a patch changed: --changed DIFF, or lane-gate --base) reports every doctest item whose docstring or text file the patch changed, so that a human reviews the test change.",
        fix: "Send changes to doctest examples as their own reviewed change (the base's examples then judge the code change), or have a maintainer acknowledge them (`--ack TEXT`).";
    // ---- lane-lock ----
    DigestMoved = "digest-moved", Error, "lane-lock", acknowledgeable: false,
        summary: "a locked file's SHA-256 no longer matches",
        explanation: "The bytes of a locked fixture changed. Witness tests corroborate locked bytes, and only a human moves the lock. If the change is intended, re-lock it with lane-lock lock in a separate, reviewed change and say why the bytes changed.",
        fix: "If the change is unintended, restore the file (`git checkout -- FILE`). If intended, re-lock it with `lane-lock lock FILE --today DATE` in its own change and explain why the bytes changed; a reviewer approves the new digest.";
    MissingFile = "missing-file", Error, "lane-lock", acknowledgeable: false,
        summary: "a locked file is gone",
        explanation: "The lock names a file that does not exist (or is not a regular file). Restore it, or remove its entry in a reviewed lock change.",
        fix: "Restore the file, or remove its entry from `lanes.lock` in a reviewed change.";
    UnlockedFixture = "unlocked-fixture", Error, "lane-lock", acknowledgeable: false,
        summary: "a witness fixture has no lock entry",
        explanation: "A witness test names a fixture whose digest is in neither lanes.lock nor a .sha256 sidecar, so nothing pins its bytes.",
        fix: "lane-lock lock PATH --today DATE, and review the new entry.";
    OrphanLock = "orphan-lock", Warning, "lane-lock", acknowledgeable: false,
        summary: "a lock entry that no witness test names",
        explanation: "The locked file is not a fixture of any witness test in the scan. It may be left over; remove it or name it in a witness test's fixture=. lane-lock verify reports it as a warning; lane-lock diff given the base's scan (--base-scan) reports it as an error when a witness test of the base named the entry: the patch dropped the witness and left its bytes locked.",
        fix: "Remove the entry from `lanes.lock`, or name the file in a witness test's `fixture=`. A warning only from lane-lock verify; when the base had a witness test for the entry, restore that test or remove the entry in a reviewed change.";
    UnsafePath = "unsafe-path", Error, "lane-lock", acknowledgeable: false,
        summary: "a path that leaves the root",
        explanation: "Absolute paths, '..' components and symlinks resolving outside the root are never read.",
        fix: "use a root-relative path to a file inside the repository.";
    LockEntryMoved = "lock-entry-moved", Error, "lane-lock", acknowledgeable: true,
        summary: "a lock entry's digest changed between base and head",
        explanation: "The patch changes locked bytes. Lock edits are a separate review surface: a human must confirm the new bytes are right.",
        fix: "Review the new bytes of the file the entry names. Land lock edits as their own change, so the reviewer sees only the moved digest and the reason for it.";
    LockEntryRemoved = "lock-entry-removed", Error, "lane-lock", acknowledgeable: true,
        summary: "a lock entry was removed between base and head",
        explanation: "The patch drops a locked file from the lock, so its bytes are no longer witnessed. Review the removal.",
        fix: "Review the removal: if the witness test that used the file is gone too, land both as their own change; otherwise restore the entry.";
    LockBatchedWithBehavior = "lock-batched-with-behavior", Error, "lane-lock", acknowledgeable: true,
        summary: "a patch moves digests and changes code in the same change",
        explanation: "When the same patch rewrites a golden file, its lock and the code it witnesses, the witness proves nothing. Split the lock edit into its own change, or pass --reason TEXT explaining why the bytes changed.",
        fix: "Split the patch: first the code change (which must pass against the old golden bytes, or fail honestly), then the lock edit on its own. If the bytes truly must change with the code, pass `--reason TEXT` to `lane-lock diff` so a reviewer reads why.";
    LockEntryAdded = "lock-entry-added", Error, "lane-lock", acknowledgeable: true,
        summary: "a lock entry or sidecar was added between base and head",
        explanation: "A patch that locks new golden bytes (lane-lock lock, or a new .sha256 sidecar) chooses what its own witness tests compare against. Lock edits are a separate review surface: a human confirms the new bytes are right.",
        fix: "Land the new lock entry (or sidecar) as its own change that a human reviews, or have a maintainer acknowledge it.";
    WitnessTestRemoved = "witness-test-removed", Error, "lane-lock", acknowledgeable: true,
        summary: "a witness test of the base is gone or left the witness lane",
        explanation: "lane-lock diff given the base's scan (--base-scan) and the patch's scan (the evidence document on stdin): a witness test that corroborated locked bytes in the base no longer does, so the bytes it guarded are unwatched. Dropping a failing witness is the cheapest way past it.",
        fix: "Restore the witness test. If the removal is intended, land it as its own reviewed change, or have a maintainer acknowledge it.";
    WitnessFixtureChanged = "witness-fixture-changed", Error, "lane-lock", acknowledgeable: true,
        summary: "a witness test's fixture= differs from the base's",
        explanation: "lane-lock diff given the base's scan (--base-scan): pointing a witness test at other golden bytes is the same as changing them. A human reviews which bytes the test now corroborates.",
        fix: "Point the witness test back at its base fixture. If the change is intended, land it as its own reviewed change, or have a maintainer acknowledge it.";
    OrphanSnapshot = "orphan-snapshot", Warning, "lane-lock", acknowledgeable: false,
        summary: "a snapshot file that no witness test uses",
        explanation: "lane-scan lists the files in the snapshot libraries' layouts beside each test module: syrupy's __snapshots__/<module>.ambr and __snapshots__/<module>/<test>.<ext>, pytest-regressions' data folder named after the module (<module>/<test>.<ext>; a check(basename=...) or check(fullpath=...) string literal names the file instead, and any other value is refused as missing-attachment), pytest-snapshot's snapshots/<module>/<test>/ or the snapshot_dir folder a test sets; a data file named for a class or test that is gone, or by the other setting of --with-test-class-names, is listed too. A witness test that takes the library's fixture (snapshot, data_regression, file_regression, ...) gets its files as fixtures, locked like any fixture=. A snapshot file no witness test uses is left over from a renamed or removed test, or belongs to a test outside the witness lane: its bytes pin nothing.",
        fix: "Delete the snapshot file, or put the test that uses it in the witness lane (@pytest.mark.witness) and lock the file with `lane-lock lock PATH --today DATE`. A warning only.";
    // ---- freeze-ledger ----
    InvalidTicket = "invalid-ticket", Error, "freeze-ledger", acknowledgeable: false,
        summary: "a ledger row has a bad or missing field",
        explanation: "A flake's row needs test_id, seed (an integer), input_sha256 (64 lowercase hex digits), expires_on (YYYY-MM-DD) and last_replay_job (an http(s) URL), and may list in typed the replay fields a person typed instead of capturing them from a run. A known failure's row (kind known-failure: a deterministic bug kept visible, not replayed) needs test_id, issue (an http(s) URL), owner and expires_on, has no replay fields, and its test must carry xfail (strict=True, so that the day it passes is seen); with a scan, a known-failure row whose test has no xfail mark is reported here too. Unknown fields are refused because they are usually typos. Fix the fields the message names.",
        fix: "Fix the fields the message names: `seed` an integer, `input_sha256` 64 lowercase hex digits, `expires_on` `YYYY-MM-DD`, `last_replay_job` and `issue` `http(s)` URLs, no unknown fields; a known failure's test marked `xfail(strict=True)`. `freeze-ledger add` writes valid rows.";
    DuplicateTicket = "duplicate-ticket", Error, "freeze-ledger", acknowledgeable: false,
        summary: "two ledger rows for the same test",
        explanation: "A freeze test has exactly one ticket. Remove the extra row.",
        fix: "Keep one row per test id; remove the other (`freeze-ledger remove TEST_ID` and add it again, or edit the file).";
    MissingTicket = "missing-ticket", Error, "freeze-ledger", acknowledgeable: false,
        summary: "a freeze test without a ledger row",
        explanation: "A freeze without a capsule is a skip with extra steps. Add a row with freeze-ledger add: a flake's seed, input digest and replay job captured from the gate's out folder of the run that saw it fail (--from), or a deterministic known failure's issue and owner (--known-failure); or move the test to another lane.",
        fix: "A flake: `freeze-ledger add TEST_ID --from out/lanes --expires DATE` after a gate run that saw it fail; a known bug marked `xfail(strict=True)`: `freeze-ledger add TEST_ID --known-failure --issue URL --owner WHO --expires DATE`; or move the test to another lane.";
    OrphanTicket = "orphan-ticket", Error, "freeze-ledger", acknowledgeable: false,
        summary: "a ledger row whose test is not in the freeze lane",
        explanation: "The row's test does not exist or is not a freeze test. Remove the row with freeze-ledger remove.",
        fix: "`freeze-ledger remove TEST_ID`, or put the test back in the freeze lane if it was moved by mistake.";
    ExpiredTicket = "expired-ticket", Error, "freeze-ledger", acknowledgeable: false,
        summary: "a freeze ticket is past its expiry",
        explanation: "Frozen evidence that never comes back is a skip. Replay the flake and promote or delete the test, or renew the ticket with the new replay job that justifies it.",
        fix: "Replay the flake from its capsule and fix it: promote the test to the merge lane (or delete it) and remove the row. If it must stay frozen, `freeze-ledger renew TEST_ID --from out/lanes --expires DATE --today DATE` with the out folder of the gate's run that saw it fail again (its CI job, seed and capsule are taken from there; `--replay-job URL` types the job instead), as its own reviewed change.";
    ExpiryTooFar = "expiry-too-far", Error, "freeze-ledger", acknowledgeable: false,
        summary: "a ticket expires beyond the allowed horizon",
        explanation: "Tickets expire within --max-days (90 by default) of today. Choose an earlier expiry.",
        fix: "Choose an expiry within `--max-days` (90 by default) of today.";
    CapsuleMismatch = "capsule-mismatch", Error, "freeze-ledger", acknowledgeable: false,
        summary: "the capsule file does not hash to input_sha256",
        explanation: "The replay input at input_path changed or is missing, so the flake can no longer be replayed as recorded. Restore the capsule, or record a new one with freeze-ledger renew.",
        fix: "Restore the capsule file at `input_path`, or record the new capsule with `freeze-ledger renew` so its digest is reviewed.";
    ExpiringSoon = "expiring-soon", Warning, "freeze-ledger", acknowledgeable: false,
        summary: "a ticket expires within 7 days",
        explanation: "Replay the flake and promote or delete the test before the ticket expires and starts failing the gate.",
        fix: "Replay the flake and promote or delete the test before the expiry; a warning only.";
    TicketAdded = "ticket-added", Error, "freeze-ledger", acknowledgeable: true,
        summary: "the patch adds a freeze ticket",
        explanation: "The agent does not write freeze tickets. A human reviews every new ticket, as a separate change.",
        fix: "Land the new ticket as a separate change a human reviews; an agent's patch does not add freeze tickets.";
    TicketRenewed = "ticket-renewed", Error, "freeze-ledger", acknowledgeable: true,
        summary: "the patch renews a freeze ticket",
        explanation: "A renewal extends how long a flake may stay out of the vote. A human reviews it, with the replay job that justifies it.",
        fix: "Land the renewal as a separate change, with the replay job that justifies it.";
    TicketChanged = "ticket-changed", Error, "freeze-ledger", acknowledgeable: true,
        summary: "the patch changes a freeze ticket's seed, input or capsule",
        explanation: "A ticket whose capsule changes is a new ticket in disguise. A human reviews it.",
        fix: "Land the changed ticket as a separate change; a reviewer checks the new seed, input digest and capsule.";
    // ---- lane-tally ----
    MergeFailed = "merge-failed", Error, "lane-tally", acknowledgeable: false,
        summary: "a merge test failed or errored",
        explanation: "A voter said no. Fix the code (or, if the test is wrong, the test, in a reviewed change).",
        fix: "Fix the code so the property or oracle holds. If the test itself is wrong, change it in a separate change a human reviews.";
    MergeSkipped = "merge-skipped", Error, "lane-tally", acknowledgeable: false,
        summary: "a merge test was skipped at run time",
        explanation: "A skip deletes evidence: a merge test that did not run did not vote for the patch.",
        fix: "Make the test run where the gate runs: remove the runtime `pytest.skip()`, a failing `importorskip`, or a `skipif` condition that is true on the runner.";
    FlakyVoter = "flaky-voter", Error, "lane-tally", acknowledgeable: false,
        summary: "a merge test both failed and passed, or carries rerun evidence",
        explanation: "A voter that passes on a retry has not passed. Remove reruns from the merge lane; a genuinely intermittent test belongs in the freeze lane.",
        fix: "Remove reruns from the merge run (`--reruns`, `flaky` marks), and make the test deterministic. An intermittent test belongs in the freeze lane with a ledger row.";
    MissingVote = "missing-vote", Error, "lane-tally", acknowledgeable: false,
        summary: "a merge test has no case in the merge reports",
        explanation: "The test exists in the scan but did not run in the merge lane (deselected with -k, a shard missing, a report from another run). Every merge test must vote.",
        fix: "Run the whole merge lane (`pytest -m merge`, no `-k`/`--deselect`), with every shard's report passed to `lane-tally --junit merge=...`.";
    WitnessFailed = "witness-failed", Error, "lane-tally", acknowledgeable: false,
        summary: "a witness test failed or errored",
        explanation: "The bytes a witness test corroborates no longer match what the code produces.",
        fix: "If the code is wrong, fix the code. If the golden bytes must change, update the fixture and re-lock it in a separate, reviewed change.";
    WitnessSkipped = "witness-skipped", Error, "lane-tally", acknowledgeable: false,
        summary: "a witness test was skipped at run time",
        explanation: "A skipped witness corroborates nothing; it must run.",
        fix: "Remove the runtime skip so the witness runs where the gate runs.";
    MissingWitness = "missing-witness", Error, "lane-tally", acknowledgeable: false,
        summary: "a witness test has no case in the witness reports",
        explanation: "The test exists in the scan but did not run in the witness lane.",
        fix: "Run the whole witness lane (`pytest -m witness`) and pass its report with `--junit witness=...`.";
    MissingFreezeRun = "missing-freeze-run", Error, "lane-tally", acknowledgeable: false,
        summary: "a freeze test did not run, or was skipped",
        explanation: "Freeze tests do not vote, but they must run and record; a freeze that does not run is a skip. An xfail outcome of a freeze test (a recorded known failure) ran and recorded, so it does not count as skipped.",
        fix: "Run the freeze lane (`pytest -m freeze`) and pass its report with `--junit freeze=...`; do not skip freeze tests at run time.";
    FreezeFailed = "freeze-failed", Warning, "lane-tally", acknowledgeable: false,
        summary: "a freeze test failed (recorded, not a vote)",
        explanation: "The known flake failed again. It does not vote; its replay artifact is recorded for whoever works the freeze queue.",
        fix: "Nothing for the gate (a warning only). Whoever works the freeze queue replays the recorded capsule.";
    MissingReplayArtifact = "missing-replay-artifact", Error, "lane-tally", acknowledgeable: false,
        summary: "a failed freeze case recorded no replay artifact",
        explanation: "A failing freeze test must record where its replay capsule is: record_property(\"replay\", path) naming an existing file under the rootdir (root-relative, or an absolute path inside the rootdir).",
        fix: "Call `record_property(\"replay\", \"PATH\")` in the freeze test, with the root-relative path of the capsule the failure can be replayed from, and make sure that file exists.";
    LaneMismatch = "lane-mismatch", Error, "lane-tally", acknowledgeable: false,
        summary: "a case in one lane's report belongs to another lane",
        explanation: "Each lane runs in its own pytest invocation (-m merge, -m witness, -m freeze). A report holding another lane's tests was produced with a wider selection and cannot be counted.",
        fix: "Run each lane in its own pytest invocation with `-m merge`, `-m witness` or `-m freeze`, and pass each report under its own lane.";
    UnknownTest = "unknown-test", Error, "lane-tally", acknowledgeable: false,
        summary: "a report case matches no scanned test",
        explanation: "The report holds a test that lane-scan did not see (generated at run time, from another tree, or from an earlier run), or a case whose file attribute (xunit1) is not the file that defines the test it names. Unknown evidence is a rejection, never ignored.",
        fix: "Run pytest on the same tree lane-scan scanned, with the same rootdir, and pass only this run's reports. Tests generated at run time cannot be gated: write them statically.";
    CollectionError = "collection-error", Error, "lane-tally", acknowledgeable: false,
        summary: "pytest could not collect a module",
        explanation: "A collection error means some tests never existed in the run. Fix the import or syntax error the report shows.",
        fix: "Fix the import or syntax error shown in the report so pytest collects the module.";
    NoScanEvidence = "no-scan-evidence", Error, "lane-tally", acknowledgeable: false,
        summary: "the evidence document has no scan section",
        explanation: "lane-tally matches cases against lane-scan's list of tests; without it nothing can be counted. Run lane-scan first in the pipeline.",
        fix: "Start the pipeline with `lane-scan` and feed its document to `lane-tally` on stdin or with `--input`.";
    NoLockEvidence = "no-lock-evidence", Error, "lane-tally", acknowledgeable: false,
        summary: "witness tests exist but the lock section is absent",
        explanation: "Witness tests corroborate locked digests; without lane-lock verify in the pipeline, the digests were never checked.",
        fix: "Put `lane-lock verify` in the pipeline before `lane-tally`.";
    NoLedgerEvidence = "no-ledger-evidence", Error, "lane-tally", acknowledgeable: false,
        summary: "freeze tests exist but the ledger section is absent",
        explanation: "Freeze tests need valid, unexpired tickets; without freeze-ledger check in the pipeline, the tickets were never checked.",
        fix: "Put `freeze-ledger check --today DATE` in the pipeline before `lane-tally`.";
    MergeTestRemoved = "merge-test-removed", Error, "lane-tally", acknowledgeable: true,
        summary: "a merge test of the base is gone or left the merge lane",
        explanation: "Deleting or renaming a failing voter is the cheapest way to pass a gate. If the removal is intended, acknowledge it with --reason TEXT so a reviewer sees it.",
        fix: "Restore the test. If the removal is intended, pass `--reason TEXT` to `lane-tally` so a reviewer sees why.";
    LaneChanged = "lane-changed", Error, "lane-tally", acknowledgeable: true,
        summary: "a test moved from merge to witness or freeze",
        explanation: "Moving a voter out of the merge lane removes its vote. A human reviews lane changes; acknowledge an intended one with --reason TEXT.",
        fix: "Move the test back to the merge lane. If the change is intended, pass `--reason TEXT` to `lane-tally` and have it reviewed.";
    IdentityCollision = "identity-collision", Error, "lane-tally", acknowledgeable: false,
        summary: "cases from different files claim to be the same test",
        explanation: "Two report cases carry the classname and name of one scanned test but were run from different files (the xunit1 file attribute). pytest spells a root-level tests.py with class test_invoice_merge exactly like tests/test_invoice_merge.py, so an impostor could vote in the real test's name. The case from the file that does not define the test is unknown-test too.",
        fix: "Rename or remove the module or class whose dotted name spells another test module's classname, so every case names one test.";
    DomainChanged = "domain-changed", Error, "lane-tally", acknowledgeable: true,
        summary: "a merge property's recorded domain differs from the base's",
        explanation: "A narrowed strategy, a new assume(), fewer examples or other changed settings let a property pass a wrong patch while still voting. With --base, lane-tally compares each merge property's domain attachment (the @given arguments, its assume() calls and effective settings) with the base's, and a merge test that asserted in the base and no longer asserts anything is reported too.",
        fix: "Restore the base's domain. If the change is intended, acknowledge it with --reason TEXT (lane-gate: --ack) so a reviewer sees it.";
    LaneDrift = "lane-drift", Error, "lane-tally", acknowledgeable: false,
        summary: "a test's lane marks at run time differ from its source, or pytest ran an item the scan never saw",
        explanation: "pytest-lanes-gate records, inside the pytest run, the lane marks that reached each item, its test id, file and line (JUnit properties lanes_marks, lanes_test, lanes_file, lanes_line). A conftest hook, a plugin or a fixture that adds or removes a lane mark at run time, or creates items, moves a test into or out of a lane behind the static scan's back: the vote would count evidence nobody reviewed in the source.",
        fix: "Write the lane marks in the source (decorators or pytestmark) and drop the hook or plugin code that adds, removes or creates them at run time; then the scan and the run agree.";
    KnownFailurePassed = "known-failure-passed", Warning, "lane-tally", acknowledgeable: false,
        summary: "a freeze test recorded as a known failure (xfail strict=True) passed: promote it",
        explanation: "A freeze test marked xfail(strict=True) is a recorded known failure: it runs, its failure is expected and it never votes. When it passes (pytest reports a strict xpass as a failure), the bug it records looks fixed: the test is ready to leave the freeze lane. Never a vote: a warning only.",
        fix: "Promote the test: remove its xfail mark, move it to the merge lane (or witness), and remove its ticket with `freeze-ledger remove TEST_ID`.";
    StaleReport = "stale-report", Error, "lane-tally", acknowledgeable: false,
        summary: "a report does not answer this evidence document: its run manifest names another document's digest, or it has none where one is required",
        explanation: "lane-gate gives every pytest run a run manifest (the JUnit suite name: the SHA-256 of the evidence document the run answers, the lane, and shard K of N). A report whose digest is another document's comes from another scan (a test file changed between scan and run, a shard job on another commit) or from an earlier run of the same tests (an artifact left over from a previous attempt); counting it would vote on evidence about other code. A document made by lane-gate requires the manifest in every report; a report given for the wrong lane, with a malformed manifest or with several manifests is refused too.",
        fix: "Run the lanes again from the same evidence document (lane-gate, or lane-gate --shard K/N in every shard job of one CI run, with the date pinned once per run) and vote over those reports only; remove reports left over from earlier runs from the out folder or the downloaded artifacts.";
    MissingShard = "missing-shard", Error, "lane-tally", acknowledgeable: false,
        summary: "a shard of a lane has no report",
        explanation: "The run manifests say the lanes ran in N shards, but shard K of a lane with tests has no report among those given: the shard job did not run, failed before pytest wrote its report, or its artifact was not downloaded. Its tests did not vote, whichever tests they are.",
        fix: "Make every shard job upload its out folder (also when its tests fail) and make the vote job wait for all of them and download every artifact; re-run the missing shard.";
    ConflictingShard = "conflicting-shard", Error, "lane-tally", acknowledgeable: false,
        summary: "one shard of a lane reported twice with different outcomes, or one test answered by two shards",
        explanation: "Each test of a lane belongs to exactly one shard of the split. The same shard reported twice (a re-run attempt uploading its artifact beside the first one's) with different outcomes leaves the vote to whichever file is read last; a test answered by two different shards, or shards that disagree on N, means the shard jobs did not run one split of one scan.",
        fix: "Keep one report per shard: download only the latest attempt's artifacts (or give each attempt's out folder a name the vote job picks one of), and run every shard job of one CI run with the same N and the same evidence.";
    // ---- lane-gate ----
    TestSurfaceChanged = "test-surface-changed", Error, "lane-gate", acknowledgeable: true,
        summary: "the patch changes the test surface",
        explanation: "Tests, conftest.py files, pytest configuration, the lock, sidecars, the ledger, capsules, golden files, plugin modules, files that change what Python imports before the product does (new top-level modules, *.pth, *.dist-info, sitecustomize.py, __pycache__) and dependency manifests decide the vote; a patch that changes them could approve itself. With --base the base's test surface votes on the patch's code, and every test-surface change is listed for review.",
        fix: "Send test changes as their own reviewed change, or have a maintainer acknowledge them (`--ack TEXT` naming the head commit, set by CI from a maintainer's approving review: docs/ci.md): the patch's own tree then votes.";
    LaneTimeout = "lane-timeout", Error, "lane-gate", acknowledgeable: false,
        summary: "a lane's pytest run did not finish in time",
        explanation: "lane-gate kills a lane's pytest process group after --lane-timeout seconds. A run that hangs did not vote, and a hang can hide a failure.",
        fix: "Fix the hang, or raise `--lane-timeout` in CI when the suite is genuinely slow.";
    PluginNotLoaded = "plugin-not-loaded", Warning, "lane-gate", acknowledgeable: false,
        summary: "an installed pytest plugin was not loaded",
        explanation: "lane-gate runs pytest with plugin autoloading off and loads only the plugins the base's dependency manifests or required_plugins name (and hypothesis). An installed plugin nobody named could come from a dependency the patch slipped in.",
        fix: "Name the plugin in the project's dependencies (or `required_plugins`) if the suite needs it. If it is installed for another tool, accept the warning in the base's pyproject.toml (`[tool.lanes.accept-warnings] plugin-not-loaded = [\"*\"]`). A warning only.";
    CandidateFailed = "candidate-failed", Warning, "lane-gate", acknowledgeable: false,
        summary: "a test the patch added or changed failed in the patch's own tree",
        explanation: "The patch's new or changed tests run after the vote as non-voting candidates. A failing candidate does not decide, but the patch's own tests disagree with its code.",
        fix: "Review the patch before acknowledging its test changes: either the code or its new test is wrong. A warning only.";
    ReportContradictsExit = "report-contradicts-exit", Error, "lane-gate", acknowledgeable: false,
        summary: "a lane's JUnit report disagrees with its pytest exit status",
        explanation: "pytest exits 1 when a test failed, 0 when none did, and 5 when it collected nothing. A report with no failure from a run that exited 1 (or a failure from one that exited 0, or cases from one that collected nothing) was changed after pytest wrote it, by code inside the run: an atexit handler or a hook rewriting the file. The report cannot vote.",
        fix: "Find the code that writes to the report (a conftest, a plugin, or product code registering an atexit handler) and remove it; the log of the lane shows what pytest itself saw.";
    ReportContradictsStream = "report-contradicts-stream", Error, "lane-gate", acknowledgeable: false,
        summary: "a lane's JUnit report or exit status disagrees with the outcomes pytest reported over the gate's channel",
        explanation: "The gate's bootstrap runs before pytest and any project code and sends each test's outcome, as pytest reports it, over a channel only the gate reads; the first record of a test's phase is final. A case of the report that pytest never reported, a failure that became a pass or a skip, a failure the report lost, an exit status other than the one pytest's session ended with, a run that exited 0 before the bootstrap's last record, or a channel carrying anything but the bootstrap's records: code inside the run rewrote the evidence (a thread or atexit handler rewriting the report, os._exit(0) after a failure), and the run does not vote.",
        fix: "Find the code that rewrites the report or ends the process (product code starting threads or registering exit handlers at import, a conftest, a plugin) and remove it; the lane's log shows what pytest itself saw. This is not acknowledgeable.";
    ForeignProductCode = "foreign-product-code", Error, "lane-gate", acknowledgeable: false,
        summary: "a product module the tests ran was loaded from other bytes than the vote tree's",
        explanation: "The bootstrap records where every module of the project's packages is loaded from (the loader's origin, not __file__). A module loaded from outside the vote tree whose bytes differ from the tree's file (a non-editable install of other code in site-packages, an editable install pointing at another checkout), a bytecode file without its source, or a compiled extension that wins over the tree's .py means the voters ran other code than the patch's: their votes are not evidence about the patch. A byte-identical copy (the project installed from this same tree) counts as the tree's file, and product modules are always compiled from their source bytes, never from a __pycache__.",
        fix: "Make the project's modules import from the tree the gate votes on: uninstall the project from the lanes' interpreter, or install it from this same checkout (pip install . copies the same bytes); remove committed .pyc and compiled modules. This is not acknowledgeable.";
    UnexercisedChange = "unexercised-change", Error, "lane-gate", acknowledgeable: true,
        summary: "a product statement or branch the patch changed that no voting test executed",
        explanation: "The bootstrap traces the product files the patch changed (coverage.py's measurement core, the voters' tests and the others' in two contexts) in every voting run, while a changed module's body runs at import and while the tests run (not pytest's collection machinery), until the voters have run every changed line. A changed statement that no merge or witness test executed, or a branch of a changed line that none of them took, is a change the vote says nothing about: a bug there would be approved. Lines count with their statement (a continuation line is its statement's); docstrings and comments are not executable for this rule, nor are `if TYPE_CHECKING:` (typing's name, bound nowhere else) and `if __name__ == \"__main__\":` blocks at a module's or class's top level, nor the trivial bodies (`...`, `pass`, a docstring, `raise NotImplementedError`) of `@overload`, abstract and Protocol methods (decorator or base imported from typing, typing_extensions or abc); a look-alike (the module's own `TYPE_CHECKING` or `overload`, such a block inside a function, a body that computes) is code like any other. Module-level statements run when the voting process imports the module; a changed function called only from a test module's top level (during the collection) is not run by a voter. Coverage settings in the tree (.coveragerc, [tool.coverage], `# pragma: no cover`) are not read.",
        fix: "Add a voting test that runs the statement (it votes after review, like any test change), remove the code if nothing needs it, or have a maintainer acknowledge the change (`--ack TEXT`) after reading the listed lines.";
    UnpinnedChange = "unpinned-change", Error, "lane-gate", acknowledgeable: true,
        summary: "a changed product statement the voters ran but would not notice going wrong",
        explanation: "For each changed product statement that voting tests executed, the gate makes a few mutants from its syntax tree (the statement removed, an operand dropped, one half of a conditional expression kept, the condition negated, an argument returned instead of the value; comparison boundaries, operators, constants moved by one), at most `[tool.lanes] mutants-per-statement = N` of them (8 by default), and runs each in the same hardened pytest (`-x`, the vote's hypothesis seed, a timeout per mutant) on the voting tests the trace saw execute the statement and, when it survives them, on every voting test; a mutant whose run fails, errors or times out is killed. A statement is unpinned when a mutant that takes part of it away survives (that part can go and no voter notices), or when none of its mutants is killed: an arithmetic bug that only shows beyond the property's bounds, the untaken half of a one-line conditional, a branch an unchecked side computation runs. Each finding shows the surviving mutant as a one-line diff and the tests that ran the statement. A statement whose mutants the budget (`[tool.lanes] mutant-seconds = N`, the wall time for all mutants, 600 by default) left unrun is reported too, never passed. Module-level statements count as run by the voters that ran any statement of their file. No mutants run when a voting lane already fails the patch. Logging calls, docstrings, annotations, decorators, default arguments and `__repr__` are never mutated; `lane-gate --mutants off` (local runs only) skips this check and says so in the verdict.",
        fix: "Add a voting test that fails for the shown mutant (it votes after review, like any test change), remove the part no test needs, or have a maintainer acknowledge the change (`--ack TEXT`) after reading the listed lines. The budget lives in the base's pyproject.toml: `[tool.lanes] mutants-per-statement = N` and `[tool.lanes] mutant-seconds = N`.";
    MutantsOff = "mutants-off", Warning, "lane-gate", acknowledgeable: false,
        summary: "the changed lines' mutants were not run (`lane-gate --mutants off`)",
        explanation: "`--mutants off` skips the mutants of the changed product statements (unpinned-change) to make a local run quicker. The verdict says so: an approval without the mutants has not asked whether the voters would notice a changed line going wrong.",
        fix: "Leave `--mutants` at its default in CI; use `--mutants off` only for local runs.";
    AckForAnotherCommit = "ack-for-another-commit", Warning, "lane-gate", acknowledgeable: false,
        summary: "an acknowledgment that does not name the commit under judgment was ignored",
        explanation: "An acknowledgment covers the commit a maintainer read: its text (`--ack`, `LANES_ACK`) must name the head commit, by its id or a prefix of at least 12 hex digits. One that names no prefix of HEAD (given for an earlier push, or naming no commit at all) is ignored: the run votes as if none were given (the base's tests vote, every acknowledgeable error stays an error), and this warning says so.",
        fix: "Take the acknowledgment from something tied to the commit (a GitHub review carries the commit it approves; GitLab approvals reset on push) and put that commit's id in the text, e.g. `--ack \"approved by @maintainer at <head commit id>\"`; see docs/ci.md.";
    TracerTampered = "tracer-tampered", Error, "lane-gate", acknowledgeable: false,
        summary: "the gate's tracer was removed or replaced during a voting run",
        explanation: "The bootstrap starts the tracer of the changed product files before pytest and any project code, and checks before each test and at the end that it is still the interpreter's tracer. Code that switches it off or installs another (sys.settrace, a second coverage run, pytest-cov started from the tree) hides which changed lines ran: the run does not vote.",
        fix: "Remove the code that sets a tracer (often at import time of a product module, or a conftest starting coverage); run coverage outside the gate. A project whose addopts hold --cov votes as it is: the gate passes --no-cov to pytest-cov. This is not acknowledgeable.";
    TestSurfaceTampered = "test-surface-tampered", Error, "lane-gate", acknowledgeable: false,
        summary: "a test module, conftest.py, configuration file or test folder changed while pytest ran",
        explanation: "The vote runs on a copy whose test surface (the test modules, the conftest.py files pytest loads for them, the rootdir's configuration files, the folders holding test modules) is read-only to the pytest process, and the gate compares each of those files' and folders' size, inode and change time after the runs. A test module edited before pytest imported it, a conftest.py or test module made in a test folder, or a configuration file rewritten means the tests that ran need not be the ones the gate read: code inside the run redecorated the room its judges sit in.",
        fix: "Find the code that writes into the test folders (often at import time of a product module) and remove it; tests that need scratch files use tmp_path. This is not acknowledgeable.";
    ComparisonForged = "comparison-forged", Error, "lane-gate", acknowledgeable: false,
        summary: "a voting test's comparison was answered by a changed product class otherwise than by its value type",
        explanation: "A class in a product file the patch changed that derives from a built-in or standard-library value type (str, bytes, int, float, complex, containers, Decimal, Fraction) and brings its own comparison or truthiness method (its own, a mixin's) can make `assert f(x) == expected` pass for any value. The bootstrap wraps such methods as the module is imported; when a voting test's code compares with one, the value type's own method answers too, and a different answer means the test's check was decided by the code on trial: the run does not vote.",
        fix: "Return plain values (or the value type itself) from the code under test, or keep the value type's comparison; a class whose equality must differ from its base's (a case-insensitive string) is compared in tests through an explicit method, not `==`. This is not acknowledgeable.";
    RuntimeTampered = "runtime-tampered", Error, "lane-gate", acknowledgeable: false,
        summary: "code inside the run replaced something the vote relies on: built-ins, import hooks, file I/O, pytest's runner or reports, hypothesis's strategies or profile",
        explanation: "The bootstrap takes a snapshot of the identities the run depends on before any project code runs (the built-ins, sys.meta_path and sys.path_hooks, the file callables of io, os and pathlib, pytest's runner and report entry points, hypothesis's strategies and settings) and compares it before each test and at the end. A replaced built-in, a finder put in front of the gate's, an import hook the project's code added, or a hypothesis profile loaded from product code lets the code on trial steer its own judges: the run does not vote.",
        fix: "Remove the code that replaces these objects (often at import time of a product module); a test that needs a replacement uses monkeypatch, which restores it before the next test. The message names what changed and where it was first seen. This is not acknowledgeable.";
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// The text `--explain RULE` prints, or a usage error listing the known ids.
pub fn explain(id: &str) -> Result<String, crate::Error> {
    match Rule::from_id(id) {
        Some(rule) => Ok(format!(
            "{id} ({severity}, reported by {tool})\n  {summary}\n\n{text}\n\n{fix}\n\nAcknowledgeable: {ack}\n",
            severity = rule.severity().as_str(),
            tool = rule.tool(),
            summary = rule.summary(),
            text = wrap(rule.explanation(), 92),
            fix = wrap(&format!("Fix: {}", rule.fix()), 92),
            ack = if rule.acknowledgeable() {
                "yes (it flags a change for review, not a broken invariant)"
            } else {
                "no"
            },
        )),
        None => {
            let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
            Err(crate::Error::usage(format!(
                "unknown rule '{id}'; known rules: {}",
                ids.join(", ")
            )))
        }
    }
}

/// The generated rule sections of docs/evidence.md: per tool a `## tool` heading, then per rule
/// its `### id` section (severity, tool, when, how to fix, and whether it is acknowledgeable).
pub fn evidence_md() -> String {
    let mut out = String::new();
    let mut tool = "";
    for rule in Rule::ALL {
        if rule.tool() != tool {
            if !tool.is_empty() {
                out.push('\n');
            }
            tool = rule.tool();
            out.push_str(&format!("## {tool}\n\n"));
        }
        out.push_str(&format!(
            "### {id}\n\n- **Severity:** {severity}\n- **Tool:** `{tool}`\n\
             - **When:** {summary}. {explanation}\n- **How to fix:** {fix}\n",
            id = rule.id(),
            severity = rule.severity().as_str(),
            summary = rule.summary(),
            explanation = rule.explanation(),
            fix = rule.fix(),
        ));
        if rule.acknowledgeable() {
            out.push_str(
                "- **Acknowledgeable:** yes: it flags a change for review, not a broken invariant.\n",
            );
        }
        out.push('\n');
    }
    out
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for word in text.split_whitespace() {
        if line_len > 0 && line_len + 1 + word.len() > width {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in Rule::ALL {
            let id = rule.id();
            assert!(seen.insert(id), "duplicate rule id {id}");
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{id} is not kebab-case"
            );
            assert_eq!(Rule::from_id(id), Some(*rule));
        }
    }

    #[test]
    fn severities_follow_the_design_tables() {
        let warnings: Vec<&str> = Rule::ALL
            .iter()
            .filter(|r| r.severity() == Severity::Warning)
            .map(|r| r.id())
            .collect();
        assert_eq!(
            warnings,
            [
                "conditional-skip",
                "no-assertion",
                "runtime-hook",
                "unknown-addopts",
                "weakened-search",
                "fix-markers",
                "fix-property",
                "fix-snapshot",
                "fix-freeze-candidate",
                "fix-merge",
                "fix-owner",
                "orphan-lock",
                "orphan-snapshot",
                "expiring-soon",
                "freeze-failed",
                "known-failure-passed",
                "plugin-not-loaded",
                "candidate-failed",
                "mutants-off",
                "ack-for-another-commit",
            ]
        );
    }

    #[test]
    fn explain_unknown_rule_lists_known_ids() {
        let err = explain("no-such-rule").unwrap_err().to_string();
        assert!(err.contains("unknown rule 'no-such-rule'"));
        assert!(err.contains("missing-vote"));
        let ok = explain("missing-vote").unwrap();
        assert!(ok.starts_with("missing-vote (error, reported by lane-tally)"));
    }

    #[test]
    fn explain_prints_every_field() {
        for rule in Rule::ALL {
            let text = explain(rule.id()).unwrap();
            let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            let flat = words(&text);
            assert!(flat.contains(&words(rule.summary())), "{}", rule.id());
            assert!(flat.contains(&words(rule.explanation())), "{}", rule.id());
            assert!(
                flat.contains(&format!("Fix: {}", words(rule.fix()))),
                "{}",
                rule.id()
            );
            let ack = if rule.acknowledgeable() {
                "Acknowledgeable: yes"
            } else {
                "Acknowledgeable: no"
            };
            assert!(text.contains(ack), "{}", rule.id());
        }
    }

    #[test]
    fn acknowledgeable_rules_are_the_review_surface() {
        let ack: Vec<&str> = Rule::ALL
            .iter()
            .filter(|r| r.acknowledgeable())
            .map(|r| r.id())
            .collect();
        assert_eq!(
            ack,
            [
                "capability-added",
                "doctest-changed",
                "lock-entry-moved",
                "lock-entry-removed",
                "lock-batched-with-behavior",
                "lock-entry-added",
                "witness-test-removed",
                "witness-fixture-changed",
                "ticket-added",
                "ticket-renewed",
                "ticket-changed",
                "merge-test-removed",
                "lane-changed",
                "domain-changed",
                "test-surface-changed",
                "unexercised-change",
                "unpinned-change",
            ]
        );
    }

    #[test]
    fn the_texts_name_the_constants_defined_beside_them() {
        assert!(
            Rule::ExpiringSoon
                .summary()
                .contains(&format!("within {SOON_DAYS} days"))
        );
        assert!(
            Rule::ExpiryTooFar
                .fix()
                .contains(&format!("({DEFAULT_MAX_DAYS} by default)"))
        );
        assert!(
            Rule::ExpiryTooFar
                .explanation()
                .contains(&format!("({DEFAULT_MAX_DAYS} by default)"))
        );
        for rule in ILLEGAL {
            assert_eq!(rule.severity(), Severity::Error, "{rule}");
            assert_eq!(rule.tool(), "lane-scan", "{rule}");
        }
    }
}
