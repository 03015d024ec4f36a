"""The README, docs/ci.md and the pages the README points to for the rest point at real things:
make targets, tool flags, rule ids, files and anchors; the verdicts docs/demo.md shows are what
the gate prints today; and the README stays a short read."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN_DIR, REPO, TOOLS, copy_tree, demo_python, run_tool
from test_gate import TODAY, gate, gate_env, patched_repo

README = (REPO / "README.md").read_text()
CI = (REPO / "docs" / "ci.md").read_text()
DEMO = REPO / "docs" / "demo.md"
# The pages the README's reference material lives in: what the README checked when it held that
# material is checked where it is now.
MOVED = ("docs/tools.md", "docs/speed.md", "docs/fidelity.md", "docs/demo.md",
         "docs/architecture.md", "python/pytest-lanes-gate/README.md")
# Each checked page (README and docs/ci.md included) and its text.
PAGES = {doc: (REPO / doc).read_text() for doc in ("README.md", "docs/ci.md", *MOVED)}
README_MAX_LINES = 300
MAKEFILE = (REPO / "Makefile").read_text()
HOOKS = (REPO / ".pre-commit-hooks.yaml").read_text()
SUBCOMMANDS = {"lane-lock": {"lock", "verify", "diff"},
               "freeze-ledger": {"check", "add", "renew", "remove", "list", "diff"}}


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


def makefile_targets() -> set[str]:
    return {m.group(1) for m in re.finditer(r"^([A-Za-z][\w-]*)\s*:(?!=)", MAKEFILE, re.M)}


def tool_invocations(text: str) -> list[tuple[str, str | None, set[str]]]:
    """(tool, subcommand, --flags) for every tool command line in the text's code spans and
    blocks. Continuation lines (ending in a backslash) join the command they continue."""
    found = []
    chunks = code_blocks(text) + re.findall(r"`([^`\n]+)`", text)
    for chunk in chunks:
        joined = re.sub(r"\\\n\s*", " ", chunk)
        for line in joined.splitlines():
            for piece in re.split(r"[|;]|&&|\|\||\$\(", line):
                words = piece.strip().lstrip("-").split()
                if not words or words[0] not in TOOLS:
                    continue
                tool = words[0]
                sub = words[1] if len(words) > 1 and words[1] in SUBCOMMANDS.get(tool, ()) else None
                flags = {re.match(r"--[a-z][a-z-]*", w).group(0)
                         for w in words[1:] if re.match(r"--[a-z][a-z-]*", w)}
                found.append((tool, sub, flags))
    return found


def test_readme_make_commands_are_targets():
    targets = makefile_targets()
    named = set(re.findall(r"\bmake ([a-z][\w-]*)", README))
    assert {"demo", "test", "demo-patch", "docs", "install"} <= named
    for doc in ("README.md", *MOVED):
        missing = set(re.findall(r"\bmake ([a-z][\w-]*)", PAGES[doc])) - targets
        assert not missing, f"{doc} names make targets the Makefile lacks: {missing}"


def test_ci_repository_targets_exist():
    paragraph = CI[CI.index("In this repository"):]
    named = set(re.findall(r"`make ([a-z][\w-]*)`", paragraph.split("\n\n")[0]))
    assert named and named <= makefile_targets(), named


def test_makefile_keeps_the_ci_targets():
    for target in ("test", "test-rust", "test-e2e", "venv", "build", "demo", "demo-patch", "docs",
                   "install"):
        assert target in makefile_targets(), target


@pytest.mark.parametrize("doc", ["README.md", "docs/ci.md", "docs/evidence.md", "docs/tools.md",
                                 "python/pytest-lanes-gate/README.md"])
def test_tool_flags_in_docs_exist(doc: str):
    text = (REPO / doc).read_text()
    invocations = tool_invocations(text)
    assert invocations, f"{doc} shows no tool command"
    helps: dict[tuple[str, str | None], str] = {}
    for tool, sub, flags in invocations:
        key = (tool, sub)
        if key not in helps:
            args = [sub, "--help"] if sub else ["--help"]
            run = run_tool(tool, *args)
            assert run.code == 0, (tool, sub, run.stderr)
            helps[key] = run.stdout
        for flag in flags:
            assert re.search(re.escape(flag) + r"\b", helps[key]), \
                f"{doc}: `{tool} {sub or ''} {flag}`: no such flag in --help"


def test_lane_gate_usage_matches_its_help():
    accepted = set(re.findall(r"(--[a-z][a-z-]*)", run_tool("lane-gate", "--help").stdout))
    usage = re.search(r"^lane-gate (\[.*)", README, re.M).group(1)
    documented = set(re.findall(r"--[a-z][a-z-]*", usage))
    assert documented <= accepted, documented - accepted
    assert {"--today", "--out", "--base", "--ack", "--reason", "--lane-timeout",
            "--python"} <= accepted
    for flag in re.findall(r"lane-gate[^\n`]*?(--[a-z][a-z-]*)", CI):
        assert flag in accepted, flag


def test_explain_examples_name_real_rules():
    assert re.search(r"(lane-[a-z]+|freeze-ledger) --explain ([a-z-]+)", README)
    examples = {example for doc in ("README.md", *MOVED)
                for example in re.findall(r"(lane-[a-z]+|freeze-ledger) --explain ([a-z-]+)",
                                          PAGES[doc])}
    for tool, rule in sorted(examples):
        run = run_tool(tool, "--explain", rule)
        assert run.code == 0, run.stderr
        assert rule in run.stdout


def test_rule_ids_in_readme_and_ci_are_documented():
    documented = set(re.findall(r"^### ([a-z-]+)$", (REPO / "docs" / "evidence.md").read_text(),
                                re.M))
    for doc, text in PAGES.items():
        for rule in re.findall(r"\(`([a-z]+(?:-[a-z]+)+)`\)", text):
            assert rule in documented, (doc, rule)


def anchors(text: str) -> set[str]:
    """The anchors a markdown renderer gives the page's headings (lower case, punctuation but
    hyphens dropped, spaces as hyphens)."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.*)$", re.sub(r"```.*?```", "", text, flags=re.S),
                                      re.M)}


