//! runtime-test-definition: a test module binds names at run time (`type(...)`, writes to
//! `globals()`, definitions in a loop, `setattr` on one of its classes, a test-named name bound
//! to a value known only at run time), or a test class has a metaclass that may make its test
//! methods: the scan cannot know every test of the module, or its marks.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};
use lane_python::{RuntimeDef, dotted};

use super::{ModuleFacts, Scan, ScanFacts};
use crate::pytest::collect::Unsure;

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::RuntimeTestDefinition],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Module(m) = facts else { return };
    let file: &str = &m.module.rel;
    for unsure in m.unsure {
        let (line, what) = match unsure {
            Unsure::RuntimeDef { line, def } => (*line, describe(def)),
            Unsure::SetattrOnClass { line, class } => (
                *line,
                format!("setattr on class {class} adds attributes at run time"),
            ),
            Unsure::UnknownBinding { line, name, value } => (
                *line,
                format!(
                    "{name} is bound to {}, whose value is known only at run time",
                    dotted(value)
                ),
            ),
            Unsure::Metaclass {
                class,
                written_in,
                meta,
            } => {
                problems.push(metaclass(m, class, written_in, meta));
                continue;
            }
            _ => continue,
        };
        problems.push(
            Problem::new(
                Rule::RuntimeTestDefinition,
                format!(
                    "{file}:{line}: {what}: lane-scan cannot know every test of {file} or its \
                     marks"
                ),
            )
            .at(file, line),
        );
    }
}

/// A test class with a metaclass that may create its methods at run time.
fn metaclass(
    m: &ModuleFacts,
    class: &lane_python::Class,
    written_in: &str,
    meta: &lane_python::Ex,
) -> Problem {
    let (at, line) = super::class_place(&m.module.rel, written_in, class.line);
    let message = format!(
        "{at}: test class {} has metaclass {}, which may create its test methods at run time: \
         the class's tests are unknown",
        class.name,
        dotted(meta),
    );
    super::located(
        Problem::new(Rule::RuntimeTestDefinition, message),
        &m.module.rel,
        line,
    )
}

/// What a construct that binds names at run time is, in words.
fn describe(def: &RuntimeDef) -> String {
    match def {
        RuntimeDef::TypeCall => "type(name, bases, namespace) creates a class at run time".into(),
        RuntimeDef::NamespaceWrite(how) => {
            format!("{how} writes names into a namespace at run time")
        }
        RuntimeDef::ModuleSetattr => {
            "setattr on sys.modules[...] binds names into a module at run time".into()
        }
        RuntimeDef::InLoop(name) => {
            format!("{name} is defined in a loop, once per iteration, at run time")
        }
    }
}
