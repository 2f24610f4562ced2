"""Translation throughput: generate a tree of realistic CUDA (>= 20 MB) and convert it with 1..N workers.

The tree mixes generated modules (kernels, warp reductions, host code with error checks, cuBLAS/cuRAND calls,
plain C++) with variants of the hand-written programs under examples/. Two passes are timed per worker count:
  translate  `porter convert --check`: walk, read, parse, translate, hazard fixes (the deterministic pass)
  convert    `porter convert -o OUT --no-build`: the same plus shims, the hazard scan of the output, and writing
With --tree DIR the bench converts that tree instead (e.g. /usr/local/cuda/include, 24 MB of headers) and also
prints the peak resident memory of the whole run: the main process and its workers together, sampled from /proc
every 10 ms. With --hipify-perl PATH (ROCm's HIPIFY bin/hipify-perl, not shipped with porter) it also runs that
script over every C/C++/CUDA file of the tree, one process per file as its users run it, for a side-by-side.
Usage: python bench/translate_bench.py [--mb 20] [--jobs 1,2] [--keep DIR]
       python bench/translate_bench.py --tree /usr/local/cuda/include --jobs 2 [--hipify-perl PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import subprocess
import tempfile
import threading
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


class PeakMemory:
    """The peak of the summed resident memory of this process and all its descendants, sampled from /proc."""

    def __init__(self, interval: float = 0.01) -> None:
        self.peak = 0
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, sum(_rss(pid) for pid in _tree_pids(os.getpid())))
            self._stop.wait(self._interval)


def _tree_pids(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".inl")


def tree_bench(tree: Path, jobs: list[int], hipify_perl: Path | None) -> None:
    """Convert a real tree with --no-build: time, CPU time and the peak memory of the run; hipify-perl beside it."""
    files = [p for p in tree.rglob("*") if p.is_file() and not p.is_symlink()]
    size = sum(p.stat().st_size for p in files)
    sources = [p for p in files if p.suffix in SOURCE_SUFFIXES]
    print(f"tree: {tree} ({size / 1e6:.1f} MB in {len(files)} files, {len(sources)} C/C++/CUDA sources; "
          f"{os.cpu_count()} cores)")
    console = Console(stderr=True, quiet=True)
    config = build_config(None, build=False, rocm="6.4")
    work = Path(tempfile.mkdtemp(prefix="porter-bench-"))
    try:
        for n in jobs:
            out = work / f"out{n}"
            started, cpu_started = time.perf_counter(), _cpu_seconds()
            with PeakMemory() as memory:
                report = convert(ConvertRequest(tree, out, WriteMode.WRITE, config, jobs=n), console)
            elapsed, cpu = time.perf_counter() - started, _cpu_seconds() - cpu_started
            failed = sum(1 for f in report.files if f.status == "failed")
            print(f"porter convert -o --no-build jobs={n}: {elapsed:6.2f} s  {size / 1e6 / elapsed:5.2f} MB/s total  "
                  f"{size / 1e6 / cpu:5.2f} MB per CPU-second  peak RSS {memory.peak / 2**20:.0f} MiB (main + workers)  "
                  f"({len(report.changed)} changed, {failed} failed, {len(report.findings)} open findings)")
            shutil.rmtree(out, ignore_errors=True)
        if hipify_perl is not None:
            started, cpu_started = time.perf_counter(), _cpu_seconds()
            for path in sources:
                subprocess.run(["perl", str(hipify_perl), "-quiet-warnings", str(path)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=False)
            elapsed, cpu = time.perf_counter() - started, _cpu_seconds() - cpu_started
            print(f"hipify-perl (one process per file, sequential): {elapsed:6.2f} s  {size / 1e6 / elapsed:5.2f} MB/s  "
                  f"{size / 1e6 / cpu:5.2f} MB per CPU-second")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--jobs", default=",".join(sorted({"1", str(os.cpu_count() or 1)})))
    parser.add_argument("--keep", type=Path, default=None, help="generate into this directory and keep it")
    parser.add_argument("--tree", type=Path, default=None, help="convert this tree instead of a generated corpus")
    parser.add_argument("--hipify-perl", type=Path, default=None, help="also run this hipify-perl over the tree")
    args = parser.parse_args()
    if args.tree is not None:
        tree_bench(args.tree, [int(j) for j in args.jobs.split(",")], args.hipify_perl)
        return
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
