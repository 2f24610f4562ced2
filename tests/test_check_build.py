"""`porter check --build` end to end: a temporary git repository with a CUDA project whose base ports and builds,
and pull-request branches that each bring one new problem. Each must be reported as new, nothing the base already
had may be reported, and a clean change must pass. Runs `porter` as a user would, from inside the repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_convert_cli import porter

pytestmark = pytest.mark.hipcc

UPLOAD = """\
#pragma once
#include <cuda.h>
// copies n floats from the host to the device
inline void upload(CUdeviceptr dst, float* host, size_t n) {
    cuMemcpyHtoD(dst, host, n * sizeof(float));
}
"""
# CUdeviceptr is an integer in CUDA and void* in HIP: an alignment test on it compiles for CUDA, not for HIP, and
# no porter rule rewrites it (line 5, where the copy is)
BROKEN_UPLOAD = UPLOAD.replace("    cuMemcpyHtoD(", "    if (dst % 256 != 0) return;  cuMemcpyHtoD(")
MAIN = """\
#include <cuda_runtime.h>
#include "../include/upload.cuh"
__global__ void scale(float* v, float s) { v[threadIdx.x] *= s; }
int main() {
    float* d = nullptr;
    cudaMalloc(&d, 256 * sizeof(float));
    float host[256] = {};
    upload(reinterpret_cast<CUdeviceptr>(d), host, 256);
    scale<<<1, 256>>>(d, 2.0f);
    cudaDeviceSynchronize();
    cudaFree(d);
    return 0;
}
"""
# old problems, on the base already: a 32-bit ballot result (hazard) and an API without a HIP counterpart in a
# branch the build never compiles (untranslated); the base still ports and builds
OTHER = """\
#include <cuda_runtime.h>
__global__ void count(const float* v, int* out) {
    unsigned int votes = __ballot_sync(0xffffffffu, v[threadIdx.x] > 0.0f);
    if (threadIdx.x == 0) out[0] = static_cast<int>(votes != 0u);
}
void run_count(const float* v, int* out) {
    count<<<1, 64>>>(v, out);
#ifdef WITH_TEXTURES
    int width = 0;
    cudaDeviceGetTexture1DLinearMaxWidth(reinterpret_cast<size_t*>(&width), nullptr, 0);
#endif
}
"""
VOTE = """\
#include <cuda_runtime.h>
__global__ void active_lanes(int* out) {
    unsigned int mask = __activemask();
    if (threadIdx.x == 0) out[blockIdx.x] = __popc(mask);
}
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def hipcc() -> str:
    found = shutil.which("hipcc")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    return found


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, hipcc: str) -> Path:
    root = tmp_path_factory.mktemp("check") / "repo"
    (root / "src").mkdir(parents=True)
    (root / "include").mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "include" / "upload.cuh").write_text(UPLOAD)
    (root / "src" / "main.cu").write_text(MAIN)
    (root / "src" / "other.cu").write_text(OTHER)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base: ports and builds")
    base = porter("convert", ".", "-o", "../base-port", "-j", "2", cwd=root)
    assert base.returncode == 0, base.stderr.decode()  # the base ports and builds
    return root


def branch(repo: Path, name: str, files: dict[str, str]) -> None:
    git(repo, "checkout", "-q", "-B", name, "main")
    for rel, text in files.items():
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", name)


def check(repo: Path, *args: str, env: dict | None = None) -> tuple[int, dict, str]:
    done = porter("check", "--base", "main", "--build", "-j", "2", "-f", "json", *args, cwd=repo, env=env)
    err = done.stderr.decode()
    assert done.returncode in (0, 1), err
    assert "Traceback" not in err
    return done.returncode, json.loads(done.stdout), err


def where(problems: list[dict]) -> set[tuple[str, str, int]]:
    return {(p["kind"], p["file"], p["line"]) for p in problems}


def test_a_kernel_with_a_32_bit_activemask_is_a_new_hazard(repo: Path) -> None:
    branch(repo, "pr-activemask", {"src/vote.cu": VOTE})
    code, out, _ = check(repo)
    assert code == 1
    assert {(p["rule"], p["line"]) for p in out["problems"]} == {("PL002", 3), ("PL003", 4)}
    assert {p["file"] for p in out["problems"]} == {"src/vote.cu"}
    assert all(p["kind"] == "hazard" and p["changed_line"] for p in out["problems"])
    assert "__activemask" in out["problems"][0]["message"]


def test_a_call_porter_cannot_translate_is_new_and_old_problems_stay_quiet(repo: Path) -> None:
    changed = OTHER.replace("    count<<<1, 64>>>(v, out);\n", "    count<<<1, 64>>>(v, out);\n"
                            "    cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,\n"
                            "                                       cudaFlushGPUDirectRDMAWritesToOwner);\n")
    branch(repo, "pr-untranslated", {"src/other.cu": "// counts lanes that vote yes\n" + changed})
    code, out, _ = check(repo)
    assert code == 1
    problems = out["problems"]
    untranslated = [p for p in problems if p["kind"] == "untranslated"]
    assert any("`cudaDeviceFlushGPUDirectRDMAWrites`" in p["message"] and p["line"] == 9 for p in untranslated)
    assert {p["line"] for p in untranslated} <= {9, 10}
    builds = [p for p in problems if p["kind"] == "build"]
    assert builds and all(p["file"] == "src/other.cu" and p["line"] in (9, 10) for p in builds)
    # the base's ballot hazard and its untranslated texture call moved down two lines: old, not reported
    assert not [p for p in problems if p["line"] not in (9, 10)]
    assert not [p for p in problems if p["kind"] == "hazard"]  # "no HIP counterpart" is said once, as untranslated
    assert not any("Texture1D" in p["message"] for p in problems)


