"""Class 6 of the real-code issue: cudaDeviceProp fields hipDeviceProp_t lacks, per ROCm version.

Reads of such fields go through porter_device_props.h's accessors (the real field where the release has it, else
hipDeviceGetAttribute, else a documented value); the header is generated from porter/data/device_props.toml, the
translation is checked per ROCm version, the accessors compile on every compiler, the 5.x values are checked on the
host (no GPU here: the attribute path falls back, as it would for a struct not filled in), and a rule rewrites
what the translator cannot see.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support.hip_compile import Compiler, compiler_params, compilers, need

from porter.fix.shims import SHIMS_DIR, all_shims, install_shims
from porter.translate import RocmVersion, TranslateOptions, device_prop_fields, translate

ROOT = Path(__file__).parents[1]
DATA = tomllib.loads((ROOT / "porter" / "data" / "device_props.toml").read_text())["field"]
ROCM_52, ROCM_64 = RocmVersion(5, 2), RocmVersion(6, 4)

QUERY = """\
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
struct Ctx { cudaDeviceProp prop; int dev; };
static void show(const cudaDeviceProp &p, const cudaDeviceProp *q) {
  printf("%d %d %zu\\n", p.asyncEngineCount, q->maxBlocksPerMultiProcessor, p.sharedMemPerMultiprocessor);
  printf("%d %d %d\\n", p.maxTexture2DLayered[0], q->maxTexture2DLayered[2], p.uuid.bytes[0]);
}
int main() {
  cudaDeviceProp prop, other;
  std::vector<cudaDeviceProp> all(1);
  Ctx ctx;
  cudaGetDeviceProperties(&prop, 0);
  other = prop;
  show(prop, &other);
  printf("%d %d %d\\n", prop.unifiedAddressing, all[0].persistingL2CacheMaxSize, ctx.prop.deviceNumaId);
  printf("%d %d\\n", prop.major, prop.sparseCudaArraySupported);  // major: every HIP has it
  prop.unifiedAddressing = 1;  // a write: reported
  return 0;
}
"""


def test_the_shim_is_generated_from_the_data_and_indexed() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_device_props_shim.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    provides = set(all_shims()["porter_device_props"].provides)
    assert provides == {f"porter_prop_{name}" for name in DATA}
    header = (SHIMS_DIR / "porter_device_props.h").read_text()
    assert "differs from CUDA" in header.split("#ifndef", 1)[0]


def test_fields_rewritten_for_rocm_52() -> None:
    result = translate(QUERY.encode(), TranslateOptions(rocm=ROCM_52))
    out = result.output.decode()
    for rewritten in ("porter_prop_asyncEngineCount(p)", "porter_prop_maxBlocksPerMultiProcessor(*(q))",
                      "porter_prop_sharedMemPerMultiprocessor(p)", "porter_prop_maxTexture2DLayered(p)[0]",
                      "porter_prop_maxTexture2DLayered(*(q))[2]", "porter_prop_uuid(p).bytes[0]",
                      "porter_prop_unifiedAddressing(prop)", "porter_prop_persistingL2CacheMaxSize(all[0])",
                      "porter_prop_deviceNumaId(ctx.prop)", "porter_prop_sparseCudaArraySupported(prop)"):
        assert rewritten in out, rewritten
    assert "prop.major" in out and "prop.unifiedAddressing = 1" in out
    assert [(u.name, u.reason.value) for u in result.unconverted] == [("unifiedAddressing", "needs the agent")]
    assert "writes it or takes its address" in result.unconverted[0].detail
    warned = " ".join(result.warnings)
    assert "asyncEngineCount" in warned and "hipDeviceGetAttribute" in warned and "8" in warned
    # porting the port changes nothing
    assert translate(result.output, TranslateOptions(rocm=ROCM_52)).output == result.output


def test_fields_rewritten_for_newer_rocm_are_only_what_no_hip_has() -> None:
    for rocm in (ROCM_64, None):
        out = translate(QUERY.encode(), TranslateOptions(rocm=rocm)).output.decode()
        assert "p.asyncEngineCount" in out and "porter_prop_asyncEngineCount" not in out
        assert "porter_prop_deviceNumaId(ctx.prop)" in out and "porter_prop_sparseCudaArraySupported(prop)" in out
    missing_everywhere = {n for n, f in device_prop_fields().items() if f.missing_in(ROCM_64)}
    assert missing_everywhere == {"sparseCudaArraySupported", "deferredMappingCudaArraySupported", "deviceNumaConfig",
                                  "deviceNumaId", "mpsEnabled", "hostNumaId", "gpuPciDeviceID", "gpuPciSubsystemID",
                                  "hostNumaMultinodeIpcSupported"}


def test_a_struct_member_of_another_type_is_left_alone() -> None:
    source = b"#include <cuda_runtime.h>\nstruct Engine { int asyncEngineCount; };\nint f(Engine e) { return e.asyncEngineCount; }\n"
    assert b"porter_prop" not in translate(source, TranslateOptions(rocm=ROCM_52)).output


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_the_data_matches_each_compilers_hipDeviceProp_t(compiler: Compiler | None, tmp_path: Path) -> None:
    """hip_since is right for this compiler: each field the data says it has compiles as p.<hip name>, each it
    says it lacks does not."""
    compiler = need(compiler)
    lines, spans = ["#include <hip/hip_runtime.h>", "void f(hipDeviceProp_t& p) {"], {}
    for name, row in DATA.items():
        spans[name] = len(lines) + 1
        lines.append(f"  (void)sizeof(p.{row.get('hip_name', name)});")
    lines.append("}")
    path = tmp_path / "fields.hip"
    path.write_text("\n".join(lines) + "\n")
    proc = compiler.compile(path, "-fsyntax-only", "-ferror-limit=0")
    failing = {int(m[1]) for m in re.finditer(r"fields\.hip:(\d+):\d+: error", proc.stderr)}
    wrong = []
    for name, row in DATA.items():
        has = "hip_since" in row and compiler.rocm >= RocmVersion.parse(row["hip_since"])
        if (spans[name] not in failing) != has:
            wrong.append(name)
    assert wrong == []


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_the_translated_query_compiles(compiler: Compiler | None, tmp_path: Path) -> None:
    compiler = need(compiler)
    source = QUERY.replace("  prop.unifiedAddressing = 1;  // a write: reported\n", "")
    result = translate(source.encode(), TranslateOptions(rocm=compiler.rocm))
    path = tmp_path / "query.hip"
    path.write_bytes(result.output)
    install_shims(tmp_path, [path], compiler.rocm)
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.hipcc
def test_rocm_5_values_on_the_host(tmp_path: Path) -> None:
    """ROCm 5.x's accessors on a struct filled in by hand: the derived values are what ROCm 6 computes, the
    attribute path falls back to the documented value when no device matches the struct (no GPU here)."""
    compiler = next((c for c in compilers() if c.rocm == ROCM_52), None)
    if compiler is None:
        need(None) if not compilers() else pytest.skip("needs ROCm 5.2's hipcc")
    program = tmp_path / "values.hip"
    program.write_text(f'#include "{SHIMS_DIR / "porter_device_props.h"}"\n' + """\
