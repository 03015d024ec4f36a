use super::*;

fn only_fn(src: &str) -> Function {
    summarize(src).unwrap().functions.remove(0)
}

#[test]
fn tautologies_and_checks() {
    let cases: &[(&str, &str, u32, u32, u32)] = &[
        ("assert true", "def t():\n    assert True\n", 1, 1, 0),
        (
            "x == x",
            "def t():\n    x = f()\n    assert x == x\n",
            1,
            1,
            0,
        ),
        (
            "x is x",
            "def t():\n    x = f()\n    assert x is x\n",
            1,
            1,
            0,
        ),
        ("1 == 1", "def t():\n    assert 1 == 1\n", 1, 1, 0),
        // A parameter (a @given value) or a module-level object compared with itself
        // tests its __eq__ (packaging's `assert Infinity == Infinity`).
        ("param == param", "def t(m):\n    assert m == m\n", 1, 0, 0),
        (
            "constant == constant",
            "def t():\n    assert Infinity == Infinity\n",
            1,
            0,
            0,
        ),
        (
            "loop target",
            "def t():\n    for y in f():\n        assert y == y\n",
            1,
            1,
            0,
        ),
        (
            "attr is attr can differ",
            "def t():\n    assert a.b is a.b\n",
            1,
            0,
            0,
        ),
        (
            "calls can differ",
            "def t():\n    assert f() is f()\n",
            1,
            0,
            0,
        ),
        (
            "hash is deterministic",
            "def t():\n    assert hash(f(1)) == hash(f(1))\n",
            1,
            0,
            0,
        ),
        ("real", "def t():\n    assert f(1) == 2\n", 1, 0, 0),
        ("x != x can fail", "def t():\n    assert x != x\n", 1, 0, 0),
        (
            "raises",
            "def t():\n    with pytest.raises(E):\n        f()\n",
            0,
            0,
            1,
        ),
        (
            "self.assert",
            "def t(self):\n    self.assertEqual(1, f())\n",
            0,
            0,
            1,
        ),
        (
            "nested if",
            "def t():\n    if c:\n        assert f()\n",
            1,
            0,
            0,
        ),
        ("empty string", "def t():\n    assert ''\n", 1, 0, 0),
    ];
    for (name, src, asserts, tautologies, checks) in cases {
        let f = only_fn(src);
        assert_eq!(f.asserts.asserts, *asserts, "{name}");
        assert_eq!(f.asserts.tautologies, *tautologies, "{name}");
        assert_eq!(f.asserts.checks, *checks, "{name}");
    }
}

#[test]
fn raising_assertion_error_is_a_check() {
    // (name, body, checks)
    let cases = [
        ("raise", "    raise AssertionError\n", 1),
        (
            "raise a call",
            "    if f():\n        raise AssertionError('no')\n",
            1,
        ),
        ("builtins", "    raise builtins.AssertionError('no')\n", 1),
        ("pytest.fail", "    pytest.fail('no')\n", 1),
        ("another error", "    raise ValueError('no')\n", 0),
        (
            "re-raise",
            "    try:\n        f()\n    except E:\n        raise\n",
            0,
        ),
        ("an attribute", "    raise errors.AssertionError\n", 0),
    ];
    for (name, body, checks) in cases {
        let f = only_fn(&format!("def t():\n{body}"));
        assert_eq!(f.asserts.checks, checks, "{name}");
    }
}

