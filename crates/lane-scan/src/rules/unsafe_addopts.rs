//! unsafe-addopts: `addopts` is added to every pytest run, the gate's too; an option there that
//! changes what is selected, collected or reported makes the run differ from the scan
//!. Options lanes relies on nothing of are fine; options it does not know are a
//! warning naming them.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};

/// Options that change nothing lanes relies on, with whether they take a value (given as the
/// next argument unless written `--opt=value` or, for one-letter options, `-oVALUE`).
const HARMLESS: &[(&str, bool)] = &[
    // Output and reporting on the terminal.
    ("-v", false),
    ("--verbose", false),
    ("-q", false),
    ("--quiet", false),
    ("--verbosity", true),
    ("--color", true),
    ("--code-highlight", true),
    ("-r", true),
    ("--tb", true),
    ("--durations", true),
    ("--durations-min", true),
    ("--showlocals", false),
    ("-l", false),
    ("--no-showlocals", false),
    ("--no-header", false),
    ("--no-summary", false),
    ("--full-trace", false),
    ("--disable-warnings", false),
    ("--disable-pytest-warnings", false),
    ("-W", true),
    ("--pythonwarnings", true),
    ("--capture", true),
    ("-s", false),
    ("--show-capture", true),
    ("--import-mode", true),
    ("--assert", true),
    ("--strict-markers", false),
    ("--strict-config", false),
    ("--strict", false),
    ("--log-level", true),
    ("--log-format", true),
    ("--log-date-format", true),
    ("--log-cli-level", true),
    ("--log-cli-format", true),
    ("--log-cli-date-format", true),
    ("--log-file", true),
    ("--log-file-level", true),
    ("--log-file-format", true),
    ("--log-file-date-format", true),
    ("--log-auto-indent", true),
    ("--basetemp", true),
    // A run cut short fails closed through missing-vote.
    ("-x", false),
    ("--exitfirst", false),
    ("--maxfail", true),
    // Collection options lane-scan applies the same way, or that add only unmarked items
    // the lane runs do not select.
    ("--ignore", true),
    ("--ignore-glob", true),
    ("--doctest-modules", false),
    ("--doctest-glob", true),
    ("--doctest-continue-on-failure", false),
    ("--doctest-report", true),
    ("--doctest-ignore-import-errors", false),
    // Plugins: coverage, xdist, timeouts, asyncio, hypothesis statistics.
    ("--cov", false),
    ("--cov-report", true),
    ("--cov-config", true),
    ("--cov-branch", false),
    ("--cov-append", false),
    ("--cov-fail-under", true),
    ("--cov-context", true),
    ("--no-cov", false),
    ("--no-cov-on-fail", false),
    ("-n", true),
    ("--numprocesses", true),
    ("--dist", true),
    ("--maxprocesses", true),
    ("--max-worker-restart", true),
    ("--timeout", true),
    ("--timeout-method", true),
    ("--timeout_method", true),
    ("--asyncio-mode", true),
    ("--hypothesis-show-statistics", false),
    ("--hypothesis-verbosity", true),
    ("--hypothesis-explain", false),
    // pytest-regressions' data file names, which lane-scan follows.
    ("--with-test-class-names", false),
    // Retries have their own rule (retry-in-voting-lane).
    ("--reruns", true),
    ("--reruns-delay", true),
    ("--force-flaky", false),
];