def test_linked_and_named_files_exist():
    for doc, text in PAGES.items():
        for link, anchor in re.findall(r"\]\(([^)#]*)(?:#([^)]*))?\)", text):
            if "://" in link:
                continue
            target = (REPO / doc).parent / link if link else REPO / doc
            assert target.exists(), (doc, link)
            if anchor:
                assert anchor in anchors(target.read_text()), (doc, link, anchor)
    for path in ("crates/lane-gate", "examples/agent-patch/agent.patch", "examples/invoice",
                 "docs/evidence.md", "docs/ci.md", "docs/test-surface.md",
                 ".pre-commit-hooks.yaml"):
        assert path in README + CI, path
        assert (REPO / path).exists(), path
    assert not (REPO / "scripts" / "lane-gate").exists()


def test_pre_commit_hooks_are_python_hooks_running_real_tools():
    ids = re.findall(r"^- id: ([\w-]+)", HOOKS, re.M)
    assert "lane-scan" in ids
    assert len(re.findall(r"^  language: python$", HOOKS, re.M)) == len(ids)
    pre_commit = re.search(r"^## pre-commit\n(.*?)^## ", CI, re.S | re.M).group(1)
    for hook_id in re.findall(r"^\s+- id: ([\w-]+)", pre_commit, re.M):
        assert hook_id in ids, hook_id
    for tool, sub, flags in tool_invocations("```\n" + "\n".join(
            re.findall(r"^  entry: (.*)$", HOOKS, re.M)) + "\n```"):
        args = [sub, "--help"] if sub else ["--help"]
        help_text = run_tool(tool, *args).stdout
        for flag in flags:
            assert flag in help_text, (tool, flag)


def test_pre_commit_hook_entries_run_on_the_example(invoice: Path):
    env = gate_env()
    env["PATH"] = str(BIN_DIR) + os.pathsep + env["PATH"]
    for entry in re.findall(r"^  entry: (.*)$", HOOKS, re.M):
        proc = subprocess.run(["sh", "-c", entry], cwd=invoice, capture_output=True, text=True,
                              env=env, stdin=subprocess.DEVNULL, timeout=120)
        assert proc.returncode == 0, (entry, proc.stdout, proc.stderr)
        assert "No problems." in proc.stdout