#[test]
fn a_self_comparison_names_the_callable_every_binding_calls() {
    let built_by = |body: &str| -> Vec<(u64, String)> {
        let f = only_fn(&format!("def t(p):\n{body}"));
        f.asserts
            .self_compared
            .iter()
            .map(|s| (s.line, s.built_by.to_string()))
            .collect()
    };
    let one = |line: u64, by: &str| vec![(line, by.to_string())];
    assert_eq!(
        built_by("    u = URL('x')\n    assert u == u\n"),
        one(3, "URL")
    );
    assert_eq!(
        built_by("    u: URL = yarl.URL('x')\n    assert u is u\n"),
        one(3, "yarl.URL")
    );
    assert_eq!(
        built_by("    u = URL('x')\n    if p:\n        u = URL('y')\n    assert u == u\n"),
        one(5, "URL")
    );
    // Not one callable for every binding, or not a call of a name: nothing to resolve.
    for body in [
        "    u = URL('x')\n    u = parse('x')\n    assert u == u\n",
        "    u = URL('x')\n    for u in p:\n        pass\n    assert u == u\n",
        "    u = URL('x')\n    (u := URL('y'))\n    assert u == u\n",
        "    u, v = URL('x'), 1\n    assert u == u\n",
        "    u = make()('x')\n    assert u == u\n",
        "    u = 'x'\n    assert u == u\n",
        "    u: URL\n    assert u == u\n",
        // The class is the body's own.
        "    URL = p\n    u = URL('x')\n    assert u == u\n",
        // A literal compared with itself, a parameter, a comparison that can fail.
        "    assert 1 == 1\n",
        "    assert p == p\n",
        "    u = URL('x')\n    assert u != u\n",
    ] {
        assert_eq!(built_by(body), [], "{body}");
    }
}

#[test]
fn a_body_that_asserts_nothing_lists_the_names_it_calls() {
    let calls = |body: &str| -> Vec<String> {
        only_fn(&format!("def t(p):\n{body}"))
            .calls
            .iter()
            .map(dotted)
            .collect()
    };
    assert_eq!(
        calls("    check(p)\n    x = helpers.total(check(p), p.m())\n    [f() for _ in p]\n"),
        ["check", "helpers.total", "p.m", "f"]
    );
    // Nested bodies too; a call of a call's result is not a name's.
    assert_eq!(
        calls("    with ctx():\n        if p:\n            g(1)\n    make()(2)\n"),
        ["ctx", "g", "make"]
    );
    // A body that asserts or checks needs none.
    assert_eq!(calls("    check(p)\n    assert p\n"), Vec::<String>::new());
    assert_eq!(
        calls("    check(p)\n    pytest.fail('x')\n"),
        Vec::<String>::new()
    );
}

/// (asserts, tautologies, guarded) of the only function in `body` (indented by 4).
fn counted(body: &str) -> (u32, u32, Option<Box<Guarded>>) {
    let f = only_fn(&format!("def t():\n{body}"));
    (f.asserts.asserts, f.asserts.tautologies, f.asserts.guarded)
}

#[test]
fn what_may_catch_an_assertion_is_recorded() {
    let (_, _, guarded) = counted(
        "    try:\n        assert f()\n        with suppress(ValueError, (os.Error, 1)):\n\
         \x20           assert g() or True\n    except (AssertionError, builtins.Exception):\n\
         \x20       if x:\n            errors.append(1)\n    except:\n        fail()\n\
         \x20   assert h()\n",
    );
    let guarded = guarded.expect("guarded assertions");
    assert_eq!(
        guarded.asserts,
        [
            GuardedAssert {
                place: 0,
                line: 3,
                or_always_true: false
            },
            GuardedAssert {
                place: 1,
                line: 5,
                or_always_true: true
            },
        ]
    );
    assert_eq!(guarded.catchers.len(), 2);
    assert_eq!(guarded.catchers[0].asserts, 1..2);
    assert_eq!(
        guarded.catchers[0].by,
        CatchBy::Suppress(vec!["ValueError".into(), "Error".into()])
    );
    assert_eq!(guarded.catchers[1].asserts, 0..2);
    let CatchBy::Handlers(handlers) = &guarded.catchers[1].by else {
        panic!("a try's handlers");
    };
    assert_eq!(
        handlers[0].types,
        Some(vec!["AssertionError".into(), "Exception".into()])
    );
    assert_eq!(handlers[0].body.calls, [Called::Method("append".into())]);
    assert_eq!(handlers[1].types, None);
    assert_eq!(handlers[1].body.calls, [Called::Function("fail".into())]);
    // Outside any try and with no always-true `or`: nothing guarded.
    assert_eq!(
        counted("    assert f()\n    with open(p):\n        assert g()\n").2,
        None
    );
}

