//! `foreign-product-code`: a product module the voters ran was loaded from other bytes than the
//! vote tree's (DESIGN §9.6).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::ForeignProductCode],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Trial(t) = facts else { return };
    for f in &t.foreign {
        let how = match (f.kind.as_str(), &f.counterpart) {
            ("sourceless", _) => "a bytecode file without its source".to_string(),
            ("extension", Some(rel)) => format!("a compiled module, not the tree's {rel}"),
            (_, Some(rel)) => format!("whose bytes differ from the tree's {rel}"),
            (_, None) => "not the tree's file".to_string(),
        };
        problems.push(Problem::new(
            Rule::ForeignProductCode,
            format!(
                "{}: the product module '{}' was loaded from {} ({how}): the voters ran other \
                 code than the patch's. Uninstall the project from the lanes' interpreter or \
                 install it from this checkout, and run the gate again",
                t.run, f.module, f.origin
            ),
        ));
    }
}
