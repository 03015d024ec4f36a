//! The third step: how every pytest run goes. Which installed plugins load, the seed, the
//! environment, the files watched while pytest runs, and the run manifest (with `--shard`, the
//! split).

use std::path::{Path, PathBuf};
use std::time::Duration;

use lane_core::Problem;

use super::after::Watched;
use super::evidence::Evidence;
use jiff::civil::Date;

use super::prepare::{LANES_PLUGIN, Places, Python};
use crate::pytest::Setup;
use crate::python::Plugin;
use crate::rules::{self, GateFacts};
use crate::section::{Plugins, Seed};
use crate::{Args, GateError, from_tool, shard};

/// What the runs share.
pub(crate) struct Plan {
    pub(crate) plugins: Plugins,
    /// The seed every run gets (none when hypothesis is not loaded).
    pub(crate) seed: Seed,
    pub(crate) setup: Setup,
    /// The files whose writes during the runs are digest-moved.
    pub(crate) watched: Watched,
    /// The run manifest and, with `--shard`, the split.
    pub(crate) shard: shard::Plan,
    /// plugin-not-loaded.
    pub(crate) problems: Vec<Problem>,
    /// The folders of the vote tree product modules import from (tree-relative).
    pub(crate) product_dirs: Vec<String>,
}

/// What the tree pytest runs in needs: PYTHONPATH with the rootdir unless the config puts its
/// own `pythonpath` on sys.path (pytest does that after loading itself and its plugins).
pub(crate) fn run_pythonpath(root: &Path) -> Result<Vec<PathBuf>, GateError> {
    let config = lane_scan::config::load(&[], None, root).map_err(from_tool("lane-scan"))?;
    let set = lane_scan::config::ini_args(&config, "pythonpath").map_err(from_tool("lane-scan"))?;
    Ok(if set.is_empty() {
        vec![root.to_path_buf()]
    } else {
        Vec::new()
    })
}

/// Which installed plugins are loaded: those of distributions the voting tree's manifests or
/// `required_plugins` name, lanes' own and hypothesis's.
pub(crate) fn choose_plugins(
    plugins: &[Plugin],
    manifest_root: &Path,
) -> Result<Plugins, GateError> {
    let mut named = crate::python::named_distributions(manifest_root);
    let config =
        lane_scan::config::load(&[], None, manifest_root).map_err(from_tool("lane-scan"))?;
    for req in
        lane_scan::config::ini_args(&config, "required_plugins").map_err(from_tool("lane-scan"))?
    {
        named.extend(crate::python::requirement_name(&req));
    }
    named.insert("hypothesis".into());
    // lanes' own plugin: its runtime evidence corroborates the scan (lane-drift).
    named.insert(LANES_PLUGIN.into());
    let (loaded, not_loaded) = plugins
        .iter()
        .cloned()
        .partition(|p| named.contains(&p.distribution));
    Ok(Plugins { loaded, not_loaded })
}

/// The modules of the loaded plugins, each once, in order.
fn modules(loaded: &[Plugin]) -> Vec<String> {
    let mut modules: Vec<String> = Vec::new();
    for p in loaded {
        if !modules.contains(&p.module) {
            modules.push(p.module.clone());
        }
    }
    modules
}

