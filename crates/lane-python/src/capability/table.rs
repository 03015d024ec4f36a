//! The table of plain uses: what a product module may call, read or subclass and still be
//! plain computation, and what each other use of the standard library is. The one place that
//! decides (capability-added's catalogue entry shows it to users); it grows only with evidence
//! from honest commits that a use is common and cannot reach the judge.
//!
//! Entries are dotted names; a use takes the longest entry that is its prefix on a dot boundary
//! (`os.path.join` beats `os.path`, which beats `os`). A standard-library name no entry covers
//! is not plain ([`Class::Unlisted`]); a module the project defines is plain; anything else is
//! a third-party module, plain only when the base's product code already imports it (the rule
//! decides, with the base in hand).

use super::Class;

/// What a dotted name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Plain,
    Capability(Class),
}

use Class::{
    DynamicCode, Effects, Environment, Introspection, Native, Protocol, ReachingOut, State,
};
use Verdict::{Capability as C, Plain};

/// (dotted prefix, verdict), looked up by [`lookup`].
const TABLE: &[(&str, Verdict)] = &[
    // Computation from the arguments alone.
    ("math", Plain),
    ("cmath", Plain),
    ("decimal", Plain),
    // The thread's decimal context is state every later computation reads.
    ("decimal.getcontext", C(State)),
    ("decimal.setcontext", C(State)),
    ("decimal.localcontext", C(State)),
    ("decimal.DefaultContext", C(State)),
    ("decimal.BasicContext", C(State)),
    ("decimal.ExtendedContext", C(State)),
    ("fractions", Plain),
    ("numbers", Plain),
    ("statistics", Plain),
    ("re", Plain),
    ("string", Plain),
    ("textwrap", Plain),
    ("unicodedata", Plain),
    ("collections", Plain),
    ("itertools", Plain),
    ("functools", Plain),
    // Ordering made from one method: a comparison protocol by decorator.
    ("functools.total_ordering", C(Protocol)),
    ("operator", Plain),
    ("enum", Plain),
    ("dataclasses", Plain),
    ("dataclasses.make_dataclass", C(DynamicCode)),
    ("typing", Plain),
    // Evaluates annotation strings.
    ("typing.get_type_hints", C(DynamicCode)),
    ("typing_extensions", Plain),
    ("typing_extensions.get_type_hints", C(DynamicCode)),
    ("abc", Plain),
    ("copy", Plain),
    ("heapq", Plain),
    ("bisect", Plain),
    ("datetime", Plain),
    ("calendar", Plain),
    ("zoneinfo", Plain),
    ("json", Plain),
    ("base64", Plain),
    ("binascii", Plain),
    ("hashlib", Plain),
    ("hmac", Plain),
    ("zlib", Plain),
    ("struct", Plain),
    ("array", Plain),
    ("html", Plain),
    ("urllib.parse", Plain),
    ("urllib.error", Plain),
    ("ipaddress", Plain),
    ("keyword", Plain),
    ("difflib", Plain),
    ("reprlib", Plain),
    ("graphlib", Plain),
    ("shlex", Plain),
    ("fnmatch", Plain),
    ("csv", Plain),
    ("tomllib", Plain),
    ("errno", Plain),
    ("stat", Plain),
    ("queue", Plain),
    ("argparse", Plain),
    ("getopt", Plain),
    ("email", Plain),
    ("xml", Plain),
    ("ast", Plain),
    ("ast.literal_eval", Plain),
    ("pprint.pformat", Plain),
    ("pprint.saferepr", Plain),
    ("pprint.isreadable", Plain),
    ("pprint", C(Effects)),
    ("contextlib", Plain),
    ("contextlib.redirect_stdout", C(Effects)),
    ("contextlib.redirect_stderr", C(Effects)),
    ("contextlib.chdir", C(Environment)),
    ("asyncio", Plain),
    ("asyncio.create_subprocess_exec", C(Effects)),
    ("asyncio.create_subprocess_shell", C(Effects)),
    ("asyncio.subprocess", C(Effects)),
    ("codecs", Plain),
    ("codecs.open", C(Effects)),
    ("weakref", Plain),
    ("weakref.finalize", C(Effects)),
    ("io.StringIO", Plain),
    ("io.BytesIO", Plain),
    ("io", C(Effects)),
    ("types", Plain),
    ("types.new_class", C(DynamicCode)),
    ("types.prepare_class", C(DynamicCode)),
    ("types.resolve_bases", C(DynamicCode)),
    ("types.FunctionType", C(DynamicCode)),
    ("types.LambdaType", C(DynamicCode)),
    ("types.CodeType", C(DynamicCode)),
    ("types.ModuleType", C(DynamicCode)),
    ("types.MethodType", C(DynamicCode)),
    ("types.FrameType", C(Introspection)),
    ("types.TracebackType", C(Introspection)),
    ("uuid", C(Environment)),
    ("uuid.UUID", Plain),
    ("uuid.uuid3", Plain),
    ("uuid.uuid5", Plain),
    ("uuid.NAMESPACE_DNS", Plain),
    ("uuid.NAMESPACE_URL", Plain),
    ("uuid.NAMESPACE_OID", Plain),
    ("uuid.NAMESPACE_X500", Plain),
    // The module-level generator is the one hypothesis seeds: state every test shares.
    ("random", C(State)),
    ("random.Random", Plain),
    ("random.SystemRandom", C(Environment)),
    ("secrets", C(Environment)),
    // Wall-clock reads are plain; high-resolution clocks time the run.
    ("time", Plain),
    ("time.perf_counter", C(Environment)),
    ("time.perf_counter_ns", C(Environment)),
    ("time.monotonic", C(Environment)),
    ("time.monotonic_ns", C(Environment)),
    ("time.process_time", C(Environment)),
    ("time.process_time_ns", C(Environment)),
    ("time.thread_time", C(Environment)),
    ("time.thread_time_ns", C(Environment)),
    ("time.time_ns", C(Environment)),
    ("time.clock_gettime", C(Environment)),
    ("time.clock_gettime_ns", C(Environment)),
    ("time.get_clock_info", C(Environment)),
    // Logging through a logger is plain; configuring it reaches the process.
    ("logging", C(ReachingOut)),
    ("logging.getLogger", Plain),
    ("logging.Logger", Plain),
    ("logging.LoggerAdapter", Plain),
    ("logging.debug", Plain),
    ("logging.info", Plain),
    ("logging.warning", Plain),
    ("logging.warn", Plain),
    ("logging.error", Plain),
    ("logging.exception", Plain),
    ("logging.critical", Plain),
    ("logging.log", Plain),
    ("logging.DEBUG", Plain),
    ("logging.INFO", Plain),
    ("logging.WARNING", Plain),
    ("logging.ERROR", Plain),
    ("logging.CRITICAL", Plain),
    ("logging.NOTSET", Plain),
    ("warnings", C(ReachingOut)),
    ("warnings.warn", Plain),
    ("warnings.deprecated", Plain),
    // Paths as strings are plain; the file system, the process and its descriptors are not.
    ("os", C(Environment)),
    ("os.sep", Plain),
    ("os.altsep", Plain),
    ("os.extsep", Plain),
    ("os.pathsep", Plain),
    ("os.linesep", Plain),
    ("os.curdir", Plain),
    ("os.pardir", Plain),
    ("os.fspath", Plain),
    ("os.fsencode", Plain),
    ("os.fsdecode", Plain),
    ("os.PathLike", Plain),
    ("os.path.join", Plain),
    ("os.path.basename", Plain),
    ("os.path.dirname", Plain),
    ("os.path.split", Plain),
    ("os.path.splitext", Plain),
    ("os.path.splitdrive", Plain),
    ("os.path.normpath", Plain),
    ("os.path.normcase", Plain),
    ("os.path.isabs", Plain),
    ("os.path.commonpath", Plain),
    ("os.path.commonprefix", Plain),
    ("os.path.sep", Plain),
    ("posixpath", C(Environment)),
    ("ntpath", C(Environment)),
    ("pathlib.PurePath", Plain),
    ("pathlib.PurePosixPath", Plain),
    ("pathlib.PureWindowsPath", Plain),
    ("pathlib", C(Environment)),
    ("os.system", C(Effects)),
    ("os.popen", C(Effects)),
    ("os.fork", C(Effects)),
    ("os.forkpty", C(Effects)),
    ("os.kill", C(Effects)),
    ("os.killpg", C(Effects)),
    ("os.abort", C(Effects)),
    ("os._exit", C(Effects)),
    ("os.execl", C(Effects)),
    ("os.execle", C(Effects)),
    ("os.execlp", C(Effects)),
    ("os.execlpe", C(Effects)),
    ("os.execv", C(Effects)),
    ("os.execve", C(Effects)),
    ("os.execvp", C(Effects)),
    ("os.execvpe", C(Effects)),
    ("os.spawnl", C(Effects)),
    ("os.spawnle", C(Effects)),
    ("os.spawnlp", C(Effects)),
    ("os.spawnlpe", C(Effects)),
    ("os.spawnv", C(Effects)),
    ("os.spawnve", C(Effects)),
    ("os.spawnvp", C(Effects)),
    ("os.spawnvpe", C(Effects)),
    ("os.posix_spawn", C(Effects)),
    ("os.posix_spawnp", C(Effects)),
    ("os.open", C(Effects)),
    ("os.write", C(Effects)),
    ("os.writev", C(Effects)),
    ("os.pwrite", C(Effects)),
    ("os.close", C(Effects)),
    ("os.closerange", C(Effects)),
    ("os.dup", C(Effects)),
    ("os.dup2", C(Effects)),
    ("os.pipe", C(Effects)),
    ("os.remove", C(Effects)),
    ("os.unlink", C(Effects)),
    ("os.rename", C(Effects)),
    ("os.renames", C(Effects)),
    ("os.replace", C(Effects)),
    ("os.mkdir", C(Effects)),
    ("os.makedirs", C(Effects)),
    ("os.rmdir", C(Effects)),
    ("os.removedirs", C(Effects)),
    ("os.chmod", C(Effects)),
    ("os.chown", C(Effects)),
    ("os.symlink", C(Effects)),
    ("os.link", C(Effects)),
    ("os.truncate", C(Effects)),
    ("os.utime", C(Effects)),
    ("os.chdir", C(Effects)),
    ("os.putenv", C(ReachingOut)),
    ("os.unsetenv", C(ReachingOut)),
    // The interpreter: a few constants of the build are plain.
    ("sys", C(Environment)),
    ("sys.maxsize", Plain),
    ("sys.maxunicode", Plain),
    ("sys.version_info", Plain),
    ("sys.hexversion", Plain),
    ("sys.platform", Plain),
    ("sys.byteorder", Plain),
    ("sys.float_info", Plain),
    ("sys.int_info", Plain),
    ("sys.hash_info", Plain),
    ("sys.implementation", Plain),
    ("sys.settrace", C(Introspection)),
    ("sys.gettrace", C(Introspection)),
    ("sys.setprofile", C(Introspection)),
    ("sys.getprofile", C(Introspection)),
    ("sys.monitoring", C(Introspection)),
    ("sys._getframe", C(Introspection)),
    ("sys.exc_info", C(Introspection)),
    ("sys.exception", C(Introspection)),
    ("sys.last_traceback", C(Introspection)),
    ("sys.modules", C(ReachingOut)),
    ("sys.meta_path", C(ReachingOut)),
    ("sys.path", C(ReachingOut)),
    ("sys.path_hooks", C(ReachingOut)),
    ("sys.path_importer_cache", C(ReachingOut)),
    ("sys.excepthook", C(ReachingOut)),
    ("sys.displayhook", C(ReachingOut)),
    ("sys.unraisablehook", C(ReachingOut)),
    ("sys.addaudithook", C(ReachingOut)),
    ("sys.setrecursionlimit", C(ReachingOut)),
    ("sys.setswitchinterval", C(ReachingOut)),
    ("sys.exit", C(Effects)),
    ("sys.stdout", C(Effects)),
    ("sys.stderr", C(Effects)),
    ("sys.stdin", C(Effects)),
    ("sys.__stdout__", C(Effects)),
    ("sys.__stderr__", C(Effects)),
    ("sys.__stdin__", C(Effects)),
    // Threads: locks and events are data; starting or inspecting threads is not.
    ("threading", C(Effects)),
    ("threading.Lock", Plain),
    ("threading.RLock", Plain),
    ("threading.Condition", Plain),
    ("threading.Semaphore", Plain),
    ("threading.BoundedSemaphore", Plain),
    ("threading.Event", Plain),
    ("threading.Barrier", Plain),
    ("threading.local", Plain),
    ("threading.gettrace", C(Introspection)),
    ("threading.settrace", C(Introspection)),
    ("threading.setprofile", C(Introspection)),
    ("threading.settrace_all_threads", C(Introspection)),
    ("threading.enumerate", C(Environment)),
    ("threading.current_thread", C(Environment)),
    ("threading.main_thread", C(Environment)),
    ("threading.get_ident", C(Environment)),
    ("threading.get_native_id", C(Environment)),
    ("threading.active_count", C(Environment)),
    ("_thread", C(Effects)),
    ("subprocess", C(Effects)),
    ("multiprocessing", C(Effects)),
    ("concurrent", C(Effects)),
    ("signal", C(Effects)),
    ("atexit", C(Effects)),
    ("faulthandler", C(Effects)),
    ("socket", C(Effects)),
    ("ssl", C(Effects)),
    ("select", C(Effects)),
    ("selectors", C(Effects)),
    ("http", C(Effects)),
    ("urllib.request", C(Effects)),
    ("ftplib", C(Effects)),
    ("smtplib", C(Effects)),
    ("xmlrpc", C(Effects)),
    ("webbrowser", C(Effects)),
    ("pty", C(Effects)),
    ("tty", C(Effects)),
    ("termios", C(Effects)),
    ("fcntl", C(Effects)),
    ("resource", C(Effects)),
    ("shutil", C(Effects)),
    ("tempfile", C(Effects)),
    ("glob", C(Effects)),
    ("fileinput", C(Effects)),
    ("filecmp", C(Effects)),
    ("zipfile", C(Effects)),
    ("tarfile", C(Effects)),
    ("gzip", C(Effects)),
    ("bz2", C(Effects)),
    ("lzma", C(Effects)),
    ("sqlite3", C(Effects)),
    ("dbm", C(Effects)),
    ("shelve", C(DynamicCode)),
    ("syslog", C(Effects)),
    ("sched", C(Effects)),
    ("platform", C(Environment)),
    ("sysconfig", C(Environment)),
    ("getpass", C(Environment)),
    ("pwd", C(Environment)),
    ("grp", C(Environment)),
    ("locale", C(Environment)),
    ("gettext", C(Environment)),
    ("site", C(ReachingOut)),
    ("contextvars", C(State)),
    // Frames, code objects and the collector.
    ("inspect", C(Introspection)),
    ("traceback", C(Introspection)),
    ("gc", C(Introspection)),
    ("dis", C(Introspection)),
    ("code", C(Introspection)),
    ("codeop", C(DynamicCode)),
    ("trace", C(Introspection)),
    ("tracemalloc", C(Introspection)),
    ("linecache", C(Introspection)),
    ("pdb", C(Introspection)),
    ("bdb", C(Introspection)),
    ("cProfile", C(Introspection)),
    ("profile", C(Introspection)),
    ("timeit", C(Introspection)),
    ("builtins", C(DynamicCode)),
    ("importlib", C(DynamicCode)),
    ("pkgutil", C(DynamicCode)),
    ("runpy", C(DynamicCode)),
    ("zipimport", C(DynamicCode)),
    ("imp", C(DynamicCode)),
    ("marshal", C(DynamicCode)),
    ("pickle", C(DynamicCode)),
    ("copyreg", C(DynamicCode)),
    ("ctypes", C(Native)),
    ("_ctypes", C(Native)),
    ("mmap", C(Native)),
    ("cffi", C(Native)),
    // The test run's own machinery.
    ("pytest", C(ReachingOut)),
    ("_pytest", C(ReachingOut)),
    ("pluggy", C(ReachingOut)),
    ("hypothesis", C(ReachingOut)),
    ("unittest", C(ReachingOut)),
    ("doctest", C(ReachingOut)),
    ("coverage", C(ReachingOut)),
    ("py", C(ReachingOut)),
];