#include <cstdio>
int main() {
  hipDeviceProp_t p{};
  p.maxThreadsPerMultiProcessor = 2048; p.warpSize = 64; p.l2CacheSize = 8 << 20; p.regsPerBlock = 65536;
  p.maxSharedMemoryPerMultiProcessor = 65536; p.maxTexture2D[0] = 16384; p.maxTexture2D[1] = 16384;
  p.pciDeviceID = 7; p.integrated = 0; p.pciBusID = 0xEE;
  printf("%d %d %d %zu %zu %d %d %d %d %d %d %d %d\\n", porter_prop_maxBlocksPerMultiProcessor(p),
         porter_prop_persistingL2CacheMaxSize(p), porter_prop_regsPerMultiprocessor(p),
         porter_prop_sharedMemPerMultiprocessor(p), porter_prop_sharedMemPerBlockOptin(p),
         porter_prop_maxTexture2DLinear(p)[2], porter_prop_maxTexture2DLayered(p)[2], porter_prop_multiGpuBoardGroupID(p),
         porter_prop_asyncEngineCount(p), porter_prop_unifiedAddressing(p), porter_prop_deviceNumaId(p),
         porter_prop_accessPolicyMaxWindowSize(p), (int)porter_prop_uuid(p).bytes[3]);
  return 0;
}
""")
    exe = tmp_path / "values"
    proc = subprocess.run([compiler.hipcc, f"--offload-arch={compiler.arches[0]}", str(program), "-o", str(exe)],
                          capture_output=True, text=True, check=False, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=120)
    assert run.stdout.split() == ["32", str(8 << 20), "65536", "65536", "65536", str(16 * 16384), "2048", "7",
                                  "8", "1", "-1", "0", "0"], run.stdout + run.stderr


@pytest.mark.hipcc
def test_a_rule_rewrites_what_the_translator_cannot_see(tmp_path: Path) -> None:
    """`auto& p = props[0]; p.asyncEngineCount` on ROCm 5.2: the build's 'no member named' error is fixed by rule."""
    if not any(c.rocm == ROCM_52 for c in compilers()):
        need(None) if not compilers() else pytest.skip("needs ROCm 5.2's hipcc (what porter convert builds with)")
    src = tmp_path / "src"
    src.mkdir()
    (src / "q.cu").write_text("#include <cstdio>\n#include <cuda_runtime.h>\n"
                              "int main() { cudaDeviceProp props[1]; cudaGetDeviceProperties(&props[0], 0);\n"
                              "  auto &p = props[0];\n  printf(\"%d %d\\n\", p.asyncEngineCount, p.major); return 0; }\n")
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "src", "-o", "out"], capture_output=True,
                          text=True, check=False, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = (tmp_path / "out" / "q.cu").read_text()
    assert "porter_prop_asyncEngineCount(p)" in text and "porter_device_props.h" in text and "p.major" in text
