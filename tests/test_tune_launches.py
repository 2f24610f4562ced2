"""Launch sites: what porter resolves from constants, what it calls unknown, and which block changes are safe."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.tune.launches import parse_assumptions, source_facts
from porter.tune.safety import bounds_allow, kernel_safety, rewrite_site

SOURCE = b"""\
#include "config.h"
#define BLOCK 256
#define DIV_UP(a, b) (((a) + (b) - 1) / (b))
constexpr int kTile = 16;
enum { kWarps = 4 };
template <int B>
__global__ void __launch_bounds__(B, 2) tk(float* p, int n) { p[threadIdx.x + blockIdx.x * blockDim.x] = 0; }
__global__ void g(float* p) {}
void host(float* d, int n, int user) {
  int threads = 128;
  int later = 64;
  later = 32;
  const int bytes = 4 * sizeof(float) * kWarps;
  dim3 block(kTile, kTile);
  dim3 grid = dim3(DIV_UP(n, kTile), 4);
  tk<BLOCK><<<(n + BLOCK - 1) / BLOCK, BLOCK, bytes, 0>>>(d, n);
  g<<<grid, block>>>(d);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(tk<256>), dim3(n / threads), dim3(threads), 0, 0, d, n);
  g<<<1, later>>>(d);
  g<<<1, user>>>(d);
  g<<<1, CONFIG_THREADS * 2, std::min(1024, 4096)>>>(d);
  g<<<1, unknown_thing()>>>(d);
}
"""


@pytest.fixture
def facts(tmp_path: Path):
    (tmp_path / "config.h").write_text("#pragma once\n#define CONFIG_THREADS (kWarps * 64)\n")
    path = tmp_path / "k.cu"
    path.write_bytes(SOURCE)

    def make(assume: list[str] | None = None):
        return source_facts(path, "k.cu", tmp_path, SOURCE, parse_assumptions(assume or []))
    return make


def test_kernels_and_their_launch_bounds(facts) -> None:
    f = facts()
    tk, g = f.kernels
    assert (tk.name, tk.line, tk.is_template, tk.launch_bounds_text) == ("tk", 7, True, "__launch_bounds__(B, 2)")
    assert tk.launch_bounds is None  # B is the template parameter
    assert (g.name, g.is_template, g.launch_bounds) == ("g", False, None)


def test_launch_configurations_resolve_from_constants(facts) -> None:
    sites = {s.line: s for s in facts().launches}
    assert sites[16].kernel == "tk" and sites[16].template_args == ("256",)
    assert (sites[16].block.describe(), sites[16].shmem.describe()) == ("256", "64")
    assert sites[16].grid.describe() == "unknown (n)" and "parameter" in sites[16].grid.reason
    assert (sites[17].block.describe(), sites[17].syntax) == ("16x16", "chevron")  # dim3 b(x, y): a declaration
    assert sites[18].syntax == "hipLaunchKernelGGL" and sites[18].template_args == ("256",)
    assert sites[18].block.describe() == "128"
    assert "assigned at line 12" in sites[19].block.reason  # `later` changes after its declaration
    assert sites[20].block.unknown_names == ("user",)
    assert (sites[21].block.describe(), sites[21].shmem.describe()) == ("512", "1024")  # a macro from config.h
    assert sites[22].block.unknown_names == ("unknown_thing()",)


def test_assume_supplies_what_porter_cannot_see(facts) -> None:
    sites = {s.line: s for s in facts(["n=1000", "user=96"]).launches}
    assert sites[16].grid.describe() == "4"
    assert sites[17].grid.describe() == "63x4"
    assert sites[18].grid.describe() == "7"
    assert sites[20].block.describe() == "96"


@pytest.mark.parametrize("bad", ["n", "=5", "n=abc", "n=1x2x3x4", "9n=3"])
def test_bad_assumptions_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="--assume"):
        parse_assumptions([bad])


SAFETY = b"""\
#define THREADS 256
#define CEIL(a, b) (((a) + (b) - 1) / (b))
__global__ void ok(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}
__global__ void tile(const float* x, float* y, int n) {
  __shared__ float s[THREADS];
  s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
}
__global__ void literal(const float* x, float* y, int n) {
  int i = blockIdx.x * 256 + threadIdx.x + 0 * blockDim.x;
  y[i] = x[i];
}
__global__ void lanes(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  y[i] = x[i] + lane;
}
__global__ void perblock(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) y[blockIdx.x] = x[i];
}
__global__ void __launch_bounds__(256) bounded(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
__global__ void stride(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[i];
}
void host(const float* x, float* y, int n, int sms) {
  ok<<<(n + 63) / 64, 64>>>(x, y, n);
  ok<<<CEIL(n, 64), 64>>>(x, y, n);
  ok<<<n / 64, 64>>>(x, y, n);
  tile<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, y, n);
  literal<<<(n + 255) / 256, 256>>>(x, y, n);
  lanes<<<(n + 63) / 64, 64>>>(x, y, n);
  perblock<<<(n + 63) / 64, 64>>>(x, y, n);
  stride<<<sms * 4, 64>>>(x, y, n);
  ok<<<sms * 4, 64>>>(x, y, n);
  bounded<<<(n + 63) / 64, 64>>>(x, y, n);
}
"""


@pytest.fixture
def safety_sites(tmp_path: Path):
    path = tmp_path / "s.cu"
    path.write_bytes(SAFETY)
    f = source_facts(path, "s.cu", tmp_path, SAFETY, {})
    kernels = {k.name: k for k in f.kernels}
    from porter.tune.launches import symbols_for

    symbols = symbols_for(path, tmp_path, f.tree, SAFETY)
    return [(s, kernels[s.kernel]) for s in f.launches], symbols


def test_block_size_dependence(safety_sites) -> None:
    sites, symbols = safety_sites
    verdict = {s.line: kernel_safety(k, s, symbols) for s, k in sites}
    assert verdict[32].safe and verdict[33].safe and verdict[39].safe
    assert any("sized from the block size" in r for r in verdict[35].reasons)
    assert any("literal 256" in r for r in verdict[36].reasons)
    assert any("lane/warp arithmetic" in r for r in verdict[37].reasons)
    assert any("blockIdx on its own" in r for r in verdict[38].reasons)


def test_launch_site_rewrites_keep_the_work(safety_sites) -> None:
    sites, symbols = safety_sites
    by_line = {s.line: (s, k) for s, k in sites}

    def rewrite(line: int, block: int = 256):
        s, k = by_line[line]
        return rewrite_site(s, k, block, symbols)

    def apply(line: int, block: int = 256) -> str:
        out = SAFETY
        for start, end, data in sorted(rewrite(line, block).edits, reverse=True):
            out = out[:start] + data + out[end:]
        return out.decode().splitlines()[line - 1].strip()

    assert apply(32) == "ok<<<(n + 255) / 256, 256>>>(x, y, n);"
    assert apply(33) == "ok<<<CEIL(n, 256), 256>>>(x, y, n);"
    assert "ceil(work / block)" in (rewrite(34).reason or "")  # n / 64 drops the tail: not ceil(n / 64)
    assert apply(39) == "stride<<<sms * 4, 256>>>(x, y, n);"  # grid-stride loop: only the block changes
    assert "grid-stride" in (rewrite(40).reason or "")  # a fixed grid without one would lose work


def test_launch_bounds_cap_the_block_size(safety_sites) -> None:
    sites, _symbols = safety_sites
    bounded = next(k for s, k in sites if k.name == "bounded")
    assert bounded.launch_bounds == 256
    assert bounds_allow(bounded, 256) is None
    assert "forbids blocks of more than 256" in (bounds_allow(bounded, 512) or "")
