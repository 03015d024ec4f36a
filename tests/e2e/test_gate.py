"""lane-gate, `make demo` / `make demo-patch` and the CI recipes of docs/ci.md, run for real: the
binary, real git, real pytest on copies of examples/invoice."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import pty
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import (BIN_DIR, PYTHON, REPO, TOOLS, copy_tree, demo_python, head_ack, outside_ci,
                      run_tool, tool_path)

PATCH = REPO / "examples" / "agent-patch" / "agent.patch"
TODAY = "2026-12-01"
VENV_BIN = str(Path(PYTHON).parent)


def gate_env(**extra: str) -> dict:
    for tool in TOOLS:
        tool_path(tool)
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANES_TODAY", "LANES_ACK", "LANES_SEED", "PYTEST")}
    env["PATH"] = VENV_BIN + os.pathsep + env.get("PATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def gate(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(tool_path("lane-gate")), *args], cwd=cwd, capture_output=True,
                          text=True, env=gate_env(**env), timeout=900)


# Commits on a fixed date: the same patch gives the same commit ids, so the same seed and bytes.
GIT_DATES = {"GIT_AUTHOR_DATE": "2026-11-30T12:00:00+0000",
             "GIT_COMMITTER_DATE": "2026-11-30T12:00:00+0000"}


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
         "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, capture_output=True, text=True, check=True, env={**os.environ, **GIT_DATES})
    return proc.stdout


def patched_repo(invoice: Path) -> Path:
    """The example as a git repo: the base commit, then the agent's patch committed on top."""
    git(invoice, "init", "-q")
    git(invoice, "add", "-A")
    git(invoice, "commit", "-q", "-m", "base")
    git(invoice, "apply", str(PATCH))
    git(invoice, "add", "-A")
    git(invoice, "commit", "-q", "-m", "agent")
    return invoice


