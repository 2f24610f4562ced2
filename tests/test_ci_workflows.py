"""The example pull-request workflows (examples/ci/porter-pr.yml for GitHub Actions, examples/ci/gitlab-ci.yml for
GitLab CI), parsed and run as written against a local git repository with an `origin` remote and a pull-request
branch.

What runs, exactly:
- GitHub: the `run:` commands of "Install the ROCm toolchain" and "Port and build the change", in bash, in the
  checkout, with the workflow's `env` and GitHub's variables (`${{ github.base_ref }}` is `main`). The toolchain
  step runs as written when `porter toolchain` exists in this build and a ROCm 6.4 toolchain is installed (it then
  only verifies the one it finds; `TOOLCHAIN` names that installation), else its options are checked against
  `porter toolchain install --help`, or the test says that `porter toolchain` is not in this build. The build step
  runs with `--toolchain "$TOOLCHAIN"` (ROCm 6.4: gfx942 and gfx950 for real) when that toolchain is there, else
  with the system's hipcc (`TOOLCHAIN=system`: Debian's ROCm 5.2 compiles gfx90a in their place).
- GitLab: `script:` as written (the `git fetch` from the local `origin` included); the same toolchain rule for
  the `before_script` line that installs it; `pip install porter` lines are not run (porter is installed).
Steps that need GitHub itself (actions, `gh pr comment`) are checked for the files they use, not run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_convert_cli import porter

ROOT = Path(__file__).resolve().parents[1]
GITHUB = ROOT / "examples" / "ci" / "porter-pr.yml"
GITLAB = ROOT / "examples" / "ci" / "gitlab-ci.yml"
INSTALLED_64 = Path.home() / ".cache" / "porter" / "toolchains" / "rocm-6.4"  # `porter toolchain install`'s default

MAIN = """\
#include <cuda_runtime.h>
#include "scale.cuh"
int main() {
    float* d = nullptr;
    cudaMalloc(&d, 64 * sizeof(float));
    scale<<<1, 64>>>(d, 2.0f);
    cudaDeviceSynchronize();
    cudaFree(d);
    return 0;
}
"""
SCALE = "#pragma once\n__global__ void scale(float* v, float s) { v[threadIdx.x] *= s; }\n"
VOTE = """\
#include <cuda_runtime.h>
__global__ void active_lanes(int* out) {
    unsigned int mask = __activemask();
    if (threadIdx.x == 0) out[blockIdx.x] = __popc(mask);
}
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def has_toolchain_command() -> bool:
    return porter("toolchain", "--help").returncode == 0


def installed_toolchain() -> Path | None:
    hipcc = INSTALLED_64 / "bin" / "hipcc"
    return INSTALLED_64 if hipcc.is_file() and os.access(hipcc, os.X_OK) else None


@pytest.fixture
def hipcc() -> None:
    if shutil.which("hipcc") is None and installed_toolchain() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A clone of `origin` on a pull-request branch that adds a kernel with a 32-bit lane mask."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    git(seed, "config", "user.email", "t@example.com")
    git(seed, "config", "user.name", "t")
    (seed / "src").mkdir()
    (seed / "src" / "main.cu").write_text(MAIN)
    (seed / "src" / "scale.cuh").write_text(SCALE)
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "base")
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(tmp_path / "origin.git")], check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(tmp_path / "origin.git"), str(work)], check=True)
    git(work, "config", "user.email", "t@example.com")
    git(work, "config", "user.name", "t")
    git(work, "checkout", "-q", "-b", "pr")
    (work / "src" / "vote.cu").write_text(VOTE)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "pr: a warp vote")
    return work


