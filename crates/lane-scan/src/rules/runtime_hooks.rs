//! runtime-hook: a conftest.py hook that can add marks, deselect tests or rewrite outcomes
//! at run time, which no static scan can see.

use lane_core::{Problem, Rule};

use crate::marks::ModuleFile;

/// conftest.py hooks that can add marks, deselect tests or rewrite outcomes at run time.
const RUNTIME_HOOKS: &[&str] = &[
    "pytest_collection",
    "pytest_collection_modifyitems",
    "pytest_collection_finish",
    "pytest_collect_file",
    "pytest_pycollect_makeitem",
    "pytest_pycollect_makemodule",
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

pub fn check(module: &ModuleFile, problems: &mut Vec<Problem>) {
    for f in &module.module.functions {
        if RUNTIME_HOOKS.contains(&f.name.as_str()) {
            problems.push(
                Problem::new(
                    Rule::RuntimeHook,
                    format!(
                        "{} defines {}, which can change marks or outcomes at run time",
                        module.rel, f.name
                    ),
                )
                .at(&module.rel, f.line),
            );
        }
    }
}
