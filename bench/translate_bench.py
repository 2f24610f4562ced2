"""Translation throughput: generate a tree of realistic CUDA (>= 20 MB) and convert it with 1..N workers.

The tree mixes generated modules (kernels, warp reductions, host code with error checks, cuBLAS/cuRAND calls,
plain C++) with variants of the hand-written programs under examples/. Two passes are timed per worker count:
  translate  `porter convert --check`: walk, read, parse, translate, hazard fixes (the deterministic pass)
  convert    `porter convert -o OUT --no-build`: the same plus shims, the hazard scan of the output, and writing
Usage: python bench/translate_bench.py [--mb 20] [--jobs 1,2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import tempfile
import time
from pathlib import Path

from rich.console import Console

from porter.config import build_config
from porter.convert import ConvertRequest, convert
from porter.files import WriteMode

KERNEL = """
// {name}: element-wise kernel with a grid-stride loop. cudaMemcpy in a comment stays.
template <typename T>
__global__ void {name}_kernel(const T* __restrict__ in, T* __restrict__ out, int n, T alpha) {{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {{
        T v = in[i];
        out[i] = alpha * v + __ldg(&in[(i + {k}) % n]);
    }}
}}

__global__ void {name}_reduce(const float* in, float* out, int n) {{
    __shared__ float partial[32];
    float v = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) v += in[i];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {{
        float s = 0.0f;
        for (int w = 0; w < blockDim.x / 32; ++w) s += partial[w];
        atomicAdd(out, s);
    }}
}}
"""

HOST = """
static void run_{name}(cudaStream_t stream, int n) {{
    float *d_in = nullptr, *d_out = nullptr, *h = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h[i] = 0.5f * i;
    CUDA_CHECK(cudaMemcpyAsync(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, stream));
    {name}_kernel<float><<<(n + 255) / 256, 256, 0, stream>>>(d_in, d_out, n, {k}.0f);
    {name}_reduce<<<1, 256, 0, stream>>>(d_in, d_out, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("{name}: %.3f ms (cudaEventElapsedTime)\\n", ms);
    CUDA_CHECK(cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    cudaFreeHost(h);
    cudaFree(d_in);
    cudaFree(d_out);
}}
"""

LIBRARY = """
static void gemm_{name}(cublasHandle_t handle, const float* A, const float* B, float* C, int n) {{
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &alpha, A, n, B, n, &beta, C, n);
    if (st != CUBLAS_STATUS_SUCCESS) fprintf(stderr, "cublasSgemm failed\\n");
    curandGenerator_t gen;
    curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
    curandSetPseudoRandomGeneratorSeed(gen, {k}ULL);
    curandGenerateUniform(gen, C, n * n);
    curandDestroyGenerator(gen);
}}
"""

HEADER = """#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand.h>

#define CUDA_CHECK(call) do {{ cudaError_t e = (call); if (e != cudaSuccess) {{ \\
    fprintf(stderr, "%s:%d %s\\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); }} }} while (0)

/* Generated benchmark file {index}: a mix of kernels, host code and library calls. */
"""

PLAIN_CPP = """
// plain C++ with no CUDA in it: porter skips the parse for such files
namespace util_{name} {{
inline int clamp(int v, int lo, int hi) {{ return v < lo ? lo : v > hi ? hi : v; }}
struct Accumulator {{ double sum = 0; int count = 0; void add(double v) {{ sum += v; ++count; }} }};
}}
"""


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example_sources() -> list[tuple[str, str]]:
    return [(p.suffix, p.read_text("utf-8")) for p in sorted(EXAMPLES.rglob("*"))
            if p.suffix in (".cu", ".cuh", ".cpp", ".h") and "ci" not in p.parts]


def generate(root: Path, megabytes: float, seed: int = 1) -> int:
    rng = random.Random(seed)
    total, index = 0, 0
    examples = example_sources()
    while total < megabytes * 1_000_000:
        if examples and index % 3 == 2:  # a third of the files: variants of the example programs
            suffix, text = examples[index % len(examples)]
            text = re.sub(r"\bmain\b", f"main_{index}", text) + f"\n// variant {index}\n"
            sub = root / f"apps{index % 40}"
            sub.mkdir(parents=True, exist_ok=True)
            (sub / f"app{index}{suffix}").write_text(text)
            total += len(text)
            index += 1
            continue
        parts = [HEADER.format(index=index)]
        for j in range(rng.randint(8, 20)):
            name = f"op{index}_{j}"
            k = rng.randint(1, 9)
            parts.append(KERNEL.format(name=name, k=k))
            parts.append(HOST.format(name=name, k=k))
            if rng.random() < 0.3:
                parts.append(LIBRARY.format(name=name, k=k))
        text = "".join(parts)
        sub = root / f"module{index % 40}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"file{index}.cu").write_text(text)
        plain = "".join(PLAIN_CPP.format(name=f"p{index}_{j}") for j in range(30))
        (sub / f"util{index}.cpp").write_text(plain)
        total += len(text) + len(plain)
        index += 1
    return total


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the worker processes of a finished convert)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--jobs", default=",".join(sorted({"1", str(os.cpu_count() or 1)})))
    parser.add_argument("--keep", type=Path, default=None, help="generate into this directory and keep it")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="porter-bench-"))
    src = args.keep or work / "src"
    size = generate(src, args.mb)
    files = sum(1 for _ in src.rglob("*") if _.is_file())
    print(f"corpus: {size / 1e6:.1f} MB in {files} files ({os.cpu_count()} cores)")
    console = Console(stderr=True, quiet=True)
    config = build_config(None, build=False, rocm="7.0")
    for jobs in [int(j) for j in args.jobs.split(",")]:
        for name, mode, out in (("translate", WriteMode.CHECK, None), ("convert", WriteMode.WRITE, work / f"out{jobs}")):
            started, cpu_started = time.perf_counter(), _cpu_seconds()
            report = convert(ConvertRequest(src, out, mode, config, jobs=jobs), console)
            elapsed, cpu = time.perf_counter() - started, _cpu_seconds() - cpu_started
            print(f"{name:9} jobs={jobs}: {elapsed:6.2f} s  {size / 1e6 / elapsed:5.2f} MB/s total  "
                  f"{size / 1e6 / elapsed / jobs:5.2f} MB/s per worker  {size / 1e6 / cpu:5.2f} MB per CPU-second  "
                  f"({len(report.changed)} files changed, {len(report.findings)} open findings)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
