//! fix-markers: registers the lane markers that the pytest configuration does not, in the
//! file pytest already reads (pytest.ini, .pytest.ini, tox.ini, setup.cfg, pyproject.toml,
//! pytest.toml), or in a new pytest.ini at the rootdir when there is none. Lines outside the
//! inserted ones are kept byte for byte (TOML through toml_edit, which keeps formatting).

use std::path::Path;

use lane_core::Error;
use lane_core::scan::Lane;

/// The line registered for each lane, as pytest's `markers` ini value spells it.
pub fn marker_line(lane: Lane) -> &'static str {
    match lane {
        Lane::Merge => {
            "merge: votes on the patch (properties over a domain, human-written oracles)"
        }
        Lane::Witness => {
            "witness(fixture=None, locked_on=None): corroborates hash-locked bytes; can fail, never approve"
        }
        Lane::Freeze => "freeze: a known flake with a ledger ticket; runs and records, never votes",
    }
}

/// The config text with `missing` markers registered. `name` is the file's name (which section
/// pytest reads), `text` its contents (None: the file is to be created as pytest.ini).
pub fn register(name: &str, text: Option<&str>, missing: &[Lane]) -> Result<String, Error> {
    let lines: Vec<&str> = missing.iter().map(|l| marker_line(*l)).collect();
    let Some(text) = text else {
        let mut out = String::from("[pytest]\nmarkers =\n");
        for l in &lines {
            out.push_str("    ");
            out.push_str(l);
            out.push('\n');
        }
        return Ok(out);
    };
    match name {
        "pytest.ini" | ".pytest.ini" | "tox.ini" => Ok(ini(text, "pytest", &lines)),
        "setup.cfg" => Ok(ini(text, "tool:pytest", &lines)),
        "pytest.toml" | ".pytest.toml" => toml(name, text, &[&["pytest"]], &lines),
        "pyproject.toml" => toml(
            name,
            text,
            &[&["tool", "pytest", "ini_options"], &["tool", "pytest"]],
            &lines,
        ),
        other => Err(Error::usage(format!(
            "{other}: not a pytest configuration file lane-scan --fix can edit"
        ))),
    }
}

/// An ini file with `lines` added to `section`'s `markers` value (created at the end of the
/// section when absent; the section is created at the end of the file when absent).
fn ini(text: &str, section: &str, lines: &[&str]) -> String {
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let header = all.iter().position(|l| {
        let t = l.trim();
        t.strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|s| s.trim() == section)
    });
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let Some(header) = header else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        if !out.is_empty() {
            out.push_str(newline);
        }
        out.push_str(&format!("[{section}]{newline}markers ={newline}"));
        for l in lines {
            out.push_str(&format!("    {l}{newline}"));
        }
        return out;
    };
    let end = all[header + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with('[') && !l.starts_with([' ', '\t']))
        .map_or(all.len(), |i| header + 1 + i);
    let key = (header + 1..end).find(|&i| {
        let l = all[i];
        !l.starts_with([' ', '\t'])
            && l.split(['=', ':'])
                .next()
                .is_some_and(|k| k.trim() == "markers")
    });
    let (insert_after, indent) = match key {
        Some(k) => {
            let mut last = k;
            let mut indent = "    ".to_string();
            for (i, l) in all.iter().enumerate().take(end).skip(k + 1) {
                if l.trim().is_empty() || !l.starts_with([' ', '\t']) {
                    break;
                }
                last = i;
                indent = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
            }
            (last, indent)
        }
        None => {
            // After the section's last non-blank, non-comment line.
            let last = (header..end)
                .rev()
                .find(|&i| {
                    let t = all[i].trim();
                    !t.is_empty() && !t.starts_with(['#', ';'])
                })
                .unwrap_or(header);
            (last, "    ".to_string())
        }
    };
    let mut out = String::with_capacity(text.len() + 256);
    for (i, l) in all.iter().enumerate() {
        out.push_str(l);
        if i == insert_after {
            if !l.ends_with('\n') {
                out.push_str(newline);
            }
            if key.is_none() {
                out.push_str(&format!("markers ={newline}"));
            }
            for m in lines {
                out.push_str(&format!("{indent}{m}{newline}"));
            }
        }
    }
    out
}

