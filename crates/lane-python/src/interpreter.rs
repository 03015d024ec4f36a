//! The interpreter the tests will run on, asked once without running any of its packages or
//! the project's code: `python -I -S` (isolated: no environment, no user site, no current
//! folder; no `site`: nothing installed is imported) reports its version, platform,
//! implementation and built-in modules, where it is installed, its `sys.path`, and the site-packages folders its
//! `sysconfig` names. What the folders are for is the caller's: lane-scan reads installed
//! test-class bases from them, lane-gate the pytest plugins of installed distributions.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cond::Target;

/// What the interpreter prints: one field after the other, each ended by a NUL (paths may hold
/// any other character). `sys.prefix` without `site` is the base installation's even in a
/// virtual environment, which is found from the `pyvenv.cfg` beside the executable or one
/// folder up, as `site` finds it. The sysconfig folders are the environment's first, then the
/// base's; -1 when sysconfig cannot name them. `sys.platlibdir` is empty before Python 3.9.
/// `sys.builtin_module_names` are joined by commas (each is a dotted identifier).
const PROBE: &str = r#"
import sys
def sysconfig_site():
    try:
        import os, sysconfig
        prefix = None
        for d in (os.path.dirname(sys.executable), os.path.dirname(os.path.dirname(sys.executable))):
            if os.path.isfile(os.path.join(d, "pyvenv.cfg")):
                prefix = d
                break
        dirs = []
        for vars in ([{"base": prefix, "platbase": prefix}] if prefix else []) + [None]:
            paths = sysconfig.get_paths(vars=vars) if vars else sysconfig.get_paths()
            for key in ("purelib", "platlib"):
                if paths[key] not in dirs:
                    dirs.append(paths[key])
        return dirs
    except Exception:
        return None
site = sysconfig_site()
fields = [*sys.version_info[:3], sys.platform, sys.implementation.name,
    ",".join(sys.builtin_module_names), sys.executable,
    sys.prefix, getattr(sys, "platlibdir", ""), -1 if site is None else len(site), *(site or []),
    *sys.path]
sys.stdout.write("".join(f"{f}\0" for f in fields))
"#;

/// What the probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    /// The command that was run (as given, or `python3` / `python` found on PATH).
    pub command: PathBuf,
    /// `sys.executable`.
    pub executable: PathBuf,
    pub version: (u64, u64, u64),
    /// `sys.platform`: `linux`, `darwin`, `win32` ...
    pub platform: String,
    /// `sys.implementation.name`: `cpython`, `pypy` ...
    pub implementation: String,
    /// `sys.builtin_module_names`, in the interpreter's order.
    pub builtin_modules: Vec<String>,
    /// `sys.prefix` without `site`: the base installation's, in a virtual environment too.
    pub base_prefix: PathBuf,
    /// `sys.platlibdir` (`lib`, `lib64`); None before Python 3.9, which has none.
    pub platlibdir: Option<String>,
    /// `sys.path` without `site`: the standard library's folders (and the zip of it).
    pub path: Vec<PathBuf>,
    /// The `purelib` and `platlib` folders `sysconfig` names: the virtual environment's first
    /// (when the interpreter is one's), then the base installation's, each once. None when
    /// sysconfig could not name them.
    pub sysconfig_site: Option<Vec<PathBuf>>,
}

/// Why an interpreter could not be probed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("cannot run {}: {source}", command.display())]
    Spawn {
        command: PathBuf,
        source: std::io::Error,
    },
    /// It ran and failed; what it printed on stderr, trimmed.
    #[error("{} could not report its version and site-packages: {stderr}", command.display())]
    Failed { command: PathBuf, stderr: String },
    #[error("{} printed something other than the probe's answer", command.display())]
    Garbled { command: PathBuf },
}

/// The folders imports are looked up in: the standard library's, then site-packages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportFolders {
    pub stdlib: Vec<PathBuf>,
    pub site: Vec<PathBuf>,
}

