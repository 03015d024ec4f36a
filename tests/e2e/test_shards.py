"""The vote across CI shards, for real: lane-gate --shard K/N and --collect, real git,
real pytest, on a generated suite of a few hundred tests and on examples/invoice. 1, 3 and 7
shards give the verdict and counts of one run (examples/invoice: 3 and 7, through the recipes); a missing shard, a shard of another scan, a
shard uploaded twice with another outcome and a report of an earlier run are each rejected with
their rule; the split is the same on every machine; the recipes of docs/ci.md run locally."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN_DIR, REPO, copy_tree, run_tool
from test_gate import TODAY, gate, gate_env, git

FILES = 30          # generated test modules
TESTS_PER_FILE = 10  # merge tests per module (one parametrized over 3 cases)
WITNESS = 12        # characterization tests (witness, locked_on=)
FLIP = "tests/test_gen_00.py::test_flip"


def generate(root: Path) -> Path:
    """A project of FILES * TESTS_PER_FILE merge tests (one of them failing when E2E_FLIP
    is set), WITNESS witness tests, as a git repository with one commit."""
    root.mkdir()
    (root / "pytest.ini").write_text(
        "[pytest]\ntestpaths = tests\nmarkers =\n    merge: votes\n    witness: locked\n"
        "    freeze: flakes\n", encoding="utf-8")
    (root / "requirements.txt").write_text("pytest\npytest-xdist\n", encoding="utf-8")
    (root / "product.py").write_text(
        "def double(x):\n    return 2 * x\n", encoding="utf-8")
    tests = root / "tests"
    tests.mkdir()
    for f in range(FILES):
        body = ["import os", "", "import pytest", "", "from product import double", ""]
        for t in range(TESTS_PER_FILE):
            if f == 0 and t == 0:
                body += ["", "@pytest.mark.merge", "def test_flip():",
                         '    """owner: shards-team"""',
                         '    assert os.environ.get("E2E_FLIP") is None', ""]
            elif t == 1:
                body += ["", "@pytest.mark.merge", '@pytest.mark.parametrize("x", [1, 2, 3])',
                         f"def test_param_{t}(x):", '    """owner: shards-team"""',
                         f"    assert double(x) == x + x", ""]
            else:
                body += ["", "@pytest.mark.merge", f"def test_case_{t}():",
                         '    """owner: shards-team"""',
                         f"    assert double({f * 100 + t}) == {2 * (f * 100 + t)}", ""]
        (tests / f"test_gen_{f:02d}.py").write_text("\n".join(body), encoding="utf-8")
    body = ["import pytest", "", "from product import double", ""]
    for w in range(WITNESS):
        body += ["", '@pytest.mark.witness(locked_on="2026-11-01")', f"def test_char_{w}():",
                 f"    assert double({w}) == {2 * w}", ""]
    (tests / "test_witness.py").write_text("\n".join(body), encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated")
    return root


def shard_run(repo: Path, k: int, n: int, out: str, *extra: str, **env: str):
    proc = gate(repo, "--today", TODAY, "--shard", f"{k}/{n}", "--out", out, *extra, **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def collect(repo: Path, *dirs: str, out: str = "vote") -> tuple[int, dict]:
    proc = gate(repo, "--collect", *dirs, "--out", out, "--format", "json")
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def summary(doc: dict) -> tuple:
    """What must not depend on the number of shards: the decision, the lane counts, the
    reasons (rule, test)."""
    t = doc["tally"]
    return (t["decision"], t["lanes"],
            sorted((r["rule"], r.get("test") or "") for r in t["reasons"]))


def rules(doc: dict) -> set[str]:
    return {r["rule"] for r in doc["tally"]["reasons"]}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated suite, with one plain gate run (out/lanes) and 3 and 7 shard runs
    (s3-K, s7-K); the 3-shard runs use pytest-xdist inside each shard. Built once for every
    xdist worker of the session (under a lock in their shared temporary folder); each test
    writes only folders of its own names."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    shared = base / "shards-generated"
    with open(base / "shards-generated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        repo = shared / "suite"
        if not (shared / "done").exists():
            if shared.exists():
                shutil.rmtree(shared)
            shared.mkdir()
            generate(repo)
            one = gate(repo, "--today", TODAY, E2E_FLIP="1")
            assert one.returncode == 1, one.stdout + one.stderr
            for k in range(1, 4):
                shard_run(repo, k, 3, f"s3-{k}", "--", "-n", "2", E2E_FLIP="1")
            for k in range(1, 8):
                shard_run(repo, k, 7, f"s7-{k}", E2E_FLIP="1")
            (shared / "done").touch()
    return repo


def test_one_three_and_seven_shards_vote_as_one_run(generated: Path):
    single = json.loads((generated / "out" / "lanes" / "verdict.json").read_text())
    merge_tests = FILES * TESTS_PER_FILE
    assert single["tally"]["lanes"]["merge"]["tests"] == merge_tests
    assert single["tally"]["lanes"]["merge"]["cases"] == merge_tests + 2 * FILES
    assert single["tally"]["lanes"]["witness"]["tests"] == WITNESS
    assert summary(single)[2] == [("merge-failed", FLIP)]
    # one run carries its manifest too: shard 1 of 1, one per lane
    assert [(s["lane"], s["shard"], s["of"]) for s in single["tally"]["shards"]] == \
        [("merge", 1, 1), ("witness", 1, 1), ("freeze", 1, 1)]
    for n in (3, 7):
        code, voted = collect(generated, *[f"s{n}-{k}" for k in range(1, n + 1)], out=f"v{n}")
        assert code == 1
        assert summary(voted) == summary(single), n
        shards = voted["tally"]["shards"]
        merge = [s for s in shards if s["lane"] == "merge"]
        assert [s["shard"] for s in merge] == list(range(1, n + 1))
        assert {s["of"] for s in shards} == {n}
        # every case counted in exactly one shard, and the shards balanced
        assert sum(s["cases"] for s in merge) == single["tally"]["lanes"]["merge"]["cases"]
        sizes = [s["cases"] for s in merge]
        assert max(sizes) - min(sizes) <= 2 * (merge_tests // n) // 3 + 3, sizes
        assert sum(s["failed"] for s in merge) == 1
        # the markdown verdict shows the shards
        assert "### lane-gate: shards" in (generated / f"v{n}" / "verdict.md").read_text()
        # published as a single run publishes: the pull-request comment too (within its size
        # limit, here the whole verdict)
        vote = generated / f"v{n}"
        assert sorted(p.name for p in vote.iterdir()) == \
            ["comment.md", "verdict.json", "verdict.md", "verdict.sarif"]
        assert (vote / "comment.md").read_text() == (vote / "verdict.md").read_text()


def test_a_missing_shard_is_rejected(generated: Path):
    code, voted = collect(generated, "s3-1", "s3-3", out="v-missing")
    assert code == 1
    missing = [r for r in voted["tally"]["reasons"] if r["rule"] == "missing-shard"]
    assert {r["message"].split(" has no")[0] for r in missing} == {
        "the merge lane's shard 2/3", "the witness lane's shard 2/3"}
    # the missing shard's tests did not vote either
    assert "missing-vote" in rules(voted)


def test_a_shard_uploaded_twice_with_another_outcome_is_rejected(generated: Path):
    owners = [k for k in range(1, 4) if f"merge {FLIP}\n" in gate(
        generated, "--shard", f"{k}/3", "--list", "--evidence", "s3-1/evidence.json").stdout]
    assert len(owners) == 1, owners
    k = owners[0]
    # the re-run attempt of shard k: the flaky test passes this time
    shard_run(generated, k, 3, f"s3-{k}-again", "--", "-n", "2")
    dirs = [f"s3-{j}" for j in range(1, 4)] + [f"s3-{k}-again"]
    code, voted = collect(generated, *dirs, out="v-twice")
    assert code == 1
    conflicts = [r["message"] for r in voted["tally"]["reasons"]
                 if r["rule"] == "conflicting-shard"]
    assert conflicts == [f"the merge lane's shard {k}/3 was reported twice with different "
                         f"outcomes (s3-{k}/merge.xml and s3-{k}-again/merge.xml): keep one "
                         "attempt's report"], conflicts
    # an identical re-upload (the same outcomes) counts once and conflicts with nothing
    shutil.copytree(generated / f"s3-{k}", generated / f"s3-{k}-copy")
    code, voted = collect(generated, *[f"s3-{j}" for j in range(1, 4)], f"s3-{k}-copy",
                          out="v-same")
    assert "conflicting-shard" not in rules(voted)
    assert rules(voted) == {"merge-failed"}


def test_a_shard_of_another_scan_is_rejected(generated: Path, tmp_path: Path):
    other = copy_tree(generated, tmp_path / "other")
    # a test file changed between the scan of the other shards and this shard's run
    test = other / "tests" / "test_gen_05.py"
    test.write_text(test.read_text() + "\n\n@pytest.mark.merge\ndef test_added():\n"
                    '    """owner: shards-team"""\n    assert double(1) == 2\n')
    shard_run(other, 2, 3, "s3-2", "--", "-n", "2", E2E_FLIP="1")
    shutil.copytree(other / "s3-2", generated / "s3-2-other")
    code, voted = collect(generated, "s3-1", "s3-2-other", "s3-3", out="v-other")
    assert code == 1
    stale = [r for r in voted["tally"]["reasons"] if r["rule"] == "stale-report"]
    assert sorted(r["file"] for r in stale) == [
        "s3-2-other/freeze.xml", "s3-2-other/merge.xml", "s3-2-other/witness.xml"]
    assert all("a report from another scan or an earlier run" in r["message"] for r in stale)
    assert "missing-shard" in rules(voted)  # its reports do not count as shard 2


def test_a_report_of_an_earlier_run_of_the_same_tests_is_rejected(generated: Path,
                                                                  tmp_path: Path):
    repo = copy_tree(generated, tmp_path / "earlier")
    for d in repo.iterdir():
        if d.name.startswith(("s3-", "s7-", "v")) or d.name == "out":
            shutil.rmtree(d)
    earlier = gate(repo, "--today", TODAY, "--out", "run-1")
    assert earlier.returncode == 0, earlier.stderr
    # the product breaks; the tests are the same
    product = repo / "product.py"
    product.write_text(product.read_text().replace("2 * x", "2 * x + (x == 2)"))
    fresh = gate(repo, "--today", TODAY, "--out", "run-2")
    assert fresh.returncode == 1
    assert "merge-failed" in rules(json.loads((repo / "run-2" / "verdict.json").read_text()))
    # the earlier run's passing merge report left in the new run's folder
    shutil.copy(repo / "run-1" / "merge.xml", repo / "run-2" / "merge.xml")
    tally = run_tool("lane-tally", "--input", "run-2/evidence.json",
                     *[f"--junit={lane}=run-2/{lane}.xml" for lane in ("merge", "witness",
                                                                       "freeze")], cwd=repo)
    assert tally.code == 1, tally.stderr
    doc = json.loads(tally.stdout)
    assert rules(doc) >= {"stale-report", "missing-vote"}
    assert "merge-failed" not in rules(doc)  # the stale report did not vote
    code, voted = collect(repo, "run-2", out="v-earlier")
    assert code == 1
    stale = {r["message"] for r in voted["tally"]["reasons"] if r["rule"] == "stale-report"}
    assert any("replaced or left over from another run" in m for m in stale), stale
    assert any("a report from another scan or an earlier run" in m for m in stale), stale


def expected_split(evidence: Path, n: int) -> dict[int, list[str]]:
    """The documented split without timings, computed independently: each lane's ids sorted,
    dealt round robin (all weights equal, so the least loaded shard is the next one)."""
    tests = json.loads(evidence.read_text())["scan"]["tests"]
    shards: dict[int, list[str]] = {k: [] for k in range(1, n + 1)}
    for lane in ("merge", "witness", "freeze"):
        ids = sorted(t["id"] for t in tests if t["lane"] == lane)
        for i, test_id in enumerate(ids):
            shards[i % n + 1].append(f"{lane} {test_id}")
    return shards


def test_the_split_is_the_same_on_every_machine(generated: Path, tmp_path: Path):
    evidence = generated / "s7-1" / "evidence.json"
    want = expected_split(evidence, 7)
    moved = copy_tree(generated, tmp_path / "elsewhere" / "deeper")
    for k in range(1, 8):
        here = gate(generated, "--shard", f"{k}/7", "--list", "--evidence", str(evidence))
        there = gate(moved, "--shard", f"{k}/7", "--list", "--evidence",
                     str(moved / "s7-1" / "evidence.json"), PYTHONHASHSEED="123")
        assert here.returncode == there.returncode == 0, here.stderr + there.stderr
        assert here.stdout == there.stdout
        lines = here.stdout.splitlines()
        assert sorted(lines) == sorted(want[k]), k
    # the shards' own runs ran exactly that split
    for k in range(1, 8):
        ran = set()
        for lane in ("merge", "witness"):
            xml = (generated / f"s7-{k}" / f"{lane}.xml").read_text()
            for cls, name in re.findall(r'<testcase classname="([^"]*)" name="([^"]*)"', xml):
                ran.add(f"{lane} {cls.replace('.', '/')}.py::{name.split('[')[0]}")
        assert ran == set(want[k]), k


def test_timings_weigh_the_split_and_must_come_from_outside(generated: Path, tmp_path: Path):
    evidence = generated / "s7-1" / "evidence.json"
    timings = tmp_path / "durations.json"
    slow = "tests/test_gen_03.py::test_case_4"
    merge_ids = [t["id"] for t in json.loads(evidence.read_text())["scan"]["tests"]
                 if t["lane"] == "merge"]
    durations = {i: 1.0 for i in merge_ids if "test_param_" not in i}
    durations.update({f"tests/test_gen_03.py::test_param_1[{x}]": 0.5 for x in (1, 2, 3)})
    durations[slow] = 500.0
    timings.write_text(json.dumps(durations))
    first = gate(generated, "--shard", "1/3", "--list", "--evidence", str(evidence),
                 "--timings", str(timings))
    assert first.returncode == 0, first.stderr
    merge = [line for line in first.stdout.splitlines() if line.startswith("merge ")]
    assert merge == [f"merge {slow}"]  # the slowest test alone fills shard 1
    inside = generated / "durations.json"
    shutil.copy(timings, inside)
    refused = gate(generated, "--today", TODAY, "--shard", "1/3", "--timings", "durations.json",
                   "--out", "s-timed")
    inside.unlink()
    assert refused.returncode == 2
    assert "inside the checkout, which the patch controls" in refused.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"tests/test_gen_03.py::test_case_4": "slow"}')
    proc = gate(generated, "--shard", "1/3", "--list", "--evidence", str(evidence),
                "--timings", str(bad))
    assert proc.returncode == 2 and "expected a duration in seconds" in proc.stderr


# ---- the recipes of docs/ci.md, with the same commands ----

def block(heading: str) -> str:
    text = (REPO / "docs" / "ci.md").read_text()
    return re.search(rf"### {heading}\n.*?```yaml\n(.*?)```", text, re.S).group(1)


def step_script(yaml: str, name: str) -> str:
    m = re.search(rf'name: "{name}"\n        run: \|\n((?:          .*\n?)+)', yaml)
    return "\n".join(line[10:] for line in m.group(1).splitlines())


def run_script(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = gate_env(**env)
    full["PATH"] = str(BIN_DIR) + os.pathsep + full["PATH"]
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                          cwd=cwd, capture_output=True, text=True, env=full, timeout=900)


def committed_invoice(tmp_path: Path, name: str) -> Path:
    repo = copy_tree(REPO / "examples" / "invoice", tmp_path / name)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def test_github_matrix_recipe_runs_locally(tmp_path: Path):
    yaml = block("Shards: GitHub Actions matrix")
    assert "matrix:\n        shard: [1, 2, 3, 4, 5, 6, 7]" in yaml
    assert "needs: [clock, shard]" in yaml and "${{ !cancelled() }}" in yaml
    assert "actions/upload-artifact@v4" in yaml and "actions/download-artifact@v4" in yaml
    shard = step_script(yaml, "lanes: shard").replace(
        '"${{ github.event.pull_request.base.sha }}"', "HEAD")
    vote = step_script(yaml, "lanes: vote")
    repo = committed_invoice(tmp_path, "gh")
    single = gate(committed_invoice(tmp_path, "one"), "--today", TODAY, "--base", "HEAD",
                  LANES_SEED="99")
    shards = repo / "shards"
    for k in range(1, 8):
        proc = run_script(shard.replace("${{ matrix.shard }}", str(k)), repo,
                          LANES_TODAY=TODAY, LANES_SEED="99")
        assert proc.returncode == 0, proc.stderr
        # upload-artifact name lanes-shard-K, download-artifact into shards/
        shutil.copytree(repo / "out" / f"shard-{k}", shards / f"lanes-shard-{k}")
    summary_md = tmp_path / "summary.md"
    proc = run_script(vote, repo, GITHUB_STEP_SUMMARY=str(summary_md))
    assert proc.returncode == single.returncode == 0, proc.stdout + proc.stderr
    voted = json.loads((repo / "out" / "lanes" / "verdict.json").read_text())
    gated = json.loads((tmp_path / "one" / "out" / "lanes" / "verdict.json").read_text())
    assert summary(voted) == summary(gated)  # examples/invoice: 7 shards vote as one run
    assert "### lane-gate: shards" in summary_md.read_text()
    # a shard job that never uploaded: the vote rejects
    shutil.rmtree(shards / "lanes-shard-4")
    proc = run_script(vote, repo, GITHUB_STEP_SUMMARY=str(summary_md))
    assert proc.returncode == 1 and "`missing-shard`" in proc.stdout


def gitlab_jobs() -> dict[str, list[str]]:
    jobs: dict[str, list[str]] = {}
    job = key = None
    for line in block("Shards: GitLab parallel").splitlines():
        if re.match(r"[a-z-]+:$", line):
            job = line[:-1]
            jobs[job] = []
        elif re.match(r"  [a-z_]+:", line):
            key = line.strip().split(":")[0]
        elif key in ("before_script", "script") and line.startswith("    - ") and job:
            jobs[job].append(line[6:])
    return jobs


def test_gitlab_parallel_recipe_runs_locally(tmp_path: Path):
    assert "parallel: 7" in block("Shards: GitLab parallel")
    jobs = gitlab_jobs()
    shard = [c for c in jobs["lanes-shard"] if not c.startswith("python -m pip")]
    shard = "\n".join(shard).replace('"origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"', "HEAD")
    vote = "\n".join(jobs["lanes-vote"])
    repo = committed_invoice(tmp_path, "gl")
    env = dict(CI_PIPELINE_CREATED_AT=f"{TODAY}T08:15:00Z", CI_PIPELINE_ID="41",
               CI_MERGE_REQUEST_APPROVED="", CI_MERGE_REQUEST_IID="7", CI_NODE_TOTAL="3")
    for k in range(1, 4):
        proc = run_script(shard, repo, CI_NODE_INDEX=str(k), **env)
        assert proc.returncode == 0, proc.stderr
    proc = run_script(vote, repo, **env)
    one = committed_invoice(tmp_path, "one")
    single = gate(one, "--today", TODAY, "--base", "HEAD", LANES_SEED="41")
    assert proc.returncode == single.returncode == 0, proc.stdout + proc.stderr
    voted = json.loads((repo / "out" / "lanes" / "verdict.json").read_text())
    gated = json.loads((one / "out" / "lanes" / "verdict.json").read_text())
    assert summary(voted) == summary(gated)  # examples/invoice: 3 shards vote as one run
    assert {(s["shard"], s["of"]) for s in voted["tally"]["shards"]} == {(1, 3), (2, 3), (3, 3)}
    assert voted["gate"]["seed"] == {"from": "LANES_SEED", "value": 41, "predictable": True}


def test_collect_refuses_a_folder_that_is_not_a_shard(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    proc = gate(tmp_path, "--collect", "empty", "--out", "vote")
    assert proc.returncode == 2
    assert "empty: no evidence.json" in proc.stderr
    proc = gate(tmp_path, "--shard", "0/3")
    assert proc.returncode == 2 and "expected K/N" in proc.stderr