def test_a_header_that_breaks_the_hip_build_is_found_through_its_includers(repo: Path) -> None:
    branch(repo, "pr-header", {"include/upload.cuh": BROKEN_UPLOAD})
    code, out, _ = check(repo)
    assert code == 1
    assert out["changed"] == ["include/upload.cuh"]
    assert where(out["problems"]) == {("build", "include/upload.cuh", 5)}
    assert "invalid operands" in out["problems"][0]["message"]
    run = out["runs"][0]
    assert run["units"] == 1 and run["head_failed"] == ["src/main.cu"]  # main.cu reads the header: built


def test_a_clean_change_passes(repo: Path) -> None:
    branch(repo, "pr-clean", {"src/other.cu": OTHER.replace("out[0] =", "out[0] = /* any lane */"),
                              "README.md": "docs only\n"})
    code, out, err = check(repo)
    assert code == 0, err
    assert out["problems"] == []
    assert out["runs"][0]["units"] == 1  # other.cu was built, and is fine
    assert "nothing new since main" in err


def test_uncommitted_changes_are_checked_too(repo: Path) -> None:
    branch(repo, "pr-wip", {})
    (repo / "src" / "vote.cu").write_text(VOTE)  # untracked
    try:
        code, out, _ = check(repo)
    finally:
        (repo / "src" / "vote.cu").unlink()
    assert code == 1 and {p["file"] for p in out["problems"]} == {"src/vote.cu"}
    assert out["head"].endswith("with uncommitted changes")


def test_the_base_is_computed_once_per_commit(repo: Path, tmp_path: Path) -> None:
    branch(repo, "pr-header-again", {"include/upload.cuh": BROKEN_UPLOAD})
    cache = tmp_path / "cache"
    _, first, _ = check(repo, "--cache-dir", str(cache))
    assert first["runs"][0]["base_cached"] is False and first["runs"][0]["base_compiled"] == 1
    # a second push to the same pull request: the base is neither converted nor compiled again
    (repo / "src" / "main.cu").write_text(MAIN.replace("return 0;", "return 0;  // second push"))
    git(repo, "commit", "-q", "-am", "second push")
    code, second, _ = check(repo, "--cache-dir", str(cache))
    assert code == 1 and second["runs"][0]["base_cached"] is True and second["runs"][0]["base_compiled"] == 0
    assert where(second["problems"]) == {("build", "include/upload.cuh", 5)}
    entries = [p for p in cache.iterdir() if p.is_dir()]
    assert len(entries) == 1 and (entries[0] / "conversion.json").is_file()
    default = Path(git(repo, "rev-parse", "--git-common-dir"))
    assert ((repo / default) / "porter" / "check-cache").is_dir()  # the other tests' runs, under .git/


def test_ci_outputs_of_a_build_check(repo: Path, tmp_path: Path) -> None:
    branch(repo, "pr-outputs", {"src/vote.cu": VOTE,
                                "include/upload.cuh": BROKEN_UPLOAD})
    summary = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_REPOSITORY": "acme/kernels", "GITHUB_SHA": "f00d"}
    done = porter("check", "--base", "main", "--build", "-j", "2", "--annotations", "--comment",
                  tmp_path / "comment.md", "--gitlab", tmp_path / "gl.json", "--sarif", tmp_path / "porter.sarif",
                  cwd=repo, env=env)
    assert done.returncode == 1, done.stderr.decode()
    stdout = done.stdout.decode()
    assert "::error file=src/vote.cu,line=3,col=5,title=porter%3A porting hazard PL002 [gfx942]::" in stdout
    assert "::error file=include/upload.cuh,line=5,col=13,title=porter%3A HIP build error [gfx942]::" in stdout
    comment = (tmp_path / "comment.md").read_text()
    assert comment.startswith("<!-- porter check -->")
    assert "[`src/vote.cu:3`](https://github.com/acme/kernels/blob/f00d/src/vote.cu#L3)" in comment
    assert "1 build error(s), 2 hazard(s)" in comment and "porter check --base" in comment
    assert len(comment.splitlines()) < 20  # short
    text = summary.read_text()
    assert "3 new problems since main" in text and "translation unit(s) touched by the change" in text
    quality = json.loads((tmp_path / "gl.json").read_text())
    assert {(q["location"]["path"], q["location"]["lines"]["begin"]) for q in quality} == {
        ("src/vote.cu", 3), ("src/vote.cu", 4), ("include/upload.cuh", 5)}
    sarif = json.loads((tmp_path / "porter.sarif").read_text())
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"PL002", "PL003", "build-error"}
    assert {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]} == {"PL002", "PL003", "build-error"}


def test_build_check_usage_errors(repo: Path, tmp_path: Path) -> None:
    bad = porter("check", "--base", "no-such-ref", "--build", cwd=repo)
    assert bad.returncode == 2 and "no-such-ref" in bad.stderr.decode()
    plain = tmp_path / "plain"
    plain.mkdir()
    outside = porter("check", "--base", "main", "--build", cwd=plain)
    assert outside.returncode == 2 and "Traceback" not in outside.stderr.decode()
    only_git = tmp_path / "bin"
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git"))
    no_hipcc = porter("check", "--base", "main", "--build", cwd=repo, env={"PATH": str(only_git),
                                                                           "ROCM_PATH": "/nonexistent"})
    assert no_hipcc.returncode == 2 and "needs hipcc" in no_hipcc.stderr.decode()
