//! runtime-hook: a hook in a conftest.py or in a plugin module the configuration loads that
//! can add marks, deselect tests or rewrite outcomes at run time, which no static scan can
//! see; item-creating-hook: one that creates test items.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};
use crate::pytest::marks::ModuleFile;

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::RuntimeHook, Rule::ItemCreatingHook],
    check,
};

/// Hooks that can add marks, deselect tests or rewrite outcomes at run time.
const RUNTIME_HOOKS: &[&str] = &[
    "pytest_collection",
    "pytest_collection_modifyitems",
    "pytest_collection_finish",
    "pytest_generate_tests",
    "pytest_itemcollected",
    "pytest_deselected",
    "pytest_ignore_collect",
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_pyfunc_call",
    "pytest_report_teststatus",
    "pytest_configure",
];

/// Hooks that create collectors or items: the tests under them cannot be listed statically.
/// (`pytest_generate_tests` only parametrizes: it adds instances of a test, not test ids.)
const ITEM_HOOKS: &[&str] = &[
    "pytest_collect_file",
    "pytest_collect_directory",
    "pytest_pycollect_makeitem",
    "pytest_pycollect_makemodule",
];

/// Where a conftest's or plugin's hooks act: the conftest's folder, or the whole session.
fn reach(module: &ModuleFile) -> String {
    let is_conftest = module.abs.file_name().is_some_and(|n| n == "conftest.py");
    match module.rel.rsplit_once('/') {
        Some((dir, _)) if is_conftest => format!("every file under {dir}/"),
        _ if is_conftest => "every file of the tree".to_string(),
        _ => "every file pytest collects (it is loaded as a plugin)".to_string(),
    }
}

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Module(m) = facts else { return };
    if !m.loads_hooks {
        return;
    }
    let module = m.module;
    for f in &module.module.functions {
        let name = f.name.as_str();
        if ITEM_HOOKS.contains(&name) {
            problems.push(
                Problem::new(
                    Rule::ItemCreatingHook,
                    format!(
                        "{}:{} defines {name}, which can create test items in {}: lane-scan \
                         cannot list them",
                        module.rel,
                        f.line,
                        reach(module)
                    ),
                )
                .at(&module.rel, f.line),
            );
        } else if RUNTIME_HOOKS.contains(&name) {
            problems.push(
                Problem::new(
                    Rule::RuntimeHook,
                    format!(
                        "{}:{} defines {name}, which can change marks or outcomes at run time \
                         in {}",
                        module.rel,
                        f.line,
                        reach(module)
                    ),
                )
                .at(&module.rel, f.line),
            );
        }
    }
    if let Some(plugins) = &module.module.pytest_plugins
        && plugins.value.is_none()
    {
        problems.push(
            Problem::new(
                Rule::ItemCreatingHook,
                format!(
                    "{}:{}: pytest_plugins is computed: the plugins it loads, and the test \
                     items they may create in {}, are unknown",
                    module.rel,
                    plugins.line,
                    reach(module)
                ),
            )
            .at(&module.rel, plugins.line),
        );
    }
}