/// Whether the lanes' interpreter has coverage.py: a distribution of its site-packages, or (a
/// folder a `.pth` file adds) importable in an isolated interpreter that imports nothing else.
fn has_coverage(python: &Python) -> bool {
    python.dists.contains_key("coverage")
        || std::process::Command::new(&python.command)
            .args(["-I", "-c", "import coverage.parser, coverage.sqldata"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

/// The tests' temporary folder (TMPDIR): the room's, or a fresh one of the run's.
fn tests_tmp(evidence: &Evidence, places: &Places) -> Result<PathBuf, GateError> {
    if let Some(room) = &evidence.room {
        return Ok(room.tmp.clone());
    }
    let tmp = places.tmp.join("tmp");
    std::fs::create_dir_all(&tmp)
        .map_err(|e| GateError::io(format!("cannot create {}", tmp.display()), e))?;
    Ok(tmp)
}

/// The ids of the tests that vote: the merge and witness lanes of the vote's scan.
fn voters(tests: &[lane_core::scan::ScanTest]) -> Vec<String> {
    use lane_core::scan::Lane;
    let mut ids: Vec<String> = tests
        .iter()
        .filter(|t| matches!(t.lane, Some(Lane::Merge | Lane::Witness)))
        .map(|t| t.id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Plans the runs in the evidence's vote tree; writes the `run` section into the evidence (the
/// document the manifest digests).
pub(crate) fn plan(
    args: &Args,
    python: &Python,
    places: &Places,
    today: Date,
    evidence: &mut Evidence,
) -> Result<Plan, GateError> {
    let plugins = choose_plugins(&python.plugins, &evidence.manifest_root)?;
    let problems = rules::check(&GateFacts::NotLoaded(&plugins.not_loaded));
    let mut seed = evidence.vote.seed.clone();
    if !plugins
        .loaded
        .iter()
        .any(|p| p.distribution == "hypothesis")
    {
        seed.value = None;
    }
    let vote_root = &evidence.vote_root;
    let (product, product_dirs) = crate::trial::product(vote_root)?;
    // The vote's tests, read once: the voters the tracer counts, the surface watched.
    let tests = evidence
        .doc
        .section_as::<lane_core::scan::ScanSection>(
            lane_core::scan::ScanSection::NAME,
            "<vote evidence>",
        )?
        .map(|scan| scan.tests)
        .unwrap_or_default();
    let mut trace =
        crate::exercised::plan(vote_root, &product_dirs, &evidence.changed, voters(&tests));
    if let Some(t) = &mut trace {
        t.per_test = args.mutants == crate::Mutants::On;
    }
    if trace.is_some() && !has_coverage(python) {
        return Err(GateError::Checkout(format!(
            "the patch changes product code and the lanes' interpreter ({}) has no coverage.py: \
             the gate traces which changed lines the voters ran with it; install coverage (or \
             pytest-lanes-gate, which depends on it) into that interpreter",
            python.command.display()
        )));
    }
    let setup = Setup {
        python: python.command.clone(),
        plugins: modules(&plugins.loaded),
        seed: seed.value,
        user_args: args.pytest_args.clone(),
        timeout: Duration::from_secs(args.lane_timeout),
        pythonpath: run_pythonpath(vote_root)?,
        // A run in the checkout itself reads and writes bytecode only under a fresh folder:
        // a stale or committed __pycache__ there is never imported. (The vote tree is a copy
        // without any __pycache__.)
        pycache_prefix: (*vote_root == places.cwd).then(|| places.tmp.join("pycache")),
        product,
        trace: trace.map(std::sync::Arc::new),
        tmpdir: Some(tests_tmp(evidence, places)?),
        mutant: None,
    };
    // Files whose bytes decide the vote: any write to them while pytest runs is seen by their
    // inode change time, even when the bytes are put back before the run ends.
    let surface = super::after::test_surface(vote_root, &tests);
    let mut watched = Watched::before(vote_root, &surface);
    if evidence.room.is_some() {
        // The vote copy's test surface is read-only to the runs (a copy: the checkout itself
        // is only watched).
        watched.make_read_only()?;
    }
    let base = evidence.vote.base.as_ref().map(|b| b.commit.as_str());
    let shard = shard::Plan::prepare(
        args,
        &mut evidence.doc,
        shard::RunKey {
            base: base.map(str::to_string),
            seed: seed.value,
            today,
        },
        places,
    )?;
    Ok(Plan {
        plugins,
        seed,
        setup,
        watched,
        shard,
        problems,
        product_dirs,
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use lane_core::Document;

    use super::*;
    use crate::gate::evidence::Vote;
    use crate::stand_in::{Scratch, StandIn};

    fn evidence(scratch: &Scratch, vote_root: PathBuf, seed: Option<u64>) -> Evidence {
        Evidence {
            doc: Document::empty(),
            base_doc: None,
            vote_root,
            manifest_root: scratch.places.cwd.clone(),
            accept: crate::accept::Accept::default(),
            candidates: Vec::new(),
            vote: Vote {
                voting_tree: "working-tree",
                base: None,
                surface: Vec::new(),
                seed: Seed {
                    from: "--seed".into(),
                    value: seed,
                    predictable: true,
                },
            },
            problems: Vec::new(),
            changed: std::collections::BTreeMap::new(),
            room: None,
        }
    }

    fn planned(pytest: &StandIn, scratch: &Scratch, evidence: &mut Evidence) -> Plan {
        let python = super::super::prepare::interpreter(Some(pytest.python())).unwrap();
        let args = Args::try_parse_from(["lane-gate", "--lane-timeout", "9", "--", "-q"]).unwrap();
        plan(
            &args,
            &python,
            &scratch.places,
            jiff::civil::date(2026, 12, 1),
            evidence,
        )
        .unwrap()
    }

    #[test]
    fn plugins_the_voting_tree_names_load_and_the_rest_are_shown() {
        let pytest = StandIn::new();
        pytest
            .install("hypothesis", &[("hypothesis", "_hypothesis_pytestplugin")])
            .install(
                "pytest-xdist",
                &[
                    ("xdist.plugin", "xdist.plugin"),
                    ("xdist.looponfail", "xdist.looponfail"),
                ],
            )
            .install(
                "pytest-rig",
                &[("rig", "rig.plugin"), ("rig2", "rig.plugin")],
            );
        let scratch = Scratch::new();
        scratch.file("requirements.txt", "pytest-xdist>=3\n");
        std::fs::write(scratch.places.out.join(shard::MANIFEST_FILE), "{}").unwrap();
        let mut evidence = evidence(&scratch, scratch.places.cwd.clone(), Some(7));
        let plan = planned(&pytest, &scratch, &mut evidence);
        let dists = |list: &[Plugin]| -> Vec<String> {
            list.iter().map(|p| p.distribution.clone()).collect()
        };
        assert_eq!(
            dists(&plan.plugins.loaded),
            ["hypothesis", "pytest-xdist", "pytest-xdist"]
        );
        assert_eq!(
            dists(&plan.plugins.not_loaded),
            ["pytest-rig", "pytest-rig"]
        );
        assert_eq!(plan.problems.len(), 1, "{:?}", plan.problems);
        assert_eq!(plan.problems[0].rule, "plugin-not-loaded");
        assert_eq!(
            plan.problems[0].message,
            "installed but not loaded, as no dependency manifest of the voting tree names them \
             (plugin autoloading is off): pytest-rig (rig, rig2)"
        );
        // the runs load each module once, get the seed, and read bytecode from a fresh folder
        // in the checkout itself
        let s = &plan.setup;
        assert_eq!(
            s.plugins,
            [
                "_hypothesis_pytestplugin",
                "xdist.looponfail",
                "xdist.plugin"
            ]
        );
        assert_eq!((s.seed, plan.seed.value), (Some(7), Some(7)));
        assert_eq!(s.timeout, Duration::from_secs(9));
        assert_eq!(s.user_args, ["-q"]);
        assert_eq!(s.pythonpath, std::slice::from_ref(&scratch.places.cwd));
        assert_eq!(s.pycache_prefix, Some(scratch.places.tmp.join("pycache")));
        // the run manifest: the run section digested, an earlier manifest gone
        assert!(evidence.doc.has_section(lane_core::manifest::RUN_SECTION));
        assert_eq!(
            plan.shard.digest,
            lane_core::manifest::evidence_digest(&evidence.doc).unwrap()
        );
        assert!(!plan.shard.is_shard());
        assert!(!scratch.places.out.join(shard::MANIFEST_FILE).exists());
    }

    #[test]
    fn without_hypothesis_no_seed_and_a_copy_keeps_its_own_bytecode_and_path() {
        let pytest = StandIn::new();
        let scratch = Scratch::new();
        let vote = scratch.places.tmp.join("vote");
        std::fs::create_dir(&vote).unwrap();
        std::fs::write(vote.join("pytest.ini"), "[pytest]\npythonpath = src\n").unwrap();
        let mut evidence = evidence(&scratch, vote, Some(7));
        let plan = planned(&pytest, &scratch, &mut evidence);
        assert!(plan.plugins.loaded.is_empty() && plan.problems.is_empty());
        assert_eq!((plan.setup.seed, plan.seed.value), (None, None));
        assert_eq!(plan.seed.from, "--seed");
        assert!(plan.setup.pythonpath.is_empty());
        assert_eq!(plan.setup.pycache_prefix, None);
    }
}
