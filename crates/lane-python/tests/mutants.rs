//! The mutant generator's golden test: every statement of `mutants/changed.py` asked for, the
//! exact mutants in order (`mutants/changed.txt`: line, kind, the changed line before and after),
//! each a module that parses and differs from the source in one place. `LANES_BLESS=1 cargo
//! test -p lane-python --test mutants` writes the expected file again.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use lane_python::mutant::{budget, mutants};

#[test]
fn every_statement_s_mutants_in_order() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mutants");
    let source = std::fs::read_to_string(dir.join("changed.py")).unwrap();
    let lines: BTreeSet<u64> = (1..=source.lines().count() as u64).collect();
    let made = mutants(&source, &lines).unwrap();
    let mut got = String::new();
    for m in &made {
        let module = m.apply(&source);
        assert!(
            ruff_python_parser::parse_module(&module).is_ok(),
            "{}: {:?} does not parse",
            m.line,
            m.replacement
        );
        // one place: the source's bytes before and after the change are the module's
        assert!(module.starts_with(&source[..m.start]));
        assert!(module.ends_with(&source[m.end..]));
        let (before, after) = m.line_diff(&source);
        writeln!(
            got,
            "{}: {}: {} -> {}",
            m.line,
            m.kind.as_str(),
            before.trim(),
            after.trim()
        )
        .unwrap();
    }
    // the same input, the same mutants
    assert_eq!(mutants(&source, &lines).unwrap(), made);
    // a budget keeps at most so many per statement, each kind in turn
    let kept = budget(made.clone(), 3);
    for line in lines {
        assert!(kept.iter().filter(|m| m.line == line).count() <= 3);
    }
    let expected = dir.join("changed.txt");
    if std::env::var_os("LANES_BLESS").is_some() {
        std::fs::write(&expected, &got).unwrap();
    }
    assert_eq!(got, std::fs::read_to_string(&expected).unwrap());
}
