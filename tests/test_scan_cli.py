"""`porter scan`: formats, exit codes, relative paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter.cli import app
from porter.scan import cli as scan_cli
from porter.scan.formats import to_sarif_dict
from porter.scan.rules import all_rules

runner = CliRunner()

ERRORS = b"__global__ void k(float* v) { v[0] = __shfl_down_sync(0xffffffff, v[0], 1); }\n"
WARNINGS = b"__global__ void __launch_bounds__(256, 2) k(float* v) { v[0] = 1; }\n"
CLEAN = b"__global__ void k(float* v) { v[threadIdx.x] = 1.0f; }\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.cu").write_bytes(ERRORS)
    (tmp_path / "src" / "warn.cuh").write_bytes(WARNINGS)
    (tmp_path / "clean.cu").write_bytes(CLEAN)
    (tmp_path / "notes.txt").write_text("0xffffffff")
    return tmp_path


def test_json_paths_relative_to_root(tree: Path) -> None:
    result = runner.invoke(app, ["scan", str(tree), "--format", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert {f["file"] for f in data["findings"]} == {"src/bad.cu", "src/warn.cuh"}
    for finding in data["findings"]:
        assert set(finding) == {"file", "line", "column", "rule", "category", "severity", "message", "fix"}
    assert data["inventory"]["files"] == 3
    assert {k["file"] for k in data["inventory"]["kernels"]} == {"clean.cu", "src/bad.cu", "src/warn.cuh"}


@pytest.mark.parametrize(
    ("content", "fail_on", "code"),
    [
        (ERRORS, "error", 1),
        (WARNINGS, "error", 0),
        (WARNINGS, "warning", 1),
        (WARNINGS, "note", 1),
        (ERRORS, "never", 0),
        (CLEAN, "note", 0),
    ],
)
def test_fail_on(tmp_path: Path, content: bytes, fail_on: str, code: int) -> None:
    (tmp_path / "a.cu").write_bytes(content)
    result = runner.invoke(app, ["scan", str(tmp_path / "a.cu"), "--fail-on", fail_on, "-f", "json"])
    assert result.exit_code == code, result.output


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["scan", str(tmp_path), "--target", "gfx9999"])
    assert result.exit_code == 2
    assert "unknown target" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert runner.invoke(app, ["scan", str(tmp_path / "missing")]).exit_code == 2
    assert runner.invoke(app, ["scan", str(tmp_path), "--rocm", "six"]).exit_code == 2
    assert runner.invoke(app, ["scan", str(tmp_path), "--fail-on", "sometimes"]).exit_code == 2


def test_internal_error_exit_3(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(scan_cli, "scan_tree", boom)
    result = runner.invoke(app, ["scan", str(tree)])
    assert result.exit_code == 3
    assert result.stderr.strip() == "porter: internal error: RuntimeError: kaboom"


def test_help_documents_exit_codes() -> None:
    result = runner.invoke(app, ["scan", "--help"], env={"COLUMNS": "200"})
    assert "Exit codes" in result.stdout and "internal error" in result.stdout


def test_table_and_markdown(tree: Path) -> None:
    table = runner.invoke(app, ["scan", str(tree)], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert "PL001" in table.stdout and "\x1b[" not in table.stdout
    assert "1 error" in table.stderr
    markdown = runner.invoke(app, ["scan", str(tree), "-f", "markdown"])
    assert "| `src/bad.cu:1:" in markdown.stdout and "| Location |" in markdown.stdout


def test_sarif_structure(tree: Path) -> None:
    result = runner.invoke(app, ["scan", str(tree), "-f", "sarif"])
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "porter" and driver["version"]
    rule_ids = [r["id"] for r in driver["rules"]]
    assert set(rule_ids) == set(all_rules())
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert run["results"]
    for res in run["results"]:
        assert res["ruleId"] in rule_ids and rule_ids[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note", "none")
        assert res["message"]["text"]
        (location,) = res["locations"]
        physical = location["physicalLocation"]
        assert not physical["artifactLocation"]["uri"].startswith("/")
        assert physical["region"]["startLine"] >= 1 and physical["region"]["startColumn"] >= 1


def test_sarif_without_findings_is_valid(tmp_path: Path) -> None:
    from porter.scan import scan_tree
    from porter.targets import resolve_target

    (tmp_path / "a.cu").write_bytes(CLEAN)
    sarif = to_sarif_dict(scan_tree(tmp_path, resolve_target("gfx942")))
    assert sarif["runs"][0]["results"] == []


def test_several_paths_relative_to_cwd(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    result = runner.invoke(app, ["scan", "src/bad.cu", "clean.cu", "-f", "json"])
    data = json.loads(result.stdout)
    assert {f["file"] for f in data["findings"]} == {"src/bad.cu"}
    assert data["inventory"]["files"] == 2


def test_target_changes_findings(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_bytes(b"__global__ void k(__hip_fp8_e4m3_fnuz* p) { }\n")
    gfx942 = json.loads(runner.invoke(app, ["scan", str(tmp_path), "-f", "json"]).stdout)
    gfx950 = json.loads(runner.invoke(app, ["scan", str(tmp_path), "-f", "json", "-t", "MI355X"]).stdout)
    assert gfx942["findings"] == []
    assert [f["rule"] for f in gfx950["findings"]] == ["PF002"]