def test_ci_makefile_recipe_gates_the_example(invoice: Path):
    block = re.search(r"## Makefile targets.*?```make\n(.*?)```", CI, re.S).group(1)
    (invoice / "Makefile").write_text(block)
    env = gate_env(LANES_TODAY=TODAY)
    env["PATH"] = str(BIN_DIR) + os.pathsep + env["PATH"]
    proc = subprocess.run(["make", "--no-print-directory", "lanes"], cwd=invoice,
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert verdict["tally"]["decision"] == "approve"


def check_demo_block(marker: str, actual: str) -> None:
    """docs/demo.md's block equals `actual`; LANES_BLESS=1 rewrites the block (review the
    diff)."""
    if os.environ.get("LANES_BLESS") == "1" and not os.environ.get("CI"):
        text = DEMO.read_text()
        pattern = rf"(<!-- {marker} -->\n```markdown\n)(.*?)(```\n<!-- /{marker} -->)"
        DEMO.write_text(re.sub(pattern, lambda m: m.group(1) + actual + m.group(3), text,
                               count=1, flags=re.S))
        return
    assert demo_block(marker) == actual


def demo_block(marker: str) -> str:
    m = re.search(rf"<!-- {marker} -->\n```markdown\n(.*?)```\n<!-- /{marker} -->",
                  DEMO.read_text(), re.S)
    assert m, f"docs/demo.md lacks the {marker} block"
    return m.group(1)


def test_demo_page_shows_the_real_demo_verdict(invoice: Path):
    proc = gate(invoice, "--today", TODAY, "--python", demo_python())
    assert proc.returncode == 0
    check_demo_block("make demo", proc.stdout)
    # The demo's own venv holds what the example names and the gate's plugin: no warning.
    assert "warning" not in proc.stdout, proc.stdout
    said = [line for line in proc.stderr.splitlines() if line.startswith("lane-gate:")]
    assert len(said) == 1 and "the lanes in one process" in said[0], proc.stderr


def test_demo_page_shows_the_real_demo_patch_verdict(tmp_path: Path):
    repo = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice"))
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", demo_python())
    assert proc.returncode == 1
    check_demo_block("make demo-patch", proc.stdout)


# A measured figure: a time (0.181 s, 11-27 ms), a speed ratio (23.9x) or a dated run
# (2026-12-06 10:34).
FIGURE = re.compile(r"\b\d+(?:\.\d+)?(?:-\d+)? ?(?:s|ms|µs)\b|\b\d+(?:\.\d+)?x\b"
                    r"|\b\d{4}-\d\d-\d\d \d\d:\d\d\b")


def test_readme_is_a_short_read_without_benchmark_history():
    lines = README.splitlines()
    assert len(lines) <= README_MAX_LINES, \
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): move reference to docs/"
    figures = [line for line in lines if FIGURE.search(line)]
    assert not figures, f"README.md holds measured figures (they belong in docs/speed.md): " \
                        f"{figures[:5]}"
    assert not re.search(r"^#+ .*\b(?:speed|benchmarks?)\b", README, re.I | re.M), \
        "README.md has a speed or benchmark section (docs/speed.md holds it)"
    speed = PAGES["docs/speed.md"]
    # The benchmarks' figures and history are in docs/speed.md: every benchmark script is named
    # there, with the table of what it last measured against its peers.
    for script in sorted(p.name for p in (REPO / "scripts").glob("bench-*")
                         if p.suffix != ".sh"):
        assert f"scripts/{script}" in speed, script
    rows = [line for line in speed.splitlines() if line.startswith("| ") and FIGURE.search(line)]
    assert "| benchmark | lanes | peers |" in speed and len(rows) >= 5, \
        "docs/speed.md lacks the table of measured figures"


def test_make_docs_writes_completions_and_man_pages(tmp_path: Path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    docs = tmp_path / "docs"
    proc = subprocess.run(["make", "--no-print-directory", "-o", "build", "docs",
                           f"BIN={BIN_DIR}", f"DOCS={docs}"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for tool in TOOLS:
        bash = (docs / f"{tool}.bash").read_text()
        assert tool in bash and "complete " in bash, tool
        if shutil.which("bash"):
            syntax = subprocess.run(["bash", "-n", str(docs / f"{tool}.bash")],
                                    capture_output=True, text=True)
            assert syntax.returncode == 0, (tool, syntax.stderr)
        assert (docs / f"_{tool}").read_text().startswith(f"#compdef {tool}"), tool
        assert f"complete -c {tool}" in (docs / f"{tool}.fish").read_text(), tool
        man = (docs / "man" / f"{tool}.1").read_text()
        assert re.search(rf"^\.TH {re.escape(tool)} 1\b", man, re.M), tool
        # the man page carries the options --help shows
        flag = "out" if tool == "lane-gate" else "format"
        assert f"\\-\\-{flag}" in man or f"--{flag}" in man, tool


def test_agent_patch_readme_names_the_reasons_the_gate_gives():
    # The table's "what catches it" column names exactly the rules of the real demo-patch verdict.
    text = (REPO / "examples" / "agent-patch" / "README.md").read_text()
    rows = [line.split("|")[3] for line in text.splitlines()
            if line.startswith("| `") and line.count("|") == 4]
    assert rows, "examples/agent-patch/README.md has no table of hunks"
    named = {span for row in rows for span in re.findall(r"`([a-z]+(?:-[a-z]+)+)`", row)
             if span not in TOOLS}
    # The verdict's summary table: | `rule` | error | problems | files |
    shown = set(re.findall(r"^\| `([a-z-]+)` \| error \|", demo_block("make demo-patch"), re.M))
    assert named == shown, (named ^ shown)


def test_make_install_puts_the_tools_on_path(tmp_path: Path, invoice: Path):
    # `make install PREFIX=...` (cargo install --path, reusing the workspace's build), then the
    # gate finds the four tools on PATH alone, without LANES_BIN_DIR.
    if shutil.which("make") is None or shutil.which("cargo") is None:
        pytest.skip("make or cargo is not installed")
    prefix = tmp_path / "prefix"
    env = dict(os.environ, CARGO_NET_OFFLINE="true")  # the build's dependencies are at hand
    proc = subprocess.run(["make", "--no-print-directory", "install", f"PREFIX={prefix}"],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for tool in TOOLS:
        version = subprocess.run([str(prefix / "bin" / tool), "--version"], capture_output=True,
                                 text=True)
        assert version.returncode == 0 and version.stdout.startswith(tool), (tool, version)
    env = gate_env(LANES_TODAY=TODAY)
    env.pop("LANES_BIN_DIR", None)
    env["PATH"] = str(prefix / "bin") + os.pathsep + env["PATH"]
    gated = subprocess.run(["lane-gate"], cwd=invoice,
                           capture_output=True, text=True, env=env, timeout=600)
    assert gated.returncode == 0, gated.stdout + gated.stderr
    assert "lane-tally: **approve**" in gated.stdout
