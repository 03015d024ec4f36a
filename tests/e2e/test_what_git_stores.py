"""What the gate judges is what git stores (DESIGN §9.2), through the real gate with real git
and real pytest: a patch cannot change how git shows or checks out the tree (an attributes
file), slip in code the gate cannot read (a compiled extension beside a product module), or make
itself a pytest plugin that may import pytest's internals (an entry point in a build backend's
table): each is test surface, and whether the project is a plugin is the base's to say."""

from __future__ import annotations

from pathlib import Path

from conftest import head_ack
from test_exercised import ACK, patch, problems, project, verdict
from test_gate import TODAY, gate

# Product code only a pytest plugin may write: it imports pytest's internals.
INTERNALS = "import _pytest.runner\n\n\ndef add(a, b):\n    return a + b\n"


def surface_paths(v: dict) -> list[str]:
    return [p["file"] for p in problems(v, "test-surface-changed")]


def test_an_attributes_file_is_test_surface_and_the_diff_is_still_read_as_text(tmp_path: Path):
    repo = project(tmp_path)
    # The attributes file marks the product binary: the diff would hide its lines, and the
    # checkout could be filtered. The changed lines are still judged.
    patch(repo, {".gitattributes": "*.py binary\n", "calc/core.py": INTERNALS})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = verdict(repo)
    assert ".gitattributes" in surface_paths(v), problems(v, "test-surface-changed")
    aware = [p for p in v["scan"]["problems"] if p["rule"] == "test-aware-code"]
    assert [p["file"] for p in aware] == ["calc/core.py"], v["scan"]["problems"]
    assert "test-aware-code" in {r["rule"] for r in v["tally"]["reasons"]}


def test_a_compiled_extension_beside_a_product_module_is_test_surface(tmp_path: Path):
    repo = project(tmp_path)
    ext = "calc/core.cpython-311-x86_64-linux-gnu.so"
    patch(repo, {ext: "\x7fELF not really\n"})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = verdict(repo)
    (found,) = [p for p in problems(v, "test-surface-changed") if p["file"] == ext]
    assert "native code" in found["message"], found


def test_an_entry_point_in_a_build_table_makes_no_plugin_of_the_patch(tmp_path: Path):
    # The base is no pytest plugin; the patch declares one in flit's table and imports pytest's
    # internals. The table is test surface (acknowledgeable), the import stays test-aware-code
    # (not acknowledgeable): a maintainer's yes to the table does not make the patch a plugin.
    repo = project(tmp_path, {"pyproject.toml": "[project]\nname = \"calc\"\nversion = \"1\"\n"})
    patch(repo, {
        "pyproject.toml": "[project]\nname = \"calc\"\nversion = \"1\"\n\n"
                          "[tool.flit.metadata.entrypoints.pytest11]\ncalc = \"calc.core\"\n",
        "calc/core.py": INTERNALS})
    for extra in ([], ["--ack", head_ack(repo, ACK)]):
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        v = verdict(repo)
        rules = {r["rule"] for r in v["tally"]["reasons"]}
        assert "test-aware-code" in rules, (extra, v["tally"]["reasons"])
        (table,) = [p for p in v["gate"]["problems"] if p["rule"] == "test-surface-changed"
                    and p["file"] == "pyproject.toml"]
        assert "tool.flit" in table["message"], table