#[test]
fn tautologies_on_literals_and_object() {
    for body in [
        "    assert isinstance(f(), object)\n",
        "    assert isinstance(f(), (int, object))\n",
        "    assert [f()]\n",
        "    assert {'k': f()}\n",
        "    assert {f()}\n",
        "    assert f'result {f()}'\n",
        "    assert (f(), 'message')\n",
    ] {
        assert_eq!(counted(body), (1, 1, None), "{body}");
    }
    for body in [
        "    assert isinstance(f(), int)\n",
        "    assert []\n",
        "    assert f'{f()}'\n",
        "    assert False\n",
        "    assert m == m2\n",
    ] {
        assert_eq!(counted(body).1, 0, "{body}");
    }
}

#[test]
fn coding_cookies() {
    let at = |src: &str| {
        summarize(src)
            .unwrap()
            .coding
            .map(|c| (c.value.to_string(), c.line))
    };
    assert_eq!(
        at("# -*- coding: latin-1 -*-\nx = 1\n"),
        Some(("latin-1".into(), 1))
    );
    assert_eq!(
        at("#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n"),
        Some(("cp1252".into(), 2))
    );
    assert_eq!(at("\r\n# coding=utf_8\r\n"), Some(("utf_8".into(), 2)));
    // Only the first two lines, and line 2 only after a comment or blank line 1.
    assert_eq!(at("x = 1\n# coding: latin-1\n"), None);
    assert_eq!(at("#\n#\n# coding: latin-1\n"), None);
    assert_eq!(at("x = '# coding: latin-1'\n"), None);
    assert_eq!(at("# no cookie here, just coding\n"), None);
}

#[test]
fn assume_calls_are_kept() {
    let f = only_fn(
        "def t(x):\n    assume(x > 0)\n    if x:\n        hypothesis.assume(x != 3)\n    assert x\n",
    );
    let lines: Vec<u64> = f.assumes.iter().map(|a| a.line).collect();
    assert_eq!(lines, [2, 4]);
}

#[test]
fn lines_with_crlf_and_bom() {
    let src = "\u{feff}import pytest\r\n\r\n@pytest.mark.merge\r\ndef test_a():\r\n    assert 1 == f()\r\n";
    let m = summarize(src).unwrap();
    assert_eq!(m.functions[0].line, 4);
    assert_eq!(m.functions[0].decorators[0].line, 3);
}

#[test]
fn syntax_error_is_located() {
    let err = summarize("x = 1\ndef f(:\n    pass\n").unwrap_err();
    assert_eq!(err.line, 2);
    assert!(err.column >= 1);
}

#[test]
fn imports_and_joined_strings() {
    let long = "a_package_name_longer_than_24.and_a_module";
    let m = summarize(&format!(
        "import a.b.c\nimport x.y as z\nimport p\nfrom . import q\nfrom m.n import r as s\n\
         from {long} import a_name_longer_than_24_bytes\n\
         X = 'ab' 'cd'\ndef t():\n    'doc' 'string'\n"
    ))
    .unwrap();
    let got: Vec<_> = m
        .imports
        .iter()
        .map(|i| {
            (
                i.module.as_str(),
                i.name.as_deref(),
                i.binds.as_str(),
                i.dotted.as_deref(),
                i.submodule(),
            )
        })
        .collect();
    let long_sub = format!("{long}.a_name_longer_than_24_bytes");
    assert_eq!(
        got,
        [
            ("a", None, "a", Some("a.b.c"), None),
            ("x.y", None, "z", None, None),
            ("p", None, "p", None, None),
            ("", Some("q"), "q", None, Some("q".into())),
            ("m.n", Some("r"), "s", None, Some("m.n.r".into())),
            (
                long,
                Some("a_name_longer_than_24_bytes"),
                "a_name_longer_than_24_bytes",
                None,
                Some(long_sub.as_str().into())
            ),
        ]
    );
    // Implicitly concatenated parts are joined.
    assert_eq!(m.assigns[0].1.value, Ex::Str("abcd".into()));
    assert_eq!(m.functions[0].docstring.as_deref(), Some("docstring"));
}

