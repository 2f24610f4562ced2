"""WMMA (CUDA's mma.h, nvcuda::wmma) ports to porter's shim (porter_wmma.h): CUDA's API on ordinary lanes, 32 to a
fragment, for every shape and element type CUDA has apart from the sub-byte experimental ones.

No AMD GPU runs here: the shim's arithmetic was checked against CUDA's own WMMA on an NVIDIA H200
(scripts/wmma_reference/cmp.cu, the shim built with nvcc); the record of that run must be of the shim as it is now.
The ports are compiled with the real hipcc for gfx90a (Debian's 5.2) and gfx942/gfx950 (6.4).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from support.convert import port_tree
from support.toolchains import newer_hipcc, system_hipcc

from porter.fix.shims import SHIMS_DIR, needed_shims
from porter.translate import RocmVersion, TranslateOptions, translate

REFERENCE = Path(__file__).resolve().parents[1] / "scripts" / "wmma_reference"

# every shape and type the shim provides, CUDA's spelling; a warp per tile as CUDA code writes it
ALL_SHAPES = b"""#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
using namespace nvcuda;

template <int M, int N, int K, typename TA, typename S, typename TC>
__global__ void tile(const S* a, const S* b, const TC* c, TC* d, int ld, float alpha) {
    const int warp = threadIdx.x / 32;
    wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> acc, fc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a + warp * M * ld, ld);
    wmma::load_matrix_sync(fb, b + warp * N * ld, ld);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::load_matrix_sync(fc, c + warp * M * ld, ld, wmma::mem_col_major);
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] = TC(alpha) * acc.x[i] + fc.x[i];
    wmma::store_matrix_sync(d + warp * M * ld, fc, ld, wmma::mem_row_major);
}

template __global__ void tile<16, 16, 16, half, half, float>(const half*, const half*, const float*, float*, int, float);
template __global__ void tile<32, 8, 16, half, half, half>(const half*, const half*, const half*, half*, int, float);
template __global__ void tile<8, 32, 16, __nv_bfloat16, __nv_bfloat16, float>(const __nv_bfloat16*, const __nv_bfloat16*, const float*, float*, int, float);
template __global__ void tile<16, 16, 16, signed char, signed char, int>(const signed char*, const signed char*, const int*, int*, int, float);
template __global__ void tile<16, 16, 8, wmma::precision::tf32, float, float>(const float*, const float*, const float*, float*, int, float);
template __global__ void tile<8, 8, 4, double, double, double>(const double*, const double*, const double*, double*, int, float);

__global__ void round_tf32(float* p) { p[threadIdx.x] = wmma::__float_to_tf32(p[threadIdx.x]); }
__global__ void saturating(const unsigned char* a, const unsigned char* b, int* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc, true);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

