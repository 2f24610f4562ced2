"""The incremental build on a tree of a few hundred translation units: first build, second build, fixer rounds.

Generates N CUDA units (default 240) in 12 folders, each folder sharing a header and every unit including a
project-wide header, then:
  convert   `porter convert SRC -o OUT` twice: the first run compiles everything, the second (nothing changed)
  rounds    what a fixer round costs once the cache is warm: one unit edited, one folder header edited (its 20
            units), the project-wide header edited (all of them), each rebuilt through the same build step
Usage: python bench/build_bench.py [--units 240] [--jobs 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from porter.build import BuildCache, HipccEnvironment, choose_compile_arch, detect_toolchain

FOLDERS = 12
COMMON = "#pragma once\n#include <cuda_runtime.h>\n#define CHECK(x) do { if ((x) != cudaSuccess) return; } while (0)\n"
FOLDER_HEADER = "#pragma once\n#include \"../common.h\"\n__device__ inline float scale_{f}(float x) {{ return {f}.5f * x; }}\n"
UNIT = """#include "shared.h"
// unit {u}: a kernel, a launch and the runtime calls around it
__global__ void kernel_{u}(const float* in, float* out, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = scale_{f}(in[i]) + {u};
}}
void run_{u}(int n) {{
    float *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    kernel_{u}<<<(n + 255) / 256, 256>>>(a, b, n);
    CHECK(cudaDeviceSynchronize());
    cudaFree(a);
    cudaFree(b);
}}
"""


def generate(root: Path, units: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "common.h").write_text(COMMON)
    for f in range(FOLDERS):
        folder = root / f"part{f:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "shared.h").write_text(FOLDER_HEADER.format(f=f))
    for u in range(units):
        f = u % FOLDERS
        (root / f"part{f:02d}" / f"unit{u:04d}.cu").write_text(UNIT.format(u=u, f=f))


def convert(src: Path, out: Path, jobs: int) -> tuple[float, dict]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(src), "-o", str(out), "--target", "MI250X",
                           "-j", str(jobs)], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"porter convert failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    report = json.loads((out / ".porter" / "report.json").read_text())
    return elapsed, report["fix_loop"]["build"]["units"]


def timed_build(env: HipccEnvironment) -> tuple[float, int, int]:
    start = time.perf_counter()
    result = env.build()
    if not result.ok:
        raise SystemExit("the generated tree does not build:\n" + result.output[-3000:])
    return time.perf_counter() - start, len(result.units) - len(result.cached_units), len(result.units)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=240)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", type=Path, default=None, help="work in this directory and keep it")
    args = parser.parse_args()
    toolchain = detect_toolchain()
    if toolchain is None:
        raise SystemExit("hipcc not found: this bench compiles for real")
    work = args.keep or Path(tempfile.mkdtemp(prefix="porter-build-bench-"))
    src, out = work / "src", work / "out"
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    generate(src, args.units)
    print(f"{args.units} units in {FOLDERS} folders, hipcc {toolchain.hip_version}, {args.jobs} jobs, {os.cpu_count()} cores")
    first, units = convert(src, out, args.jobs)
    print(f"first convert:  {first:7.1f} s  ({units['compiled']} compiled, {units['cached']} unchanged)")
    second, units = convert(src, out, args.jobs)
    print(f"second convert: {second:7.1f} s  ({units['compiled']} compiled, {units['cached']} unchanged)")

    arch = choose_compile_arch(toolchain, "gfx90a").arch
    env = HipccEnvironment(out, toolchain, arch=arch, jobs=args.jobs, cache=BuildCache.for_tree(out))
    one = out / "part03" / "unit0003.cu"
    rounds = [("one unit edited", [one]), ("one folder header edited", [out / "part05" / "shared.h"]),
              ("the project-wide header edited", [out / "common.h"])]
    for label, files in rounds:
        for f in files:
            f.write_text(f.read_text() + "// touched\n")
        seconds, compiled, total = timed_build(env)
        print(f"fixer round, {label:32s} {seconds:7.1f} s  ({compiled} of {total} compiled)")
    seconds, compiled, total = timed_build(env)
    print(f"fixer round, nothing changed{'':17s} {seconds:7.1f} s  ({compiled} of {total} compiled)")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