/// Builtins that compute from their arguments (exception classes aside: [`is_exception`]).
const PLAIN_BUILTINS: &[&str] = &[
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "hex",
    "id",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "zip",
    "NotImplemented",
    "Ellipsis",
    "__name__",
    "__doc__",
    "__qualname__",
    "__debug__",
    "__annotations__",
    "__all__",
    "__package__",
];

/// Builtins that are capabilities, by name (getattr and the like are judged with their
/// arguments, by the walk).
const CAPABILITY_BUILTINS: &[(&str, Class)] = &[
    ("exec", DynamicCode),
    ("eval", DynamicCode),
    ("compile", DynamicCode),
    ("__import__", DynamicCode),
    ("__build_class__", DynamicCode),
    ("globals", Introspection),
    ("locals", Introspection),
    ("vars", Introspection),
    ("dir", Introspection),
    ("__builtins__", Introspection),
    ("__spec__", Introspection),
    ("__loader__", Introspection),
    ("__file__", Environment),
    ("__path__", Environment),
    ("__cached__", Environment),
    ("hash", Environment),
    ("open", Effects),
    ("input", Effects),
    ("breakpoint", Effects),
    ("help", Effects),
    ("exit", Effects),
    ("quit", Effects),
    ("SystemExit", Effects),
    ("KeyboardInterrupt", Effects),
];

