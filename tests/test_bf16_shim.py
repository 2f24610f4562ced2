"""cuda_bf16.h on every ROCm: porter_bf16.h.

HIP's hip/hip_bf16.h arrives with ROCm 5.7 (Debian's 5.2 has only the unrelated hip_bfloat16); no HIP up to 6.4
declares __floats2bfloat162_rn, __float2bfloat162_rn, make_bfloat162 or the directed roundings. The premises are
checked on each toolchain, the port compiles on each (a warp shuffle of a bfloat16 value included), a tree builds
through `porter convert`, and the conversions are checked on the host, bit for bit, against a reference built from
the sorted table of all bfloat16 values.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from porter.fix.shims import SHIMS_DIR, install_shims, needed_shims
from porter.translate import RocmVersion, TranslateOptions, translate

DATA = Path(__file__).parent / "data" / "classes"

CUDA_KERNEL = textwrap.dedent("""\
    #include <cuda_bf16.h>
    #include <cuda_runtime.h>
    __device__ float warpSum(float v) {
      for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
      return v;
    }
    __global__ void scale(__nv_bfloat16* x, __nv_bfloat162* pairs, const float* f, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i >= n) return;
      __nv_bfloat16 a = __float2bfloat16_rn(f[i]), b = x[i];
      x[i] = __hfma(a, b, __float2bfloat16(1.0f)) + __hadd(a, b);
      pairs[i] = __floats2bfloat162_rn(f[i], warpSum(__bfloat162float(b)));
      pairs[i] = __hmul2(pairs[i], __halves2bfloat162(__low2bfloat16(pairs[i]), __float2bfloat16_rz(f[i])));
      float lo = __low2float(pairs[i]) + __high2float(pairs[i]);
      x[i] = __ushort_as_bfloat16(__bfloat16_as_ushort(__float2bfloat16(lo)));
    }
    """)


@pytest.mark.parametrize("rocm", [RocmVersion(5, 2), RocmVersion(6, 4)], ids=str)
def test_translation_leaves_nothing_and_picks_the_shim_per_version(rocm: RocmVersion) -> None:
    result = translate(CUDA_KERNEL.encode(), TranslateOptions(rocm=rocm))
    assert result.unconverted == []
    out = result.output.decode()
    assert "__hip_bfloat16" in out and "__nv_bfloat16" not in out
    shims = needed_shims(out, rocm)
    if rocm < RocmVersion(5, 7):
        assert "hip/hip_bf16.h" not in out and {"porter_bf16", "porter_bf16_conversions"} <= shims
    else:
        assert "#include <hip/hip_bf16.h>" in out
        assert "porter_bf16" not in shims and "porter_bf16_conversions" in shims


@pytest.mark.hipcc
def test_hip_lacks_what_the_shim_provides(hip_toolchain, tmp_path: Path) -> None:
    cases = {
        "pair": "__global__ void k(__hip_bfloat162* p, float* f) { p[0] = __floats2bfloat162_rn(f[0], f[1]); }",
        "rz": "__global__ void k(__hip_bfloat16* p, float* f) { p[0] = __float2bfloat16_rz(f[0]); }",
    }
    header = "#include <hip/hip_bf16.h>\n" if hip_toolchain.rocm >= RocmVersion(5, 7) else ""
    compiled = {}
    for name, code in cases.items():
        path = tmp_path / f"{name}.hip"
        path.write_text("#include <hip/hip_runtime.h>\n" + header + code + "\n")
        compiled[name] = hip_toolchain.compile(path, "-fsyntax-only").returncode == 0
    assert not any(compiled.values()), compiled


def _port(root: Path, rocm: RocmVersion) -> Path:
    result = translate(CUDA_KERNEL.encode(), TranslateOptions(rocm=rocm))
    root.mkdir()
    path = root / "k.hip"
    path.write_bytes(result.output)
    install_shims(root, [path], rocm)
    return path


@pytest.mark.hipcc
def test_the_port_compiles(hip_toolchain, tmp_path: Path) -> None:
    path = _port(tmp_path / "port", hip_toolchain.rocm)
    shuffled = path.read_text().replace("__shfl_xor_sync(0xffffffff, v, o)",
                                        "__shfl_xor_sync(0xffffffff, __float2bfloat16(v), o)")
    path.write_text(shuffled)  # a shuffle of a bfloat16 value, which CUDA overloads
    proc = hip_toolchain.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.hipcc
def test_a_shuffle_of_bfloat16_builds_through_convert(hip_toolchain, tmp_path: Path) -> None:
    """cuda_bf16.h, bfloat16 arithmetic and a warp shuffle of a bfloat16 value, as a user runs porter."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "reduce.cu").write_text(
        "#include <cuda_bf16.h>\n#include <cuda_runtime.h>\n"
        "__global__ void k(__nv_bfloat16* x) {\n"
        "  __nv_bfloat16 v = x[threadIdx.x];\n"
        "  for (int o = 16; o > 0; o >>= 1) v = __hadd(v, __shfl_xor_sync(0xffffffff, v, o));\n"
        "  x[threadIdx.x] = v;\n}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PORTER_MODEL", "OPENAI_BASE_URL", "PORTER_HIPCC")}
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "src", "-o", "out", "--target",
                           hip_toolchain.arch, "--toolchain", hip_toolchain.hipcc], cwd=tmp_path,
                          capture_output=True, text=True, timeout=900, check=False,
                          env={**env, "HIP_PLATFORM": "amd", "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    port = (tmp_path / "out" / "reduce.cu").read_text()
    assert ("porter_bf16.h" in port) == (hip_toolchain.rocm < RocmVersion(5, 7)), port


@pytest.mark.hipcc
def test_conversions_match_the_reference_bit_for_bit(hip_toolchain, tmp_path: Path) -> None:
    """Every bfloat16 value and 300,000 random floats (ties and their neighbours included), four roundings; the
    host object is linked by the machine's g++ (a 6.4 root's libraries do not run outside it)."""
    obj = tmp_path / "bf16_values.o"
    proc = subprocess.run(hip_toolchain.toolchain.command(
        "--cuda-host-only", "-std=c++17", "-O2", f"-I{SHIMS_DIR}", "-x", "hip", str(DATA / "bf16_values.hip"),
        "-c", "-o", str(obj)), capture_output=True, text=True, check=False, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    exe = tmp_path / "bf16_values"
    link = subprocess.run(["g++", str(obj), "-o", str(exe)], capture_output=True, text=True, check=False)
    assert link.returncode == 0, link.stderr[-3000:]
    run = subprocess.run([str(exe), "100000"], capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]
    m = re.search(r"(\d+) checks, 0 failures", run.stdout)
    assert m and int(m[1]) > 1_500_000, run.stdout[-500:]
