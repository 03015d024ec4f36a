"""The GitHub Action (action.yml, composite) run as a runner would: each step's shell script with
the runner's GITHUB_* files (env, path, output, step summary), an event JSON, the action's
inputs and expressions filled in, against a git copy of the example. The `uses:` step (artifact
upload) is checked for what it uploads, not run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, copy_tree, release_env
from test_gate import GIT_DATES, PATCH, TODAY

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
STEPS = ACTION["runs"]["steps"]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
         "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
        env={**os.environ, **GIT_DATES}).stdout.strip()


class Runner:
    """A simulated runner: the files GitHub gives a job, and the composite action's context."""

    def __init__(self, root: Path, workspace: Path, event: dict, inputs: dict[str, str],
                 job_env: dict[str, str] | None = None):
        self.root = root
        self.job_env = job_env or {}
        self.workspace = workspace
        self.temp = root / "runner-temp"
        self.temp.mkdir()
        self.files = {name: root / name for name in
                      ("github_env", "github_path", "github_output", "step_summary")}
        for f in self.files.values():
            f.write_text("")
        self.event = event
        (root / "event.json").write_text(json.dumps(event))
        defaults = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
        unknown = set(inputs) - set(defaults)
        assert not unknown, f"the action has no inputs {unknown}"
        self.inputs = {**defaults, **inputs}
        self.outputs: dict[str, dict[str, str]] = {}
        self.path: list[str] = []
        self.log = ""

    def expr(self, text: str) -> str:
        """Fills in `${{ ... }}`: inputs.X, steps.ID.outputs.X, and the always()/!= '' checks
        the action's conditions use. Anything else fails the test (closed)."""
        def one(m: re.Match) -> str:
            e = m.group(1)
            if m2 := re.fullmatch(r"inputs\.([\w-]+)", e):
                return self.inputs[m2.group(1)]
            if m2 := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", e):
                return self.outputs.get(m2.group(1), {}).get(m2.group(2), "")
            if m2 := re.fullmatch(r"always\(\) && steps\.([\w-]+)\.outputs\.([\w-]+) != ''", e):
                return "true" if self.outputs.get(m2.group(1), {}).get(m2.group(2)) else "false"
            raise AssertionError(f"the simulated runner does not know the expression {e!r}")
        return EXPR.sub(one, text)

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GITHUB_", "LANES_", "RUNNER_", "VIRTUAL_ENV"))}
        # A runner's PATH: the system's and the project's python (actions/setup-python), and
        # what steps added through GITHUB_PATH; no lanes binary of this checkout.
        env["PATH"] = os.pathsep.join([*reversed(self.path), str(Path(sys.executable).parent),
                                       "/usr/bin", "/bin"])
        env.update({
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_ACTION_PATH": str(REPO),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_EVENT_NAME": "pull_request_review" if "review" in self.event
                                 else "pull_request",
            "GITHUB_EVENT_PATH": str(self.root / "event.json"), "RUNNER_TEMP": str(self.temp),
            "GITHUB_ENV": str(self.files["github_env"]),
            "GITHUB_PATH": str(self.files["github_path"]),
            "GITHUB_OUTPUT": str(self.files["github_output"]),
            "GITHUB_STEP_SUMMARY": str(self.files["step_summary"]),
            "PIP_NO_INDEX": "1", "PYTHONDONTWRITEBYTECODE": "1", **GIT_DATES,
        })
        env.update(self.job_env)
        for line in self.files["github_env"].read_text().splitlines():
            key, _, value = line.partition("=")
            env[key] = value
        return env

    def run(self) -> int:
        """Runs the steps in order; returns the exit status of the first failing step, or 0."""
        for step in STEPS:
            if "if" in step and self.expr(str(step["if"])) != "true":
                continue
            if "uses" in step:
                self.uploaded = {k: self.expr(str(v)) for k, v in step.get("with", {}).items()}
                continue
            assert step["shell"] == "bash", step
            self.files["github_output"].write_text("")
            cwd = self.workspace / self.expr(step.get("working-directory", "."))
            env = self.env()
            env.update({k: self.expr(str(v)) for k, v in step.get("env", {}).items()})
            proc = subprocess.run(["bash", "-e", "-c", self.expr(step["run"])], cwd=cwd,
                                  env=env, capture_output=True, text=True, timeout=1200)
            self.log += proc.stdout + proc.stderr
            if "id" in step:
                self.outputs[step["id"]] = dict(
                    line.split("=", 1)
                    for line in self.files["github_output"].read_text().splitlines())
            self.path = self.files["github_path"].read_text().splitlines()
            if proc.returncode != 0:
                return proc.returncode
        return 0

    def annotations(self) -> list[str]:
        return [line for line in self.log.splitlines() if line.startswith("::")]