/// Names that reach frames, code, tracebacks, generators, imports or class internals,
/// whatever object they are read from (and log records' caller information).
pub(crate) const INTROSPECTIVE: &[&str] = &[
    "f_back",
    "f_locals",
    "f_globals",
    "f_code",
    "f_lineno",
    "f_lasti",
    "f_trace",
    "f_builtins",
    "tb_frame",
    "tb_next",
    "tb_lineno",
    "gi_frame",
    "gi_code",
    "cr_frame",
    "cr_code",
    "ag_frame",
    "ag_code",
    "__traceback__",
    "__globals__",
    "__code__",
    "__closure__",
    "__builtins__",
    "__dict__",
    "__class__",
    "__mro__",
    "__bases__",
    "__base__",
    "__subclasses__",
    "__loader__",
    "__spec__",
    "__self__",
    "__func__",
    "__defaults__",
    "__kwdefaults__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__reduce__",
    "__reduce_ex__",
    "__import__",
    "pathname",
    "lineno",
    "funcName",
    "stack_info",
];

/// Whether `name` is introspective: in [`INTROSPECTIVE`] or a code object's `co_*`.
pub(crate) fn is_introspective(name: &str) -> bool {
    INTROSPECTIVE.contains(&name)
        || name.strip_prefix("co_").is_some_and(|r| {
            !r.is_empty() && r.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        })
}