int main() {
    half *a, *b;
    float *c, *d;
    cudaMalloc(&a, 4 * 16 * 64 * sizeof(half));
    cudaMalloc(&b, 4 * 16 * 64 * sizeof(half));
    cudaMalloc(&c, 4 * 16 * 64 * sizeof(float));
    cudaMalloc(&d, 4 * 16 * 64 * sizeof(float));
    tile<16, 16, 16, half, half, float><<<1, 128>>>(a, b, c, d, 64, 2.0f);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""

# the names reached through `using namespace` in a header the kernel file includes
HEADER = b"""#pragma once
#include <mma.h>
using namespace nvcuda;
using namespace wmma;
typedef fragment<accumulator, 16, 16, 16, float> acc_t;
"""
KERNEL = b"""#include "tiles.cuh"
__global__ void zero(float* out) {
    acc_t acc;
    fill_fragment(acc, 0.0f);
    store_matrix_sync(out, acc, 16, mem_row_major);
}
"""


def test_wmma_is_translated_not_left_unconverted() -> None:
    result = translate(ALL_SHAPES, TranslateOptions(rocm=RocmVersion(6, 4)))
    out = result.output.decode()
    assert "#include <hip/hip_runtime.h>" in out and "<mma.h>" not in out
    assert "using namespace nvcuda;" in out and "wmma::mma_sync(acc, fa, fb, acc);" in out
    assert not [u for u in result.unconverted if "mma" in u.name or "nvcuda" in u.name], result.unconverted
    assert "porter_wmma" in needed_shims(out, RocmVersion(6, 4))


def test_the_shim_is_found_through_using_directives_and_only_where_wmma_is_used() -> None:
    header = translate(HEADER, TranslateOptions(rocm=RocmVersion(6, 4))).output.decode()
    assert "porter_wmma" in needed_shims(header, RocmVersion(6, 4))
    plain = "#include <hip/hip_runtime.h>\n__global__ void k(float* p) { p[0] = 1; }  // no nvcuda here\n"
    assert "porter_wmma" not in needed_shims(plain, RocmVersion(6, 4))


def test_the_shim_was_checked_against_cuda_in_its_current_form() -> None:
    """The H200 record (scripts/wmma_reference/h200_result.txt) names the shim's digest at the run and covers every
    shape of cmp.cu in every layout; change the shim and the check must be run again."""
    record = (REFERENCE / "h200_result.txt").read_text()
    digest = hashlib.sha256((SHIMS_DIR / "porter_wmma.h").read_bytes()).hexdigest()
    assert f"porter_wmma.h sha256 {digest}" in record, "porter_wmma.h changed since the H200 check: run it again"
    shapes = re.findall(r'check_all<[^>]+>\("([^"]+)"\)', (REFERENCE / "cmp.cu").read_text())
    assert len(shapes) >= 12
    lines = [line for line in record.splitlines() if line.startswith(("PASS ", "FAIL "))]
    assert lines and all(line.startswith("PASS ") for line in lines), [x for x in lines if x.startswith("FAIL")]
    for shape in shapes:
        passes = 3 if ("s8" in shape or "u8" in shape) else 2
        # 4 operand layouts x 4 accumulator load/store layouts, per pass
        assert sum(f" {shape} a=" in line for line in lines) == 16 * passes, shape
    assert re.search(rf"^PASS: 0 of {len(lines)} configurations differ$", record, re.M)


def test_the_scan_reports_wmma_once_per_file_as_slow_not_missing() -> None:
    from porter.scan import scan_source
    from porter.targets import resolve_target

    findings = [f for f in scan_source(ALL_SHAPES, "k.cu", resolve_target("gfx942")) if f.rule == "PM001"]
    assert len(findings) == 1 and findings[0].severity == "warning"
    assert "porter_wmma.h" in findings[0].message and "matrix cores" in findings[0].message


@pytest.mark.hipcc
def test_wmma_port_compiles_for_gfx90a_with_rocm_52(tmp_path: Path) -> None:
    hipcc = system_hipcc()
    out = port_tree(tmp_path, {"tiles.cu": ALL_SHAPES.replace(b"#include <cuda_bf16.h>\n", b"")
                                .replace(b"template __global__ void tile<8, 32, 16, __nv_bfloat16", b"// bf16")}, "gfx90a")
    assert "porter_shims/porter_wmma.h" in (out / "tiles.cu").read_text()
    proc = hipcc.compile(out / "tiles.cu")
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"


@pytest.mark.hipcc
def test_wmma_port_compiles_for_gfx942_and_gfx950_with_rocm_6(tmp_path: Path) -> None:
    hipcc = newer_hipcc()
    out = port_tree(tmp_path, {"tiles.cu": ALL_SHAPES, "tiles.cuh": HEADER, "zero.cu": KERNEL}, "gfx942")
    assert "porter_shims/porter_wmma.h" in (out / "tiles.cuh").read_text()
    for unit in ("tiles.cu", "zero.cu"):
        proc = hipcc.compile(out / unit)
        assert proc.returncode == 0, f"{hipcc.label} {unit}:\n{proc.stderr}"
