"""The CI workflow example and the pre-commit hook point at commands and options that exist.

(Checked as text: PyYAML is not a porter dependency.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from porter.cli import app

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = (ROOT / "examples" / "ci" / "porter.yml").read_text()
HOOKS = (ROOT / ".pre-commit-hooks.yaml").read_text()


def _check_command() -> list[str]:
    block = re.search(r"run: >-\n((?:\s{10}\S.*\n)+)", WORKFLOW).group(1)
    return shlex.split(" ".join(line.strip() for line in block.splitlines()))


def test_workflow_runs_check_against_the_base_branch() -> None:
    args = _check_command()
    assert args[:4] == ["porter", "check", "--base", "origin/${{ github.base_ref }}"]
    assert "fetch-depth: 0" in WORKFLOW  # base...HEAD needs the merge base
    assert "security-events: write" in WORKFLOW


def test_workflow_uploads_the_sarif_it_writes() -> None:
    args = _check_command()
    sarif = args[args.index("--sarif") + 1]
    assert "uses: github/codeql-action/upload-sarif@" in WORKFLOW
    assert re.search(rf"sarif_file: {re.escape(sarif)}\s", WORKFLOW)


def test_workflow_options_exist() -> None:
    help_text = CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "200"}).stdout
    for option in (a for a in _check_command() if a.startswith("--")):
        assert option in help_text, option


def test_pre_commit_hook() -> None:
    assert re.search(r"^- id: porter-check$", HOOKS, re.M)
    assert re.search(r"^  entry: porter scan$", HOOKS, re.M)
    files = re.search(r"^  files: (.+)$", HOOKS, re.M).group(1)
    pattern = re.compile(files)
    assert pattern.search("src/kernel.cu") and pattern.search("a/b.cuh") and pattern.search("x.hip")
    assert not pattern.search("README.md")
    help_text = CliRunner().invoke(app, ["scan", "--help"], env={"COLUMNS": "200"}).stdout
    assert "paths..." in help_text.lower()  # pre-commit passes the changed files as arguments
