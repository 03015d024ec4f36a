//! coding-cookie: a source file whose PEP 263 cookie names an encoding other than UTF-8, so
//! CPython would decode other text than the scan read.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::CodingCookie],
    check,
};

/// Encodings that decode UTF-8 text as lane-scan reads it, normalized as CPython's tokenizer
/// does (lower case, `_` as `-`); `utf-8-*` variants count as utf-8 there too.
fn is_utf8(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace('_', "-");
    matches!(n.as_str(), "utf-8" | "utf8" | "ascii" | "us-ascii") || n.starts_with("utf-8-")
}

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Module(m) = facts else { return };
    let module = m.module;
    let Some(coding) = &module.module.coding else {
        return;
    };
    if is_utf8(&coding.value) {
        return;
    }
    problems.push(
        Problem::new(
            Rule::CodingCookie,
            format!(
                "{} declares the encoding '{}': Python decodes it with that codec, lane-scan \
                 reads UTF-8",
                module.rel, coding.value
            ),
        )
        .at(&module.rel, coding.line),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_and_its_aliases_pass() {
        for ok in [
            "utf-8",
            "UTF-8",
            "utf8",
            "utf_8",
            "ascii",
            "utf-8-sig",
            "US-ASCII",
        ] {
            assert!(is_utf8(ok), "{ok}");
        }
        for bad in [
            "latin-1",
            "iso-8859-1",
            "cp1252",
            "utf-16",
            "utf-7",
            "rot13",
            "utf",
        ] {
            assert!(!is_utf8(bad), "{bad}");
        }
    }
}