def bash(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-ec", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)


def base_env(extra: dict[str, str]) -> dict[str, str]:
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # this porter
    return {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **extra, "PATH": path}


def options_of(command: str) -> list[str]:
    return re.findall(r"(?<!\S)(--[a-z][a-z-]*)", command)


def run_toolchain_step(command: str, cwd: Path, env: dict[str, str]) -> str:
    """The toolchain install line: as written when it can only verify an installed toolchain, else --help."""
    if installed_toolchain() is not None:
        proc = bash(command, cwd, env)
        assert proc.returncode == 0, proc.stderr
        assert "already installed" in proc.stderr
        return "ran"
    help_text = porter("toolchain", "install", "--help", env={"COLUMNS": "200"}).stdout.decode()
    for option in options_of(command):
        assert option in help_text, option
    return "checked --help"


@pytest.mark.hipcc
def test_the_toolchain_install_steps(checkout: Path, hipcc: None) -> None:
    """Both workflows' `porter toolchain install` lines: run as written when they only verify an installed ROCm 6.4
    (never a multi-GB download in a test), else checked against `--help`."""
    if not has_toolchain_command():
        pytest.skip("`porter toolchain` is not in this build (the toolchain manager's branch); the build steps use "
                    "--toolchain with a directory or the system's hipcc")
    github = github_run(github_steps()["Install the ROCm toolchain"])
    env = base_env({**{k: str(v) for k, v in yaml.safe_load(GITHUB.read_text())["env"].items()},
                    "TOOLCHAIN": toolchain_env()})
    assert run_toolchain_step(github, checkout, env) in ("ran", "checked --help")
    job = gitlab_job()
    install = next(line for line in job["before_script"] if "toolchain install" in line)
    assert [line for line in job["before_script"] if line != install] == [
        'python -m pip install "porter @ git+https://github.com/YOUR-ORG/porter.git@v0.1.0"']
    where = toolchain_env() if installed_toolchain() else ".porter-toolchain/rocm-$ROCM"
    assert run_toolchain_step(install.replace(".porter-toolchain/rocm-$ROCM", where), checkout,
                              base_env(job["variables"])) in ("ran", "checked --help")


def toolchain_env() -> str:
    found = installed_toolchain()
    return str(found) if found is not None else "system"


# -- GitHub Actions -----------------------------------------------------------------------------------------------
def github_steps() -> dict[str, dict]:
    workflow = yaml.safe_load(GITHUB.read_text())
    assert list(workflow["jobs"]) == ["port-and-build"]
    return {s.get("name") or s["uses"]: s for s in workflow["jobs"]["port-and-build"]["steps"]}


def github_run(step: dict) -> str:
    return step["run"].replace("${{ github.base_ref }}", "main")


def test_github_workflow_shape() -> None:
    workflow = yaml.safe_load(GITHUB.read_text())
    steps = github_steps()
    assert workflow[True] == {"pull_request": None}  # YAML reads the `on:` key as true
    assert steps["actions/checkout@v4"]["with"]["fetch-depth"] == 0  # the merge base needs the history
    assert workflow["permissions"] == {"contents": "read", "security-events": "write", "pull-requests": "write"}
    toolchain_cache = steps["Cache the ROCm toolchain"]["with"]
    assert toolchain_cache["path"] == "${{ env.TOOLCHAIN }}" and "${{ env.ROCM }}" in toolchain_cache["key"]
    assert workflow["env"]["TOOLCHAIN"].endswith("rocm-" + workflow["env"]["ROCM"])
    base_cache = steps["Cache the base's ports"]["with"]
    assert base_cache["path"] == ".git/porter/check-cache"  # porter check --build's default cache
    assert "${{ github.event.pull_request.base.sha }}" in base_cache["key"]
    order = list(steps)
    assert order.index("Cache the ROCm toolchain") < order.index("Install the ROCm toolchain") < order.index(
        "Port and build the change")
    check = github_run(steps["Port and build the change"])
    assert "--target gfx942 --target gfx950" in check and "--build" in check
    assert re.search(r"--sarif (\S+)", check)[1] == steps["Upload SARIF"]["with"]["sarif_file"]
    comment = re.search(r"--comment (\S+)", check)[1]
    assert f"--body-file {comment}" in steps["Comment on the pull request"]["run"]
    help_text = porter("check", "--help", env={"COLUMNS": "200"}).stdout.decode()
    for option in options_of(check):
        assert option in help_text, option


@pytest.mark.hipcc
def test_github_workflow_runs_against_a_local_repository(checkout: Path, tmp_path: Path, hipcc: None) -> None:
    steps = github_steps()
    workflow_env = yaml.safe_load(GITHUB.read_text())["env"]
    summary = tmp_path / "step-summary.md"
    env = base_env({**{k: str(v) for k, v in workflow_env.items()}, "TOOLCHAIN": toolchain_env(),
                    "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_REPOSITORY": "acme/kernels",
                    "GITHUB_SHA": git(checkout, "rev-parse", "HEAD"), "GITHUB_BASE_REF": "main"})
    proc = bash(github_run(steps["Port and build the change"]), checkout, env)
    assert proc.returncode == 1, proc.stderr  # the pull request brings new problems
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::error ")]
    assert annotations and all("file=src/vote.cu," in line for line in annotations), proc.stdout
    assert any("line=3," in line and "PL002" in line for line in annotations)
    comment = (checkout / "porter-comment.md").read_text()
    assert "https://github.com/acme/kernels/blob/" in comment and "src/vote.cu" in comment
    assert "src/main.cu" not in comment and "scale.cuh" not in comment  # nothing old
    sarif = json.loads((checkout / "porter.sarif").read_text())
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in sarif["runs"][0]["results"]} == {"src/vote.cu"}
    text = summary.read_text()
    assert "gfx942" in text and "gfx950" in text and "Run it locally" in text
    if installed_toolchain() is not None:
        assert "compiled for gfx942" in text and "compiled for gfx950" in text, text