/// Methods plain on any value are most of them; these touch files, descriptors or the process
/// whatever they are called on.
pub(crate) const OUTSIDE_METHODS: &[&str] = &[
    "read_text",
    "read_bytes",
    "write_text",
    "write_bytes",
    "touch",
    "unlink",
    "mkdir",
    "rmdir",
    "iterdir",
    "glob",
    "rglob",
    "symlink_to",
    "hardlink_to",
    "chmod",
    "exists",
    "is_file",
    "is_dir",
    "samefile",
    "readlink",
    "fileno",
];

/// Methods that change a container in place (a module-level one from a function is state that
/// outlives the call).
pub(crate) const MUTATORS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "pop",
    "popitem",
    "remove",
    "clear",
    "update",
    "setdefault",
    "add",
    "discard",
    "sort",
    "reverse",
    "appendleft",
    "extendleft",
    "popleft",
    "rotate",
    "__setitem__",
    "__delitem__",
];

/// The dunder methods a test's own checks call on the value under test: equality, ordering,
/// truthiness, length (truthiness without `__bool__`), hashing (set and dict membership),
/// membership, and exception suppression around a block. A class that defines one decides what
/// `assert`, `==`, `in` and `pytest.raises`-style blocks conclude. The other dunders (call,
/// iteration, item access, operators, conversions, copying, formatting) compute values the
/// project's code returns, which the test then checks with these: they are definitions like
/// any method.
pub(crate) const PROTOCOL_DUNDERS: &[&str] = &[
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__bool__",
    "__len__",
    "__length_hint__",
    "__hash__",
    "__contains__",
    "__exit__",
    "__aexit__",
];

