#![allow(clippy::unwrap_used)]

use super::*;

/// (line, class or "third-party TOP", scope) of each use in `source`, `calc` the project.
fn found(source: &str) -> Vec<(u64, String, String)> {
    uses(source, &|m| m == "calc")
        .unwrap()
        .into_iter()
        .map(|u| {
            let what = match u.found {
                Found::Capability(c) => c.name().to_string(),
                Found::ThirdParty(t) => format!("third-party {t}"),
            };
            (u.first, what, u.scope)
        })
        .collect()
}

fn classes(source: &str) -> Vec<String> {
    found(source).into_iter().map(|(_, c, _)| c).collect()
}

/// Each source's uses include its class.
fn each_is_found(cases: &[(&str, &str)]) {
    for (source, class) in cases {
        let got = classes(source);
        assert!(
            got.iter().any(|c| c == class),
            "{source}: {got:?}, expected {class}"
        );
    }
}

fn plain(source: &str) {
    let got = uses(source, &|m| m == "calc").unwrap();
    assert!(got.is_empty(), "{source}\n{got:#?}");
}

#[test]
fn plain_computation_is_plain() {
    plain(
        "import re, math, functools\nfrom decimal import Decimal\nfrom calc import core\n\
         from . import util\nimport threading\n\n_LOCK = threading.Lock()\nPATTERN = re.compile(r'x+')\n\n\
         @functools.lru_cache(maxsize=None)\ndef area(r: float) -> float:\n    \"\"\"The area.\"\"\"\n    \
         return math.pi * r ** 2\n\n\ndef apply(f, items):\n    out = []\n    for i in items:\n        \
         out.append(f(i))\n    out.sort()\n    d = {}\n    d['k'] = core.total(out) + util._helper(1)\n    \
         return [x.strip() for x in out if PATTERN.match(x)], Decimal('1.5')\n\n\n\
         def exec(code):\n    return code\n\n\ndef run(x):\n    return exec(x)\n",
    );
    // A dataclass's generated methods, __init__/__repr__/__str__/__post_init__, self writes.
    plain(
        "import dataclasses\n\n@dataclasses.dataclass(frozen=True)\nclass Point:\n    x: int\n    \
         y: int = 0\n\n    def __post_init__(self):\n        pass\n\n\nclass Box:\n    def __init__(self, v):\n        \
         self._v = v\n        self.items = []\n\n    def __repr__(self):\n        return f'Box({self._v!r})'\n\n    \
         def add(self, x):\n        self.items.append(x)\n        self._v += x\n        return type(self)(self._v)\n",
    );
}

#[test]
fn each_capability_class_is_found_written_plainly() {
    let cases: &[(&str, &str)] = &[
        (
            "import sys\n\ndef f():\n    return sys._getframe(1).f_locals\n",
            "introspection",
        ),
        ("def f(g):\n    return g.__globals__\n", "introspection"),
        ("def f(o):\n    return o._secret\n", "introspection"),
        ("def f(s):\n    return eval(s)\n", "dynamic code"),
        ("def f(s):\n    exec('import os')\n", "dynamic code"),
        (
            "import importlib\n\ndef f(n):\n    return importlib.import_module(n)\n",
            "dynamic code",
        ),
        (
            "def f(o, n):\n    return getattr(o, 'a' + n)\n",
            "dynamic code",
        ),
        ("def f(n):\n    return type(n, (), {})\n", "dynamic code"),
        ("import types\n\nK = types.new_class('K')\n", "dynamic code"),
        (
            "import json\n\njson.dumps = lambda o: '{}'\n",
            "reaching out",
        ),
        ("def f(o):\n    o.value = 1\n", "reaching out"),
        (
            "import sys\n\ndef f(m):\n    sys.modules['x'] = m\n",
            "reaching out",
        ),
        (
            "N = 0\n\ndef f():\n    global N\n    N += 1\n",
            "state that outlives a call",
        ),
        (
            "_CALLS = []\n\ndef f(x):\n    _CALLS.append(x)\n    return x\n",
            "state that outlives a call",
        ),
        (
            "_CALLS = []\n\ndef f(x):\n    calls = _CALLS\n    calls.append(x)\n",
            "state that outlives a call",
        ),
        (
            "_SEEN = {}\n\ndef f(x):\n    seen = _SEEN\n    seen[x] = 1\n",
            "state that outlives a call",
        ),
        (
            "def f():\n    pass\n\nf.count = 0\n",
            "state that outlives a call",
        ),
        ("class C:\n    seen = []\n", "state that outlives a call"),
        (
            "import os\n\ndef f():\n    return os.environ.get('CI')\n",
            "the environment",
        ),
        ("def f(s):\n    return hash(s)\n", "the environment"),
        (
            "import time\n\ndef f():\n    return time.perf_counter()\n",
            "the environment",
        ),
        (
            "import threading\n\ndef f():\n    return threading.gettrace()\n",
            "introspection",
        ),
        (
            "import subprocess\n\ndef f():\n    subprocess.run(['true'])\n",
            "processes, threads, exit, descriptors, files",
        ),
        (
            "import threading\n\ndef f(g):\n    threading.Thread(target=g).start()\n",
            "processes, threads, exit, descriptors, files",
        ),
        (
            "import os\n\ndef f():\n    os._exit(0)\n",
            "processes, threads, exit, descriptors, files",
        ),
        (
            "def f(p):\n    return open(p).read()\n",
            "processes, threads, exit, descriptors, files",
        ),
        (
            "def f(p):\n    p.write_text('x')\n",
            "processes, threads, exit, descriptors, files",
        ),
        (
            "class Money:\n    def __eq__(self, other):\n        return True\n",
            "comparison protocol",
        ),
        (
            "class Money:\n    def __bool__(self):\n        return True\n",
            "comparison protocol",
        ),
        (
            "class Money:\n    __eq__ = object.__ne__\n",
            "comparison protocol",
        ),
        (
            "import functools\n\n@functools.total_ordering\nclass M:\n    pass\n",
            "comparison protocol",
        ),
        ("import ctypes\n", "native code"),
        (
            "import ast\nimport tokenize\n\ndef f(s):\n    return tokenize.generate_tokens(s)\n",
            "not on the plain list",
        ),
        (
            "def f():\n    return undefined_thing()\n",
            "unresolved name",
        ),
    ];
    each_is_found(cases);
}