def test_the_gate_leaves_the_checkout_clean_and_a_users_folder_alone(tmp_path: Path):
    # Its out folder ignores itself: `git add -A` after a run commits nothing of it, and the
    # next run finds no uncommitted change.
    repo = copy_tree(REPO / "examples" / "invoice", tmp_path / "repo")
    (repo / ".gitignore").unlink()  # the example's own ignores out/: this project does not
    repo = committed(repo, True)
    for _ in range(2):
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
        assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
        git(repo, "add", "-A")
        assert git(repo, "diff", "--cached", "--name-only") == ""
    # An out folder the user already keeps files in gets no ignore file of the gate's.
    (repo / "reports").mkdir()
    (repo / "reports" / "README.md").write_text("ours\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "reports folder")
    proc = gate(repo, "--today", TODAY, "--out", "reports")
    assert not (repo / "reports" / ".gitignore").exists()


def test_a_tracked_out_folder_is_refused_with_nothing_changed(tmp_path: Path):
    # A project that committed the gate's output once: the gate refuses before it touches
    # anything (it would delete tracked files), says how to untrack them, and the checkout
    # stays clean; once untracked, the run goes ahead.
    repo = copy_tree(REPO / "examples" / "invoice", tmp_path / "repo")
    (repo / ".gitignore").unlink()
    repo = committed(repo, True)
    out = repo / "out" / "lanes"
    out.mkdir(parents=True)
    (out / "verdict.md").write_text("an old verdict\n")
    (out / "merge.log").write_text("an old log\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the gate's output, by mistake")
    proc = gate(repo, "--base", "HEAD~2", "--today", TODAY)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "holds files git tracks (out/lanes/merge.log and 1 more)" in proc.stderr
    assert "git rm -r --cached out/lanes" in proc.stderr
    assert (out / "verdict.md").read_text() == "an old verdict\n"
    assert sorted(p.name for p in out.iterdir()) == ["merge.log", "verdict.md"]
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    git(repo, "rm", "-r", "-q", "--cached", "out/lanes")
    git(repo, "commit", "-q", "-m", "untrack the gate's output")
    proc = gate(repo, "--today", TODAY)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "holds files git tracks" not in proc.stderr


def reason_rules(verdict: dict) -> set[str]:
    return {r["rule"] for r in verdict["tally"]["reasons"]}


def test_gate_approves_the_bundled_example(invoice: Path):
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = invoice / "out" / "lanes"
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["tally"]["decision"] == "approve"
    assert verdict["tally"]["reasons"] == []
    for section in ("scan", "lock", "ledger"):
        assert section in verdict, section
    # the printed verdict is the markdown file, and it says approve
    assert proc.stdout == (out / "verdict.md").read_text()
    assert "approve" in proc.stdout
    assert (out / "pytest-status").read_text() == "merge 0\nwitness 0\nfreeze 0\n"
    for lane in ("merge", "witness", "freeze"):
        assert (out / f"{lane}.xml").stat().st_size > 0
    # the evidence before pytest is left for review, and the verdict carries it unchanged
    evidence = json.loads((out / "evidence.json").read_text())
    assert set(evidence) == {"version", "scan", "lock", "ledger", "run", "gate"}
    # the run manifest's part of the evidence: no git here, so no tree id
    assert evidence["run"] == {"base": None, "problems": [], "pytest_args": [], "seed": 0,
                               "today": TODAY, "tool": "lane-gate", "tree": None}
    assert evidence["gate"]["voting_tree"] == "working-tree"
    assert evidence["gate"]["seed"] == {"from": "default", "value": 0, "predictable": True}
    for section in ("scan", "lock", "ledger", "gate"):
        assert verdict[section] == evidence[section], section


def test_gate_rejects_the_agent_patch_with_each_reason(invoice: Path):
    repo = patched_repo(invoice)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((repo / "out" / "lanes" / "verdict.json").read_text())
    assert verdict["tally"]["decision"] == "reject"
    rules = reason_rules(verdict)
    for expected in ("unconditional-skip", "lock-batched-with-behavior", "expired-ticket",
                     "lock-entry-moved", "merge-failed", "witness-failed",
                     "test-surface-changed"):
        assert expected in rules, (expected, sorted(rules))
        assert f"`{expected}`" in proc.stdout
    # the base's property voted: the patch's skip never reached the vote
    assert "merge-skipped" not in rules
    assert verdict["gate"]["voting_tree"] == "base-test-surface"
    # the merge lane failed (exit 1), and that is recorded, not OR-ed into the gate's status
    assert "merge 1\n" in (repo / "out" / "lanes" / "pytest-status").read_text()


def test_gate_without_base_does_not_see_the_lock_edit(invoice: Path):
    # Without --base the re-locked golden file is consistent with its lock: only the review
    # of the edit (lane-lock diff) can catch it. The skip and the expired ticket still reject.
    repo = patched_repo(invoice)
    proc = gate(repo, "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rules = reason_rules(json.loads((repo / "out" / "lanes" / "verdict.json").read_text()))
    assert "lock-batched-with-behavior" not in rules
    assert {"unconditional-skip", "expired-ticket"} <= rules


def test_gate_reason_lifts_the_batched_lock_edit_only(invoice: Path):
    repo = patched_repo(invoice)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY,
                "--reason", head_ack(repo, "bonus changes the due line"))
    assert proc.returncode == 1
    rules = reason_rules(json.loads((repo / "out" / "lanes" / "verdict.json").read_text()))
    assert "lock-batched-with-behavior" not in rules
    assert "unconditional-skip" in rules


def test_gate_under_ci_needs_a_date(invoice: Path):
    shutil.rmtree(invoice / "out", ignore_errors=True)  # a `make demo` run may have left one
    for ci in ({"CI": "true"}, {"GITHUB_ACTIONS": "true"}):
        proc = subprocess.run([str(tool_path("lane-gate"))], cwd=invoice, capture_output=True,
                              text=True, env={**outside_ci(gate_env()), **ci}, timeout=900)
        assert proc.returncode == 2, proc.stderr
        assert "clock must be pinned" in proc.stderr and "LANES_TODAY" in proc.stderr
        assert proc.stdout == ""
        assert not (invoice / "out" / "lanes" / "verdict.json").exists()


def test_gate_outside_ci_takes_the_local_date_and_says_it_is_not_a_ci_verdict(invoice: Path):
    before = dt.date.today().isoformat()
    proc = subprocess.run([str(tool_path("lane-gate"))], cwd=invoice, capture_output=True,
                          text=True, env=outside_ci(gate_env()), timeout=900)
    dates = {before, dt.date.today().isoformat()}
    # The example's tickets expire some day: the local date may reject them, never exit 2.
    assert proc.returncode in (0, 1), proc.stderr
    assert "local clock: not a CI verdict" in proc.stderr
    assert "**local clock: not a CI verdict**" in proc.stdout
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert verdict["tally"]["clock"] == "local"
    assert verdict["ledger"]["clock"] == "local" and verdict["ledger"]["today"] in dates
    # Pinned, the same run says nothing of a clock.
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "local clock" not in proc.stdout + proc.stderr
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert "clock" not in verdict["tally"] and "clock" not in verdict["ledger"]


def test_gate_takes_the_date_from_the_environment(invoice: Path):
    proc = gate(invoice, "--out", "elsewhere", LANES_TODAY=TODAY)
    assert proc.returncode == 0, proc.stderr
    assert (invoice / "elsewhere" / "verdict.json").exists()


def test_gate_stops_when_a_tool_cannot_do_its_job(invoice: Path):
    assert gate(invoice, "--today", TODAY).returncode == 0  # leaves an approving verdict
    (invoice / "lanes.lock").write_text('{"version": 1, "files": [ {"path": 3} ]}\n')
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "lane-lock" in proc.stderr
    assert proc.stdout == ""
    assert not (invoice / "out" / "lanes" / "verdict.json").exists()
    assert not (invoice / "out" / "lanes" / "merge.xml").exists()  # pytest never ran


def test_gate_passes_pytest_args_to_every_lane(invoice: Path):
    # Deselecting a merge test with -k leaves it without a vote: the tally notices.
    proc = gate(invoice, "--today", TODAY, "--", "-k", "not test_credit_examples")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert "missing-vote" in reason_rules(verdict)


def test_gate_unknown_argument_is_a_usage_error(invoice: Path):
    proc = gate(invoice, "--today", TODAY, "--bogus")
    assert proc.returncode == 2
    assert "--bogus" in proc.stderr


# ---- the CI recipes of docs/ci.md ----

def ci_block(heading: str, lang: str = "yaml") -> str:
    text = (REPO / "docs" / "ci.md").read_text()
    return re.search(rf"## {heading}.*?```{lang}\n(.*?)```", text, re.S).group(1)


def github_gate_script() -> str:
    block = ci_block("GitHub Actions")
    m = re.search(r'name: "lanes: gate"\n        run: \|\n((?:          .*\n?)+)', block)
    return "\n".join(line[10:] for line in m.group(1).splitlines())


def test_ci_recipes_pin_the_clock_to_the_run_not_a_commit():
    text = (REPO / "docs" / "ci.md").read_text()
    assert "git log" not in re.sub(r"never a date from `git log`", "", text)
    assert 'echo "LANES_TODAY=$(date -u +%F)" >> "$GITHUB_ENV"' in ci_block("GitHub Actions")
    assert 'LANES_TODAY="${CI_PIPELINE_CREATED_AT%%T*}"' in ci_block("GitLab CI")


@pytest.mark.parametrize("patched", [False, True], ids=["example", "agent-patch"])
def test_github_gate_step_is_lane_gate(tmp_path: Path, patched: bool):
    src = REPO / "examples" / "invoice"
    one = committed(copy_tree(src, tmp_path / "one"), patched)
    step = committed(copy_tree(src, tmp_path / "step"), patched)
    single = gate(one, "--base", "HEAD~1" if patched else "HEAD", "--today", TODAY)
    script = github_gate_script()
    assert "${{ github.event.pull_request.base.sha }}" in script
    script = script.replace('"${{ github.event.pull_request.base.sha }}"',
                            "HEAD~1" if patched else "HEAD")
    summary = tmp_path / "summary.md"
    env = gate_env(LANES_TODAY=TODAY, GITHUB_STEP_SUMMARY=str(summary))
    env["PATH"] = str(BIN_DIR) + os.pathsep + env["PATH"]
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                          cwd=step, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == single.returncode == (1 if patched else 0), proc.stderr
    assert summary.read_text() == single.stdout == proc.stdout
    stepped = (step / "out" / "lanes" / "verdict.json").read_bytes()
    assert stepped == (one / "out" / "lanes" / "verdict.json").read_bytes()


def test_github_acknowledgment_comes_from_a_review_of_the_commit_judged():
    block = ci_block("GitHub Actions")
    # the review's own commit, and the job checks out the pull request's head (not the merge)
    assert "github.event.review.commit_id" in block
    assert "github.event.review.author_association" in block
    assert "ref: ${{ github.event.pull_request.head.sha }}" in block
    assert "pull_request_review:" in block and "labels" not in block
    text = (REPO / "docs" / "ci.md").read_text()
    assert "github.event.pull_request.user.login != " in text
    assert "never from a file in the patch" in text.lower() or \
        "may never come from a file in the patch" in text


# ---- the Makefile's demo targets ----

def make(target: str, checkout: Path) -> subprocess.CompletedProcess:
    """`make TARGET` with the repository's own Makefile, in a copy of the files the demos use:
    `make demo` writes into examples/invoice, which the other tests copy while they run."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    shutil.copy2(REPO / "Makefile", checkout / "Makefile")
    shutil.copytree(REPO / "scripts", checkout / "scripts")
    copy_tree(REPO / "examples", checkout / "examples")
    shutil.rmtree(checkout / "examples" / "invoice" / "out", ignore_errors=True)
    (checkout / "target").mkdir()  # where `make build` puts the binaries
    # build and the venvs are taken as done (`make test` makes them first): only the demo runs.
    venv = Path(PYTHON).parent.parent
    demo_venv = Path(demo_python()).parent.parent
    return subprocess.run(["make", "--no-print-directory", "-o", "build", "-o", "venv",
                           "-o", "demo-venv", target, f"BIN={BIN_DIR}", f"VENV={venv}",
                           f"DEMO_VENV={demo_venv}"],
                          cwd=checkout, capture_output=True, text=True, env=gate_env(),
                          timeout=900)


def test_make_demo_approves(tmp_path: Path):
    proc = make("demo", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "lane-tally: **approve**" in proc.stdout
    verdict = json.loads((tmp_path / "examples" / "invoice" / "out" / "lanes" / "verdict.json")
                         .read_text())
    assert verdict["tally"]["decision"] == "approve"


def test_make_demo_patch_rejects_with_the_expected_reasons(tmp_path: Path):
    proc = make("demo-patch", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "lane-tally: **reject**" in proc.stdout
    assert "demo-patch: rejected, as it should be" in proc.stdout
    verdict = json.loads((tmp_path / "target" / "demo-patch" / "verdict.json").read_text())
    rules = reason_rules(verdict)
    for expected in ("unconditional-skip", "lock-batched-with-behavior", "expired-ticket"):
        assert expected in rules
        assert f"`{expected}`" in proc.stdout


# ---- --base details ----

def test_gate_base_reports_a_removed_merge_test(invoice: Path):
    git(invoice, "init", "-q")
    git(invoice, "add", "-A")
    git(invoice, "commit", "-q", "-m", "base")
    merge = invoice / "tests" / "test_invoice_merge.py"
    text = merge.read_text()
    merge.write_text(text[:text.index("@pytest.mark.merge\ndef test_credit_examples")])
    git(invoice, "commit", "-q", "-am", "drop the oracle")
    proc = gate(invoice, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert "merge-test-removed" in reason_rules(verdict)
    assert (invoice / "out" / "lanes" / "base-evidence.json").exists()


def test_gate_base_works_in_a_subfolder_of_the_repository(tmp_path: Path):
    repo = tmp_path / "repo"
    sub = copy_tree(REPO / "examples" / "invoice", repo / "services" / "invoice")
    (repo / "README").write_text("monorepo\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "apply", "--directory=services/invoice", str(PATCH))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent")
    proc = gate(sub, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((sub / "out" / "lanes" / "verdict.json").read_text())
    rules = reason_rules(verdict)
    assert {"lock-batched-with-behavior", "lock-entry-moved", "expired-ticket"} <= rules, rules
    # paths in the change list are relative to the gated folder, as the lock's are
    assert "invoice.py" in " ".join(p["message"] for p in verdict["lock_diff"]["problems"])
    base = json.loads((sub / "out" / "lanes" / "base-evidence.json").read_text())
    assert base["scan"]["counts"]["merge"] == 2


def test_gate_base_must_be_a_commit(invoice: Path):
    git(invoice, "init", "-q")
    git(invoice, "add", "-A")
    git(invoice, "commit", "-q", "-m", "base")
    proc = gate(invoice, "--base", "no-such-ref", "--today", TODAY)
    assert proc.returncode == 2
    assert "no-such-ref" in proc.stderr


def test_gate_cannot_decide_when_pytest_cannot_run(invoice: Path):
    # pytest exits 4 (usage error) and writes no report: no lane voted, so nothing approves,
    # and the gate says could not decide with pytest's words rather than a rejection.
    proc = gate(invoice, "--today", TODAY, "--", "--no-such-pytest-option")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = invoice / "out" / "lanes"
    assert (out / "pytest-status").read_text() == "merge 4\nwitness 4\nfreeze 4\n"
    assert "unrecognized arguments: --no-such-pytest-option" in proc.stderr
    assert not (out / "verdict.json").exists()


# ---- the GitLab recipe of docs/ci.md, as the runner would run it ----

def gitlab_job() -> tuple[dict[str, str], list[str]]:
    """(variables, commands) of the `lanes:` job in docs/ci.md: before_script then script."""
    block = ci_block("GitLab CI")
    variables: dict[str, str] = {}
    commands: list[str] = []
    key = None
    for line in block.splitlines():
        if re.match(r"  [a-z_]+:", line):
            key = line.strip().rstrip(":")
        elif key == "variables" and re.match(r"    [A-Z_]+: ", line):
            name, value = line.strip().split(": ", 1)
            variables[name] = value.strip('"')
        elif key in ("before_script", "script") and line.startswith("    - "):
            commands.append(line[6:])
    return variables, commands


def committed(repo: Path, patched: bool) -> Path:
    if patched:
        return patched_repo(repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


@pytest.mark.parametrize("shell", [["sh", "-e", "-c"], ["bash", "-eo", "pipefail", "-c"]],
                         ids=["sh", "bash"])
@pytest.mark.parametrize("approved", ["", "true"], ids=["not-approved", "approved"])
def test_gitlab_job_gives_the_same_verdict_as_lane_gate(tmp_path: Path, approved: str,
                                                        shell: list[str]):
    if shutil.which(shell[0]) is None:
        pytest.skip(f"{shell[0]} is not installed")
    src = REPO / "examples" / "invoice"
    one = committed(copy_tree(src, tmp_path / "one"), True)
    job = committed(copy_tree(src, tmp_path / "job"), True)
    variables, commands = gitlab_job()
    assert variables == {"GIT_DEPTH": "0"}
    commands = [c for c in commands if not c.startswith("python -m pip install")]
    head = git(job, "rev-parse", "HEAD").strip()
    assert head == git(one, "rev-parse", "HEAD").strip()  # the same commit, dates pinned
    text = f"approval of !7 at {head}"
    ack = ["--ack", text] if approved else []
    single = gate(one, "--base", "HEAD~1", "--today", TODAY, *ack, LANES_SEED="41")
    env = gate_env(CI_PIPELINE_CREATED_AT=f"{TODAY}T08:15:00Z", CI_PIPELINE_ID="41",
                   CI_MERGE_REQUEST_APPROVED=approved, CI_MERGE_REQUEST_IID="7",
                   CI_COMMIT_SHA=head, CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main")
    env["PATH"] = str(BIN_DIR) + os.pathsep + env["PATH"]
    script = "\n".join(commands).replace('"origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"',
                                         "HEAD~1")
    proc = subprocess.run([*shell, script], cwd=job, capture_output=True, text=True, env=env,
                          timeout=900)
    assert proc.returncode == single.returncode, proc.stdout + proc.stderr
    jobbed = json.loads((job / "out" / "lanes" / "verdict.json").read_text())
    gated = json.loads((one / "out" / "lanes" / "verdict.json").read_text())
    assert jobbed == gated
    assert proc.stdout == single.stdout
    assert jobbed["gate"]["ack"] == (text if approved else None)
    assert jobbed["gate"]["voting_tree"] == ("patch" if approved else "base-test-surface")
    assert jobbed["gate"]["seed"] == {"from": "LANES_SEED", "value": 41, "predictable": True}


def test_gate_base_sees_a_deleted_lock(invoice: Path):
    # Deleting lanes.lock is a lock edit too: every entry the base locked is reported removed,
    # and no absolute temporary path leaks into the evidence.
    git(invoice, "init", "-q")
    git(invoice, "add", "-A")
    git(invoice, "commit", "-q", "-m", "base")
    git(invoice, "rm", "-q", "lanes.lock")
    git(invoice, "commit", "-q", "-m", "drop the lock")
    proc = gate(invoice, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    text = (invoice / "out" / "lanes" / "verdict.json").read_text()
    verdict = json.loads(text)
    assert "lock-entry-removed" in reason_rules(verdict)
    assert [e["path"] for e in verdict["lock_diff"]["removed"]] == \
        ["tests/fixtures/statement_v3.txt"]
    assert verdict["lock_diff"]["head"] == "lanes.lock"
    assert str(invoice) not in text and "lane-gate." not in text


@pytest.mark.parametrize("separate", [False, True], ids=["one-process", "one-per-lane"])
def test_gate_runs_pytest_with_the_pinned_environment(invoice: Path, tmp_path: Path,
                                                      separate: bool):
    # One pytest process for the three lanes, or one per lane when asked.
    # --python names a wrapper that records each pytest run's arguments and environment, then
    # runs the real interpreter.
    log = tmp_path / "runs.jsonl"
    wrapper = tmp_path / "python-wrapper"
    keys = ["PYTHONHASHSEED", "TZ", "PYTHONDONTWRITEBYTECODE", "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
            "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH", "LANES_GATE_PATH"]
    # The bootstrap's configuration arrives on stdin: the wrapper records it and hands it on.
    wrapper.write_text(
        "#!/bin/sh\n"
        "case \" $* \" in *\"pytest.main\"*)\n"
        "IFS= read -r cfg\n"
        f"printf '%s\\n' \"$cfg\" > \"{tmp_path}/config.json\"\n"
        f"CFG=\"$cfg\" \"{PYTHON}\" -I -c 'import json, os, sys; print(json.dumps({{\"args\": sys.argv[1:], "
        f"\"config\": json.loads(os.environ[\"CFG\"]), "
        f"\"env\": {{k: os.environ.get(k) for k in {json.dumps(keys)}}}}}))' \"$@\" >> \"{log}\"\n"
        f"exec \"{PYTHON}\" \"$@\" < \"{tmp_path}/config.json\";;\n"
        "esac\n"
        f"exec \"{PYTHON}\" \"$@\"\n")
    wrapper.chmod(0o755)
    # the caller's own settings must not reach pytest
    proc = gate(invoice, "--today", TODAY, "--python", str(wrapper), "--", "-q",
                PYTHONHASHSEED="random", TZ="Europe/Paris", PYTEST_ADDOPTS="-p rig",
                PYTEST_PLUGINS="rig", **({"LANES_GATE_SEPARATE": "1"} if separate else {}))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    lanes = ("merge", "witness", "freeze") if separate else ("merge or witness or freeze",)
    assert len(runs) == len(lanes), runs
    for run, lane in zip(runs, lanes):
        args = run["args"]
        # pytest from a bootstrap: the tree goes on sys.path after start-up
        assert args[:2] == ["-P", "-c"] and "pytest.main(" in args[2], args
        assert args[3:5] == ["-m", lane], args
        # the example's config sets its own pythonpath: only the gate's plugin folder, outside
        # the tree, goes on sys.path (one process), or nothing (one per lane); the folders, the
        # channel's descriptor and the product's names come on stdin, never in the
        # environment or the arguments
        config = run["config"]
        assert run["env"].pop("LANES_GATE_PATH") is None
        if separate:
            assert config["path"] == [] and "_lanes_gate_lanes" not in args, args
        else:
            [plugin_dir] = config["path"]
            assert plugin_dir.endswith("lanes-plugin") and str(invoice) not in plugin_dir
            assert args[args.index("_lanes_gate_lanes") - 1] == "-p", args
        assert config["product"] == ["invoice"], config
        assert isinstance(config["channel"], int) and config["channel"] > 2, config
        assert all(str(config["channel"]) not in (a or "") for a in run["env"].values())
        assert run["env"] == {"PYTHONHASHSEED": "0", "TZ": "UTC", "PYTHONDONTWRITEBYTECODE": "1",
                              "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": None,
                              "PYTEST_PLUGINS": None, "PYTHONPATH": None}, run
        assert "--strict-markers" in args and args[-1] == "-q", args
        assert "no:cacheprovider" in args and "junit_family=xunit1" in args, args
        assert "_hypothesis_pytestplugin" in args and "--hypothesis-seed=0" in args, args
        # pytest-xdist is installed but not named by the example's requirements: not loaded
        assert "xdist.plugin" not in args
        # the report goes to a fresh temporary file, never into the tree
        report = next(a for a in args if a.startswith("--junitxml="))[len("--junitxml="):]
        name = f"{lane}.xml" if separate else "lanes.xml"
        assert report.endswith(name) and not report.startswith(str(invoice)), report
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    not_loaded = {p["distribution"] for p in verdict["gate"]["plugins"]["not_loaded"]}
    assert "pytest-xdist" in not_loaded
    assert any(p["rule"] == "plugin-not-loaded" for p in verdict["gate"]["problems"])
    assert "`plugin-not-loaded`" in proc.stdout


def on_terminal(cmd: list[str], cwd: Path, env: dict) -> tuple[int, str, str]:
    """Runs `cmd` with stdout on a pseudo-terminal (stderr to a file): exit status, what the
    terminal showed (line ends as written) and stderr."""
    master, slave = pty.openpty()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave,
                                stderr=err)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        os.close(master)
        code = proc.wait(timeout=900)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n"), stderr


def test_on_a_terminal_the_tools_print_a_short_summary_with_next_steps(invoice: Path):
    (invoice / "tests" / "test_new.py").write_text("def test_new():\n    assert 1 + 1 == 2\n")
    code, shown, _ = on_terminal([str(tool_path("lane-scan"))], invoice, gate_env())
    assert code == 1, shown
    assert shown.startswith("lane-scan: 1 error, "), shown
    assert "tests/test_new.py:1: error[unmarked]" in shown
    assert "What to do next:\n  unmarked: " in shown and "lane-scan --explain unmarked" in shown
    assert not shown.lstrip().startswith("{"), shown
    # Piped, the same run prints the evidence document, as pipelines expect.
    assert json.loads(run_tool("lane-scan", cwd=invoice).stdout)["scan"]["counts"]["unmarked"] == 1

    (invoice / "tests" / "test_new.py").unlink()
    code, shown, stderr = on_terminal([str(tool_path("lane-gate")), "--today", TODAY], invoice,
                                      gate_env())
    assert code == 0, shown + stderr
    first = shown.splitlines()[0]
    assert first.startswith("lane-gate: APPROVE: 0 reasons to reject"), first
    assert re.search(r"merge (\d+)/\1 cases passed", first), first
    assert shown.endswith("The whole verdict: out/lanes/verdict.md\n"), shown
    assert "|" not in shown, shown
    # verdict.md holds the whole markdown verdict all the same.
    assert "### lane-tally: **approve**" in (invoice / "out" / "lanes" / "verdict.md").read_text()


ACCEPT = """[tool.lanes.accept-warnings]
plugin-not-loaded = ["*"]
"""


def test_warnings_are_accepted_per_rule_and_path_from_the_base_only(invoice: Path):
    # The dev venv has plugins the example never names: plugin-not-loaded, accepted by the table.
    (invoice / "pyproject.toml").write_text(ACCEPT)
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert not any(p["rule"] == "plugin-not-loaded" for p in verdict["gate"]["problems"])
    accepted = verdict["gate"]["accepted"]
    assert [p["rule"] for p in accepted] == ["plugin-not-loaded"], accepted
    assert "pytest-xdist" in accepted[0]["message"]
    assert "`plugin-not-loaded`" not in proc.stdout.split("### lane-gate")[0]
    assert "1 warning accepted by the base's [tool.lanes.accept-warnings]" in proc.stdout

    # With --base, the base's table counts; a patch that adds one changes test surface and
    # accepts nothing.
    (invoice / "pyproject.toml").write_text("[tool.ruff]\nline-length = 99\n")
    shutil.rmtree(invoice / "out")
    committed(invoice, patched=False)
    (invoice / "pyproject.toml").write_text(ACCEPT)
    git(invoice, "commit", "-q", "-am", "accept warnings")
    proc = gate(invoice, "--today", TODAY, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert "accepted" not in verdict["gate"]
    assert any(p["rule"] == "plugin-not-loaded" for p in verdict["gate"]["problems"])
    assert "test-surface-changed" in reason_rules(verdict)
    # The same table in the base accepts the warning for a patch that leaves it alone.
    (invoice / "invoice.py").write_text((invoice / "invoice.py").read_text() + "\n")
    git(invoice, "commit", "-q", "-am", "a blank line")
    proc = gate(invoice, "--today", TODAY, "--base", "HEAD~1")
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert [p["rule"] for p in verdict["gate"].get("accepted", [])] == ["plugin-not-loaded"], \
        proc.stdout + proc.stderr

    # An error rule cannot be accepted: exit 2 naming the file and the key, nothing run.
    (invoice / "pyproject.toml").write_text(ACCEPT + 'unmarked = ["*"]\n')
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "pyproject.toml: [tool.lanes.accept-warnings] unmarked: an error rule" in proc.stderr


# ---- what the gate itself promises ----

def test_gate_takes_an_empty_lane_for_what_it_is(invoice: Path):
    # No freeze test: pytest -m freeze exits 5. That is recorded, not a crash: the gate goes on,
    # and a suite whose merge and witness lanes pass is approved.
    (invoice / "tests" / "test_invoice_freeze.py").unlink()
    (invoice / "freeze_ledger.json").write_text("[]\n")
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = invoice / "out" / "lanes"
    assert (out / "pytest-status").read_text() == "merge 0\nwitness 0\nfreeze 5\n"
    # The three lanes ran in one pytest process: one line says how each ended.
    said = [line for line in proc.stderr.splitlines() if line.startswith("lane-gate: pytest")]
    assert len(said) == 1, proc.stderr
    assert "the lanes in one process" in said[0], said
    assert "merge exit 0, passed" in said[0] and "freeze exit 5, no tests in this lane" in said[0]
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["tally"]["decision"] == "approve"
    assert verdict["tally"]["lanes"]["freeze"]["tests"] == 0


def test_gate_status_is_the_tally_s_not_pytest_s(invoice: Path):
    # A failing merge lane (pytest exit 1) next to passing ones: the statuses are recorded one
    # per lane, never OR-ed; the gate exits 1 because the tally rejects.
    invoice_py = invoice / "invoice.py"
    invoice_py.write_text(invoice_py.read_text().replace("return applied + credit",
                                                         "return applied"))
    proc = gate(invoice, "--today", TODAY)
    out = invoice / "out" / "lanes"
    assert (out / "pytest-status").read_text() == "merge 1\nwitness 0\nfreeze 0\n"
    verdict = json.loads((out / "verdict.json").read_text())
    assert proc.returncode == 1 and verdict["tally"]["decision"] == "reject"
    assert "merge-failed" in reason_rules(verdict)


def test_the_project_s_color_option_never_reaches_the_verdict(invoice: Path):
    # A project whose addopts ask for colour: the gate's pytest runs without it, so the failure
    # text in the reports, the logs and the verdict carries no terminal escapes.
    ini = invoice / "pytest.ini"
    ini.write_text(ini.read_text().replace("addopts = --strict-markers",
                                           "addopts = --strict-markers --color=yes"))
    invoice_py = invoice / "invoice.py"
    invoice_py.write_text(invoice_py.read_text().replace("return applied + credit",
                                                         "return applied"))
    proc = gate(invoice, "--today", TODAY)
    out = invoice / "out" / "lanes"
    verdict = (out / "verdict.json").read_text()
    assert proc.returncode == 1 and "merge-failed" in reason_rules(json.loads(verdict))
    assert "assert" in (out / "merge.xml").read_text()
    for text in (proc.stdout, verdict, (out / "merge.xml").read_text(),
                 (out / "merge.log").read_text()):
        assert "\x1b[" not in text


def test_gate_output_files_are_exactly_the_promised_ones(invoice: Path):
    proc = gate(invoice, "--today", TODAY, "--out", "gate-out")
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in (invoice / "gate-out").iterdir())
    assert names == [".gitignore", "capture.json", "comment.md", "evidence.json", "freeze.log", "freeze.xml", "manifest.json", "merge.log",
                     "merge.xml", "pytest-status", "verdict.json", "verdict.md", "verdict.sarif",
                     "witness.log", "witness.xml"]


@pytest.mark.parametrize("breakage, ended, said", [
    ("conftest", "exit 4, a usage error", "No module named 'no_such_module_here'"),
    ("usage", "exit 4, a usage error", "unrecognized arguments: --no-such-option"),
    ("internal", "exit 3, an internal error", "RuntimeError: boom at session start"),
    # A hook pytest's plugin manager refuses (an argument pytest 9 no longer passes) raises out
    # of pytest.main before any session: pytest's own command says exit 1, like failed tests.
    ("hook", "exit 3, an internal error",
     "Argument(s) {'path'} are declared in the hookimpl but can not be found in the hookspec"),
])
def test_pytest_that_cannot_run_any_lane_is_could_not_decide_with_its_cause(
        invoice: Path, breakage: str, ended: str, said: str):
    """A conftest that does not import, or an option pytest does not know, stops pytest before
    any test: the gate says could not decide (exit 2) with pytest's own words, not a rejection
    listing every test as missing its vote."""
    if breakage == "conftest":
        (invoice / "tests" / "conftest.py").write_text("import no_such_module_here\n")
    elif breakage == "internal":
        (invoice / "tests" / "conftest.py").write_text(
            "def pytest_sessionstart(session):\n    raise RuntimeError('boom at session start')\n")
    elif breakage == "hook":
        (invoice / "tests" / "conftest.py").write_text(
            "def pytest_ignore_collect(path, config):\n    return None\n")
    else:
        ini = invoice / "pytest.ini"
        text = ini.read_text()
        assert text.count("addopts =") == 1
        ini.write_text(text.replace("addopts =", "addopts = --no-such-option"))
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"pytest could not run the lanes ({ended}), so nothing voted" in proc.stderr
    assert said in proc.stderr, proc.stderr
    assert "(the whole log: out/lanes/merge.log; the interpreter: " in proc.stderr
    assert "missing-vote" not in proc.stdout + proc.stderr
    assert not (invoice / "out" / "lanes" / "verdict.json").exists()
