"""Shims: which are needed, installing them with relative includes, and compiling each with the real hipcc."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from porter.fix.shims import OUT_DIRNAME, SHIMS_DIR, add_shim_include, all_shims, install_shims, needed_shims
from porter.translate.options import RocmVersion

ROCM_52 = RocmVersion(5, 2)
ROCM_70 = RocmVersion(7, 0)


def _hipcc() -> str:
    found = shutil.which("hipcc")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    return found


def test_index_lists_existing_files_with_a_semantics_comment() -> None:
    for shim in all_shims().values():
        text = (SHIMS_DIR / shim.file).read_text()
        assert "differ" in text.split("#ifndef", 1)[0], f"{shim.file}: no comment on how it differs from CUDA"
        assert shim.provides


def test_needed_shims_by_identifier_and_version() -> None:
    text = "__global__ void k(float* p) { p[0] = __shfl_down_sync(0xffffffff, p[0], 1); __nanosleep(5); }"
    assert needed_shims(text, ROCM_52) == {"porter_warp_sync", "porter_nanosleep"}
    assert needed_shims(text, ROCM_70) == {"porter_nanosleep"}
    assert "porter_warp_sync" in needed_shims(text, None)  # unknown ROCm: the shim guards itself


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
#define FULL_MASK 0xffffffff
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


@pytest.mark.hipcc
def test_every_shim_compiles_with_a_kernel_using_it(tmp_path: Path) -> None:
    hipcc = _hipcc()
    src = tmp_path / "all.hip"
    src.write_text(KERNEL)
    installed = install_shims(tmp_path, [src], ROCM_52, only={src: set(all_shims())})
    assert installed == {"all.hip": sorted(all_shims())}
    proc = subprocess.run([hipcc, "--offload-arch=gfx90a", "-c", str(src), "-o", str(tmp_path / "all.o")],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"}, check=False)
    assert proc.returncode == 0, proc.stderr


def test_shim_include_keeps_crlf_and_non_utf8_bytes(tmp_path: Path) -> None:
    src = (b"#include <hip/hip_runtime.h>\r\n// caf\xe9\r\n"
           b"__global__ void k(float* v) { v[0] = __shfl_down_sync(0xffffffffffffffffULL, v[0], 1); }\r\n")
    (tmp_path / "a.hip").write_bytes(src)
    assert install_shims(tmp_path, [tmp_path / "a.hip"], ROCM_52) == {"a.hip": ["porter_warp_sync"]}
    out = (tmp_path / "a.hip").read_bytes()
    assert out == src.replace(b"\r\n// caf", b'\r\n#include "porter_shims/porter_warp_sync.h"  // porter shim\r\n// caf', 1)
