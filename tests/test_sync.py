"""`porter sync`: upstream CUDA changes carried into a hand-edited port by a three-way merge (porter.revisions).

Each test makes an upstream git repository `cuda/`, ports it with `porter convert cuda -o hip --no-build` at
commit A, edits the port by hand, moves upstream to commit B and runs `porter sync` the way a user types it (from
the directory holding both, relative paths)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_convert_cli import assert_clean_error, porter

KERNELS = """\
#include <cuda_runtime.h>
// first block: upstream changes this one
__global__ void first(float* v) { v[threadIdx.x] = 1.0f; }

void run_first(float* d) {
    first<<<1, 64>>>(d);
    cudaDeviceSynchronize();
}

// second block: the port changes this one by hand
__global__ void second(float* v) { v[threadIdx.x] = 2.0f; }

void run_second(float* d) {
    second<<<1, 64>>>(d);
    cudaDeviceSynchronize();
}
"""
HELPER = """\
#include <cuda_runtime.h>
__global__ void helper(int* v) { v[0] = 7; }

// launches the helper
// on the default stream
void launch_helper(int* d) { helper<<<1, 1>>>(d); cudaDeviceSynchronize(); }
"""
LEGACY = """\
#include <cuda_runtime.h>
__global__ void legacy(int* v) { v[0] = 1; }
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """tmp/cuda (upstream at commit A) and tmp/hip, its port at A."""
    cuda = tmp_path / "cuda"
    cuda.mkdir()
    git(cuda, "init", "-q", "-b", "main")
    git(cuda, "config", "user.email", "t@example.com")
    git(cuda, "config", "user.name", "t")
    (cuda / "kernels.cu").write_text(KERNELS)
    (cuda / "helper.cu").write_text(HELPER)
    (cuda / "legacy.cu").write_text(LEGACY)
    (cuda / "notes.txt").write_text("upstream notes\n")
    commit(cuda, "A")
    done = porter("convert", "cuda", "-o", "hip", "--no-build", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    return tmp_path


def manifest(root: Path) -> dict:
    return json.loads((root / ".porter" / "manifest.json").read_text())


def sync(project: Path, *args: str) -> subprocess.CompletedProcess:
    return porter("sync", "--port", "hip", "--no-build", *args, cwd=project)


def test_convert_records_the_source_commit_and_versions(project: Path) -> None:
    data = manifest(project / "hip")
    head = git(project / "cuda", "rev-parse", "HEAD")
    assert data["source_revision"] == {"repo": str((project / "cuda").resolve()), "path": "", "commit": head,
                                       "dirty": False}
    assert data["porter_version"] and len(data["mapping_version"]) == 16
    assert data["options"]["target"] == "gfx942" and data["options"]["rename"] is False
    # a file changed but not committed: the port says so
    (project / "cuda" / "helper.cu").write_text(HELPER + "// wip\n")
    assert porter("convert", "cuda", "-o", "hip", "--no-build", cwd=project).returncode == 0
    assert manifest(project / "hip")["source_revision"]["dirty"] is True


def test_convert_outside_git_records_no_revision(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "k.cu").write_text(LEGACY)
    assert porter("convert", "plain", "-o", "out", "--no-build", cwd=tmp_path).returncode == 0
    assert manifest(tmp_path / "out")["source_revision"] is None


def test_upstream_change_and_hand_edit_in_different_hunks_merge_cleanly(project: Path) -> None:
    edit(project / "hip" / "kernels.cu", "v[threadIdx.x] = 2.0f;", "v[threadIdx.x] = 2.5f;  // tuned for MI300X")
    cuda = project / "cuda"
    edit(cuda / "kernels.cu", "    first<<<1, 64>>>(d);\n", "    cudaMemset(d, 0, 64 * sizeof(float));\n"
                                                              "    first<<<1, 64>>>(d);\n")
    b = commit(cuda, "B")
    done = sync(project)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    text = (project / "hip" / "kernels.cu").read_text()
    assert "hipMemset(d, 0, 64 * sizeof(float));" in text  # the upstream change arrived translated
    assert "cudaMemset" not in text
    assert "2.5f;  // tuned for MI300X" in text  # the hand edit stayed
    assert "<<<<<<<" not in text
    assert "1 merged (1 with hand edits kept)" in err and "0 with conflicts" in err
    data = manifest(project / "hip")
    assert data["source_revision"]["commit"] == b
    entry = next(f for f in data["files"] if f["output"] == "kernels.cu")
    before = Path(entry["original"])
    assert before.is_file() and "2.5f;  // tuned for MI300X" in before.read_text() and "hipMemset" not in before.read_text()
    # untouched files keep their entries
    assert any(f["output"] == "notes.txt" and f["status"] == "copied" for f in data["files"])


def test_the_same_hunk_gives_a_conflict_with_standard_markers(project: Path) -> None:
    edit(project / "hip" / "kernels.cu", "v[threadIdx.x] = 2.0f;", "v[threadIdx.x] = 2.5f;")
    cuda = project / "cuda"
    edit(cuda / "kernels.cu", "v[threadIdx.x] = 2.0f;", "v[threadIdx.x] = 3.0f;")
    edit(cuda / "kernels.cu", "    first<<<1, 64>>>(d);\n", "    cudaMemset(d, 0, 64 * sizeof(float));\n"
                                                              "    first<<<1, 64>>>(d);\n")
    commit(cuda, "B")
    done = sync(project)
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert "conflict: kernels.cu (1 hunk(s)" in err
    text = (project / "hip" / "kernels.cu").read_text()
    ours, theirs = text.index("<<<<<<< port (hip)"), text.index(">>>>>>> porter's conversion of ")
    middle = text.index("\n=======\n")
    assert ours < text.index("2.5f", ours) < middle < text.index("3.0f", middle) < theirs
    assert "hipMemset(d, 0, 64 * sizeof(float));" in text  # the hunk that did not conflict merged
    report = json.loads((project / "hip" / ".porter" / "sync").glob("*/report.json").__next__().read_text())
    assert report["conflicts"] == {"kernels.cu": 1}
    assert manifest(project / "hip")["syncs"][-1]["conflicts"] == ["kernels.cu"]


def test_a_renamed_upstream_file_follows_with_its_hand_edits(project: Path) -> None:
    edit(project / "hip" / "helper.cu", "v[0] = 7;", "v[0] = 7;  // checked on MI300X")
    cuda = project / "cuda"
    (cuda / "src").mkdir()
    git(cuda, "mv", "helper.cu", "src/helper.cu")
    edit(cuda / "src" / "helper.cu", "cudaDeviceSynchronize(); }", "cudaDeviceSynchronize(); cudaGetLastError(); }")
    commit(cuda, "B: move helper.cu")
    done = sync(project)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "renamed: helper.cu -> src/helper.cu" in err
    assert not (project / "hip" / "helper.cu").exists()
    moved = (project / "hip" / "src" / "helper.cu").read_text()
    assert "// checked on MI300X" in moved and "hipGetLastError();" in moved
    outputs = {f["output"] for f in manifest(project / "hip")["files"]}
    assert "src/helper.cu" in outputs and "helper.cu" not in outputs
    before = project / "hip" / ".porter" / "sync"
    assert [p.name for p in before.glob("*/before/helper.cu")] == ["helper.cu"]  # the old file is kept


def test_a_new_upstream_file_arrives_converted(project: Path) -> None:
    cuda = project / "cuda"
    (cuda / "copy.cu").write_text("#include <cuda_runtime.h>\n"
                                  "void put(float* d, const float* h) { cudaMemcpy(d, h, 4, cudaMemcpyHostToDevice); }\n")
    commit(cuda, "B: add copy.cu")
    done = sync(project)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "new: copy.cu" in err
    text = (project / "hip" / "copy.cu").read_text()
    assert "#include <hip/hip_runtime.h>" in text and "hipMemcpy(d, h, 4, hipMemcpyHostToDevice)" in text
    entry = next(f for f in manifest(project / "hip")["files"] if f["output"] == "copy.cu")
    assert entry["status"] == "translated" and "cudaMemcpy" in Path(entry["original"]).read_text()


def test_a_deleted_upstream_file_is_reported_and_kept(project: Path) -> None:
    cuda = project / "cuda"
    git(cuda, "rm", "-q", "legacy.cu")
    commit(cuda, "B: drop legacy.cu")
    done = sync(project)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "1 deleted upstream" in err and "deleted upstream: legacy.cu (kept in the port)" in err
    assert (project / "hip" / "legacy.cu").is_file()  # it may hold hand edits: nothing is lost
    entry = next(f for f in manifest(project / "hip")["files"] if f["output"] == "legacy.cu")
    assert entry["upstream"] == "deleted" and Path(entry["original"]).is_file()


def test_prune_removes_deleted_files_without_hand_edits_only(project: Path) -> None:
    edit(project / "hip" / "helper.cu", "v[0] = 7;", "v[0] = 8;")
    cuda = project / "cuda"
    git(cuda, "rm", "-q", "legacy.cu", "helper.cu")
    commit(cuda, "B")
    done = sync(project, "--prune")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "deleted upstream: legacy.cu (removed (no hand edits; --prune))" in err
    assert not (project / "hip" / "legacy.cu").exists() and (project / "hip" / "helper.cu").is_file()


def test_review_walks_what_the_sync_changed(project: Path) -> None:
    edit(project / "hip" / "kernels.cu", "v[threadIdx.x] = 2.0f;", "v[threadIdx.x] = 2.5f;")
    cuda = project / "cuda"
    edit(cuda / "kernels.cu", "    first<<<1, 64>>>(d);\n", "    cudaMemset(d, 0, 256);\n    first<<<1, 64>>>(d);\n")
    commit(cuda, "B")
    assert sync(project).returncode == 0
    review = porter("review", "hip", "--reject-all", cwd=project)
    assert review.returncode == 0, review.stderr.decode()
    text = (project / "hip" / "kernels.cu").read_text()
    assert "hipMemset" not in text and "2.5f" in text  # rejecting the sync's hunk restores the port as it was
    assert "#include <hip/hip_runtime.h>" in text  # ... not the CUDA original: the review is of the sync


def test_a_second_sync_starts_from_the_commit_the_first_reached(project: Path) -> None:
    cuda = project / "cuda"
    edit(cuda / "kernels.cu", "1.0f", "1.5f")
    commit(cuda, "B")
    assert sync(project).returncode == 0
    edit(cuda / "kernels.cu", "2.0f", "4.0f")
    c = commit(cuda, "C")
    done = sync(project)
    assert done.returncode == 0, done.stderr.decode()
    text = (project / "hip" / "kernels.cu").read_text()
    assert "1.5f" in text and "4.0f" in text
    assert manifest(project / "hip")["source_revision"]["commit"] == c
    again = sync(project)
    assert again.returncode == 0 and "nothing to sync" in again.stderr.decode()


def test_explicit_commits_and_a_subfolder_source(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "cuda").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / "cuda" / "kernels.cu").write_text(KERNELS)
    (repo / "README").write_text("x\n")
    a = commit(repo, "A")
    assert porter("convert", "cuda", "-o", "../hip", "--no-build", cwd=repo).returncode == 0
    assert manifest(tmp_path / "hip")["source_revision"]["path"] == "cuda"
    edit(repo / "cuda" / "kernels.cu", "1.0f", "1.5f")
    (repo / "README").write_text("outside the ported folder\n")
    b = commit(repo, "B")
    edit(repo / "cuda" / "kernels.cu", "1.5f", "9.0f")  # later work, not part of this sync
    commit(repo, "C")
    done = porter("sync", "--from", a[:10], "--to", b, "--port", "../hip", "--no-build", cwd=repo)
    assert done.returncode == 0, done.stderr.decode()
    text = (tmp_path / "hip" / "kernels.cu").read_text()
    assert "1.5f" in text and "9.0f" not in text
    assert not (tmp_path / "hip" / "README").exists()  # outside the scope the port was made of


