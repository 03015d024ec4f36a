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
    edit(name, text, missing, None)
}

/// The config text with `missing` markers registered and, when `doctest_lane` is given,
/// `lanes_doctest_lane` set to it (the lane pytest-lanes-gate gives every doctest item), in the
/// section pytest reads. `name` is the file's name, `text` its contents (None: the file is to
/// be created as pytest.ini).
pub fn edit(
    name: &str,
    text: Option<&str>,
    missing: &[Lane],
    doctest_lane: Option<Lane>,
) -> Result<String, Error> {
    let lines: Vec<&str> = missing.iter().map(|l| marker_line(*l)).collect();
    let key = doctest_lane.map(|l| (crate::pytest::doctest::LANE_KEY, l.as_str()));
    let Some(text) = text else {
        return Ok(ini("", "pytest", &lines, key));
    };
    match name {
        "pytest.ini" | ".pytest.ini" | "tox.ini" => Ok(ini(text, "pytest", &lines, key)),
        "setup.cfg" => Ok(ini(text, "tool:pytest", &lines, key)),
        "pytest.toml" | ".pytest.toml" => toml(name, text, &[&["pytest"]], &lines, key),
        "pyproject.toml" => toml(
            name,
            text,
            &[&["tool", "pytest", "ini_options"], &["tool", "pytest"]],
            &lines,
            key,
        ),
        other => Err(Error::usage(format!(
            "{other}: not a pytest configuration file lane-scan --fix can edit"
        ))),
    }
}

/// An ini file with `lines` added to `section`'s `markers` value (created at the end of the
/// section when absent; the section is created at the end of the file when absent), and `key`'s
/// line (`name = value`) after the section's last line when given.
fn ini(text: &str, section: &str, lines: &[&str], key: Option<(&str, &str)>) -> String {
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let header = all.iter().position(|l| {
        let t = l.trim();
        t.strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|s| s.trim() == section)
    });
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let key_line = key.map(|(k, v)| format!("{k} = {v}{newline}"));
    let Some(header) = header else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        if !out.is_empty() {
            out.push_str(newline);
        }
        out.push_str(&format!("[{section}]{newline}"));
        if !lines.is_empty() {
            out.push_str(&format!("markers ={newline}"));
        }
        for l in lines {
            out.push_str(&format!("    {l}{newline}"));
        }
        out.push_str(key_line.as_deref().unwrap_or(""));
        return out;
    };
    let end = all[header + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with('[') && !l.starts_with([' ', '\t']))
        .map_or(all.len(), |i| header + 1 + i);
    // After the section's last non-blank, non-comment line.
    let last_line = (header..end)
        .rev()
        .find(|&i| {
            let t = all[i].trim();
            !t.is_empty() && !t.starts_with(['#', ';'])
        })
        .unwrap_or(header);
    let key_at = (header + 1..end).find(|&i| {
        let l = all[i];
        !l.starts_with([' ', '\t'])
            && l.split(['=', ':'])
                .next()
                .is_some_and(|k| k.trim() == "markers")
    });
    let (insert_after, indent) = match key_at {
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
        None => (last_line, "    ".to_string()),
    };
    let mut out = String::with_capacity(text.len() + 256);
    for (i, l) in all.iter().enumerate() {
        out.push_str(l);
        let ends_here =
            (i == insert_after && !lines.is_empty()) || (i == last_line && key_line.is_some());
        if ends_here && !l.ends_with('\n') {
            out.push_str(newline);
        }
        if i == insert_after && !lines.is_empty() {
            if key_at.is_none() {
                out.push_str(&format!("markers ={newline}"));
            }
            for m in lines {
                out.push_str(&format!("{indent}{m}{newline}"));
            }
        }
        if i == last_line
            && let Some(k) = &key_line
        {
            out.push_str(k);
        }
    }
    out
}

/// A TOML config with `lines` added to the `markers` array of the first table of `tables`
/// that exists (the first is created when none does), and `key` set there (a string) when given.
fn toml(
    name: &str,
    text: &str,
    tables: &[&[&str]],
    lines: &[&str],
    key: Option<(&str, &str)>,
) -> Result<String, Error> {
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
    if let Some((k, v)) = key {
        table.insert(k, toml_edit::Item::Value(v.into()));
    }
    if lines.is_empty() {
        return Ok(doc.to_string());
    }
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
        let after = ini(before, "pytest", &["merge: m"], None);
        assert_eq!(
            after,
            "[pytest]\n# keep\nmarkers =\n  slow: slow tests\n  merge: m\naddopts = -q\n"
        );
    }

    #[test]
    fn ini_adds_markers_at_the_end_of_the_section() {
        let before =
            "[flake8]\nmax = 1\n\n[tool:pytest]\ntestpaths = tests\n\n# trailing\n[other]\nx = 1\n";
        let after = ini(before, "tool:pytest", &["merge: m", "freeze: f"], None);
        assert_eq!(
            after,
            "[flake8]\nmax = 1\n\n[tool:pytest]\ntestpaths = tests\nmarkers =\n    merge: m\n    freeze: f\n\n# trailing\n[other]\nx = 1\n"
        );
    }

    #[test]
    fn ini_adds_the_section_when_absent() {
        let after = ini("[tox]\nenvlist = py3", "pytest", &["merge: m"], None);
        assert_eq!(
            after,
            "[tox]\nenvlist = py3\n\n[pytest]\nmarkers =\n    merge: m\n"
        );
    }

    #[test]
    fn the_doctest_lane_goes_after_the_sections_last_line_and_the_markers() {
        let key = Some(("lanes_doctest_lane", "merge"));
        let before = "[pytest]\naddopts = --doctest-modules\n\n# the end\n[other]\nx = 1\n";
        assert_eq!(
            ini(before, "pytest", &["merge: m"], key),
            "[pytest]\naddopts = --doctest-modules\nmarkers =\n    merge: m\nlanes_doctest_lane = merge\n\n# the end\n[other]\nx = 1\n"
        );
        // Markers already registered: the key alone, after their last line.
        let registered = "[pytest]\nmarkers =\n    merge: m\n";
        assert_eq!(
            ini(registered, "pytest", &[], key),
            "[pytest]\nmarkers =\n    merge: m\nlanes_doctest_lane = merge\n"
        );
        // A new file, and a file without the section.
        assert_eq!(
            edit("pytest.ini", None, &[], Some(Lane::Merge)).unwrap(),
            "[pytest]\nlanes_doctest_lane = merge\n"
        );
        assert_eq!(
            edit(
                "setup.cfg",
                Some("[flake8]\nmax = 1"),
                &[],
                Some(Lane::Merge)
            )
            .unwrap(),
            "[flake8]\nmax = 1\n\n[tool:pytest]\nlanes_doctest_lane = merge\n"
        );
        let toml = edit(
            "pyproject.toml",
            Some("[tool.pytest.ini_options]\naddopts = \"--doctest-modules\"\n"),
            &[],
            Some(Lane::Merge),
        )
        .unwrap();
        assert_eq!(
            toml,
            "[tool.pytest.ini_options]\naddopts = \"--doctest-modules\"\nlanes_doctest_lane = \"merge\"\n"
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
