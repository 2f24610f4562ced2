"""No superlinear path: one generated file of N, 2N, 4N and 8N units per growth axis, converted like a user would.

Each file goes through the whole `porter convert FILE -o OUT --no-build` (translate, hazard fixes, shims, the scan
of the output for the open findings, the write) in this process, and the bench prints the CPU time per size and
the ratio 8N/N: about 8 for a linear path, 64 for a quadratic one. `--fail-above 10` makes it exit 1 when a ratio
is above 10. `--big MB` also converts one file of that many megabytes made of the issue's repeated 180-byte
program and prints its time.

Usage: python bench/scaling.py [--units N] [--axes a,b] [--fail-above 10] [--big 19]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from porter.config import build_config
from porter.convert import ConvertRequest, convert
from porter.files import WriteMode

# the issue's program: a kernel, a launch and an error check, about 180 bytes; repeated, every name is reused
REPEATED = (
    "__global__ void k{i}(float* p) {{ p[threadIdx.x] *= 2.0f; }}\n"
    "void run{i}(float* d) {{ k{i}<<<1, 64>>>(d); cudaError_t e = cudaGetLastError(); cudaDeviceSynchronize(); }}\n"
)

KERNEL = (
    "__global__ void kernel{i}(const float* in, float* out, int n) {{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int lane = threadIdx.x % 32;\n"
    "    float v = i < n ? in[i] : 0.0f;\n"
    "    v += __shfl_down_sync(0xffffffff, v, 1);\n"
    "    if (lane == 0 && i < n) out[i / 32] = v;\n"
    "}}\n"
)


def includes(n: int) -> str:
    lines = [f'#include "local_{i}.h"\n' if i % 3 else "#include <cuda_runtime.h>\n" for i in range(n)]
    return "".join(lines) + "void f(float* p) { cudaMalloc(&p, 4); cudaFree(p); }\n"


def launches(n: int) -> str:
    out = ["__global__ void k(float* p, int n) { p[threadIdx.x] = n; }\n"]
    for f in range(0, n, 20):  # 20 launches per host function: the axis is launches, not lines per function
        body = "".join(f"    k<<<{1 + i % 7}, 256, 0, s>>>(p, {i});\n    CHECK(cudaGetLastError());\n"
                       for i in range(f, min(n, f + 20)))
        out.append(f"void run{f}(float* p, cudaStream_t s) {{\n{body}}}\n")
    return "#define CHECK(x) (x)\n" + "".join(out)


def kernels(n: int) -> str:
    return "#include <cuda_runtime.h>\n" + "".join(KERNEL.format(i=i) for i in range(n))


def defines(n: int) -> str:
    lines = [f"#define CONST_{i} ({i} * 4 + CONST_{max(i - 1, 0)})\n" if i else "#define CONST_0 32\n" for i in range(n)]
    lines += [f"#define CALL_{i}(x) cudaMemset((x), {i}, CONST_{i})\n" for i in range(0, n, 2)]
    return "".join(lines) + "__global__ void k(int* p) { p[threadIdx.x % CONST_0] = CONST_1; }\n"


def template_kernels(n: int) -> str:
    out = []
    for i in range(n):
        out.append(f"template <typename T, int B{i}>\n__global__ void tk{i}(T* p) {{ p[threadIdx.x % B{i}] += T(1); }}\n")
    calls = "".join(f"    tk{i}<float, {32 + i % 4}><<<1, 128>>>(p);\n" for i in range(n))
    return "".join(out) + f"void run(float* p) {{\n{calls}    cudaDeviceSynchronize();\n}}\n"


def raw_strings(n: int) -> str:
    out = []
    for i in range(n):
        out.append(f'const char* src{i} = R"cuda{i % 5}(__global__ void k() {{ cudaMalloc(0, 0); }} ")" )cuda{i % 5}";\n')
        if i % 4 == 0:
            out.append(f'const char* bad{i} = R"open{i}( never closed, so an ordinary string ";\n')
    return "".join(out) + "void f() { cudaDeviceSynchronize(); }\n"


def nesting_depth(n: int) -> str:
    """n namespaces around a kernel whose body nests n blocks (each with a CUDA call)."""
    opened = "".join(f"namespace ns{i} {{\n" for i in range(n))
    body = "".join(f"{' ' * (i % 40)}if (threadIdx.x > {i}) {{ cudaGetLastError();\n" for i in range(n))
    closed = "".join("}\n" for _ in range(n))
    return opened + f"__global__ void k(float* p) {{\n{body}{closed}}}\n" + closed


def identifiers_per_line(n: int) -> str:
    names = ["cudaSuccess", "threadIdx.x", "blockDim.x", "value", "cudaErrorInvalidValue", "__ldg(p)", "warpSize"]
    expr = " + ".join(f"{names[i % len(names)]} * {i}" for i in range(n))
    return f"__global__ void k(const float* p, float* out) {{ out[threadIdx.x] = {expr}; }}\n"


def lines_per_function(n: int) -> str:
    body = "".join(f"    CUDA_CHECK(cudaMemcpyAsync(d + {i}, h + {i}, 4, cudaMemcpyHostToDevice, s));\n"
                   f"    int lane{i} = threadIdx.x % 32;\n" if i % 2 else
                   f"    float v{i} = __shfl_xor_sync(0xffffffff, 1.0f, {i % 16});\n"
                   for i in range(n))
    return ("#define CUDA_CHECK(x) (x)\n"
            f"__global__ void k(float* d, const float* h, cudaStream_t s) {{\n{body}}}\n")


def repeated_program(n: int) -> str:
    return "#include <cuda_runtime.h>\n" + "".join(REPEATED.format(i=i) for i in range(n))


# axis -> (generator, N); N is chosen so the N file converts in tens of milliseconds and 8N stays under ~1 MB
AXES: dict[str, tuple[Callable[[int], str], int]] = {
    "includes": (includes, 1000),
    "launches": (launches, 800),
    "kernels": (kernels, 150),
    "defines": (defines, 1000),
    "template-kernels": (template_kernels, 300),
    "raw-strings": (raw_strings, 500),
    "nesting-depth": (nesting_depth, 100),
    "identifiers-per-line": (identifiers_per_line, 1000),
    "lines-per-function": (lines_per_function, 800),
    "repeated-program": (repeated_program, 1000),
}


def convert_cpu_seconds(path: Path, out: Path) -> tuple[float, int]:
    """CPU seconds of one `convert FILE -o OUT --no-build` in this process (best of two runs), and its findings."""
    config = build_config(None, build=False, rocm="6.4")
    console = Console(stderr=True, quiet=True)
    best = float("inf")
    findings = 0
    for _ in range(2):
        shutil.rmtree(out.parent, ignore_errors=True)
        out.parent.mkdir(parents=True)
        started = time.process_time()
        report = convert(ConvertRequest(path, out, WriteMode.WRITE, config, jobs=1), console)
        best = min(best, time.process_time() - started)
        if any(f.status == "failed" for f in report.files):
            raise SystemExit(f"{path}: conversion failed: {[f.error for f in report.files]}")
        findings = len(report.findings)
    return best, findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=float, default=1.0, help="scale every axis' N by this factor")
    parser.add_argument("--axes", default=",".join(AXES), help="comma-separated axes (default: all)")
    parser.add_argument("--fail-above", type=float, default=None, help="exit 1 when a ratio 8N/N is above this")
    parser.add_argument("--big", type=float, default=None, help="also convert one file of this many MB")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="porter-scaling-"))
    worst = 0.0
    # warm up: the API map, the grammar and the queries load once per process, not per size
    warm = work / "warm.cu"
    warm.write_text(kernels(5) + launches(5))
    convert_cpu_seconds(warm, work / "warm-out" / "warm.cu")
    print(f"{'axis':22} {'N':>6} {'size 8N':>9}   {'N':>7} {'2N':>7} {'4N':>7} {'8N':>7}   8N/N")
    try:
        for axis in args.axes.split(","):
            generate, base = AXES[axis]
            n = max(1, int(base * args.units))
            times, size = [], 0
            for k in (1, 2, 4, 8):
                path = work / axis / f"{k}N.cu"
                path.parent.mkdir(parents=True, exist_ok=True)
                text = generate(n * k)
                path.write_text(text)
                size = len(text)
                seconds, _ = convert_cpu_seconds(path, work / "out" / axis / path.name)
                times.append(seconds)
            ratio = times[3] / max(times[0], 1e-6)
            worst = max(worst, ratio)
            print(f"{axis:22} {n:6d} {size / 1e6:7.2f}MB   " + " ".join(f"{t:6.3f}s" for t in times) + f"   {ratio:5.1f}",
                  flush=True)
        if args.big:
            per_unit = len(REPEATED.format(i=99999))
            units = int(args.big * 1e6 / per_unit)
            path = work / "big" / "big.cu"
            path.parent.mkdir(parents=True)
            path.write_text(repeated_program(units))
            started, cpu = time.perf_counter(), time.process_time()
            config = build_config(None, build=False, rocm="6.4")
            report = convert(ConvertRequest(path, work / "big-out" / "big.cu", WriteMode.WRITE, config, jobs=1),
                             Console(stderr=True, quiet=True))
            size = path.stat().st_size
            print(f"one {size / 1e6:.1f} MB file ({units} copies of the program): {time.perf_counter() - started:.1f} s "
                  f"({time.process_time() - cpu:.1f} CPU-s), {len(report.findings)} open findings, "
                  f"status {report.files[0].status}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"worst ratio 8N/N: {worst:.1f}")
    if args.fail_above is not None and worst > args.fail_above:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