#[test]
fn dotted_names_are_one_string_however_written() {
    let deep = format!("x{}", ".a".repeat(MAX_DEPTH + 2));
    let m = summarize(&format!(
        "@pytest.mark.merge\n@pytest . mark.\\\n merge\n@(pytest).mark.merge\n\
         @(pytest.mark  # note\n  .merge)\n@make().mark.merge\n@{deep}\ndef test_a(): pass\n"
    ))
    .unwrap();
    let got: Vec<&Ex> = m.functions[0].decorators.iter().map(|d| &d.value).collect();
    let merge = Ex::Dotted("pytest.mark.merge".into());
    assert_eq!(got[..3], [&merge, &merge, &merge]);
    assert_eq!(got[3], &merge, "a comment between the parts");
    // Over anything but a name, the attributes stay nodes.
    let Ex::Attr(base, merge_attr) = got[4] else {
        panic!("not an attribute: {:?}", got[4])
    };
    assert_eq!(merge_attr, "merge");
    assert!(
        matches!(&**base, Ex::Attr(call, mark) if mark == "mark" && matches!(**call, Ex::Call(_)))
    );
    // Deeper than MAX_DEPTH the name is cut off as before: attributes over `Other`.
    let mut ex = got[5];
    let mut attrs = 0;
    while let Ex::Attr(base, _) = ex {
        ex = base;
        attrs += 1;
    }
    assert_eq!((ex, attrs), (&Ex::Other, MAX_DEPTH + 1));
    assert_eq!(dotted(got[0]), "pytest.mark.merge");
}

#[test]
fn call_arguments_keep_their_source() {
    let m = summarize(
        "@given(total=amounts, credit=st.integers(0, 5))\ndef test_a(total, credit): pass\n",
    )
    .unwrap();
    let Ex::Call(call) = &m.functions[0].decorators[0].value else {
        panic!("not a call")
    };
    assert_eq!(call.args_src, "total=amounts, credit=st.integers(0, 5)");
    assert_eq!(call.kwargs.len(), 2);
    let srcs: Vec<&str> = call.kwargs_src().collect();
    assert_eq!(srcs, ["amounts", "st.integers(0, 5)"]);
}

#[test]
fn keyword_values_keep_their_exact_text() {
    // Leading space and a comment inside the parentheses, a parenthesized value, a value
    // over several lines, a value with non-ASCII text, and a nested call's own keywords.
    let m = summarize(concat!(
        "@settings(  # why\n",
        "    deadline=(None),\n",
        "    max_examples=int(\n        '5'),\n",
        "    note='é', inner=f(a=1, b=[2,\n3]) ,\n",
        ")\n",
        "def test_a(): pass\n",
    ))
    .unwrap();
    let Ex::Call(call) = &m.functions[0].decorators[0].value else {
        panic!("not a call")
    };
    let srcs: Vec<&str> = call.kwargs_src().collect();
    assert_eq!(
        srcs,
        ["None", "int(\n        '5')", "'é'", "f(a=1, b=[2,\n3])"]
    );
    let Ex::Call(inner) = &call.kwargs[3].1 else {
        panic!("not a call")
    };
    assert_eq!(inner.kwargs_src().collect::<Vec<_>>(), ["1", "[2,\n3]"]);
    assert_eq!(inner.args_src, "a=1, b=[2,\n3]");
}

#[test]
fn dynamic_words_cover_what_the_walk_finds() {
    // Each snippet holds one of the words, and the walk finds a run-time binding in it.
    let cases = [
        "for n in range(2):\n    def test_x(): pass\n",
        "while n:\n    class TestX: pass\n",
        "globals()['test_x'] = f\n",
        "locals()['test_x'] = f\n",
        "vars().update(test_x=f)\n",
        "TestX = type('TestX', (), {})\n",
        "setattr(sys.modules[__name__], 'test_x', f)\n",
        "setattr(TestX, 'test_y', f)\n",
    ];
    for src in cases {
        assert!(may_bind_at_run_time(src), "{src}");
        let m = summarize(src).unwrap();
        assert!(
            !m.runtime_defs.is_empty() || !m.setattr_on.is_empty(),
            "nothing found in {src:?}"
        );
    }
    // Without any of the words (and all ASCII) the walk is skipped; with non-ASCII text it
    // is not (an identifier may normalize to one of them).
    assert!(!may_bind_at_run_time("def test_x():\n    assert 1\n"));
    assert!(may_bind_at_run_time("x = 'é'\n"));
}

