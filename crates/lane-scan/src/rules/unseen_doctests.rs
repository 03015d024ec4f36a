//! unseen-doctests: with `--doctest-modules` pytest collects the docstring examples of every
//! module it walks; one whose items the scan cannot be sure of (a docstring set at run time, a
//! decorator it does not know ...), or module names that depend on `sys.path`
//! (`consider_namespace_packages`), leaves doctest items unseen.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{DoctestModuleFacts, Scan, ScanFacts, SuiteFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::UnseenDoctests],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    match facts {
        ScanFacts::DoctestModule(m) => module(m, problems),
        ScanFacts::Suite(s) if s.doctest_modules => namespace_packages(s, problems),
        _ => {}
    }
}

fn module(m: &DoctestModuleFacts, problems: &mut Vec<Problem>) {
    let (rel, name) = (m.file, m.name);
    for unsure in m.unsure {
        problems.push(
            Problem::new(
                Rule::UnseenDoctests,
                format!(
                    "{rel}:{}: with --doctest-modules pytest collects the docstring examples \
                     of module {name}, and lane-scan cannot be sure of them here: {}",
                    unsure.line, unsure.why
                ),
            )
            .at(rel, unsure.line),
        );
    }
}

/// `consider_namespace_packages` set true (or to a value pytest refuses) with module doctests:
/// pytest then names a module by the first folder above it under which
/// `importlib.util.find_spec` finds it at run time, which depends on `sys.path` (`python -m
/// pytest` puts the working folder first, the `pytest` script does not): the names of its
/// doctest items (`path.py::ns.pkg.mod.f` or `path.py::pkg.mod.f`) cannot be known statically.
fn namespace_packages(s: &SuiteFacts, problems: &mut Vec<Problem>) {
    let config = s.config;
    let Some((value, line)) = &config.consider_namespace_packages else {
        return;
    };
    let off = ["n", "no", "f", "false", "off", "0"];
    if off.contains(&value.trim().to_ascii_lowercase().as_str()) {
        return;
    }
    let rel_config = config.file.as_deref().map(|f| {
        lane_core::paths::relative_to(f, &config.rootdir)
            .unwrap_or_else(|| lane_core::paths::to_slash(f))
    });
    let file = rel_config.as_deref().unwrap_or("the config");
    problems.push(
        Problem::new(
            Rule::UnseenDoctests,
            format!(
                "{file}:{line}: consider_namespace_packages = {value} with --doctest-modules: \
                 pytest names each module's doctest items by the module name Python finds at \
                 run time, which depends on sys.path (python -m pytest and the pytest script \
                 differ), so lane-scan cannot be sure of any of them"
            ),
        )
        .at(file, *line),
    );
}