def test_sync_usage_errors(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert_clean_error(porter("sync", "--port", "nowhere", cwd=project), 2, "not a porter port")
    assert_clean_error(sync(project, "--from", "no-such-commit"), 2, "not a commit")
    data = manifest(project / "hip")
    data["source_revision"] = None
    (project / "hip" / ".porter" / "manifest.json").write_text(json.dumps(data))
    assert_clean_error(sync(project), 2, "--from")
    outside = tmp_path_factory.mktemp("plain")
    shutil.copytree(project / "cuda", outside / "cuda", ignore=shutil.ignore_patterns(".git"))
    assert_clean_error(sync(project, "--from", "HEAD", "--source", str(outside / "cuda")), 2, "git")


@pytest.fixture
def hipcc() -> str:
    found = shutil.which("hipcc")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    return found


@pytest.mark.hipcc
def test_the_fix_loop_runs_on_the_changed_files(project: Path, hipcc: str) -> None:
    cuda = project / "cuda"
    (cuda / "vote.cu").write_text("#include <cuda_runtime.h>\n"
                                  "__global__ void vote(int* out) { out[0] = __any_sync(0xffffffff, 1); }\n")
    edit(cuda / "kernels.cu", "1.0f", "1.5f")
    commit(cuda, "B")
    done = porter("sync", "--port", "hip", "-j", "2", cwd=project)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    report = json.loads(next((project / "hip" / ".porter" / "sync").glob("*/report.json")).read_text())
    loop = report["fix_loop"]
    assert loop["ok"] and loop["files"] == ["kernels.cu", "vote.cu"]
    assert loop["build"]["units"]["units"] == 2  # only what the sync changed, not helper.cu or legacy.cu