#[test]
fn mark_and_check_walks_skipped_only_where_they_find_nothing() {
    let f = only_fn("def test_a(file_regression):\n    file_regression.check('x')\n");
    assert_eq!(f.regression_checks.len(), 1);
    assert!(!f.mentions_mark);
    let f = only_fn("def deco(f):\n    return pytest.mark.slow(f)\n");
    assert!(f.mentions_mark);
    assert!(f.regression_checks.is_empty());
    // Nested past MAX_DEPTH: recorded as a check of any fixture, though no `check` is
    // written (fail closed).
    let mut src = String::from("def test_deep():\n");
    for level in 1..=MAX_DEPTH + 2 {
        src.push_str(&" ".repeat(4 * level));
        src.push_str("if x:\n");
    }
    src.push_str(&" ".repeat(4 * (MAX_DEPTH + 3)));
    src.push_str("pass\n");
    let f = only_fn(&src);
    assert_eq!(f.regression_checks.len(), 1);
    assert_eq!(f.regression_checks[0].value.fixture, ANY_FIXTURE);
}

#[test]
fn loops_only_walk_finds_what_the_whole_walk_finds() {
    // Sources with a loop keyword and none of the call words: the walk of the module's
    // statements alone finds what the whole walk finds. Each `(source, found)`: how many
    // definitions in a loop there are.
    let cases = [
        (
            "for n in range(2):\n    def test_x(): pass\n    class TestY: pass\n",
            2,
        ),
        (
            "while n:\n    if x:\n        def test_a(): pass\nelse:\n    pass\n",
            1,
        ),
        (
            "def f():\n    for i in x:\n        def test_inner(): pass\n",
            0,
        ),
        (
            "class C:\n    for i in x:\n        def test_m(self): pass\n",
            0,
        ),
        (
            "with open(p) as f:\n    for line in f:\n        class TestZ: pass\n",
            1,
        ),
        (
            "try:\n    while 1:\n        def test_t(): pass\nexcept E:\n    pass\n",
            1,
        ),
        (
            "async def g():\n    async for i in x:\n        def test_h(): pass\n",
            0,
        ),
        ("x = [i for i in y]\ndef test_ok(): pass\n", 0),
        (
            "for i in x:\n    for j in y:\n        @deco\n        def test_n(): pass\n",
            1,
        ),
    ];
    for (src, found) in cases {
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        assert_eq!(
            run_time_words(src, parsed.tokens()),
            RunTimeWords::Loops,
            "{src}"
        );
        let lines = Lines::new(src);
        let walk = |calls| {
            let mut d = Dynamic::at_module(&lines, calls);
            d.visit_body(&parsed.syntax().body);
            (d.out, d.setattr_on)
        };
        let loops_only = walk(false);
        assert_eq!(loops_only, walk(true), "{src}");
        assert_eq!(loops_only.0.len(), found, "{src}");
        assert_eq!(summarize(src).unwrap().runtime_defs, loops_only.0, "{src}");
    }
    let words = |src: &str| {
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        run_time_words(src, parsed.tokens())
    };
    assert_eq!(words("def test_x(): pass\n"), RunTimeWords::None);
    // The words in comments, strings and longer names are not tokens of their own.
    assert_eq!(
        words("# for type\nx = 'while vars'\nformat = typed = 1\n"),
        RunTimeWords::None
    );
    assert_eq!(words("for x in type(y): pass\n"), RunTimeWords::Any);
    assert_eq!(words("type X = int\n"), RunTimeWords::Any);
    assert_eq!(words("x = [i for i in y]\n"), RunTimeWords::Loops);
    assert_eq!(words("x = f'{globals()}'\n"), RunTimeWords::Any);
    assert_eq!(words("# for\nz = 'ü'\n"), RunTimeWords::Any);
}

