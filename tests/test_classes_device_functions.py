"""Class 4 of the real-code issue: device functions HIP spells differently or lacks.

umin/umax/llmin/llmax/ullmin/ullmax, the directed-rounding arithmetic, the round-to-nearest intrinsics HIP computes
differently (__fmul_rn & co. fused into fmas, __fsqrt_rn approximate), the scoped atomics HIP lacks and
__grid_constant__: each gets a shim; translation, compiles on every compiler found, the premises (what HIP lacks)
on each compiler, and the rounding shim's values on the host, bit for bit against the x86 FPU's directed rounding.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.hip_compile import Compiler, compiler_params, compilers, need

from porter.fix.shims import SHIMS_DIR, install_shims, needed_shims
from porter.translate import RocmVersion, TranslateOptions, translate

DATA = Path(__file__).parent / "data" / "classes"
ROCM_52 = RocmVersion(5, 2)

CUDA_KERNEL = textwrap.dedent("""\
    #include <cuda_runtime.h>
    struct Params { float m[6]; int n; };
    __device__ float first(const Params* p) { return p->m[0]; }
    __global__ void k(const __grid_constant__ Params p, float* f, double* d, unsigned* u, long long* l,
                      unsigned long long* q, int* i) {
      u[0] = umin(u[1], u[2]); u[1] = umax(u[2], 7);
      l[0] = llmin(l[1], l[2]); l[1] = llmax(l[2], -1);
      q[0] = ullmin(q[1], q[2]); q[1] = ullmax(q[2], q[3]);
      f[0] = __fadd_rd(f[1], f[2]) + __fsub_ru(f[3], f[4]) + __fmul_rz(f[5], f[6]) + __fdiv_rd(f[7], f[8]);
      f[1] = __frcp_ru(f[9]) + __fsqrt_rd(f[10]) + __fmaf_rz(f[11], f[12], f[13]);
      d[0] = __dadd_ru(d[1], d[2]) + __dsub_rd(d[3], d[4]) + __dmul_ru(d[5], d[6]) + __ddiv_rz(d[7], d[8]);
      d[1] = __drcp_rd(d[9]) + __dsqrt_ru(d[10]) + __fma_rd(d[11], d[12], d[13]);
      f[2] = __fadd_rn(__fmul_rn(f[1], f[2]), f[3]) + __fsqrt_rn(f[4]);
      d[2] = __dadd_rn(__dmul_rn(d[1], d[2]), d[3]) - __dsub_rn(d[4], d[5]);
      atomicAdd_block(i, 1); atomicAdd_block(f, 1.0f); atomicSub_block(u, 2u); atomicExch_block(q, 3ull);
      atomicMin_block(l, 4ll); atomicMax_block(u, 5u); atomicAnd_block(i, 6); atomicOr_block(q, 7ull);
      atomicXor_block(u, 8u); atomicCAS_block(i, 0, 1); atomicInc_block(u, 9u); atomicDec_block(u, 9u);
      atomicInc_system(u, 10u); atomicDec_system(u, 10u); atomicMax_system(u, 11u);
      atomicMin(l, 12ll); atomicMax(l, 13ll);
      f[3] = first(&p) + p.n;
    }
    """)


def _port(tmp_path: Path, name: str, source: str, rocm: RocmVersion | None = None) -> tuple[Path, list]:
    result = translate(source.encode(), TranslateOptions(rocm=rocm))
    root = tmp_path / name
    root.mkdir()
    path = root / "k.hip"
    path.write_bytes(result.output)
    install_shims(root, [path], rocm)
    return path, result.unconverted


def test_nothing_is_left_unconverted_and_the_rn_intrinsics_are_renamed() -> None:
    result = translate(CUDA_KERNEL.encode(), TranslateOptions())
    assert result.unconverted == []
    out = result.output.decode()
    for name in ("__fadd_rn", "__fmul_rn", "__fsqrt_rn", "__dadd_rn", "__dmul_rn", "__dsub_rn"):
        assert name not in out and f"porter_{name[2:]}" in out
    assert "__fadd_rd(" in out and "umin(" in out and "__grid_constant__" in out  # HIP's spelling via the shims
    assert needed_shims(out, ROCM_52) >= {"porter_minmax", "porter_rounding", "porter_scoped_atomics",
                                           "porter_grid_constant"}


def test_shims_name_what_differs() -> None:
    for name in ("porter_minmax.h", "porter_rounding.h", "porter_scoped_atomics.h", "porter_grid_constant.h"):
        head = (SHIMS_DIR / name).read_text().split("#ifndef", 1)[0]
        assert "differs from CUDA" in head, name


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_the_port_compiles(compiler: Compiler | None, tmp_path: Path) -> None:
    compiler = need(compiler)
    path, _ = _port(tmp_path, "port", CUDA_KERNEL, compiler.rocm)
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_hip_lacks_what_the_shims_provide(compiler: Compiler | None, tmp_path: Path) -> None:
    """Without the shims each family fails on this compiler (the shims are not dead weight); with
    -DOCML_BASIC_ROUNDED_OPERATIONS HIP's own _rd functions do not link (5.2: none; 6.4: not div/sqrt)."""
    compiler = need(compiler)
    cases = {
        "minmax": "__global__ void k(unsigned* u) { u[0] = umin(u[1], u[2]); }",
        "rounding": "__global__ void k(float* f) { f[0] = __fadd_rd(f[1], f[2]); }",
        "block": "__global__ void k(int* i) { atomicAdd_block(i, 1); }",
        "inc_system": "__global__ void k(unsigned* u) { atomicInc_system(u, 3u); }",
        "grid_constant": "struct P { int n; };\n__global__ void k(const __grid_constant__ P p, int* o) { o[0] = p.n; }",
    }
    compiled = {}
    for name, code in cases.items():
        path = tmp_path / f"{name}.hip"
        path.write_text("#include <hip/hip_runtime.h>\n" + code + "\n")
        compiled[name] = compiler.compile(path, "-fsyntax-only").returncode == 0
    assert not any(compiled.values()), compiled
    div = tmp_path / "ocml_div.hip"
    div.write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* f) { f[0] = __fdiv_rd(f[1], f[2]); }\n")
    proc = compiler.compile(div, "-DOCML_BASIC_ROUNDED_OPERATIONS")
    assert proc.returncode != 0 and "__ocml_div_rtn_f32" in proc.stderr, proc.stderr[-2000:]