@pytest.fixture(scope="module")
def find_links(tmp_path_factory: pytest.TempPathFactory) -> str:
    given = os.environ.get("LANES_WHEEL_DIR")
    if given:
        return given
    out = tmp_path_factory.mktemp("wheels")
    subprocess.run([sys.executable, "-m", "maturin", "build", "--release", "--quiet",
                    "--out", str(out)], cwd=REPO, check=True, timeout=3000, env=release_env())
    return str(out)


def pull_request(tmp_path: Path, patch: bool, labels: tuple[str, ...] = (),
                 review: dict | None = None) -> tuple[Path, dict]:
    """A git copy of the example with the pull request's commit on its base, and the event.
    `review`: a pull_request_review event's review, its `commit_id` "HEAD" or "BASE" filled in."""
    repo = copy_tree(REPO / "examples" / "invoice", tmp_path / "workspace")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    if patch:
        git(repo, "apply", str(PATCH))
    else:
        (repo / "NOTES.md").write_text("A note that changes no code and no test.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the pull request")
    head = git(repo, "rev-parse", "HEAD")
    event = {"action": "synchronize", "number": 12,
             "pull_request": {"number": 12, "base": {"sha": base, "ref": "main"},
                              "head": {"sha": head},
                              "labels": [{"name": n} for n in labels]}}
    if review is not None:
        commit = {"HEAD": head, "BASE": base}[review["commit_id"]]
        event.update(action="submitted", review={**review, "commit_id": commit})
    return repo, event


def runner(tmp_path: Path, find_links: str, patch: bool, labels: tuple[str, ...] = (),
           job_env: dict[str, str] | None = None, review: dict | None = None,
           **inputs: str) -> Runner:
    tmp_path.mkdir(parents=True, exist_ok=True)
    repo, event = pull_request(tmp_path, patch, labels, review)
    return Runner(tmp_path, repo, event, {"find-links": find_links, "today": TODAY,
                                          "python": sys.executable, **inputs}, job_env)


def test_the_action_is_composite_with_the_documented_inputs():
    assert ACTION["runs"]["using"] == "composite"
    assert {"version", "base", "ack-review", "today", "python", "out", "artifact-name",
            "find-links", "working-directory", "source"} <= set(ACTION["inputs"])
    assert ACTION["inputs"]["source"]["default"] == "false"
    assert ACTION["inputs"]["version"]["default"] == ""  # the action's own
    [upload] = [s for s in STEPS if "uses" in s]
    assert re.fullmatch(r"actions/upload-artifact@v\d+", upload["uses"])
    # Every script a step runs is in the repository; inputs reach scripts through env only, so
    # a label or branch name cannot inject shell.
    for step in STEPS:
        if "run" in step:
            assert "inputs." not in step["run"], step["run"]
            for script in re.findall(r"\$GITHUB_ACTION_PATH/([\w./-]+)", step["run"]):
                assert (REPO / script).is_file(), script
    assert STEPS[-1]["name"].endswith("verdict") and STEPS.index(upload) < len(STEPS) - 1


def test_an_approved_pull_request(tmp_path: Path, find_links: str):
    r = runner(tmp_path, find_links, patch=False)
    assert r.run() == 0, r.log
    summary = r.files["step_summary"].read_text()
    assert "### lane-tally: **approve**" in summary
    assert "the base's test surface voted on the patch's code" in summary
    assert r.outputs["gate"]["verdict"] == "approve"
    assert r.outputs["gate"]["exit-code"] == "0"
    out = r.workspace / "out" / "lanes"
    assert r.uploaded["path"] == str(out) and r.uploaded["name"] == "lanes"
    assert (out / "verdict.sarif").is_file() and r.outputs["gate"]["sarif"] == str(
        out / "verdict.sarif")
    # The comment output names comment.md, and the step summary is that text.
    assert r.outputs["gate"]["comment"] == str(out / "comment.md")
    assert summary == (out / "comment.md").read_text()
    # The tools came from the wheel, into the runner's temp folder, onto PATH.
    assert r.path == [str(r.temp / "lanes-bin")]
    assert "lane-gate 0.1.0 (commit " in r.log
    assert not [a for a in r.annotations() if a.startswith("::error")], r.annotations()


