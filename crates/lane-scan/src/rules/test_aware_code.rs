//! test-aware-code: product code that knows it is under test or reaches into the test run
//! (it reads pytest's environment variables or report options, looks pytest up in
//! `sys.modules`, imports pytest outside a pytest plugin project, writes under a test folder or
//! to the report), in its own lines or in a string literal it runs with `exec`, `eval` or
//! `compile`. Judged on the lines a patch changed, or on every product file; a product file
//! that cannot be read or parsed cannot be judged, and is reported as such. What product code
//! reaches for is lane-python's `product::reaches`. An atexit handler is no finding here: it is
//! a capability (`capability-added`), shown to a maintainer, since libraries register them for
//! ordinary cleanup.

use std::rc::Rc;

use lane_core::detector::Detector;
use lane_core::rule::SOURCE_MAX_BYTES;
use lane_core::{Problem, Rule};
use lane_python::product::{Reach, Reached};

use super::{Scan, ScanFacts};
use crate::aware::{Ranges, TEST_FOLDERS};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::TestAwareCode],
    check,
};

/// Command-line options that name pytest's reports: product code reading them finds the file
/// the run will vote with.
const REPORT_OPTIONS: &[&str] = &[
    "--junitxml",
    "--junit-xml",
    "--junit-prefix",
    "--resultlog",
    "--report-log",
];

/// How many other calls that run the same string a finding in it names by line.
const ALSO_NAMED: usize = 3;

/// One product file judged.
pub(crate) struct ProductFile<'a> {
    /// Root-relative.
    pub file: &'a str,
    /// The lines the patch changed in it; None: all of it is judged.
    pub changed: Option<&'a Ranges>,
    /// What its code reaches for, or why it cannot be judged.
    pub reached: &'a Result<Vec<Reach>, Unjudged>,
    /// The project is a pytest plugin (a `pytest11` entry point).
    pub plugin: bool,
    /// Folder names beyond [`TEST_FOLDERS`] that hold tests (testpaths).
    pub test_dirs: &'a [String],
    /// Its uses beyond plain computation (none when it cannot be judged: the reason is in
    /// `reached`).
    pub uses: &'a [lane_python::capability::Use],
    /// The third-party modules the base's product code imports: `None` when there is no
    /// base (the whole tree is judged).
    pub base_imports: Option<&'a std::collections::BTreeSet<String>>,
}

/// Why a product file cannot be judged.
pub(crate) enum Unjudged {
    /// It cannot be read as UTF-8 text, or is over the size limit.
    NotText,
    /// It does not parse: the line.
    DoesNotParse(u64),
}

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Product(p) = facts else { return };
    let rel = p.file;
    let reached = match p.reached {
        Ok(reached) => reached,
        Err(Unjudged::NotText) => {
            problems.push(
                Problem::new(
                    Rule::TestAwareCode,
                    format!(
                        "{rel}: a changed product file that cannot be read as UTF-8 text (or \
                         is over {SOURCE_MAX_BYTES} bytes): it cannot be judged"
                    ),
                )
                .file(rel),
            );
            return;
        }
        Err(Unjudged::DoesNotParse(line)) => {
            problems.push(
                Problem::new(
                    Rule::TestAwareCode,
                    format!(
                        "{rel}:{line}: a changed product file that does not parse: it cannot be \
                         judged"
                    ),
                )
                .at(rel, *line),
            );
            return;
        }
    };
    for f in judge(reached, p.plugin, p.test_dirs) {
        let touched = match p.changed {
            None => true,
            Some(ranges) => f
                .lines
                .iter()
                .any(|&(a, b)| ranges.iter().any(|&(c, d)| a <= d && c <= b)),
        };
        if touched {
            problems.push(
                Problem::new(
                    Rule::TestAwareCode,
                    format!(
                        "{rel}:{}: product code {}: a library that knows it is under test, or \
                         can touch the run, can pass any suite",
                        f.line, f.what
                    ),
                )
                .at(rel, f.line),
            );
        }
    }
}

