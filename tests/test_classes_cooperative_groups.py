"""Failure class 8 of the real-code issue: cooperative-groups members HIP lacks, per ROCm version.

HIP 5.2 has no meta_group_rank/meta_group_size (HIP 5.7 adds them); HIP 6.2+ has ballot/any/all/match_* on tiles
and coalesced groups only with HIP_ENABLE_WARP_SYNC_BUILTINS; no HIP up to 6.4 has num_threads/dim_threads, the
grid's block accessors or labeled_partition. porter rewrites `g.member(args)` to `porter_cg::member(g, args)`
(shims/porter_cg_members.h) where the ROCm lacks the member, and the rule fixer does the same on the compiler's
`no member named` error. Compiled with Debian's hipcc 5.2 (gfx90a) and with PORTER_HIPCC (ROCm 6.x, gfx942).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.toolchains import TOOLCHAINS

from porter.build import Diagnostic
from porter.fix import apply_fixers
from porter.translate import RocmVersion, TranslateOptions, translate

SHIMS = Path(__file__).resolve().parents[1] / "shims"

KERNEL = b"""#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void members(const int* in, unsigned* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    auto typed = cg::tiled_partition<16>(block);
    cg::coalesced_group active = cg::coalesced_threads();
    cg::grid_group grid = cg::this_grid();
    unsigned r = tile.meta_group_rank() * tile.meta_group_size() + typed.meta_group_rank();
    r += tile.ballot(in[threadIdx.x] > 0) + tile.any(in[threadIdx.x] == 3) + typed.all(1);
    int same = 0;
    r += tile.match_any(in[threadIdx.x]) + typed.match_all(in[0], same) + same;
    r += (unsigned)active.ballot(1) + active.any(0) + active.all(1);
    r += block.num_threads() + tile.num_threads() + block.dim_threads().x + block.group_dim().y;
    r += (unsigned)(grid.num_threads() + grid.num_blocks() + grid.block_rank()) + grid.block_index().x
         + grid.dim_blocks().y;
    cg::coalesced_group odd = cg::binary_partition(tile, threadIdx.x & 1);
    cg::coalesced_group bucket = cg::labeled_partition(active, (int)(threadIdx.x % 3));
    r += odd.size() + bucket.thread_rank();
    out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
