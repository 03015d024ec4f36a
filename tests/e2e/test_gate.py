"""scripts/lane-gate, `make demo` / `make demo-patch` and the GitHub recipe of docs/ci.md, run for
real: the four binaries, real git, real pytest on copies of examples/invoice."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN_DIR, PYTHON, REPO, TOOLS, copy_tree, tool_path

GATE = REPO / "scripts" / "lane-gate"
PATCH = REPO / "examples" / "agent-patch" / "agent.patch"
TODAY = "2026-12-01"
VENV_BIN = str(Path(PYTHON).parent)


def gate_env(**extra: str) -> dict:
    for tool in TOOLS:
        tool_path(tool)
    env = {k: v for k, v in os.environ.items() if k not in ("LANES_TODAY", "PYTEST")}
    env["PATH"] = VENV_BIN + os.pathsep + env.get("PATH", "")
    env["LANES_BIN_DIR"] = str(BIN_DIR)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def gate(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", str(GATE), *args], cwd=cwd, capture_output=True, text=True,
                          env=gate_env(**env), timeout=900)


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
         "-c", "commit.gpgsign=false", *args],
        cwd=cwd, capture_output=True, text=True, check=True)
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
    assert set(evidence) == {"version", "scan", "lock", "ledger"}
    for section in ("scan", "lock", "ledger"):
        assert verdict[section] == evidence[section], section


def test_gate_rejects_the_agent_patch_with_each_reason(invoice: Path):
    repo = patched_repo(invoice)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((repo / "out" / "lanes" / "verdict.json").read_text())
    assert verdict["tally"]["decision"] == "reject"
    rules = reason_rules(verdict)
    for expected in ("unconditional-skip", "lock-batched-with-behavior", "expired-ticket",
                     "lock-entry-moved", "merge-failed", "merge-skipped"):
        assert expected in rules, (expected, sorted(rules))
        assert f"`{expected}`" in proc.stdout
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
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--reason", "bonus changes the due line")
    assert proc.returncode == 1
    rules = reason_rules(json.loads((repo / "out" / "lanes" / "verdict.json").read_text()))
    assert "lock-batched-with-behavior" not in rules
    assert "unconditional-skip" in rules


def test_gate_needs_a_date(invoice: Path):
    shutil.rmtree(invoice / "out", ignore_errors=True)  # a `make demo` run may have left one
    proc = gate(invoice)
    assert proc.returncode == 2
    assert "LANES_TODAY" in proc.stderr
    assert proc.stdout == ""
    assert not (invoice / "out" / "lanes" / "verdict.json").exists()


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


# ---- the GitHub recipe of docs/ci.md, step by step, against lane-gate's single run ----

def github_lane_steps() -> list[tuple[str, str, bool]]:
    """(name, run script, continue-on-error) of each `lanes:` step of the workflow in docs/ci.md."""
    text = (REPO / "docs" / "ci.md").read_text()
    block = re.search(r"## GitHub Actions.*?```yaml\n(.*?)```", text, re.S).group(1)
    steps = []
    for chunk in re.split(r"\n      - ", "\n" + block)[1:]:
        name = re.match(r'name: "?([^"\n]*)"?', chunk)
        if not name or not name.group(1).startswith("lanes:"):
            continue
        m = re.search(r"\n        run: \|\n((?:          .*\n?)+)", chunk)
        if m:
            script = "\n".join(line[10:] for line in m.group(1).splitlines())
        else:
            script = re.search(r"\n        run: (.*)", chunk).group(1)
        steps.append((name.group(1), script, "continue-on-error: true" in chunk))
    return steps


def run_github_steps(repo: Path, summary: Path, extra: dict[str, str] | None = None
                     ) -> subprocess.CompletedProcess:
    """Runs the `lanes:` steps in order, each in its own shell with only files between them;
    `extra` maps a step name to a script run right before it. Returns the tally step."""
    env = gate_env(LANES_TODAY=TODAY, GITHUB_STEP_SUMMARY=str(summary))
    env["PATH"] = str(BIN_DIR) + os.pathsep + env["PATH"]
    for name, script, may_fail in github_lane_steps():
        for before in ([extra[name]] if extra and name in extra else []) + [script]:
            # GitHub runs `run:` with bash -e -o pipefail
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                                   before], cwd=repo, capture_output=True, text=True, env=env,
                                  timeout=600)
            if name == "lanes: tally" and before is script:
                return proc
            if proc.returncode != 0 and not may_fail:
                raise AssertionError(f"step {name!r} failed: {proc.stderr}")
    raise AssertionError("the workflow has no `lanes: tally` step")


def test_github_recipe_has_the_three_lanes_as_steps():
    names = [name for name, _, _ in github_lane_steps()]
    assert names == ["lanes: evidence", "lanes: merge", "lanes: witness", "lanes: freeze",
                     "lanes: tally"]


@pytest.mark.parametrize("patched", [False, True], ids=["example", "agent-patch"])
def test_github_steps_give_the_same_tally_as_lane_gate(tmp_path: Path, patched: bool):
    src = REPO / "examples" / "invoice"
    one = copy_tree(src, tmp_path / "one")
    steps = copy_tree(src, tmp_path / "steps")
    if patched:
        patched_repo(one)
        patched_repo(steps)
    single = gate(one, "--today", TODAY)
    summary = tmp_path / "summary.md"
    tally = run_github_steps(steps, summary)
    assert tally.returncode == single.returncode, single.stderr + tally.stderr
    gated = json.loads((one / "out" / "lanes" / "verdict.json").read_text())
    stepped = json.loads((steps / "out" / "lanes" / "verdict.json").read_text())
    assert stepped["tally"] == gated["tally"]
    for section in ("scan", "lock", "ledger"):
        assert stepped[section] == gated[section], section
    # the step summary holds the markdown verdict lane-gate printed
    assert summary.read_text() == single.stdout
    assert gated["tally"]["decision"] == ("reject" if patched else "approve")
    # --format github: one workflow annotation per error that decided, nothing else on stdout
    lines = tally.stdout.splitlines()
    assert all(line.startswith("::") for line in lines), lines
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == len(gated["tally"]["reasons"]), lines
    for reason in gated["tally"]["reasons"]:
        assert any(f"title={reason['rule']}::" in line for line in errors), reason
        if "file" in reason:
            assert any(f"file={reason['file']}" in line for line in errors), reason
    if patched:
        assert any(line.startswith("::error file=tests/test_invoice_merge.py,line=")
                   and "title=unconditional-skip::" in line for line in errors), errors


def test_github_review_step_sees_the_lock_and_ledger_edits(tmp_path: Path):
    # The optional "Review lock and ledger edits" step of docs/ci.md, run before the tally with
    # the pull request's base as HEAD~1: the same lock_diff and ledger_diff as lane-gate --base.
    text = (REPO / "docs" / "ci.md").read_text()
    block = re.search(r"To review lock and ledger edits.*?```yaml\n(.*?)```", text, re.S).group(1)
    script = "\n".join(line[10:] for line in
                       re.search(r"\n        run: \|\n((?:          .*\n?)+)", block)
                       .group(1).splitlines())
    assert "${{ github.base_ref }}" in script
    script = script.replace("origin/${{ github.base_ref }}", "HEAD~1")
    src = REPO / "examples" / "invoice"
    one = patched_repo(copy_tree(src, tmp_path / "one"))
    steps = patched_repo(copy_tree(src, tmp_path / "steps"))
    single = gate(one, "--base", "HEAD~1", "--today", TODAY)
    assert single.returncode == 1, single.stderr
    tally = run_github_steps(steps, tmp_path / "summary.md", {"lanes: tally": script})
    assert tally.returncode == 1, tally.stderr
    gated = json.loads((one / "out" / "lanes" / "verdict.json").read_text())
    stepped = json.loads((steps / "out" / "lanes" / "verdict.json").read_text())
    for section in ("scan", "lock", "ledger"):
        assert stepped[section] == gated[section], section
    for section in ("lock_diff", "ledger_diff"):
        # the files compared are named as each was given (the gate's base is a temporary file)
        for doc in (stepped, gated):
            doc[section].pop("base", None)
            doc[section].pop("head", None)
        assert stepped[section] == gated[section], section
    rules = reason_rules(stepped)
    assert {"lock-batched-with-behavior", "lock-entry-moved", "ticket-renewed",
            "expired-ticket", "unconditional-skip"} <= rules, rules
    assert any("title=lock-batched-with-behavior::" in line
               for line in tally.stdout.splitlines()), tally.stdout


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
    # build and venv are taken as done (`make test` builds first): only the demo itself runs.
    venv = Path(PYTHON).parent.parent
    return subprocess.run(["make", "--no-print-directory", "-o", "build", "-o", "venv", target,
                           f"BIN={BIN_DIR}", f"VENV={venv}"],
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


def test_gate_rejects_when_pytest_cannot_run(invoice: Path):
    # pytest exits 4 (usage error) and writes no report: no lane voted, so nothing approves.
    proc = gate(invoice, "--today", TODAY, "--", "--no-such-pytest-option")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = invoice / "out" / "lanes"
    assert (out / "pytest-status").read_text() == "merge 4\nwitness 4\nfreeze 4\n"
    rules = reason_rules(json.loads((out / "verdict.json").read_text()))
    assert {"missing-vote", "missing-witness", "missing-freeze-run"} <= rules


# ---- the GitLab recipe of docs/ci.md, as the runner would run it ----

def gitlab_job() -> tuple[dict[str, str], list[str]]:
    """(variables, commands) of the `lanes:` job in docs/ci.md: before_script then script, each
    item with its folded continuation lines joined by a space."""
    text = (REPO / "docs" / "ci.md").read_text()
    block = re.search(r"## GitLab CI.*?```yaml\n(.*?)```", text, re.S).group(1)
    variables: dict[str, str] = {}
    commands: list[str] = []
    key = None
    for line in block.splitlines():
        if re.match(r"  [a-z_]+:", line):
            key = line.strip().rstrip(":")
        elif key == "variables" and re.match(r"    [A-Z_]+: ", line):
            name, value = line.strip().split(": ", 1)
            variables[name] = value.strip('"')
        elif key in ("before_script", "script"):
            if line.startswith("    - "):
                commands.append(line[6:])
            elif line.startswith("        ") and commands:
                commands[-1] += " " + line.strip()
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
@pytest.mark.parametrize("patched", [False, True], ids=["example", "agent-patch"])
def test_gitlab_job_gives_the_same_verdict_as_lane_gate(tmp_path: Path, monkeypatch,
                                                        patched: bool, shell: list[str]):
    if shutil.which(shell[0]) is None:
        pytest.skip(f"{shell[0]} is not installed")
    # The recipe pins the clock to the commit's date: commit on the demo's date.
    monkeypatch.setenv("GIT_COMMITTER_DATE", f"{TODAY}T12:00:00+0000")
    src = REPO / "examples" / "invoice"
    one = committed(copy_tree(src, tmp_path / "one"), patched)
    job = committed(copy_tree(src, tmp_path / "job"), patched)
    single = gate(one, "--today", TODAY)
    variables, commands = gitlab_job()
    assert variables == {"PYTHONHASHSEED": "0", "TZ": "UTC"}
    # the image's pip install is done already: the venv's python is first on PATH
    commands = [c for c in commands if not c.startswith("python -m pip install")]
    assert any(c.startswith("lane-tally ") for c in commands)
    env = gate_env(**variables)
    env["PATH"] = str(BIN_DIR) + os.pathsep + env["PATH"]
    proc = subprocess.run([*shell, "\n".join(commands)], cwd=job, capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == single.returncode == (1 if patched else 0), \
        proc.stdout + proc.stderr
    gated = json.loads((one / "out" / "lanes" / "verdict.json").read_text())
    jobbed = json.loads((job / "out" / "lanes" / "verdict.json").read_text())
    for section in ("scan", "lock", "ledger", "tally"):
        assert jobbed[section] == gated[section], section
    # the job log ends with the verdict lane-gate printed, and the artifacts are there
    assert proc.stdout.endswith(single.stdout)
    assert (job / "out" / "lanes" / "verdict.md").read_text() == single.stdout
    for lane in ("merge", "witness", "freeze"):
        assert (job / "out" / "lanes" / f"{lane}.xml").stat().st_size > 0


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


def test_gate_runs_pytest_once_per_lane_with_the_pinned_environment(invoice: Path, tmp_path: Path):
    # $PYTEST is a command line: a wrapper records each run's arguments and environment, then
    # runs the real pytest.
    log = tmp_path / "runs.jsonl"
    wrapper = tmp_path / "pytest-wrapper"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"\"{PYTHON}\" -c 'import json, os, sys; print(json.dumps({{\"args\": sys.argv[1:], "
        "\"hashseed\": os.environ.get(\"PYTHONHASHSEED\"), \"tz\": os.environ.get(\"TZ\")}))' "
        f"\"$@\" >> \"{log}\"\n"
        f"exec \"{PYTHON}\" -m pytest \"$@\"\n")
    wrapper.chmod(0o755)
    # the caller's own settings must not reach pytest
    proc = gate(invoice, "--today", TODAY, "--", "-q", PYTEST=f"{wrapper}",
                PYTHONHASHSEED="random", TZ="Europe/Paris")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["args"][r["args"].index("-m") + 1] for r in runs] == ["merge", "witness", "freeze"]
    for run, lane in zip(runs, ("merge", "witness", "freeze")):
        assert run["hashseed"] == "0" and run["tz"] == "UTC", run
        args = run["args"]
        assert "--strict-markers" in args and "-q" in args, args
        assert args[args.index("-p") + 1] == "no:cacheprovider", args
        assert f"--junitxml=out/lanes/{lane}.xml" in args, args


# ---- what the script itself promises ----

def test_gate_takes_an_empty_lane_for_what_it_is(invoice: Path):
    # No freeze test: pytest -m freeze exits 5. That is recorded, not a crash: the gate goes on,
    # and a suite whose merge and witness lanes pass is approved.
    (invoice / "tests" / "test_invoice_freeze.py").unlink()
    (invoice / "freeze_ledger.json").write_text("[]\n")
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = invoice / "out" / "lanes"
    assert (out / "pytest-status").read_text() == "merge 0\nwitness 0\nfreeze 5\n"
    assert "pytest -m freeze: exit 5, no tests in this lane" in proc.stderr
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


@pytest.mark.parametrize("shell", [["dash"], ["bash", "--posix"], ["busybox", "sh"]],
                         ids=["dash", "bash-posix", "busybox"])
def test_gate_runs_under_plain_posix_shells(tmp_path: Path, shell: list[str]):
    if shutil.which(shell[0]) is None:
        pytest.skip(f"{shell[0]} is not installed")
    repo = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice"))
    proc = subprocess.run([*shell, str(GATE), "--base", "HEAD~1", "--today", TODAY], cwd=repo,
                          capture_output=True, text=True, env=gate_env(), timeout=900)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((repo / "out" / "lanes" / "verdict.json").read_text())
    assert {"unconditional-skip", "lock-batched-with-behavior", "expired-ticket",
            "ticket-renewed"} <= reason_rules(verdict)
    assert proc.stdout == (repo / "out" / "lanes" / "verdict.md").read_text()


def test_gate_script_is_plain_posix_sh():
    script = GATE.read_text()
    assert script.startswith("#!/bin/sh\n")
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))
    for bashism in ("[[", "function ", "local ", "pipefail", "<<<", "$'", "declare ", "${!",
                    "source ", "&>", "$RANDOM", "==", "echo -e", "shopt", "let "):
        assert bashism not in code, bashism
    if shutil.which("dash"):
        assert subprocess.run(["dash", "-n", str(GATE)]).returncode == 0
    # the commands it runs: the shell's builtins, POSIX utilities, git and the four tools
    # (through $SCAN, $LOCK, $LEDGER, $TALLY); nothing else, e.g. no python, jq or tar
    for tool in ("python3", "jq", "tar ", "curl", "perl", "awk", "realpath", "readlink"):
        assert tool not in code, tool


def test_gate_output_files_are_exactly_the_promised_ones(invoice: Path):
    proc = gate(invoice, "--today", TODAY, "--out", "gate-out")
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in (invoice / "gate-out").iterdir())
    assert names == ["evidence.json", "freeze.log", "freeze.xml", "merge.log", "merge.xml",
                     "pytest-status", "verdict.json", "verdict.md", "witness.log",
                     "witness.xml"]