/// One construct found: where it starts, every line it spans (with the literals it was
/// resolved through), and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    line: u64,
    /// Shared by the findings of one string that code runs (its literal and every call that
    /// runs it: a string run from many calls holds many lines).
    lines: Rc<[(u64, u64)]>,
    what: String,
}

/// The test-aware constructs among what a file's code `reached` for, sorted by line.
/// `plugin`: the project is a pytest plugin (imports of pytest are its business).
/// `test_dirs`: folder names beyond [`TEST_FOLDERS`] that hold tests (testpaths).
fn judge(reached: &[Reach], plugin: bool, test_dirs: &[String]) -> Vec<Finding> {
    let mut found: Vec<Finding> = Vec::new();
    for reach in reached {
        let judged = Judged {
            plugin,
            test_dirs,
            reach,
        };
        judged.findings(&mut found);
    }
    found.sort_by(|a, b| (a.line, &a.what).cmp(&(b.line, &b.what)));
    found.dedup_by(|a, b| a.line == b.line && a.what == b.what);
    found
}

/// One thing product code reaches for, judged.
struct Judged<'a> {
    plugin: bool,
    test_dirs: &'a [String],
    reach: &'a Reach,
}

/// Whether `s` names pytest's package, its internals, or one of their modules.
fn is_pytest_module(s: &str) -> bool {
    ["pytest", "_pytest"]
        .iter()
        .any(|p| s == *p || s.strip_prefix(p).is_some_and(|r| r.starts_with('.')))
}

