"""`porter check --base REF` in a throw-away git repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter.cli import app
from porter.scan.changes import changed_files

runner = CliRunner()
BAD = "__global__ void k(float* v) { v[0] = __shfl_down_sync(0xffffffff, v[0], 1); }\n"
WARN = "__global__ void __launch_bounds__(256, 2) k(float* v) { v[0] = 1; }\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "old_bad.cu").write_text(BAD)  # hazards already on main: not this change's business
    (tmp_path / "kept.cu").write_text("int x;\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    git(tmp_path, "checkout", "-q", "-b", "feature")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "new_bad.cu").write_text(BAD)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "feature")
    return tmp_path


def test_changed_files(repo: Path) -> None:
    (repo / "kept.cu").write_text(WARN)  # unstaged change
    (repo / "untracked.cuh").write_text(WARN)
    names = {p.relative_to(repo).as_posix() for p in changed_files(repo, "main")}
    assert names == {"src/new_bad.cu", "kept.cu", "untracked.cuh"}
    assert {p.name for p in changed_files(repo / "src", "main")} == {"new_bad.cu"}


def test_check_scans_only_changes(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    out = tmp_path_factory.mktemp("out")
    summary = out / "summary.md"
    result = runner.invoke(
        app,
        ["check", str(repo), "--base", "main", "--sarif", str(out / "porter.sarif"), "-f", "json"],
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert {f["file"] for f in data["findings"]} == {"src/new_bad.cu"}
    sarif = json.loads((out / "porter.sarif").read_text())
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]
    }
    assert uris == {"src/new_bad.cu"}
    text = summary.read_text()
    assert "porter check" in text and "src/new_bad.cu" in text and "old_bad.cu" not in text


def test_check_fail_on(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "warn-only")
    (repo / "w.cu").write_text(WARN)
    assert runner.invoke(app, ["check", str(repo), "--base", "main"]).exit_code == 0
    assert runner.invoke(app, ["check", str(repo), "--base", "main", "--fail-on", "warning"]).exit_code == 1


def test_check_clean_branch(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    result = runner.invoke(app, ["check", str(repo), "--base", "main", "-f", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["findings"] == []


def test_check_base_from_github_env(repo: Path) -> None:
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    result = runner.invoke(app, ["check", str(repo), "-f", "json"], env={"GITHUB_BASE_REF": "main"})
    assert result.exit_code == 1
    assert {f["file"] for f in json.loads(result.stdout)["findings"]} == {"src/new_bad.cu"}


def test_check_usage_errors(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    bad_ref = runner.invoke(app, ["check", str(repo), "--base", "no-such-ref"])
    assert bad_ref.exit_code == 2 and "git" in bad_ref.stderr
    missing_base = runner.invoke(app, ["check", str(repo)], env={"GITHUB_BASE_REF": ""})
    assert missing_base.exit_code == 2 and "--base" in missing_base.stderr
    not_a_repo = runner.invoke(app, ["check", str(tmp_path_factory.mktemp("plain")), "--base", "main"])
    assert not_a_repo.exit_code == 2