"""


def _port(source: bytes, rocm: RocmVersion | None) -> str:
    return translate(source, TranslateOptions(rocm=rocm)).output.decode()


def test_members_hip_lacks_become_porter_cg_calls_per_rocm() -> None:
    old = _port(KERNEL, RocmVersion(5, 2))
    assert "porter_cg::meta_group_rank(tile) * porter_cg::meta_group_size(tile)" in old
    assert "porter_cg::ballot(tile, in[threadIdx.x] > 0)" in old
    assert "porter_cg::match_all(typed, in[0], same)" in old
    assert "porter_cg::num_threads(block)" in old and "porter_cg::dim_threads(block).x" in old
    assert "porter_cg::group_dim(block).y" in old  # Learn CUDA Programming's reductions; HIP 5.2 lacks it
    assert "porter_cg::block_index(grid).x" in old
    assert "." + "meta_group_rank()" not in old
    new = _port(KERNEL, RocmVersion(6, 4))
    assert "tile.meta_group_rank() * tile.meta_group_size()" in new  # HIP 5.7+ has them
    assert "porter_cg::ballot(tile, in[threadIdx.x] > 0)" in new  # still behind HIP_ENABLE_WARP_SYNC_BUILTINS
    assert "porter_cg::num_threads(block)" in new  # no HIP up to 6.4 has it
    assert "block.group_dim().y" in new
    unknown = _port(KERNEL, None)
    assert "tile.meta_group_rank()" in unknown and "porter_cg::any(tile, " in unknown
    # porting the port changes nothing
    assert _port(old.encode(), RocmVersion(5, 2)) == old


def test_rewrite_needs_cooperative_groups_and_the_members_arity() -> None:
    other = b"struct Bits { bool any() const; };\nbool f(Bits b, Bits* p) { return b.any() || p->all(); }\n"
    assert translate(other, TranslateOptions(rocm=RocmVersion(5, 2))).output == other
    mixed = (b"#include <cooperative_groups.h>\n#include <bitset>\nnamespace cg = cooperative_groups;\n"
             b"__device__ int f(std::bitset<8> bits, cg::thread_block_tile<32>* tile) {\n"
             b"  return bits.any() + tile->any(1) + /* tile.ballot(1) */ 0;\n}\n")
    out = _port(mixed, RocmVersion(5, 2))
    assert "bits.any() + porter_cg::any(*tile, 1) + /* tile.ballot(1) */ 0" in out


def test_shim_is_included_where_porter_cg_is_used(tmp_path: Path) -> None:
    from porter.fix import needed_shims

    assert "porter_cg_members" in needed_shims(_port(KERNEL, RocmVersion(6, 4)), RocmVersion(6, 4))
    assert "porter_cg_members" not in needed_shims("__global__ void k() {}\n", RocmVersion(6, 4))


@pytest.mark.parametrize(("line", "column", "expected"), [
    ("  x = tile.meta_group_rank();\n", 12, "  x = porter_cg::meta_group_rank(tile);\n"),
    ("  x = tiles[i % 2].ballot(v > 0);\n", 20, "  x = porter_cg::ballot(tiles[i % 2], v > 0);\n"),
    ("  if (p->any(1)) {}\n", 10, "  if (porter_cg::any(*p, 1)) {}\n"),
    ("  x = cg::tiled_partition<32>(block).meta_group_size() + 1;\n", 38,
     "  x = porter_cg::meta_group_size(cg::tiled_partition<32>(block)) + 1;\n"),
])
def test_fixer_rewrites_the_member_the_compiler_says_is_missing(tmp_path: Path, line: str, column: int,
                                                                 expected: str) -> None:
    src = tmp_path / "k.hip"
    src.write_text("#include <hip/hip_runtime.h>\n" + line)
    member = line[column - 1:].split("(")[0]
    diag = Diagnostic("k.hip", 2, column, "error",
                      f"no member named '{member}' in 'cooperative_groups::thread_block_tile<32, void>'")
    fixes = apply_fixers(tmp_path, [diag])
    assert [f.rule for f in fixes] == ["cg-member-call"]
    text = src.read_text()
    assert text.splitlines(keepends=True)[-1] == expected
    assert "porter_shims/porter_cg_members.h" in text
    # the same error again (a second template instantiation) finds nothing left to rewrite
    assert apply_fixers(tmp_path, [diag]) == []


def test_fixer_leaves_members_of_other_types(tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text("int f(S s) { return s.any(1); }\n")
    diag = Diagnostic("k.hip", 1, 23, "error", "no member named 'any' in 'S'")
    assert apply_fixers(tmp_path, [diag]) == []


@pytest.mark.hipcc
@pytest.mark.parametrize("toolchain", sorted(TOOLCHAINS))
@pytest.mark.parametrize("opt_in", [False, True], ids=["plain", "warp-sync-builtins"])
def test_translated_members_compile(tmp_path: Path, toolchain: str, opt_in: bool) -> None:
    hipcc = TOOLCHAINS[toolchain]()
    if opt_in and hipcc.version < (6, 2):
        pytest.skip("HIP_ENABLE_WARP_SYNC_BUILTINS exists from ROCm 6.2")
    rocm = RocmVersion(*hipcc.version)
    out = _port(KERNEL, rocm)
    (tmp_path / "porter_shims").mkdir()
    shutil.copy(SHIMS / "porter_cg_members.h", tmp_path / "porter_shims")
    src = tmp_path / "members.hip"
    src.write_text(("#define HIP_ENABLE_WARP_SYNC_BUILTINS\n" if opt_in else "")
                   + out.replace("namespace cg", '#include "porter_shims/porter_cg_members.h"\nnamespace cg', 1))
    proc = hipcc.compile(src)
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"


@pytest.mark.hipcc
def test_convert_builds_through_the_fixer_when_translated_for_a_newer_rocm(tmp_path: Path) -> None:
    """Translated for 6.4 (meta_group_rank kept), built with 5.2: the fixer rewrites what 5.2 lacks."""
    hipcc = TOOLCHAINS["rocm52"]()
    if hipcc.version >= (5, 7):
        pytest.skip("needs a HIP without meta_group_rank (before 5.7)")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "k.cu").write_bytes(KERNEL)
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(project), "-o", str(tmp_path / "out"),
                           "--rocm", "6.4", "--target", "gfx90a"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert "build ok" in proc.stderr
    ported = (tmp_path / "out" / "k.cu").read_text()
    assert "porter_cg::meta_group_rank(tile)" in ported