impl Interpreter {
    /// Runs `command` with the probe.
    pub fn probe(command: &Path) -> Result<Interpreter, ProbeError> {
        let out = Command::new(command)
            .args(["-I", "-S", "-c", PROBE])
            .stdin(Stdio::null())
            .output()
            .map_err(|source| ProbeError::Spawn {
                command: command.to_path_buf(),
                source,
            })?;
        if !out.status.success() {
            return Err(ProbeError::Failed {
                command: command.to_path_buf(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        parse(command, &String::from_utf8_lossy(&out.stdout)).ok_or_else(|| ProbeError::Garbled {
            command: command.to_path_buf(),
        })
    }

    /// Probes `python`, or when none is given `python3`, then `python`, on PATH: the first
    /// that answers. None when none does.
    pub fn find(python: Option<&Path>) -> Option<Interpreter> {
        let candidates: Vec<PathBuf> = match python {
            Some(p) => vec![p.to_path_buf()],
            None => vec![PathBuf::from("python3"), PathBuf::from("python")],
        };
        candidates.iter().find_map(|c| Interpreter::probe(c).ok())
    }

    /// What version and platform conditions are decided for.
    pub fn target(&self) -> Target {
        Target {
            version: self.version,
            platform: self.platform.clone(),
            implementation: self.implementation.clone(),
            builtin_modules: self.builtin_modules.clone(),
        }
    }

    /// The standard library's folders (`sys.path` entries that are folders) and the
    /// site-packages folders of the standard layouts ([`site_packages`]) under the virtual
    /// environment's prefix, and under the base installation's when the environment has none
    /// or its `pyvenv.cfg` says `include-system-site-packages = true`. None without
    /// `sys.platlibdir` (before Python 3.9).
    pub fn import_folders(&self) -> Option<ImportFolders> {
        let platlibdir = self.platlibdir.as_deref()?;
        let stdlib: Vec<PathBuf> = self
            .path
            .iter()
            .filter(|p| !p.as_os_str().is_empty() && p.is_dir())
            .cloned()
            .collect();
        let venv = self
            .executable
            .parent()
            .into_iter()
            .flat_map(|d| [Some(d), d.parent()])
            .flatten()
            .find(|d| d.join("pyvenv.cfg").is_file());
        let mut prefixes = Vec::new();
        match venv {
            Some(v) => {
                prefixes.push(v.to_path_buf());
                if system_site_packages(v) {
                    prefixes.push(self.base_prefix.clone());
                }
            }
            None => prefixes.push(self.base_prefix.clone()),
        }
        let version = format!("{}.{}", self.version.0, self.version.1);
        Some(ImportFolders {
            stdlib,
            site: site_packages(&prefixes, platlibdir, &version),
        })
    }
}

/// The probe's answer, or None when it is not one.
fn parse(command: &Path, text: &str) -> Option<Interpreter> {
    let fields: Vec<&str> = text.strip_suffix('\0')?.split('\0').collect();
    let [
        a,
        b,
        c,
        platform,
        implementation,
        builtins,
        executable,
        prefix,
        platlibdir,
        n,
        rest @ ..,
    ] = &fields[..]
    else {
        return None;
    };
    let (site, path) = match n.parse::<i64>().ok()? {
        -1 => (None, rest),
        n => {
            let n = usize::try_from(n).ok().filter(|n| *n <= rest.len())?;
            let (site, path) = rest.split_at(n);
            (Some(site.iter().map(PathBuf::from).collect()), path)
        }
    };
    Some(Interpreter {
        command: command.to_path_buf(),
        executable: PathBuf::from(executable),
        version: (a.parse().ok()?, b.parse().ok()?, c.parse().ok()?),
        platform: (*platform).to_string(),
        implementation: (*implementation).to_string(),
        builtin_modules: builtins
            .split(',')
            .filter(|b| !b.is_empty())
            .map(str::to_string)
            .collect(),
        base_prefix: PathBuf::from(prefix),
        platlibdir: (!platlibdir.is_empty()).then(|| (*platlibdir).to_string()),
        path: path.iter().map(PathBuf::from).collect(),
        sysconfig_site: site,
    })
}

/// `include-system-site-packages = true` in the venv's `pyvenv.cfg`.
fn system_site_packages(venv: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(venv.join("pyvenv.cfg")) else {
        return false;
    };
    text.lines().any(|line| {
        line.split_once('=').is_some_and(|(k, v)| {
            k.trim()
                .eq_ignore_ascii_case("include-system-site-packages")
                && v.trim().eq_ignore_ascii_case("true")
        })
    })
}

/// The site-packages folders of the standard layouts (POSIX, Debian's dist-packages,
/// Windows) under each prefix that exist.
fn site_packages(prefixes: &[PathBuf], platlibdir: &str, version: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in prefixes {
        let py = format!("python{version}");
        for c in [
            p.join(platlibdir).join(&py).join("site-packages"),
            p.join("lib").join(&py).join("site-packages"),
            p.join("local").join("lib").join(&py).join("dist-packages"),
            p.join("lib").join("python3").join("dist-packages"),
            p.join("lib").join(&py).join("dist-packages"),
            p.join("Lib").join("site-packages"),
        ] {
            if c.is_dir() && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe's answer made of `fields`.
    fn answer(fields: &[&str]) -> String {
        fields.iter().map(|f| format!("{f}\0")).collect()
    }

    #[test]
    fn an_answer_is_read_field_by_field() {
        let text = answer(&[
            "3",
            "12",
            "1",
            "linux",
            "cpython",
            "_abc,builtins,sys",
            "/v/bin/python",
            "/usr",
            "lib",
            "2",
            "/v/a",
            "/v/b",
            "/usr/lib/python312.zip",
            "/usr/lib/python3.12",
        ]);
        let found = parse(Path::new("python3"), &text).expect("an answer");
        assert_eq!(found.version, (3, 12, 1));
        assert_eq!(found.executable, PathBuf::from("/v/bin/python"));
        assert_eq!(found.base_prefix, PathBuf::from("/usr"));
        assert_eq!(found.platlibdir.as_deref(), Some("lib"));
        assert_eq!(
            found.sysconfig_site,
            Some(vec![PathBuf::from("/v/a"), PathBuf::from("/v/b")])
        );
        assert_eq!(found.path.len(), 2);
        assert_eq!(
            found.target(),
            Target {
                version: (3, 12, 1),
                platform: "linux".into(),
                implementation: "cpython".into(),
                builtin_modules: vec!["_abc".into(), "builtins".into(), "sys".into()],
            }
        );
    }

    #[test]
    fn no_sysconfig_and_no_platlibdir_are_kept_as_unknown() {
        let text = answer(&[
            "3",
            "8",
            "10",
            "linux",
            "cpython",
            "sys",
            "/usr/bin/python3",
            "/usr",
            "",
            "-1",
            "/usr/lib/python3.8",
        ]);
        let found = parse(Path::new("python3"), &text).expect("an answer");
        assert_eq!(found.sysconfig_site, None);
        assert_eq!(found.platlibdir, None);
        assert_eq!(found.import_folders(), None);
        assert_eq!(found.path, [PathBuf::from("/usr/lib/python3.8")]);
    }

    #[test]
    fn anything_else_is_no_answer() {
        let fields = ["3", "12", "1", "linux", "cpython", "sys", "/e", "/p", "lib"];
        let with = |more: &[&str]| answer(&[&fields[..], more].concat());
        for text in [
            String::new(),
            "3 12 1 linux cpython\n".to_string(),
            with(&[]),
            with(&["9", "/a"]),
            with(&["x"]),
            with(&["0"]).replace("12", "x"),
            with(&["0"]).trim_end_matches('\0').to_string(),
        ] {
            assert_eq!(parse(Path::new("python3"), &text), None, "{text:?}");
        }
        assert!(parse(Path::new("python3"), &with(&["0"])).is_some());
    }

    #[test]
    fn the_probe_runs_on_this_machines_python() {
        // Where no python3 is on PATH there is nothing to ask: the scan then leaves version
        // conditions undecided, as it does here.
        let Some(found) = Interpreter::find(None) else {
            return;
        };
        assert!(found.version >= (3, 0, 0));
        assert!(!found.platform.is_empty());
        // Every interpreter builds some modules in; `sys` is one on CPython and PyPy alike.
        assert!(found.builtin_modules.iter().any(|b| b == "sys"));
        assert!(found.sysconfig_site.is_some());
    }
}