/// Dunder methods that redefine attribute access or class construction: dynamic code.
pub(crate) const DYNAMIC_DUNDERS: &[&str] = &[
    "__getattr__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__get__",
    "__set__",
    "__delete__",
    "__set_name__",
    "__init_subclass__",
    "__class_getitem__",
    "__instancecheck__",
    "__subclasscheck__",
    "__prepare__",
    "__reduce__",
    "__reduce_ex__",
    "__dir__",
];

/// Metaclasses that are plain.
pub(crate) const PLAIN_METACLASSES: &[&str] = &["abc.ABCMeta", "enum.EnumMeta", "enum.EnumType"];

/// Modules whose import is itself a capability: the test run's machinery, and native code. The
/// rest are judged where they are used.
pub(crate) fn import_verdict(module: &str) -> Option<Class> {
    let top = module.split('.').next().unwrap_or(module);
    match top {
        "pytest" | "_pytest" | "pluggy" | "hypothesis" | "unittest" | "doctest" | "coverage"
        | "py" => Some(ReachingOut),
        "ctypes" | "_ctypes" | "cffi" | "mmap" => Some(Native),
        _ => None,
    }
}

/// The verdict of the longest entry of [`TABLE`] that is a prefix of `dotted` on a dot
/// boundary; `None` when no entry covers it.
pub(crate) fn lookup(dotted: &str) -> Option<Verdict> {
    let mut best: Option<(usize, Verdict)> = None;
    for &(prefix, verdict) in TABLE {
        let covers = dotted == prefix
            || dotted
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('.'));
        if covers && best.is_none_or(|(len, _)| prefix.len() > len) {
            best = Some((prefix.len(), verdict));
        }
    }
    best.map(|(_, v)| v)
}