#[test]
fn rebound_pairwise_and_hashed_agree() {
    // A few names bound twice among many bound once, below and above the pairwise limit.
    for n in [3, REBOUND_PAIRWISE - 2, REBOUND_PAIRWISE + 10] {
        let mut src = String::new();
        for k in 0..n {
            src.push_str(&format!("v{k} = 1\n"));
        }
        src.push_str("v1 = 2\ndef v2(): pass\n");
        let m = summarize(&src).unwrap();
        let names: Vec<(&str, u64)> = m
            .rebound
            .iter()
            .map(|b| (b.name.as_str(), b.line))
            .collect();
        let n = n as u64;
        assert_eq!(
            names,
            [("v1", 2), ("v2", 3), ("v1", n + 1), ("v2", n + 2)],
            "{n} bindings"
        );
    }
    // Nothing bound twice; only the last two bindings; a class body's.
    let lines = |bindings: &[Binding]| -> Vec<u64> { bindings.iter().map(|b| b.line).collect() };
    assert!(summarize("a = 1\nb = 2\n").unwrap().rebound.is_empty());
    assert_eq!(
        lines(&summarize("a = 1\nb = 2\nb = 3\n").unwrap().rebound),
        [2, 3]
    );
    let m = summarize("class C:\n    x = 1\n    y = 2\n    def y(self): pass\n").unwrap();
    assert_eq!(lines(&m.classes[0].rebound), [3, 4]);
}

#[test]
fn a_class_body_binding_shadows_the_module_name_its_conditions_read() {
    let guard = |src: &str| {
        summarize(src).unwrap().classes[0].methods[0].guards[0]
            .0
            .clone()
    };
    let module = "FLAG = True\nclass C:\n    if FLAG:\n        def test_a(self): pass\n";
    assert!(
        matches!(guard(module), Cond::Ref { .. }),
        "{:?}",
        guard(module)
    );
    // Bound in the class body (before or after, plainly or under `try`): not followed.
    for bound in [
        "    FLAG = False\n",
        "    try:\n        FLAG = 1\n    except E:\n        pass\n",
    ] {
        let class = format!("class C:\n{bound}    if FLAG:\n        def test_a(self): pass\n");
        assert!(
            !matches!(guard(&class), Cond::Ref { .. }),
            "{bound}: {:?}",
            guard(&class)
        );
    }
}

/// What `keep_last_of_each` replaced: a search-and-remove before each push.
fn keep_last_by_search(items: &[(CompactString, bool)]) -> Vec<(CompactString, bool)> {
    let mut out: Vec<(CompactString, bool)> = Vec::new();
    for item in items {
        if item.1 {
            out.retain(|earlier| earlier.0 != item.0);
        }
        out.push(item.clone());
    }
    out
}

proptest::proptest! {
    /// Both the pairwise path (16 items or fewer) and the set path (more) leave what a
    /// search before each push leaves, order included.
    #[test]
    fn keep_last_of_each_is_search_and_remove(
        items in proptest::collection::vec((0u8..6, proptest::bool::ANY), 0..60)
    ) {
        let mut items: Vec<(CompactString, bool)> = items
            .into_iter()
            .map(|(n, r)| (CompactString::new(format!("n{n}")), r))
            .collect();
        let want = keep_last_by_search(&items);
        keep_last_of_each(&mut items, |i| &i.0, |i| i.1);
        proptest::prop_assert_eq!(items, want);
    }
}

#[test]
fn the_last_definition_of_a_name_wins_in_small_and_large_bodies() {
    for count in [3usize, 40] {
        let mut src = String::from("class C:\n");
        for i in 0..count {
            src.push_str(&format!("    def test_{i}(self): pass\n"));
        }
        // Under `if`, a second `test_0` is kept beside the first; a plain one replaces
        // both, and lands last.
        src.push_str("    if FLAG:\n        def test_1(self): pass\n");
        src.push_str("    def test_0(self): pass\n    class K: pass\n    class K: x = 1\n");
        src.push_str("a = 1\nb = 2\na = 3\n");
        let m = summarize(&src).unwrap();
        let class = &m.classes[0];
        let names: Vec<(&str, bool)> = class
            .methods
            .iter()
            .map(|f| (f.name.as_str(), f.guards.is_empty()))
            .collect();
        let mut want: Vec<(String, bool)> =
            (1..count).map(|i| (format!("test_{i}"), true)).collect();
        want.push(("test_1".into(), false));
        want.push(("test_0".into(), true));
        let want: Vec<(&str, bool)> = want.iter().map(|(n, g)| (n.as_str(), *g)).collect();
        assert_eq!(names, want, "{count} methods");
        assert_eq!(class.classes.len(), 1);
        assert_eq!(class.classes[0].line, u64::try_from(count + 6).unwrap());
        let assigns: Vec<(&str, u64)> = m
            .assigns
            .iter()
            .map(|(n, v)| (n.as_str(), v.line))
            .collect();
        let first = u64::try_from(count + 7).unwrap();
        assert_eq!(assigns, [("b", first + 1), ("a", first + 2)]);
        let defined: Vec<&str> = m.definitions.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(defined, ["b", "a"]);
    }
}