#[test]
fn uses_are_found_through_aliases_variables_and_built_names() {
    let cases: &[(&str, &str)] = &[
        // an alias at module level and inside a function
        (
            "import os as o\n\ndef f():\n    return o.environ\n",
            "the environment",
        ),
        (
            "def f():\n    import os as o\n    return o.getenv('X')\n",
            "the environment",
        ),
        (
            "from os import environ as e\n\ndef f():\n    return e['X']\n",
            "the environment",
        ),
        // through a variable
        ("import os\nENV = os.environ\n", "the environment"),
        (
            "def f(s):\n    run = eval\n    return run(s)\n",
            "dynamic code",
        ),
        (
            "import sys\n\ndef f():\n    s = sys\n    return s.gettrace()\n",
            "introspection",
        ),
        // getattr/__import__ with a built string
        (
            "def f():\n    return __import__('o' + 's')\n",
            "dynamic code",
        ),
        (
            "import sys\n\ndef f():\n    return getattr(sys, '_get' + 'frame')(1)\n",
            "dynamic code",
        ),
        (
            "def f(o):\n    return getattr(o, 'f_back')\n",
            "introspection",
        ),
        // vars() / __dict__
        ("def f(o):\n    return vars(o)['x']\n", "introspection"),
        ("def f(o):\n    o.__dict__['x'] = 1\n", "introspection"),
        // functools.partial, operator.attrgetter
        (
            "import functools\n\nrun = functools.partial(eval, '1')\n",
            "dynamic code",
        ),
        (
            "import operator\n\nget = operator.attrgetter('f_back')\n",
            "introspection",
        ),
        (
            "import operator\n\ndef f(n):\n    return operator.attrgetter(n)\n",
            "dynamic code",
        ),
        // a decorator, a metaclass
        (
            "import atexit\n\n@atexit.register\ndef bye():\n    pass\n",
            "processes, threads, exit, descriptors, files",
        ),
        (
            "class Meta(type):\n    pass\n\nclass M(metaclass=Meta):\n    pass\n",
            "dynamic code",
        ),
        (
            "import third\n\nclass M(metaclass=third.Meta):\n    pass\n",
            "dynamic code",
        ),
        // star imports
        (
            "from os import *\n\ndef f():\n    return getenv('X')\n",
            "the environment",
        ),
        // a method replaced on a type
        (
            "import pathlib\n\ntype(pathlib.Path()).read_text = lambda self: ''\n",
            "reaching out",
        ),
        // a lambda's default value
        ("check = lambda s, run=eval: run(s)\n", "dynamic code"),
        // a log record's caller
        (
            "def emit(record):\n    return record.pathname\n",
            "introspection",
        ),
    ];
    each_is_found(cases);
}

#[test]
fn third_party_modules_and_scopes_are_reported_for_the_rule() {
    let got = found(
        "import requests\nfrom calc.core import add\n\n\nclass C:\n    def get(self, url):\n        \
         return requests.get(url)\n",
    );
    assert_eq!(
        got,
        vec![
            (1, "third-party requests".to_string(), String::new()),
            (7, "third-party requests".to_string(), "C.get".to_string()),
        ]
    );
}

#[test]
fn a_local_function_named_like_a_builtin_is_the_module_s_own() {
    plain("def open(p):\n    return p\n\n\ndef f(x):\n    return open(x)\n");
    plain("def f(hash):\n    return hash(1)\n");
    // an alias of self's container, and an assignment expression inside a comprehension
    plain("class S:\n    def add(self, v):\n        maxes = self._maxes\n        maxes[0] = v\n");
    plain("def f(xs):\n    return [y for x in xs if (y := x + 1) > 2 and y < 9]\n");
    // dunder methods that compute values, not what a test's checks call
    plain(
        "class Adder:\n    def __call__(self, a, b):\n        return a + b\n\n    \
         def __iter__(self):\n        return iter([1])\n\n    def __add__(self, o):\n        \
         return 1\n",
    );
    assert_eq!(uses("def (:\n", &|_| false), Err(1));
}