@pytest.mark.hipcc
def test_github_workflow_passes_a_clean_pull_request(checkout: Path, hipcc: None) -> None:
    git(checkout, "rm", "-q", "src/vote.cu")
    (checkout / "src" / "main.cu").write_text(MAIN.replace("return 0;", "return 0;  // unchanged behaviour"))
    git(checkout, "commit", "-q", "-am", "clean")
    steps = github_steps()
    workflow_env = yaml.safe_load(GITHUB.read_text())["env"]
    env = base_env({**{k: str(v) for k, v in workflow_env.items()}, "TOOLCHAIN": toolchain_env()})
    proc = bash(github_run(steps["Port and build the change"]), checkout, env)
    assert proc.returncode == 0, proc.stderr
    assert not [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert "nothing new since origin/main" in (checkout / "porter-comment.md").read_text()


# -- GitLab CI ----------------------------------------------------------------------------------------------------
def gitlab_job() -> dict:
    data = yaml.safe_load(GITLAB.read_text())
    assert list(data) == ["porter"]
    return data["porter"]


def test_gitlab_pipeline_shape() -> None:
    job = gitlab_job()
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert job["variables"]["GIT_DEPTH"] == "0"
    script = " ".join(job["script"])
    report = re.search(r"--gitlab (\S+)", script)[1]
    assert job["artifacts"]["reports"]["codequality"] == report
    cache_dir = re.search(r"--cache-dir (\S+)", script)[1]
    cached = {path for entry in job["cache"] for path in entry["paths"]}
    assert f"{cache_dir}/" in cached
    install = next(line for line in job["before_script"] if "toolchain install" in line)
    toolchain_dir = re.search(r'--dir "?([^"\s]+)', install)[1]
    assert toolchain_dir.split("/")[0] + "/" in cached  # the toolchain is cached (inside the project, as GitLab needs)
    assert re.search(r'--toolchain "?([^"\s]+)', script)[1] == toolchain_dir
    help_text = porter("check", "--help", env={"COLUMNS": "200"}).stdout.decode()
    for option in options_of(script.split("porter check", 1)[1]):
        assert option in help_text, option


@pytest.mark.hipcc
def test_gitlab_pipeline_runs_against_a_local_repository(checkout: Path, hipcc: None) -> None:
    job = gitlab_job()
    toolchain = toolchain_env()
    env = base_env({**job["variables"], "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                    "CI_PROJECT_URL": "https://gitlab.example/acme/kernels",
                    "CI_COMMIT_SHA": git(checkout, "rev-parse", "HEAD")})
    for line in job["script"]:
        command = line.replace('".porter-toolchain/rocm-$ROCM"', f'"{toolchain}"')
        proc = bash(command, checkout, env)
        if "porter check" in line:
            assert proc.returncode == 1, proc.stderr
        else:
            assert proc.returncode == 0, proc.stderr
    report = json.loads((checkout / job["artifacts"]["reports"]["codequality"]).read_text())
    assert report and {issue["location"]["path"] for issue in report} == {"src/vote.cu"}
    assert all(issue["fingerprint"] and issue["severity"] in ("critical", "major", "info") for issue in report)
    comment = (checkout / job["artifacts"]["paths"][0]).read_text()
    assert "https://gitlab.example/acme/kernels/-/blob/" in comment
    assert (checkout / ".porter-check-cache").is_dir()
    assert "??" not in git(checkout, "status", "--porcelain", "--", "src")  # the check wrote nothing into the code