proptest::proptest! {
    /// A module's name lookups give what a search of its lists from the end gives, below
    /// the map's threshold (searched) and above it (the map).
    #[test]
    fn name_lookups_find_the_last_binding(
        bindings in proptest::collection::vec((0u8..4, 0u8..9), 0..150)
    ) {
        let mut src = String::new();
        for (i, (kind, name)) in bindings.iter().enumerate() {
            src.push_str(&match kind {
                0 => format!("class n{name}: pass\n"),
                1 => format!("def n{name}(): pass\n"),
                2 => format!("n{name} = {i}\n"),
                _ => format!("from m{i} import n{name}\n"),
            });
        }
        let m = summarize(&src).unwrap();
        for name in (0..10).map(|n| format!("n{n}")) {
            let name = name.as_str();
            proptest::prop_assert_eq!(
                m.class_named(name).map(|c| c.line),
                m.classes.iter().rev().find(|c| c.name == name).map(|c| c.line)
            );
            proptest::prop_assert_eq!(
                m.function_named(name).map(|f| f.line),
                m.functions.iter().rev().find(|f| f.name == name).map(|f| f.line)
            );
            proptest::prop_assert_eq!(
                m.assign_named(name).map(|v| v.line),
                m.assigns.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.line)
            );
            proptest::prop_assert_eq!(
                m.import_named(name).map(|(k, i)| (k, i.line)),
                m.imports.iter().enumerate().rev().find(|(_, i)| i.binds == name).map(|(k, i)| (k, i.line))
            );
        }
    }
}

#[test]
fn a_module_of_many_bindings_is_looked_up_through_its_map() {
    let mut src = String::from("class Base: pass\n");
    for i in 0..Module::SEARCH_MAX {
        src.push_str(&format!("def helper_{i}(): pass\n"));
    }
    src.push_str("class Base: x = 1\n");
    let m = summarize(&src).unwrap();
    assert!(m.by_name.is_some());
    assert_eq!(m.class_named("Base").map(|c| c.line), Some(66));
    assert_eq!(m.function_named("helper_3").map(|f| f.line), Some(5));
    assert!(m.function_named("Base").is_none());
    assert!(m.assign_named("helper_3").is_none());
    assert!(summarize("class Base: pass\n").unwrap().by_name.is_none());
}

#[test]
fn dunder_all_is_read_the_same_short_or_long() {
    for count in [3usize, 100] {
        let names: Vec<String> = (0..count).map(|i| format!("'n{i}'")).collect();
        let m = summarize(&format!("__all__ = [{}, f()]\n", names.join(", "))).unwrap();
        assert_eq!(m.dunder_all.is_some(), count > Module::SEARCH_MAX);
        assert_eq!(m.dunder_all_lists("n0"), Some(true), "{count}");
        assert_eq!(m.dunder_all_lists(&format!("n{}", count - 1)), Some(true));
        assert_eq!(m.dunder_all_lists(&format!("n{count}")), Some(false));
        // The last binding wins: a later non-literal `__all__` is read as unknown.
        let later = summarize(&format!(
            "__all__ = ({},)\n__all__ = names()\n",
            names.join(", ")
        ))
        .unwrap();
        assert_eq!(later.dunder_all_lists("n0"), None);
    }
    assert_eq!(summarize("x = 1\n").unwrap().dunder_all_lists("x"), None);
}