impl Judged<'_> {
    /// The findings of the construct, in the order they are written.
    fn findings(&self, out: &mut Vec<Finding>) {
        if let Reached::Exec {
            func,
            literal,
            calls,
            reached,
        } = &self.reach.what
        {
            self.run_code(func, *literal, calls, reached, out);
            return;
        }
        let mut push = |what: String, more: Option<u64>| {
            let r = self.reach;
            let mut lines = vec![(r.first, r.last)];
            lines.extend(more.map(|l| (l, l)));
            out.push(Finding {
                line: r.first,
                lines: lines.into(),
                what,
            });
        };
        match &self.reach.what {
            Reached::Import(module) if is_pytest_module(module) && !self.plugin => {
                push(
                    format!(
                        "imports {module} (the project declares no pytest11 entry point: it \
                         is not a pytest plugin)"
                    ),
                    None,
                );
            }
            Reached::ModulesLookup(key) if is_pytest_module(key) => {
                push(format!("looks {key} up in sys.modules"), None);
            }
            Reached::Membership { needle, container } if is_pytest_module(needle) => {
                push(
                    format!(
                        "asks whether {needle:?} is in {}",
                        container.as_deref().unwrap_or("a container")
                    ),
                    None,
                );
            }
            Reached::Str(v) => {
                if v.starts_with("PYTEST_") {
                    push(format!("names pytest's environment variable {v}"), None);
                } else if v == "_called_from_test" {
                    push("reads sys._called_from_test".into(), None);
                } else if REPORT_OPTIONS.iter().any(|o| v.starts_with(o)) {
                    push(format!("names pytest's report option {v:?}"), None);
                }
            }
            Reached::Attribute { name, .. } if name == "_called_from_test" => {
                push("reads sys._called_from_test".into(), None);
            }
            Reached::Write { how, literals } => {
                if let Some((what, line)) = literals
                    .iter()
                    .find_map(|(lit, line)| Some((self.names_test_path(lit)?, *line)))
                {
                    push(format!("writes ({how}) to a path under {what}"), Some(line));
                }
            }
            _ => {}
        }
    }

    /// The findings of code in a string literal that `func` runs: each as the code's own,
    /// placed at the first call that runs the string and spanning the literal and every such
    /// call (a patch that changes either is judged), its message saying where it was.
    fn run_code(
        &self,
        func: &str,
        literal: (u64, u64),
        calls: &[(u64, u64)],
        reached: &[Reach],
        out: &mut Vec<Finding>,
    ) {
        let mut inner = Vec::new();
        for reach in reached {
            let judged = Judged { reach, ..*self };
            judged.findings(&mut inner);
        }
        let lines: Rc<[(u64, u64)]> = std::iter::once(literal)
            .chain(calls.iter().copied())
            .collect();
        // The other calls by line, the first few named (the message stays short however many).
        let also = match calls {
            [_, rest @ ..] if !rest.is_empty() => {
                let at: Vec<String> = rest
                    .iter()
                    .take(ALSO_NAMED)
                    .map(|(l, _)| l.to_string())
                    .collect();
                let more = rest.len().saturating_sub(ALSO_NAMED);
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                let noun = if rest.len() == 1 { "line" } else { "lines" };
                format!("; also run at {noun} {}{more}", at.join(", "))
            }
            _ => String::new(),
        };
        for f in inner {
            out.push(Finding {
                line: self.reach.first,
                lines: Rc::clone(&lines),
                what: format!(
                    "{}, in a string literal it runs with {func} (line {} of the string{also})",
                    f.what, f.line
                ),
            });
        }
    }

    /// Whether a literal names a test folder (a path component) or a pytest report.
    fn names_test_path(&self, lit: &str) -> Option<String> {
        let lower = lit.to_ascii_lowercase();
        if lower.contains("junit") {
            return Some(format!("the report ({lit:?})"));
        }
        lit.split(['/', '\\'])
            .find(|c| TEST_FOLDERS.contains(c) || self.test_dirs.iter().any(|d| d == c))
            .map(|c| {
                if c == lit {
                    format!("a test folder ({c:?})")
                } else {
                    format!("a test folder ({c:?} in {lit:?})")
                }
            })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn whats(source: &str, plugin: bool) -> Vec<(u64, String)> {
        let reached = lane_python::product::reaches(source).unwrap();
        judge(&reached, plugin, &[])
            .into_iter()
            .map(|f| (f.line, f.what))
            .collect()
    }

    fn lines(source: &str) -> Vec<u64> {
        whats(source, false).into_iter().map(|(l, _)| l).collect()
    }

    #[test]
    fn branching_on_the_test_run_is_found_in_every_spelling() {
        let cases = [
            "import os\nif os.environ.get('PYTEST_CURRENT_TEST'):\n    x = 1\n",
            "import os\nif 'PYTEST_CURRENT_TEST' in os.environ:\n    x = 1\n",
            "from os import getenv\nif getenv('PYTEST_VERSION'):\n    x = 1\n",
            "import os as o\nif o.environ['PYTEST_XDIST_WORKER']:\n    x = 1\n",
            "import sys\nif 'pytest' in sys.modules:\n    x = 1\n",
            "import sys\nif '_pytest.reports' not in sys.modules:\n    x = 1\n",
            "import sys\nm = sys.modules.get('_pytest')\n",
            "from sys import modules\nm = modules['pytest']\n",
            "import sys\nif getattr(sys, '_called_from_test', False):\n    x = 1\n",
            "import sys\nif sys._called_from_test:\n    x = 1\n",
        ];
        for case in cases {
            assert_eq!(lines(case), [2], "{case}");
        }
    }

    #[test]
    fn reaching_into_the_run_is_found() {
        assert_eq!(lines("import pytest\n"), [1]);
        assert_eq!(
            lines("def f():\n    from _pytest.reports import TestReport\n"),
            [2]
        );
        assert_eq!(
            lines("import importlib\nm = importlib.import_module('_pytest.runner')\n"),
            [2]
        );
        assert_eq!(
            lines(
                "import sys\nfor a in sys.argv:\n    if a.startswith('--junitxml='):\n        pass\n"
            ),
            [3]
        );
        // Writes under a test folder, the path bound to a name first.
        let golden = "import os\nG = os.path.join(os.path.dirname(__file__), 'tests', 'fixtures', 'g.txt')\n\
                      with open(G, 'w') as f:\n    f.write('x')\n";
        assert_eq!(lines(golden), [3]);
        assert_eq!(
            lines("from pathlib import Path\nPath('tests/fixtures/g.txt').write_text('x')\n"),
            [2]
        );
        assert_eq!(
            lines(
                "from pathlib import Path\np = Path(__file__).parent / 'tests'\n(p / 'g.txt').write_bytes(b'')\n"
            ),
            [3]
        );
        assert_eq!(
            lines("with open(f'{ROOT}/tests/g.txt', mode='a') as f:\n    pass\n"),
            [1]
        );
        assert_eq!(
            lines("import shutil\nshutil.copy('a.txt', 'tests/fixtures/g.txt')\n"),
            [2]
        );
        assert_eq!(lines("open('out/junit.xml', 'w')\n"), [1]);
    }

    #[test]
    fn ordinary_product_code_is_clean() {
        let clean = [
            "\"\"\"Set PYTEST_CURRENT_TEST in docs only; import pytest; atexit.register.\"\"\"\nx = 1\n",
            "import os\nmode = os.environ.get('APP_MODE', 'prod')\n",
            "import sys\nif 'numpy' in sys.modules:\n    pass\n",
            "with open('tests/fixtures/g.txt') as f:\n    data = f.read()\n",
            "with open('out/data.txt', 'w') as f:\n    f.write('x')\n",
            "from pathlib import Path\nPath('build/latest.txt').write_text('x')\n",
            "import weakref\nclass A:\n    pass\nweakref.finalize(A(), print)\n",
            "def register(f):\n    return f\n@register\ndef g():\n    pass\n",
            "import atexit\n",
            // An atexit handler is a capability (capability-added), not test-aware code.
            "import atexit\natexit.register(print)\n",
            "import atexit as _a\n\n@_a.register\ndef bye():\n    pass\n",
            "from atexit import register as r\nr(print)\n",
            "s = 'a pytest fixture'\nok = 'pytest' == s\n",
        ];
        for case in clean {
            assert_eq!(whats(case, false), [], "{case}");
        }
    }

    #[test]
    fn a_pytest_plugin_may_import_pytest_but_not_branch_on_the_run() {
        assert_eq!(
            whats("import pytest\nfrom _pytest.config import Config\n", true),
            []
        );
        assert_eq!(
            whats(
                "import os\nx = os.environ.get('PYTEST_CURRENT_TEST')\n",
                true
            )
            .len(),
            1
        );
    }

    /// The one finding of `source`, as (line, message).
    fn one(source: &str) -> (u64, String) {
        let found = whats(source, false);
        assert_eq!(found.len(), 1, "{source}: {found:?}");
        found.into_iter().next().unwrap()
    }

    #[test]
    fn code_run_from_a_string_literal_is_judged_at_the_call() {
        // A literal written in the call, its escapes read as Python reads them.
        assert_eq!(
            one("import os\n\nexec(\"import os\\nx = os.environ.get('PYTEST_CURRENT_TEST')\")\n"),
            (
                3,
                "names pytest's environment variable PYTEST_CURRENT_TEST, in a string literal \
                 it runs with exec (line 2 of the string)"
                    .into()
            )
        );
        // A name bound to a literal, at module level or in the function that runs it.
        assert_eq!(
            one("SRC = 'import pytest'\n\n\ndef f():\n    exec(SRC)\n"),
            (
                5,
                "imports pytest (the project declares no pytest11 entry point: it is not a \
                 pytest plugin), in a string literal it runs with exec (line 1 of the string)"
                    .into()
            )
        );
        let local = "def f():\n    src = \"import sys\\nm = sys.modules.get('_pytest')\"\n    \
                     exec(src, {})\n";
        assert_eq!(one(local).0, 3);
        assert!(
            one(local)
                .1
                .starts_with("looks _pytest up in sys.modules, in a string")
        );
        // eval reads one expression (its leading spaces dropped); a bare string is its value.
        let (line, what) = one("import os\nflag = eval(\"  os.environ['PYTEST_VERSION']\")\n");
        assert_eq!(line, 2);
        assert!(what.contains("PYTEST_VERSION, in a string literal it runs with eval"));
        assert_eq!(
            one("import os\nk = eval('\"PYTEST_XDIST_WORKER\"')\nv = os.environ.get(k)\n").0,
            2
        );
        // compile, in either mode, by position or keyword.
        let (line, what) = one("code = compile('import _pytest.runner', '<x>', 'exec')\n");
        assert_eq!(line, 1);
        assert!(what.contains("imports _pytest.runner"), "{what}");
        assert!(what.contains("it runs with compile"), "{what}");
        assert_eq!(
            one("import sys\nc = compile(mode='eval', filename='<x>', \
                 source=\"sys.modules['pytest']\")\n")
            .0,
            2
        );
        // A write under a test folder, and a bytes literal.
        assert!(
            one("exec(\"open('tests/fixtures/g.txt', 'w').write('x')\")\n")
                .1
                .starts_with("writes (open for writing) to a path under a test folder")
        );
        assert_eq!(one("exec(b'import pytest')\n").0, 1);
    }

    #[test]
    fn exec_is_followed_through_its_aliases() {
        for source in [
            "from builtins import exec as run\n\nrun('import pytest')\n",
            "import builtins\n\nbuiltins.exec('import pytest')\n",
            "import builtins as b\n\nb.eval(\"__import__('pytest')\")\n",
        ] {
            let (line, what) = one(source);
            assert_eq!(line, 3, "{source}");
            assert!(what.contains("imports pytest"), "{source}: {what}");
        }
    }

    #[test]
    fn a_triple_quoted_string_is_placed_at_the_call_and_spans_the_literal() {
        let source = "import os\n\nHOOK = '''\nimport os\n\nif os.environ.get(\"PYTEST_CURRENT_TEST\"):\n    \
                      X = 1\n'''\n\n\ndef install():\n    exec(HOOK)\n    exec(HOOK, {})\n";
        let reached = lane_python::product::reaches(source).unwrap();
        let found = judge(&reached, false, &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        // At the first call; the literal (lines 3-8) and both calls judged with it.
        assert_eq!(found[0].line, 12);
        assert_eq!(found[0].lines[..], [(3, 8), (12, 12), (13, 13)]);
        assert!(
            found[0]
                .what
                .ends_with("it runs with exec (line 4 of the string; also run at line 13)"),
            "{}",
            found[0].what
        );
        // Many calls: the first few are named, the rest counted.
        let (line, what) =
            one("S = 'import pytest'\nexec(S)\nexec(S)\nexec(S)\nexec(S)\nexec(S)\n");
        assert_eq!(line, 2);
        assert!(
            what.ends_with("(line 1 of the string; also run at lines 3, 4, 5 and 1 more)"),
            "{what}"
        );
    }

    #[test]
    fn exec_inside_an_exec_string_is_followed() {
        let source = "exec(\"exec('import sys\\\\nsys.modules[\\\\'pytest\\\\']')\")\n";
        let (line, what) = one(source);
        assert_eq!(line, 1);
        assert_eq!(
            what,
            "looks pytest up in sys.modules, in a string literal it runs with exec (line 2 of \
             the string), in a string literal it runs with exec (line 1 of the string)"
        );
    }

    #[test]
    fn strings_that_run_nothing_test_aware_are_clean() {
        let clean = [
            // Plain code, and a string that does not parse (running it fails).
            "exec('x = 1')\n",
            "eval('1 + 2')\n",
            "exec('import pytest(')\n",
            "exec(\"def (: 'PYTEST_CURRENT_TEST'\")\n",
            // The module's own exec is not the builtin: its argument is data.
            "def exec(text):\n    return text\n\n\nexec('import pytest')\n",
            "from tools import exec\n\nexec('import pytest')\n",
            // A string built at run time is not read (exec is capability-added already).
            "import sys\nexec(sys.argv[1])\n",
        ];
        for case in clean {
            assert_eq!(whats(case, false), [], "{case}");
        }
    }
}
