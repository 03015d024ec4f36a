//! `fix-owner` (and `fix-property`'s `shrinking:` note): the modules whose merge tests lack an
//! owner or whose properties lack a shrinking note, listed or given the line in their docstring.

use std::collections::BTreeMap;

use lane_core::Rule;
use lane_core::scan::{Lane, ScanTest};

use super::edits::{Files, Insert};
use super::{FixOptions, plural};

/// What the merge tests of one module lack: an owner (human-written tests), a `shrinking:`
/// note (hypothesis properties).
#[derive(Debug, Default)]
pub(super) struct Lacking {
    owner: usize,
    shrinking: usize,
}

/// The defining modules of merge tests that lack an owner or a shrinking note.
pub(super) fn lacking(lane_after: &[(&ScanTest, Option<Lane>)]) -> BTreeMap<String, Lacking> {
    let mut modules: BTreeMap<String, Lacking> = BTreeMap::new();
    for (t, lane) in lane_after {
        if *lane != Some(Lane::Merge) {
            continue;
        }
        let property = t.marks.iter().any(|m| m == "hypothesis");
        if property && t.attachments.shrinking.is_none() {
            modules
                .entry(t.defining_file().to_string())
                .or_default()
                .shrinking += 1;
        } else if !property && t.attachments.owner.is_none() {
            modules
                .entry(t.defining_file().to_string())
                .or_default()
                .owner += 1;
        }
    }
    modules
}

/// fix-owner (and fix-property's `shrinking:` note): writes `--owner TEAM` / `--shrinking
/// NOTE` into the docstring of each module whose merge tests lack them, or lists the module.
pub(super) fn owners(
    options: &FixOptions,
    modules: &BTreeMap<String, Lacking>,
    files: &mut Files,
    lines: &mut Vec<String>,
) {
    for (module, lacks) in modules {
        let mut fields: Vec<String> = Vec::new();
        let mut what: Vec<String> = Vec::new();
        let wants = [
            (
                lacks.owner,
                "merge test",
                "an owner",
                "owner",
                options.owner.as_deref(),
                Rule::FixOwner,
                "add an `owner:` line to its docstring or a CODEOWNERS entry, or run lane-scan --fix --owner TEAM",
            ),
            (
                lacks.shrinking,
                "merge property",
                "a shrinking note",
                "shrinking",
                options.shrinking.as_deref(),
                Rule::FixProperty,
                "add a `shrinking:` line (how hypothesis shrinks its failures) to its docstring, or run lane-scan --fix --shrinking NOTE",
            ),
        ];
        for (n, noun, lack, key, value, rule, how) in wants {
            if n == 0 {
                continue;
            }
            let noun = match (noun, n) {
                ("merge property", 1) => noun.to_string(),
                ("merge property", _) => "merge properties".to_string(),
                (noun, n) => format!("{noun}{}", plural(n)),
            };
            let tests = format!("{n} {noun} without {lack}");
            match value {
                Some(v) => {
                    fields.push(format!("{key}: {v}"));
                    what.push(format!("{key}: {v} for {tests} ({})", rule.id()));
                }
                None => lines.push(format!("{module}: {tests} ({}): {how}", rule.id())),
            }
        }
        if fields.is_empty() || !files.load(module) {
            continue;
        }
        let Some(edit) = files.edits.get_mut(module) else {
            continue;
        };
        let what = what.join("; ");
        match edit.layout.docstring.clone() {
            Some(doc) if doc.triple => {
                let close = doc.end - 3;
                let before = &edit.source[..close];
                let last_line_start = before.rfind('\n').map_or(0, |i| i + 1);
                let own_line = last_line_start > 0
                    && before[last_line_start..]
                        .chars()
                        .all(|c| c == ' ' || c == '\t');
                let body: String = fields.iter().map(|f| format!("{f}\n")).collect();
                let (at, text) = if own_line {
                    (last_line_start, format!("\n{body}"))
                } else {
                    (close, format!("\n\n{body}"))
                };
                edit.inserts.push(Insert { at, text });
                lines.push(format!("{module}: written into its docstring: {what}"));
            }
            Some(_) => lines.push(format!(
                "{module}: its docstring is not triple-quoted; add by hand: {what}"
            )),
            None => {
                let at = edit.layout.first_stmt.unwrap_or(0);
                let text = match &fields[..] {
                    [one] => format!("\"\"\"{one}\"\"\"\n\n"),
                    many => format!("\"\"\"{}\n\"\"\"\n\n", many.join("\n")),
                };
                edit.inserts.insert(0, Insert { at, text });
                lines.push(format!("{module}: written into a new docstring: {what}"));
            }
        }
    }
}
