"""`porter tune`: formats, exit codes, relative paths, --diff and --apply through `porter review`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter.cli import app

runner = CliRunner()

KERNELS = b"""\
#include <cuda_runtime.h>
#define THREADS 256

__global__ void staged(const float* in, float* out, int n) {
  extern __shared__ float buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = buf[(threadIdx.x + 1) % blockDim.x];
}

__global__ void reduce(const float* in, float* out, int n) {
  __shared__ float s[THREADS];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) { if (t < k) s[t] += s[t + k]; __syncthreads(); }
  if (t == 0) out[blockIdx.x] = s[0];
}

void run(int n, const float* x, float* y) {
  staged<<<(n + 63) / 64, 64, 16384>>>(x, y, n);
  reduce<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, y, n);
}
"""


def _hipcc() -> None:
    if shutil.which("hipcc") is None and not os.environ.get("PORTER_HIPCC"):
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_bytes(KERNELS)
    (tmp_path / "README").write_text("not code\n")
    return tmp_path


@pytest.mark.parametrize(("args", "message"), [
    (["--target", "gfx9999"], "unknown target"),
    (["--assume", "n"], "--assume"),
    (["--format", "yaml"], "--format"),
    (["--apply", "--diff"], "cannot be combined"),
    (["--target", "gfx1100"], "no occupancy model"),
    (["--toolchain", "/nonexistent/hipcc"], "nonexistent"),
])
def test_bad_input_is_one_line_and_exit_2(tree: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["tune", str(tree), "--no-nvcc", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_missing_path(tmp_path: Path) -> None:
    result = runner.invoke(app, ["tune", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "no such file" in result.output


def test_works_without_hipcc(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("porter.tune.cli.resolve_toolchain", lambda spec, origin="": None)
    monkeypatch.delenv("PORTER_HIPCC", raising=False)
    result = runner.invoke(app, ["tune", str(tree), "--no-nvcc", "--format", "json", "--assume", "n=1048576"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["toolchain"] is None and data["summary"]["compiled"] == 0
    staged = next(s for s in data["sites"] if s["kernel"] == "staged")
    # LDS alone: 4 blocks of one wave per CU
    assert staged["occupancy"]["waves_per_simd"] == 1 and staged["occupancy"]["limiter"] == "LDS"
    assert any(n.startswith("no hipcc") for n in staged["notes"])


@pytest.mark.hipcc
def test_json_report(tree: Path) -> None:
    _hipcc()
    result = runner.invoke(app, ["tune", str(tree), "--target", "MI300X", "--format", "json", "--assume",
                                 "n=1048576"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["target"], data["cu_count"], data["summary"]["launch_sites"]) == ("gfx942", 304, 2)
    assert data["summary"]["compiled"] == 1
    sites = {s["kernel"]: s for s in data["sites"]}
    staged = sites["staged"]
    assert staged["file"] == "src/k.cu" and staged["block"]["value"] == [64, 1, 1]
    assert staged["usage"]["vgprs"] > 0 and staged["occupancy"]["limiter"] == "LDS"
    assert staged["quantization"]["blocks"] == 16384
    assert staged["suggestions"][0]["safe"] and staged["suggestions"][0]["block"] == 512
    reduce = sites["reduce"]
    assert all(not s["safe"] for s in reduce["suggestions"])


@pytest.mark.hipcc
def test_markdown_and_table(tree: Path) -> None:
    _hipcc()
    md = runner.invoke(app, ["tune", str(tree), "--target", "MI355X", "--format", "markdown", "--no-nvcc"])
    assert md.exit_code == 0, md.output
    assert "| where | kernel |" in md.stdout and "src/k.cu:22" in md.stdout and "gfx950" in md.stdout
    table = runner.invoke(app, ["tune", str(tree), "--target", "MI355X", "--no-nvcc"])
    assert table.exit_code == 0 and "LDS-limited" in table.stdout
    assert "2 launch site(s) of 2 kernel(s) in 1 file(s)" in table.stdout


@pytest.mark.hipcc
def test_diff_writes_nothing(tree: Path) -> None:
    _hipcc()
    before = (tree / "src" / "k.cu").read_bytes()
    result = runner.invoke(app, ["tune", str(tree), "--target", "MI300X", "--diff", "--no-nvcc", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "+  staged<<<(n + 511) / 512, 512, 16384>>>(x, y, n);" in result.stdout
    assert (tree / "src" / "k.cu").read_bytes() == before and not (tree / ".porter").exists()


@pytest.mark.hipcc
@pytest.mark.parametrize(("decision", "kept"), [("--accept-all", True), ("--reject-all", False)])
def test_apply_goes_through_review(tree: Path, monkeypatch: pytest.MonkeyPatch, decision: str, kept: bool) -> None:
    _hipcc()
    monkeypatch.chdir(tree / "src")
    original = (tree / "src" / "k.cu").read_bytes()
    result = runner.invoke(app, ["tune", "..", "--target", "MI300X", "--apply", "--no-nvcc"])
    assert result.exit_code == 0, result.output
    changed = (tree / "src" / "k.cu").read_bytes()
    assert b"staged<<<(n + 511) / 512, 512, 16384>>>" in changed
    assert b"reduce<<<(n + THREADS - 1) / THREADS, THREADS>>>" in changed  # unsafe: left alone
    assert (tree / ".porter" / "backup" / "src" / "k.cu").read_bytes() == original
    manifest = json.loads((tree / ".porter" / "manifest.json").read_text())
    assert [(f["output"], f["status"]) for f in manifest["files"]] == [("src/k.cu", "translated")]
    reviewed = runner.invoke(app, ["review", "..", decision])
    assert reviewed.exit_code == 0, reviewed.output
    assert (tree / "src" / "k.cu").read_bytes() == (changed if kept else original)


PRESSURE = b"""\
__global__ void pressure(const double* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double acc[96];
#pragma unroll
  for (int r = 0; r < 96; ++r) acc[r] = in[(i * 96 + r) % n];
  double s = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k)