def _device_asm(compiler: Compiler, tmp_path: Path, name: str, code: str) -> str:
    path = tmp_path / f"{name}.hip"
    path.write_text(f'#include <hip/hip_runtime.h>\n#include "{SHIMS_DIR / "porter_rounding.h"}"\n{code}\n')
    out = tmp_path / f"{name}.s"
    proc = subprocess.run([compiler.hipcc, f"--offload-arch={compiler.arches[0]}", "-O3", "--cuda-device-only", "-S",
                           str(path), "-o", str(out)], capture_output=True, text=True, check=False,
                          env={**os.environ, "HIP_PLATFORM": "amd"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out.read_text()


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_rn_stand_ins_are_not_fused_or_approximate(compiler: Compiler | None, tmp_path: Path) -> None:
    """HIP's own __fadd_rn(__fmul_rn(a, b), c) becomes one fma and its __fsqrt_rn one v_sqrt_f32 (the premise);
    porter's stand-ins keep the multiply and the add apart and take a correctly rounded square root."""
    compiler = need(compiler)
    hip = _device_asm(compiler, tmp_path, "hip", "__global__ void k(float* p) "
                      "{ p[0] = __fadd_rn(__fmul_rn(p[1], p[2]), p[3]); p[4] = __fsqrt_rn(p[5]); }")
    assert re.search(r"v_fma[c]?_f32", hip) and "v_sqrt_f32" in hip
    ours = _device_asm(compiler, tmp_path, "porter", "__global__ void k(float* p) "
                       "{ p[0] = porter_fadd_rn(porter_fmul_rn(p[1], p[2]), p[3]); p[4] = porter_fsqrt_rn(p[5]); }")
    assert not re.search(r"v_fma[c]?_f32|v_mac_f32|v_mad_f32", ours) and "v_mul_f32" in ours and "v_add_f32" in ours
    assert "v_sqrt_f32" not in ours


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params()[:1])
def test_directed_rounding_matches_the_fpu_bit_for_bit(compiler: Compiler | None, tmp_path: Path) -> None:
    """The shim's float and double _rd/_ru/_rz, compiled for the host, against the x86 FPU in the same rounding
    mode: random bit patterns (NaNs, infinities, subnormals), cancellations, products near underflow and overflow,
    special values. The device runs the same code compiled for AMDGPU, which was not run here (no GPU)."""
    compiler = need(compiler)
    exe = tmp_path / "rounding_values"
    proc = subprocess.run([compiler.hipcc, "--cuda-host-only", "-std=c++17", "-O2", "-frounding-math", "-mfma",
                           f"-I{SHIMS_DIR}", "-x", "hip", str(DATA / "rounding_values.hip"), "-o", str(exe)],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "HIP_PLATFORM": "amd"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = subprocess.run([str(exe), "40000"], capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]
    m = re.search(r"(\d+) checks, 0 failures", run.stdout)
    assert m and int(m[1]) > 8_000_000, run.stdout[-500:]


@pytest.mark.hipcc
def test_long_long_atomic_minmax_on_rocm_52_gets_the_shim_from_a_rule(tmp_path: Path) -> None:
    """ROCm 5.2 has no atomicMax(long long*): the build fails with 'no matching function', and the rule fixer
    includes the scoped-atomics shim, after which the port builds (porter convert, as a user runs it)."""
    if not any(c.rocm == ROCM_52 and Path(c.hipcc).name == "hipcc" for c in compilers()):
        need(None) if not compilers() else pytest.skip("needs ROCm 5.2's hipcc on PATH (what porter convert builds with)")
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("#include <cuda_runtime.h>\n"
                              "__global__ void k(long long* l) { atomicMax(l, 3ll); atomicMin_system(l, 1ll); }\n")
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "src", "-o", "out"], capture_output=True,
                          text=True, check=False, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "atomic-minmax-long-long" in (tmp_path / "out" / ".porter" / "report.json").read_text()
    assert "porter_scoped_atomics.h" in (tmp_path / "out" / "k.cu").read_text()