/// What a builtin name is: `Some(Plain)`, `Some(Capability)`, or `None` when `name` is no
/// builtin the table knows (getattr, setattr, delattr, hasattr and type are the walk's).
pub(crate) fn builtin(name: &str) -> Option<Verdict> {
    if PLAIN_BUILTINS.contains(&name) || is_exception(name) {
        return Some(Plain);
    }
    CAPABILITY_BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, c)| C(c))
}

/// Exception classes (other than SystemExit and KeyboardInterrupt, which end the run).
fn is_exception(name: &str) -> bool {
    matches!(
        name,
        "BaseException" | "Exception" | "StopIteration" | "StopAsyncIteration" | "GeneratorExit"
    ) || ((name.ends_with("Error") || name.ends_with("Warning") || name.ends_with("Exception"))
        && name.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// The standard library's top-level modules (CPython 3.11 to 3.14), public and private.
pub(crate) fn is_stdlib(top: &str) -> bool {
    STDLIB.binary_search(&top).is_ok()
}

const STDLIB: &[&str] = &[
    "__future__",
    "_abc",
    "_aix_support",
    "_ast",
    "_asyncio",
    "_bisect",
    "_blake2",
    "_bootsubprocess",
    "_bz2",
    "_codecs",
    "_collections",
    "_collections_abc",
    "_compat_pickle",
    "_compression",
    "_contextvars",
    "_crypt",
    "_csv",
    "_ctypes",
    "_curses",
    "_datetime",
    "_decimal",
    "_elementtree",
    "_functools",
    "_hashlib",
    "_heapq",
    "_imp",
    "_io",
    "_json",
    "_locale",
    "_lsprof",
    "_lzma",
    "_markupbase",
    "_md5",
    "_multiprocessing",
    "_opcode",
    "_operator",
    "_osx_support",
    "_pickle",
    "_posixsubprocess",
    "_py_abc",
    "_pydecimal",
    "_pyio",
    "_queue",
    "_random",
    "_sha1",
    "_sha256",
    "_sha3",
    "_sha512",
    "_signal",
    "_sitebuiltins",
    "_socket",
    "_sqlite3",
    "_sre",
    "_ssl",
    "_stat",
    "_string",
    "_strptime",
    "_struct",
    "_symtable",
    "_thread",
    "_threading_local",
    "_tokenize",
    "_tracemalloc",
    "_typing",
    "_uuid",
    "_warnings",
    "_weakref",
    "_weakrefset",
    "_zoneinfo",
    "abc",
    "aifc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// docs/capabilities.md's generated part: every entry of the table, the builtins, and the
/// names introspection covers.
#[cfg(test)]
fn markdown() -> String {
    let mut out = String::from("| name (and what it covers below it) | verdict |\n|---|---|\n");
    let mut rows: Vec<&(&str, Verdict)> = TABLE.iter().collect();
    rows.sort_by_key(|(name, _)| *name);
    for (name, verdict) in rows {
        let v = match verdict {
            Plain => "plain".to_string(),
            C(c) => c.name().to_string(),
        };
        out.push_str(&format!("| `{name}` | {v} |\n"));
    }
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push_str(&format!(
        "\nPlain builtins: {}, and exception classes other than `SystemExit` and \
         `KeyboardInterrupt`.\n",
        list(PLAIN_BUILTINS)
    ));
    for (name, class) in CAPABILITY_BUILTINS {
        out.push_str(&format!("\n- `{name}`: {}", class.name()));
    }
    out.push_str(&format!(
        "\n\nIntrospective names (read from any object, or named in a string): {}, and `co_*`.\n",
        list(INTROSPECTIVE)
    ));
    out.push_str(&format!(
        "\nMethods that touch files or descriptors on any receiver: {}; `write`, `writelines`, \
         `open` and `flush` unless the receiver is an object the function created.\n",
        list(OUTSIDE_METHODS)
    ));
    out.push_str(&format!(
        "\nThe comparison protocol (defined, or assigned in a class body): {}. Dynamic code: \
         {}. `__del__` is an effect. Other dunder methods (call, iteration, item access, \
         operators, conversions) are definitions like any method.\n",
        list(PROTOCOL_DUNDERS),
        list(DYNAMIC_DUNDERS)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/capabilities.md carries [`markdown`] between its markers; `LANES_WRITE_DOCS=1`
    /// rewrites it.
    #[test]
    fn the_table_is_documented() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/capabilities.md");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (begin, end) = ("<!-- table: begin -->\n", "<!-- table: end -->");
        let want = markdown();
        let (Some(a), Some(b)) = (text.find(begin), text.find(end)) else {
            panic!("docs/capabilities.md lacks the table markers");
        };
        let current = &text[a + begin.len()..b];
        if std::env::var_os("LANES_WRITE_DOCS").is_some_and(|v| v == "1") {
            let new = format!("{}{begin}{want}{}", &text[..a], &text[b..]);
            std::fs::write(&path, new).unwrap_or_else(|e| panic!("cannot write docs: {e}"));
            return;
        }
        assert_eq!(
            current, want,
            "docs/capabilities.md is out of date: LANES_WRITE_DOCS=1 cargo test -p lane-python"
        );
    }

    #[test]
    fn the_longest_entry_decides_and_the_stdlib_list_is_sorted() {
        assert_eq!(lookup("os.path.join"), Some(Plain));
        assert_eq!(lookup("os.path.exists"), Some(C(Environment)));
        assert_eq!(lookup("os.environ.get"), Some(C(Environment)));
        assert_eq!(lookup("osx.thing"), None);
        assert_eq!(lookup("decimal.Decimal"), Some(Plain));
        assert_eq!(lookup("decimal.getcontext"), Some(C(State)));
        assert_eq!(lookup("re.compile"), Some(Plain));
        assert_eq!(lookup("threading.Lock"), Some(Plain));
        assert_eq!(lookup("threading.Thread"), Some(C(Effects)));
        let mut sorted = STDLIB.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STDLIB);
        assert!(is_stdlib("os") && is_stdlib("_thread") && !is_stdlib("requests"));
        assert!(
            is_introspective("co_filename")
                && !is_introspective("co_")
                && !is_introspective("count")
        );
    }
}