def test_a_rejected_pull_request_annotates_within_github_s_limits(tmp_path: Path,
                                                                  find_links: str):
    r = runner(tmp_path, find_links, patch=True)
    assert r.run() == 1, r.log
    summary = r.files["step_summary"].read_text()
    assert "### lane-tally: **reject**" in summary
    assert r.outputs["gate"]["verdict"] == "reject"
    comment = Path(r.outputs["gate"]["comment"])
    assert comment == r.workspace / "out" / "lanes" / "comment.md"
    assert summary == comment.read_text() and len(summary) < 65_536
    errors = [a for a in r.annotations() if a.startswith("::error")]
    warnings = [a for a in r.annotations() if a.startswith("::warning")]
    assert 0 < len(errors) <= 10 and len(warnings) <= 10, r.annotations()
    assert any("title=unconditional-skip" in a and "file=tests/test_invoice_merge.py" in a
               for a in errors), errors
    verdict = json.loads((r.workspace / "out" / "lanes" / "verdict.json").read_text())
    reasons = verdict["tally"]["reasons"]
    if len(reasons) > 10:
        # Nine shown, the tenth sums up the rest by rule (every one is in the JSON artifact).
        assert len(errors) == 10, errors
        assert f"{len(reasons) - 9} more errors" in errors[-1], errors[-1]
    else:
        assert len(errors) == len(reasons)
    assert "--ack" not in r.log


def approval(association: str, commit: str) -> dict:
    return {"state": "approved", "author_association": association, "commit_id": commit,
            "user": {"login": "rosa"}}


def test_an_approving_review_of_the_head_acknowledges_it_and_nothing_else_does(
        tmp_path: Path, find_links: str):
    r = runner(tmp_path / "reviewed", find_links, patch=True,
               review=approval("MEMBER", "HEAD"))
    r.run()
    verdict = json.loads((r.workspace / "out" / "lanes" / "verdict.json").read_text())
    head = r.event["pull_request"]["head"]["sha"]
    assert verdict["gate"]["ack"] == f"approving review by @rosa of #12 at {head}", \
        verdict["gate"].get("ack")
    assert verdict["gate"]["voting_tree"] == "patch"
    # A review of an earlier commit (the agent pushed after it) is passed on and ignored by the
    # gate, which says so.
    stale = runner(tmp_path / "stale", find_links, patch=True, review=approval("OWNER", "BASE"))
    assert stale.run() == 1, stale.log
    verdict = json.loads((stale.workspace / "out" / "lanes" / "verdict.json").read_text())
    assert not verdict["gate"].get("ack") and verdict["gate"]["voting_tree"] == \
        "base-test-surface", verdict["gate"]
    assert "ack-for-another-commit" in {p["rule"] for p in verdict["gate"]["problems"]}
    # A label (which outlives later pushes), a workflow-level LANES_ACK (which a patch could set
    # in a workflow it edits) and an approval by someone the repository does not trust give none.
    other = runner(tmp_path / "untrusted", find_links, patch=True, labels=("lanes-ack",),
                   job_env={"LANES_ACK": f"from the environment at {head}"},
                   review=approval("NONE", "HEAD"))
    assert other.run() == 1, other.log
    verdict = json.loads((other.workspace / "out" / "lanes" / "verdict.json").read_text())
    assert not verdict["gate"].get("ack"), verdict["gate"]
    assert "--ack" not in other.log


def test_an_event_that_is_not_a_pull_request_stops_with_a_message(tmp_path: Path,
                                                                  find_links: str):
    repo, _ = pull_request(tmp_path, patch=False)
    r = Runner(tmp_path, repo, {"ref": "refs/heads/main"},
               {"find-links": find_links, "today": TODAY, "python": sys.executable})
    assert r.run() == 2, r.log
    assert r.outputs["gate"]["verdict"] == "error"
    assert "comment" not in r.outputs["gate"]
    assert any("no base commit" in a for a in r.annotations()), r.annotations()
