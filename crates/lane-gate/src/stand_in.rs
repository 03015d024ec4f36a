//! A stand-in for the interpreter and pytest, for the steps' unit tests: a shell script that
//! answers lane-python's interpreter probe (CPython 3.12, site-packages a folder beside it) and, run as
//! pytest, logs the selection it got, sleeps if told to, writes the canned report of that
//! selection to `--junitxml` (its suite named as `-o junit_suite_name=` asks, as pytest does)
//! and exits with its canned status.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use crate::gate::Places;

const SCRIPT: &str = r#"#!/bin/sh
here=$(dirname "$0")
if [ "$1" = "-I" ] && [ "$2" = "-S" ]; then
    # lane-python's probe answer: fields ended by NUL (version, platform, implementation,
    # built-in modules, executable, prefix, platlibdir, how many site folders, the folders,
    # sys.path).
    printf '%s\000' 3 12 1 linux cpython _abc,builtins,sys "$here/python" "$here" lib 1 "$here/site"
    exit 0
fi
# The gate's bootstrap configuration: the outcome channel's descriptor.
IFS= read -r config
fd=$(printf '%s' "$config" | sed 's/.*"channel":\([0-9]*\).*/\1/')
lane=""; report=""; suite="pytest"; prev=""
for a in "$@"; do
    [ "$prev" = "-m" ] && lane=$a
    [ "$prev" = "-o" ] && case "$a" in junit_suite_name=*) suite=${a#junit_suite_name=};; esac
    case "$a" in --junitxml=*) report=${a#--junitxml=};; esac
    prev=$a
done
key=$(printf '%s' "${lane:-candidates}" | tr ' ' '_')
echo "$key" >> "$here/calls"
[ -f "$here/$key.sleep" ] && sleep "$(cat "$here/$key.sleep")"
[ -f "$here/$key.xml" ] && sed "s|@SUITE@|$suite|" "$here/$key.xml" > "$report"
code=$(cat "$here/$key.code" 2>/dev/null || echo 0)
# the channel: the canned records, then the session's status as the exit status
{
    echo '{"k":"start","pid":1}'
    [ -f "$here/$key.stream" ] && cat "$here/$key.stream"
    echo "{\"k\":\"session\",\"status\":$code}"
    echo "{\"k\":\"end\",\"status\":$code}"
} > "/dev/fd/$fd"
exit "$code"
"#;

/// The stand-in's folder: the script, its site-packages, the canned answers and its call log.
pub(crate) struct StandIn {
    dir: tempfile::TempDir,
}

/// A JUnit report as pytest writes it (xunit1) of `cases` (name, failed) of
/// `tests/test_a.py`; the stand-in names its suite.
pub(crate) fn report(cases: &[(&str, bool)]) -> String {
    let mut body = String::new();
    for (name, failed) in cases {
        body.push_str(&format!(
            "<testcase classname=\"tests.test_a\" name=\"{name}\" file=\"tests/test_a.py\" \
             line=\"1\" time=\"0.0\">"
        ));
        if *failed {
            body.push_str("<failure message=\"boom\">boom</failure>");
        }
        body.push_str("</testcase>");
    }
    let failures = cases.iter().filter(|(_, f)| *f).count();
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites name=\"pytest tests\">\
         <testsuite name=\"@SUITE@\" errors=\"0\" failures=\"{failures}\" skipped=\"0\" \
         tests=\"{}\" time=\"0.0\" timestamp=\"t\" hostname=\"h\">{body}</testsuite></testsuites>",
        cases.len()
    )
}

#[allow(clippy::unwrap_used)]
impl StandIn {
    pub(crate) fn new() -> StandIn {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("python");
        std::fs::write(&script, SCRIPT).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir(dir.path().join("site")).unwrap();
        StandIn { dir }
    }

    /// The interpreter to give the gate.
    pub(crate) fn python(&self) -> PathBuf {
        self.dir.path().join("python")
    }

    fn key(select: &str) -> String {
        select.replace(' ', "_")
    }

    /// What a run selecting `-m SELECT` (`candidates`: a run without `-m`) answers: its report
    /// (none: it writes none) and its exit status.
    pub(crate) fn answer(&self, select: &str, report: Option<&str>, code: i32) -> &StandIn {
        let key = Self::key(select);
        let path = self.dir.path().join(format!("{key}.xml"));
        match report {
            Some(text) => std::fs::write(path, text).unwrap(),
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
        // what pytest reports of each case over the channel, as the report says it
        let mut stream = String::new();
        let _ = lane_tally::junit::read_bytes(report.unwrap_or("").as_bytes(), "r", |case| {
            let outcome = match case.outcome {
                lane_tally::junit::Outcome::Passed => "passed",
                lane_tally::junit::Outcome::Skipped | lane_tally::junit::Outcome::XFail => {
                    "skipped"
                }
                _ => "failed",
            };
            let id = format!("{}::{}", case.file.unwrap_or("tests/test_a.py"), case.name);
            stream.push_str(&format!(
                "{{\"k\":\"report\",\"id\":\"{id}\",\"when\":\"call\",\"outcome\":\"{outcome}\"}}\n"
            ));
        });
        std::fs::write(self.dir.path().join(format!("{key}.stream")), stream).unwrap();
        std::fs::write(
            self.dir.path().join(format!("{key}.code")),
            code.to_string(),
        )
        .unwrap();
        self
    }

    /// Makes a run selecting `select` take `seconds` before it answers.
    pub(crate) fn slow(&self, select: &str, seconds: u64) -> &StandIn {
        let key = Self::key(select);
        std::fs::write(
            self.dir.path().join(format!("{key}.sleep")),
            seconds.to_string(),
        )
        .unwrap();
        self
    }

    /// An installed distribution declaring pytest plugins (`[pytest11]` name = module).
    pub(crate) fn install(&self, distribution: &str, plugins: &[(&str, &str)]) -> &StandIn {
        let info = self
            .dir
            .path()
            .join("site")
            .join(format!("{}-1.0.dist-info", distribution.replace('-', "_")));
        std::fs::create_dir(&info).unwrap();
        std::fs::write(
            info.join("METADATA"),
            format!("Name: {distribution}\nVersion: 1.0\n"),
        )
        .unwrap();
        let mut eps = String::from("[pytest11]\n");
        for (name, module) in plugins {
            eps.push_str(&format!("{name} = {module}\n"));
        }
        std::fs::write(info.join("entry_points.txt"), eps).unwrap();
        self
    }

    /// The selections the runs got, in order (`candidates` for a run without `-m`).
    pub(crate) fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// A scratch folder with a tree, an out folder and a temporary folder, as a run has them.
pub(crate) struct Scratch {
    _dir: tempfile::TempDir,
    pub(crate) places: Places,
}

#[allow(clippy::unwrap_used)]
impl Scratch {
    /// The out folder is named by its absolute path, so the tally reads the reports from
    /// wherever the tests run.
    pub(crate) fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for sub in ["tree", "out", "tmp"] {
            std::fs::create_dir(root.join(sub)).unwrap();
        }
        Scratch {
            places: Places {
                cwd: root.join("tree"),
                out: root.join("out"),
                out_given: root.join("out"),
                tmp: root.join("tmp"),
            },
            _dir: dir,
        }
    }

    /// Writes `text` to `rel` in the tree.
    pub(crate) fn file(&self, rel: &str, text: &str) -> &Scratch {
        let path = self.places.cwd.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, text).unwrap();
        self
    }

    /// A file of the out folder.
    pub(crate) fn out(&self, name: &str) -> String {
        std::fs::read_to_string(self.places.out.join(name)).unwrap()
    }
}