/// Options that change what runs, how it is collected or reported: refused.
const REFUSED: &[(&str, bool, &str)] = &[
    ("-k", true, "selects tests by keyword"),
    ("-m", true, "selects tests by mark"),
    ("--deselect", true, "deselects tests"),
    ("-p", true, "loads a plugin"),
    ("--co", false, "collects without running"),
    ("--collect-only", false, "collects without running"),
    ("--collectonly", false, "collects without running"),
    ("-o", true, "overrides the configuration"),
    ("--override-ini", true, "overrides the configuration"),
    ("-c", true, "reads another configuration file"),
    ("--config-file", true, "reads another configuration file"),
    (
        "--rootdir",
        true,
        "moves the rootdir test ids are relative to",
    ),
    ("--confcutdir", true, "changes which conftest.py files load"),
    (
        "--noconftest",
        false,
        "changes which conftest.py files load",
    ),
    ("--junitxml", true, "writes a report of its own"),
    ("--junit-xml", true, "writes a report of its own"),
    ("--junitprefix", true, "renames the reported classnames"),
    ("--junit-prefix", true, "renames the reported classnames"),
    ("--pyargs", false, "collects from installed packages"),
    ("--lf", false, "runs only the last failures"),
    ("--last-failed", false, "runs only the last failures"),
    ("--ff", false, "reorders by the last failures"),
    ("--failed-first", false, "reorders by the last failures"),
    ("--nf", false, "reorders by file age"),
    ("--new-first", false, "reorders by file age"),
    ("--sw", false, "stops and resumes at a failure"),
    ("--stepwise", false, "stops and resumes at a failure"),
    ("--sw-skip", false, "skips a failure"),
    ("--stepwise-skip", false, "skips a failure"),
    ("--runxfail", false, "changes xfail outcomes"),
    ("--keep-duplicates", false, "changes collection"),
    (
        "--continue-on-collection-errors",
        false,
        "runs despite collection errors",
    ),
    ("--hypothesis-seed", true, "fixes hypothesis's search"),
    (
        "--hypothesis-profile",
        true,
        "changes hypothesis's settings",
    ),
    ("--snapshot-update", false, "rewrites snapshots"),
    ("--snapshot-warn-unused", false, "changes snapshot checks"),
    ("--force-regen", false, "rewrites regression files"),
    ("--regen-all", false, "rewrites regression files"),
    ("--inline-snapshot", true, "rewrites snapshots"),
];

/// What one `addopts` argument is.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Fine,
    Refused(String),
    Unknown(String),
}

/// Judges `args` (addopts, split as a shell would).
fn judge(args: &[String]) -> Vec<Verdict> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            out.push(Verdict::Refused(format!(
                "the path {arg:?} (a positional argument replaces testpaths)"
            )));
            continue;
        }
        let (name, inline) = split_option(arg);
        // `-p no:NAME` only disables a plugin.
        if name == "-p" {
            let value = match inline {
                Some(v) => Some(v.to_string()),
                None => args.get(i).inspect(|_| i += 1).cloned(),
            };
            match value {
                Some(v) if v.starts_with("no:") => out.push(Verdict::Fine),
                Some(v) => out.push(Verdict::Refused(format!("-p {v} (loads a plugin)"))),
                None => out.push(Verdict::Refused("-p without a value".into())),
            }
            continue;
        }
        if let Some((_, takes, why)) = REFUSED.iter().find(|(n, _, _)| *n == name) {
            if *takes && inline.is_none() {
                i += 1;
            }
            out.push(Verdict::Refused(format!("{name} ({why})")));
            continue;
        }
        if let Some((_, takes)) = HARMLESS.iter().find(|(n, _)| *n == name) {
            if *takes && inline.is_none() && i < args.len() {
                i += 1;
            }
            out.push(Verdict::Fine);
            continue;
        }
        if let Some(short) = short_flags(name, inline) {
            out.push(short);
            continue;
        }
        out.push(Verdict::Unknown(name.to_string()));
        // The next argument may be this option's value or a path: only `--opt=value` says.
        if inline.is_none() && args.get(i).is_some_and(|n| !n.starts_with('-')) {
            out.push(Verdict::Refused(format!(
                "{:?} after the unknown option {name} (write {name}=VALUE if it is its value; \
                 a positional argument replaces testpaths)",
                args[i]
            )));
            i += 1;
        }
    }
    out
}

/// `--name=value` → (`--name`, `value`); `-rXYZ` / `-n4` / `-Wvalue` → (`-r`, `XYZ`).
fn split_option(arg: &str) -> (&str, Option<&str>) {
    if arg.starts_with("--") {
        return match arg.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (arg, None),
        };
    }
    match arg.get(..2) {
        Some(head) if arg.len() > 2 => {
            let takes = HARMLESS
                .iter()
                .map(|(n, t)| (*n, *t))
                .chain(REFUSED.iter().map(|(n, t, _)| (*n, *t)))
                .any(|(n, t)| n == head && t);
            if takes {
                (head, Some(&arg[2..]))
            } else {
                (arg, None)
            }
        }
        _ => (arg, None),
    }
}

