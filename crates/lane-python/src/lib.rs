//! lane-python: the one crate of lanes that reads Python, so that an upgrade of ruff's parser
//! (whose API is internal to ruff) touches one place. Everything here turns source into plain
//! facts and decides nothing about lanes or rules:
//!
//! - [`summarize`]: a module's summary for lane-scan ([`Module`]: imports, assignments,
//!   classes, functions, decorators as small expression trees, docstrings, `if` conditions,
//!   what the assertions of a body can do), behind a guard on bracket nesting;
//! - [`docfinder`]: the doctest items pytest's doctest plugin collects from a module;
//! - [`layout`]: where `lane-scan --fix` may insert lines in a file;
//! - [`product`]: what product code reaches for (imports, lookups, writes ...);
//! - [`Interpreter`]: the interpreter the tests run on, probed without running its packages.

pub mod capability;
mod cond;
pub mod docfinder;
mod interpreter;
pub mod layout;
pub mod mutant;
mod parse;
pub mod product;
mod summary;

pub use cond::{Compare, Cond, Implementation, Target};
pub use interpreter::{ImportFolders, Interpreter, ProbeError};
pub use parse::SyntaxError;
pub use summary::{
    ANY_FIXTURE, Asserts, Binding, Bound, Call, Called, CatchBy, Catcher, Class, Definition, Ex,
    FileArg, Function, Guarded, GuardedAssert, Guards, Handler, HandlerBody, IgnoreKind,
    IgnoreList, IgnoreOp, IgnorePiece, Import, Located, Module, NameBinding, RegressionCheck,
    RuntimeDef, SelfCompared, dotted, summarize,
};

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        /// Arbitrary text in: a summary, items, a layout and facts, or a syntax error; never a
        /// panic.
        #[test]
        fn arbitrary_source_never_panics(source in "(?s).{0,400}") {
            let _ = crate::summarize(&source);
            let _ = crate::docfinder::find(&source, "m");
            let _ = crate::layout::read(&source);
            let _ = crate::product::reaches(&source);
            let _ = crate::product::names_entry_point_group(&source, "pytest11");
        }

        /// Text made of Python's own punctuation and keywords reaches deeper into the parser.
        #[test]
        fn arbitrary_python_like_source_never_panics(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("def "), Just("class "), Just("if "), Just("try:"), Just("except"),
                    Just("assert "), Just("@"), Just("("), Just(")"), Just("["), Just("]"),
                    Just(":"), Just("\n"), Just("    "), Just("x"), Just("pytest.mark.merge"),
                    Just("'''"), Just(">>> "), Just("="), Just(","), Just("import "),
                ],
                0..80,
            )
        ) {
            let source: String = parts.concat();
            let _ = crate::summarize(&source);
            let _ = crate::docfinder::find(&source, "m");
            let _ = crate::layout::read(&source);
            let _ = crate::product::reaches(&source);
        }
    }
}