#pragma unroll
    for (int r = 0; r < 96; ++r) acc[r] = acc[r] * acc[(r * 7 + k) % 96] + in[(r + k) % n];
#pragma unroll
  for (int r = 0; r < 96; ++r) s += acc[r] * r;
  if (i < n) out[i] = s;
}
void run(const double* x, double* y, int n) { pressure<<<(n + 255) / 256, 256>>>(x, y, n); }
"""


@pytest.mark.hipcc
def test_launch_bounds_are_added_where_they_stop_spills(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One file on the command line (no cuda_runtime.h include, as nvcc allows); the kernel spills under the
    default 1024-thread bound and every launch uses 256 threads."""
    _hipcc()
    (tmp_path / "p.cu").write_bytes(PRESSURE)
    monkeypatch.chdir(tmp_path)
    before = json.loads(runner.invoke(app, ["tune", "p.cu", "--no-nvcc", "--format", "json"]).stdout)
    (site,) = before["sites"]
    assert site["usage"]["scratch_bytes"] > 0 and site["launch_bounds_suggestion"] == "__launch_bounds__(256)"
    applied = runner.invoke(app, ["tune", "p.cu", "--no-nvcc", "--apply"])
    assert applied.exit_code == 0, applied.output
    assert b"__global__ void __launch_bounds__(256) pressure(" in (tmp_path / "p.cu").read_bytes()
    after = json.loads(runner.invoke(app, ["tune", "p.cu", "--no-nvcc", "--format", "json"]).stdout)
    assert after["sites"][0]["usage"]["scratch_bytes"] < site["usage"]["scratch_bytes"]
    assert after["sites"][0]["launch_bounds_suggestion"] is None  # it has its bounds now


@pytest.mark.hipcc
def test_relative_paths_and_the_cuda_side(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _hipcc()
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not installed: no CUDA side to compare")
    monkeypatch.chdir(tree)
    result = runner.invoke(app, ["tune", "src", "--target", "MI300X", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["cuda_failures"] == {} and data["summary"]["cuda_compiled"] == 1
    staged = next(s for s in data["sites"] if s["kernel"] == "staged")
    assert staged["file"] == "k.cu" and staged["nvidia_usage"]["registers"] > 0
    assert staged["nvidia_occupancy"]["limiter"] == "shared memory"  # 16 KiB + 1 KiB reserved a 2-warp block
