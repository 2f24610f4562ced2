"""Shims: which are needed, installing them with relative includes, and compiling each with the real hipcc."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.fix.rules import all_rules
from porter.fix.shims import OUT_DIRNAME, SHIMS_DIR, add_shim_include, all_shims, install_shims, needed_shims
from porter.translate.options import RocmVersion

ROCM_52 = RocmVersion(5, 2)
ROCM_64 = RocmVersion(6, 4)
ROCM_70 = RocmVersion(7, 0)
ROCM_71 = RocmVersion(7, 1)


def test_index_lists_existing_files_with_a_semantics_comment() -> None:
    for shim in all_shims().values():
        text = (SHIMS_DIR / shim.file).read_text()
        assert "differ" in text.split("#ifndef", 1)[0], f"{shim.file}: no comment on how it differs from CUDA"
        # a shim with no identifiers of its own is installed by a fixer rule that names it, on the compiler's error,
        # or by the includes it stands for
        assert shim.provides or shim.replaces_include or shim.name in {r.params.get("shim") for r in all_rules()}, \
            shim.name


def test_needed_shims_by_identifier_and_version() -> None:
    text = "__global__ void k(float* p) { p[0] = __shfl_down_sync(0xffffffff, p[0], 1); __nanosleep(5); }"
    assert needed_shims(text, ROCM_52) == {"porter_warp_sync", "porter_nanosleep"}
    assert needed_shims(text, ROCM_64) == {"porter_warp_sync", "porter_nanosleep"}  # enables HIP's own
    assert needed_shims(text, ROCM_70) == {"porter_nanosleep"}
    assert "porter_warp_sync" in needed_shims(text, None)  # unknown ROCm: the shim guards itself
    policy = "hipStreamSetAttribute(s, hipStreamAttributeAccessPolicyWindow, &a); hipCtxResetPersistingL2Cache();"
    assert needed_shims(policy, ROCM_64) == {"porter_access_policy", "porter_persisting_l2"}
    assert needed_shims(policy, ROCM_71) == {"porter_persisting_l2"}  # no HIP has hipCtxResetPersistingL2Cache


def test_needed_shims_ignores_comments_and_members() -> None:
    assert needed_shims("// __syncwarp() is not used\nint x = obj.__activemask;", ROCM_52) == set()


def test_needed_shims_follows_cooperative_groups_alias() -> None:
    text = "namespace cgx = cooperative_groups;\n int r = cgx::reduce(tile, v, cgx::plus<int>());"
    assert needed_shims(text, ROCM_70) == {"porter_cg_reduce"}


def test_install_shims_copies_only_needed_and_is_idempotent(tmp_path: Path) -> None:
    sub = tmp_path / "src" / "kernels"
    sub.mkdir(parents=True)
    f = sub / "k.hip"
    f.write_text("// header\n#include <hip/hip_runtime.h>\n__device__ void w() { __syncwarp(); }\n")
    plain = tmp_path / "plain.hip"
    plain.write_text("#include <hip/hip_runtime.h>\n")
    added = install_shims(tmp_path, [f, plain], ROCM_52)
    assert added == {"src/kernels/k.hip": ["porter_syncwarp"]}
    assert sorted(p.name for p in (tmp_path / OUT_DIRNAME).iterdir()) == ["porter_syncwarp.h"]
    lines = f.read_text().splitlines()
    assert lines[1] == "#include <hip/hip_runtime.h>"
    assert lines[2] == '#include "../../porter_shims/porter_syncwarp.h"  // porter shim'
    once = f.read_text()
    assert install_shims(tmp_path, [f, plain], ROCM_52) == {}
    assert f.read_text() == once


def test_add_shim_include_without_hip_include() -> None:
    line = '#include "porter_shims/porter_nanosleep.h"\n'
    assert add_shim_include("#pragma once\nint x;\n", line, "porter_nanosleep.h") == "#pragma once\n" + line + "int x;\n"
    assert add_shim_include("int x;\n", line, "porter_nanosleep.h") == line + "int x;\n"


KERNEL = """#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
#define FULL_MASK 0xffffffffffffffffull
__global__ void k(float* p, int* q, unsigned long long* b) {
  float v = p[threadIdx.x];
  v += __shfl_down_sync(FULL_MASK, v, 1);
  v += __shfl_up_sync(FULL_MASK, v, 1);
  v += __shfl_xor_sync(0xffffffffffffffffull, v, 1);
  v += __shfl_sync(FULL_MASK, v, 0);
  b[0] = __ballot_sync(FULL_MASK, v > 0);
  q[0] = __any_sync(FULL_MASK, v > 1) + __all_sync(FULL_MASK, v > 2);
  b[1] = __activemask();
  __syncwarp();
  __syncwarp(FULL_MASK);
  __nanosleep(100);
  __shared__ int buf[PORTER_WARP_SIZE];
  buf[threadIdx.x % PORTER_WARP_SIZE] = 1;
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  q[1] = cg::reduce(tile, q[2], cg::plus<int>()) + buf[0];
  q[2] = cg::reduce(tile, q[3], cg::less<int>());
  p[1] = cg::reduce(tile, p[2], cg::greater<float>());
  q[4] = __reduce_add_sync(FULL_MASK, q[5]) + __reduce_max_sync(0x0000ffff0000ffffull, q[6]);
  if (threadIdx.x & 1) {  // the odd lanes: a coalesced group, as a binary partition gives
    cg::coalesced_group odd = cg::coalesced_threads();
    q[3] = cg::reduce(odd, q[4], cg::plus<int>());
  }
}
#ifndef __CUDA_RUNTIME_H__
#error guard not defined
#endif
int main() {
  hipStream_t s;
  hipStreamCreate(&s);
  hipStreamAttrValue attr = {};
  attr.accessPolicyWindow.hitRatio = 0.6f;
  attr.accessPolicyWindow.hitProp = hipAccessPropertyPersisting;
  hipStreamSetAttribute(s, hipStreamAttributeAccessPolicyWindow, &attr);
  hipStreamGetAttribute(s, hipStreamAttributeAccessPolicyWindow, &attr);
  hipCtxResetPersistingL2Cache();
  return 0;
}
"""


def _with_shims(tmp_path: Path, name: str, text: str, rocm: RocmVersion | None, only: set[str] | None = None) -> Path:
    root = tmp_path / name
    root.mkdir()
    src = root / "all.hip"
    src.write_text(text)
    install_shims(root, [src], rocm, only=None if only is None else {src: only})
    return src


@pytest.mark.hipcc
def test_the_shims_porter_picks_make_it_compile(hip_toolchain, tmp_path: Path) -> None:
    """For this toolchain's ROCm, porter includes exactly the shims it lacks, and the kernel compiles (-c, every
    test arch); a shim porter leaves out is one whose names this ROCm declares itself."""
    picked = needed_shims(KERNEL, hip_toolchain.rocm)
    used = {name for name, shim in all_shims().items() if any(i.rsplit("::", 1)[-1] in KERNEL for i in shim.provides)}
    assert picked == {name for name in used if all_shims()[name].needed_for(hip_toolchain.rocm)}
    src = _with_shims(tmp_path, "picked", KERNEL, hip_toolchain.rocm)
    proc = hip_toolchain.compile(src)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.hipcc
def test_every_shim_porter_picks_is_needed(hip_toolchain, tmp_path: Path) -> None:
    """Leaving out any one of the shims porter picks for this ROCm breaks the kernel (a shim is never dead weight)."""
    picked = sorted(needed_shims(KERNEL, hip_toolchain.rocm))
    files = {all_shims()[name].file for name in picked}
    survivors = []
    for name in picked:
        # shims sharing a header (porter_access_policy.h) come and go together
        rest = {n for n in picked if all_shims()[n].file != all_shims()[name].file}
        if {all_shims()[n].file for n in rest} == files:
            continue
        src = _with_shims(tmp_path, f"without-{name}", KERNEL, hip_toolchain.rocm, only=rest)
        if hip_toolchain.compile(src, "-fsyntax-only").returncode == 0:
            survivors.append(name)
    assert survivors == [], f"the kernel compiles on {hip_toolchain.id} without {survivors}"


WARP_SYNC = """#include <hip/hip_runtime.h>
__global__ void k(float* p) {
  MASK_TYPE mask = 0xffffffffu;  // CUDA's FULL_MASK, held in a variable
  p[0] = __shfl_sync(mask, p[0], 0) + (__activemask() != 0);
#if defined(PORTER_WARP_SYNC_STAND_INS) != STAND_INS
#error porter's stand-ins in use: PORTER_WARP_SYNC_STAND_INS was not what the test expects
#endif
}
"""


def _warp_sync_file(path: Path, shim_first: bool) -> Path:
    shim = f'#include "{SHIMS_DIR / "porter_warp_sync.h"}"\n'
    body = WARP_SYNC if shim_first else WARP_SYNC.replace("\n", "\n" + shim, 1)
    path.write_text(shim + body if shim_first else body)
    return path


@pytest.mark.hipcc
def test_warp_sync_uses_hips_own_builtins_where_it_can(hip_toolchain, tmp_path: Path) -> None:
    """Before ROCm 6.2 porter's stand-ins serve (a 32-bit mask is accepted). On 6.2-6.4 the shim, included before
    the HIP headers as porter places it, enables HIP's own builtins, whose static_assert rejects a 32-bit mask;
    where a HIP header came first (too late to enable them) the stand-ins serve again."""
    src = _with_shims(tmp_path, "placed", WARP_SYNC, hip_toolchain.rocm, only={"porter_warp_sync"})
    lines = src.read_text().splitlines()
    assert lines[0].endswith('porter_warp_sync.h"  // porter shim') and lines[1] == "#include <hip/hip_runtime.h>"
    early = _warp_sync_file(tmp_path / "early.hip", shim_first=True)
    late = _warp_sync_file(tmp_path / "late.hip", shim_first=False)
    hip_has_them = hip_toolchain.rocm is not None and hip_toolchain.rocm >= RocmVersion(6, 2)
    own = "-DSTAND_INS=0" if hip_has_them else "-DSTAND_INS=1"
    proc = hip_toolchain.compile(early, "-fsyntax-only", "-DMASK_TYPE=unsigned", own)
    if hip_has_them:
        assert proc.returncode != 0 and "The mask must be a 64-bit integer" in proc.stderr, proc.stderr[-2000:]
    else:
        assert proc.returncode == 0, proc.stderr[-2000:]
    proc = hip_toolchain.compile(early, "-fsyntax-only", "-DMASK_TYPE=unsigned long long", own)
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = hip_toolchain.compile(late, "-fsyntax-only", "-DMASK_TYPE=unsigned", "-DSTAND_INS=1")
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_shim_include_keeps_crlf_and_non_utf8_bytes(tmp_path: Path) -> None:
    src = (b"#include <hip/hip_runtime.h>\r\n// caf\xe9\r\n"
           b"__global__ void k(float* v) { v[0] = __shfl_down_sync(0xffffffffffffffffULL, v[0], 1); }\r\n")
    (tmp_path / "a.hip").write_bytes(src)
    assert install_shims(tmp_path, [tmp_path / "a.hip"], ROCM_52) == {"a.hip": ["porter_warp_sync"]}
    out = (tmp_path / "a.hip").read_bytes()
    # the warp-sync shim goes before the HIP include (it must act before HIP's headers)
    assert out == b'#include "porter_shims/porter_warp_sync.h"  // porter shim\r\n' + src