/// A TOML config with `lines` added to the `markers` array of the first table of `tables`
/// that exists (the first is created when none does).
fn toml(name: &str, text: &str, tables: &[&[&str]], lines: &[&str]) -> Result<String, Error> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let (line, col) = e
            .span()
            .map(|s| {
                let at = lane_core::Position::of(text.as_bytes(), s.start);
                (at.line, at.column)
            })
            .unwrap_or((0, 0));
        Error::parse(name, line, col, format!("not valid TOML: {}", e.message()))
    })?;
    let exists = |keys: &[&str]| {
        let mut item = doc.as_item();
        for k in keys {
            match item.get(k) {
                Some(i) if i.is_table_like() => item = i,
                _ => return false,
            }
        }
        true
    };
    let keys = tables
        .iter()
        .find(|k| exists(k))
        .copied()
        .unwrap_or(tables[0]);
    let mut item = doc.as_item_mut();
    for k in keys {
        if item.get(k).is_none() {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            item[k] = toml_edit::Item::Table(t);
        }
        item = &mut item[k];
    }
    let table = item
        .as_table_like_mut()
        .ok_or_else(|| Error::usage(format!("{name}: [{}] is not a table", keys.join("."))))?;
    match table.get_mut("markers") {
        Some(existing) => {
            let array = existing.as_array_mut().ok_or_else(|| {
                Error::usage(format!(
                    "{name}: [{}] markers is not an array of strings",
                    keys.join(".")
                ))
            })?;
            let multiline = array
                .iter()
                .next()
                .and_then(|v| v.decor().prefix())
                .and_then(|p| p.as_str())
                .is_some_and(|p| p.contains('\n'));
            let prefix = array
                .iter()
                .last()
                .and_then(|v| v.decor().prefix())
                .and_then(|p| p.as_str())
                .map(str::to_string);
            for l in lines {
                array.push(*l);
                if multiline && let (Some(p), Some(v)) = (&prefix, array.iter_mut().last()) {
                    v.decor_mut().set_prefix(p.as_str());
                }
            }
        }
        None => {
            let mut array = toml_edit::Array::new();
            for l in lines {
                let mut v = toml_edit::Value::from(*l);
                v.decor_mut().set_prefix("\n    ");
                array.push_formatted(v);
            }
            array.set_trailing("\n");
            array.set_trailing_comma(true);
            table.insert("markers", toml_edit::Item::Value(array.into()));
        }
    }
    Ok(doc.to_string())
}

/// Whether `path` is a file name `register` knows.
pub fn editable(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        matches!(
            n,
            "pytest.ini"
                | ".pytest.ini"
                | "tox.ini"
                | "setup.cfg"
                | "pyproject.toml"
                | "pytest.toml"
                | ".pytest.toml"
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const ALL: &[Lane] = &[Lane::Merge, Lane::Witness, Lane::Freeze];

    #[test]
    fn ini_appends_to_an_existing_markers_value() {
        let before = "[pytest]\n# keep\nmarkers =\n  slow: slow tests\naddopts = -q\n";
        let after = ini(before, "pytest", &["merge: m"]);
        assert_eq!(
            after,
            "[pytest]\n# keep\nmarkers =\n  slow: slow tests\n  merge: m\naddopts = -q\n"
        );
    }

    #[test]
    fn ini_adds_markers_at_the_end_of_the_section() {
        let before =
            "[flake8]\nmax = 1\n\n[tool:pytest]\ntestpaths = tests\n\n# trailing\n[other]\nx = 1\n";
        let after = ini(before, "tool:pytest", &["merge: m", "freeze: f"]);
        assert_eq!(
            after,
            "[flake8]\nmax = 1\n\n[tool:pytest]\ntestpaths = tests\nmarkers =\n    merge: m\n    freeze: f\n\n# trailing\n[other]\nx = 1\n"
        );
    }

    #[test]
    fn ini_adds_the_section_when_absent() {
        let after = ini("[tox]\nenvlist = py3", "pytest", &["merge: m"]);
        assert_eq!(
            after,
            "[tox]\nenvlist = py3\n\n[pytest]\nmarkers =\n    merge: m\n"
        );
    }

    #[test]
    fn toml_keeps_comments_and_layout() {
        let before = "[project]\nname = \"x\"  # the name\n\n[tool.pytest.ini_options]\n# comment\nmarkers = [\n    \"slow: slow\",\n]\naddopts = \"-q\"\n";
        let after = register("pyproject.toml", Some(before), &[Lane::Merge]).unwrap();
        assert_eq!(
            after,
            format!(
                "[project]\nname = \"x\"  # the name\n\n[tool.pytest.ini_options]\n# comment\nmarkers = [\n    \"slow: slow\",\n    \"{}\",\n]\naddopts = \"-q\"\n",
                marker_line(Lane::Merge)
            )
        );
        let fresh = register(
            "pyproject.toml",
            Some("[tool.pytest.ini_options]\nminversion = \"8\"\n"),
            ALL,
        )
        .unwrap();
        let parsed: toml::Table = fresh.parse().unwrap();
        let markers = parsed["tool"]["pytest"]["ini_options"]["markers"]
            .as_array()
            .unwrap();
        assert_eq!(markers.len(), 3);
        assert!(fresh.starts_with("[tool.pytest.ini_options]\nminversion = \"8\"\nmarkers = [\n"));
    }

    #[test]
    fn bad_toml_is_a_located_error() {
        let err = register("pyproject.toml", Some("[tool\n"), ALL)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("pyproject.toml:1:"), "{err}");
    }
}
