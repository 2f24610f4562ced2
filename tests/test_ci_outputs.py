"""What a pull-request check hands to CI systems, and how it tells new problems from old (pure parts)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter.cli import app
from porter.revisions import (
    CheckOutcome,
    Problem,
    annotations,
    gitlab_code_quality,
    link_base_from_env,
    pr_comment,
    sarif,
    step_summary,
)
from porter.revisions.ports import LineMap
from porter.revisions.problems import new_problems


def hazard(file: str, line: int, rule: str = "PL002", message: str = "`m` loses lanes 32..63") -> Problem:
    return Problem("hazard", file, line, 5, "error", rule, message, "use a 64-bit mask", ("gfx942",))


def build_error(file: str, line: int, message: str = "use of undeclared identifier 'x'") -> Problem:
    return Problem("build", file, line, 3, "error", "build-error", message, targets=("gfx942", "gfx950"))


def outcome(problems: list[Problem]) -> CheckOutcome:
    return CheckOutcome("origin/main", "a" * 40, "b" * 12, ["src/k.cu"], problems, ["gfx942", "gfx950"],
                        "porter check --base aaaaaaaaaaaa --build --target gfx942 --target gfx950", built=True)


def test_line_map_follows_inserted_and_rewritten_lines() -> None:
    old = b"a\nb\nc\nd\n"
    new = b"a\nNEW\nb\nC2\nd\n"
    lm = LineMap(old, new)
    assert [lm.old_line(n) for n in range(1, 6)] == [1, None, 2, 3, 4]
    assert lm.changed == {2, 4}
    assert lm.nearest_old_line(2) == 1  # an inserted line maps to the line before it
    port = LineMap(b"x\ny\n", b'#include "porter_shims/s.h"\nx\ny\n')  # a shim include porter added on top
    assert port.nearest_old_line(1) == 1 and port.nearest_old_line(3) == 2


def test_a_problem_that_moved_is_old_and_one_on_a_changed_line_is_new() -> None:
    base = [hazard("k.cu", 3), build_error("k.cu", 10)]
    head = [hazard("k.cu", 5), build_error("k.cu", 12), hazard("k.cu", 2, message="`n` loses lanes 32..63")]
    lm = LineMap(b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", b"1\nnew\nnew\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
    fresh = new_problems(base, head, {"k.cu": lm})
    assert [(p.line, p.message) for p in fresh] == [(2, "`n` loses lanes 32..63")]
    assert fresh[0].changed_line


def test_a_second_copy_of_an_old_problem_is_new() -> None:
    base = [hazard("k.cu", 3)]
    lm = LineMap(b"a\nb\nc\n", b"a\nb\nc\nc2\n")
    fresh = new_problems(base, [hazard("k.cu", 3), hazard("k.cu", 4)], {"k.cu": lm})
    assert [p.line for p in fresh] == [4]


def test_unchanged_files_keep_their_old_problems_quiet_but_not_new_ones() -> None:
    base = [build_error("main.cu", 7)]
    head = [build_error("main.cu", 7), build_error("main.cu", 9, "no matching function for call to 'f'")]
    fresh = new_problems(base, head, {})  # main.cu itself did not change: a header it reads did
    assert [(p.file, p.line, p.changed_line) for p in fresh] == [("main.cu", 9, False)]


def test_build_errors_match_whatever_location_the_message_quotes() -> None:
    base = [build_error("h.cuh", 4, "redefinition of 'f' (previous at h.cuh:2:1)")]
    head = [build_error("h.cuh", 4, "redefinition of 'f' (previous at h.cuh:3:1)")]
    assert new_problems(base, head, {}) == []


def test_annotations_are_escaped_workflow_commands() -> None:
    problems = [Problem("build", "src/a,b:c.cu", 7, 2, "error", "build-error", "50% wrong\nsecond line"),
                Problem("hazard", "k.cu", 3, 0, "warning", "PL001", "wave64"),
                Problem("build", "", 0, 0, "error", "build-error", "clang: error: linker failed")]
    lines = annotations(problems).splitlines()
    assert lines[0] == ("::error file=src/a%2Cb%3Ac.cu,line=7,col=2,title=porter%3A HIP build error::"
                        "50%25 wrong%0Asecond line")
    assert lines[1] == "::warning file=k.cu,line=3,title=porter%3A porting hazard PL001::wave64"
    assert lines[2] == "::error title=porter%3A HIP build error::clang: error: linker failed"
    assert annotations([]) == ""


def test_links_come_from_the_ci_environment() -> None:
    gh = {"GITHUB_REPOSITORY": "acme/k", "GITHUB_SHA": "abc", "GITHUB_SERVER_URL": "https://ghe.example"}
    assert link_base_from_env(gh) == "https://ghe.example/acme/k/blob/abc/"
    gl = {"CI_PROJECT_URL": "https://gitlab.example/acme/k", "CI_COMMIT_SHA": "def"}
    assert link_base_from_env(gl) == "https://gitlab.example/acme/k/-/blob/def/"
    assert link_base_from_env({}) is None


def test_the_comment_is_short_with_links_and_the_local_command() -> None:
    problems = [hazard("src/k.cu", n) for n in range(1, 31)] + [build_error("src/h.cuh", 4)]
    text = pr_comment(outcome(problems), "https://github.com/acme/k/blob/abc/", max_items=5)
    lines = text.splitlines()
    assert lines[0] == "<!-- porter check -->"
    assert "31 new problems since origin/main (31 errors)" in lines[1]
    assert "1 build error(s), 30 hazard(s)" in text
    assert sum(1 for line in lines if line.startswith("- [`")) == 5
    assert "- ... and 26 more (see the job summary)" in text
    assert "[`src/h.cuh:4`](https://github.com/acme/k/blob/abc/src/h.cuh#L4)" in text  # build errors first
    assert "porter check --base aaaaaaaaaaaa --build --target gfx942 --target gfx950" in text
    assert len(lines) < 20


def test_a_clean_outcome_says_so() -> None:
    text = pr_comment(outcome([]))
    assert "nothing new since origin/main" in text
    assert "Nothing new" in step_summary(outcome([]))


def test_gitlab_code_quality_report() -> None:
    data = json.loads(gitlab_code_quality(outcome([hazard("src/k.cu", 3), build_error("src/h.cuh", 4),
                                                   build_error("", 0)])))
    assert [d["location"] for d in data] == [{"path": "src/k.cu", "lines": {"begin": 3}},
                                             {"path": "src/h.cuh", "lines": {"begin": 4}},
                                             {"path": ".", "lines": {"begin": 1}}]
    assert [d["severity"] for d in data] == ["critical"] * 3
    assert data[0]["check_name"] == "porter/PL002" and "[gfx942]" in data[0]["description"]
    assert len({d["fingerprint"] for d in data}) == 3


def test_sarif_of_an_outcome() -> None:
    data = json.loads(sarif(outcome([hazard("src/k.cu", 3), build_error("src/h.cuh", 4), build_error("", 0)])))
    assert data["version"] == "2.1.0"
    run = data["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert set(rules) == {"PL002", "build-error"}
    assert rules["PL002"]["help"]["text"]  # porter's rule text
    located = [r for r in run["results"] if "locations" in r]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in located] == ["src/k.cu",
                                                                                                  "src/h.cuh"]
    assert all(run["results"][i]["ruleIndex"] == sorted(rules).index(run["results"][i]["ruleId"])
               for i in range(3))


# -- the hazard-only check (no --build) writes the same CI outputs -----------------------------------------------
BAD = "__global__ void k(float* v) { v[0] = __shfl_down_sync(0xffffffff, v[0], 1); }\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "old.cu").write_text(BAD)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "new.cu").write_text(BAD)
    return tmp_path


def test_scan_check_writes_comment_gitlab_and_annotations(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    out = tmp_path_factory.mktemp("out")
    result = CliRunner().invoke(app, ["check", str(repo), "--base", "main", "--annotations", "--comment",
                                      str(out / "c.md"), "--gitlab", str(out / "gl.json"), "-t", "gfx942",
                                      "-t", "gfx1100", "-f", "json"], env={"GITHUB_REPOSITORY": ""})
    assert result.exit_code == 1, result.output
    stdout = result.stdout
    annotation_lines = [line for line in stdout.splitlines() if line.startswith("::")]
    assert annotation_lines and all("file=src/new.cu" in line for line in annotation_lines)
    findings = json.loads(stdout[: stdout.index("\n::")])["findings"]
    assert {f["file"] for f in findings} == {"src/new.cu"}
    assert "src/new.cu" in (out / "c.md").read_text() and "old.cu" not in (out / "c.md").read_text()
    assert {q["location"]["path"] for q in json.loads((out / "gl.json").read_text())} == {"src/new.cu"}