/// Joined one-letter flags (`-vv`, `-qx`, `-sv`): fine when every letter is a harmless flag
/// without a value.
fn short_flags(name: &str, inline: Option<&str>) -> Option<Verdict> {
    if inline.is_some() || name.starts_with("--") || name.len() < 3 {
        return None;
    }
    let all_harmless = name[1..].chars().all(|c| {
        HARMLESS
            .iter()
            .any(|(n, takes)| !takes && n.len() == 2 && n.ends_with(c))
    });
    all_harmless.then_some(Verdict::Fine)
}

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::UnsafeAddopts, Rule::UnknownAddopts],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Suite(s) = facts else { return };
    for verdict in judge(&s.config.addopts) {
        let p = match verdict {
            Verdict::Fine => continue,
            Verdict::Refused(what) => Problem::new(
                Rule::UnsafeAddopts,
                format!("addopts has {what}: the gate's pytest runs would differ from the scan"),
            ),
            Verdict::Unknown(name) => Problem::new(
                Rule::UnknownAddopts,
                format!(
                    "addopts has {name}, an option lanes does not know: check it does not \
                     change selection, collection or reports"
                ),
            ),
        };
        problems.push(s.locate(p, s.config.addopts_line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str) -> Vec<Verdict> {
        let args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        judge(&args)
            .into_iter()
            .filter(|v| *v != Verdict::Fine)
            .collect()
    }

    fn refused(line: &str) -> bool {
        let v = of(line);
        !v.is_empty() && v.iter().all(|v| matches!(v, Verdict::Refused(_)))
    }

    #[test]
    fn options_that_change_nothing_lanes_relies_on_pass() {
        for ok in [
            "-ra -q --strict-markers --strict-config",
            "-vv --tb=short --durations 10 --color=yes -p no:cacheprovider -pno:randomly",
            "-W error::DeprecationWarning -Werror --import-mode=importlib -s --capture=no",
            "--cov=pkg --cov-report term-missing -n auto --dist loadfile -x --maxfail=3",
            "--ignore=tests/slow --ignore-glob *_bench.py --doctest-modules --doctest-glob=*.rst",
            "-rxXs --showlocals -l --timeout 300 --asyncio-mode=auto --reruns 2",
            "-sv -qx",
        ] {
            assert_eq!(of(ok), [], "{ok}");
        }
    }

    #[test]
    fn options_that_change_the_run_are_refused_by_name() {
        for bad in [
            "tests/test_a.py",
            "-q tests",
            "-k not_slow",
            "-knot_slow",
            "-m merge",
            "--deselect tests/t.py::test_a",
            "-p myplugin",
            "-pmyplugin",
            "--co",
            "-o python_functions=check_*",
            "--override-ini=addopts=",
            "--rootdir=sub",
            "--confcutdir .",
            "--junitxml=out.xml",
            "--pyargs",
            "--lf",
            "--ff",
            "--sw",
            "--hypothesis-seed=0",
            "--hypothesis-profile ci",
            "--snapshot-update",
            "--force-regen",
            "--regen-all",
        ] {
            assert!(refused(bad), "{bad}: {:?}", of(bad));
        }
        // The value of a refused option is not read as a path too.
        assert_eq!(of("-m merge").len(), 1);
        let named = of("-q --deselect tests/t.py::test_a");
        assert!(matches!(&named[..], [Verdict::Refused(w)] if w.starts_with("--deselect")));
    }

    #[test]
    fn unknown_options_are_named() {
        assert_eq!(
            of("--benchmark-disable"),
            [Verdict::Unknown("--benchmark-disable".into())]
        );
        assert_eq!(
            of("--mpl-baseline-path=x"),
            [Verdict::Unknown("--mpl-baseline-path".into())]
        );
        // Its next argument could be a path: refused, with the way out named.
        let v = of("--some-plugin-opt tests");
        assert!(
            matches!(&v[..], [Verdict::Unknown(_), Verdict::Refused(w)] if w.contains("=VALUE"))
        );
    }
}
