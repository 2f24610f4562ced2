"""Build every corpus project with nvcc and run it on an NVIDIA GPU: is the CUDA code we port actually right?

Usage: python bench/corpus_smoke.py [--project NAME ...] [-j N] [--arch sm_90]

Each project's units are compiled with its own flags, linked with the libraries it uses, and run with small
arguments (below); a project passes when it exits 0. Needs nvcc, the CUDA libraries and a GPU; projects that need
hardware or files a plain machine lacks (cuDLA, NvSci, an EGLStream producer, a compiled fatbin) are built only.
Not yet run on a GPU: without one every run fails with "no CUDA-capable device" (the builds and links are checked).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_projects import Project, find_nvcc, header_search_dirs, load_projects, missing_headers

# Small problem sizes so the whole corpus runs in a minute or two.
ARGS: dict[str, list[str]] = {
    "async_copy_pipeline": ["1048576", "2"],
    "bandwidth_probe": ["-s", "8", "-r", "3"],
    "bitonic_sort_warp": ["16"],
    "cg_grid_sync": ["65536", "8", "10"],
    "cg_partitions": ["100000"],
    "cg_reduction": ["-n", "1048576"],
    "conv_separable": ["512", "384", "2"],
    "cub_topk": ["8", "5000", "10"],
    "device_query": ["--brief"],
    "dynpar_adaptive_grid": ["1024", "256"],
    "dynpar_quicksort": ["-n", "20000"],
    "fft_convolution": ["128", "128", "2", "5"],
    "fft_multi_gpu_xt": ["32", "1"],
    "gemm_cublas_bench": ["-m", "512", "-n", "512", "-k", "512", "-r", "2"],
    "graph_capture_pipeline": ["65536", "5"],
    "graph_conditional_loop": ["4096", "1e-5", "20000"],
    "graph_explicit_nodes": ["100000", "2"],
    "grid_constant_params": ["4", "128", "128"],
    "histogram_atomics": ["4"],
    "interval_arith": [],
    "layernorm_fp16": [],
    "monte_carlo_curand": ["262144", "16"],
    "openmp_multi_gpu": ["1000000"],
    "p2p_bandwidth": ["--mb", "4", "--reps", "2", "--no-latency"],
    "particles_nbody": ["-n", "4096", "-i", "2", "--check"],
    "sph_fluid": ["4096", "5"],
    "spmv_cusparse": ["128", "3"],
    "stream_overlap": ["16", "4"],
    "surface_diffusion": ["64", "16", "10"],
    "tex1d_lookup": ["256", "128", "256"],
    "tex_image_filters": [],
    "thrust_stats": ["100000", "16"],
    "um_advise_legacy": ["10000", "20", "64"],
    "um_prefetch_stencil": ["256", "256", "200"],
    "vecmath_raytracer": ["-w", "160", "-h", "90", "-s", "1"],
    "volume_raymarch": ["-n", "32", "-w", "64", "-h", "48"],
    "warpkit": ["65536"],
    "wmma_gemm": ["256", "256", "256"],
    "gpu_bench_suite": ["-s", "128", "-i", "2"],
}
BUILD_ONLY = {"cudla_hybrid": "needs a DLA", "nvsci_interop": "needs DRIVE OS", "egl_stream_consumer": "needs an "
              "EGLStream producer", "driver_api_wrappers": "needs the fatbin path"}
LIBS = {"cublas": "-lcublas", "cufft": "-lcufft", "curand": "-lcurand", "cusparse": "-lcusparse", "cuda.h": "-lcuda"}


def libraries(project: Project) -> list[str]:
    text = "".join(p.read_text("utf-8", "replace") for p in project.root.rglob("*") if p.is_file()
                   and (p.suffix in (".cu", ".cpp", ".h", ".cuh", ".txt") or p.name == "Makefile"))
    libs = [flag for key, flag in LIBS.items() if key in text]
    if "fopenmp" in " ".join(project.nvcc_flags):
        libs.append("-lgomp")
    if "-rdc=true" in project.nvcc_flags:
        libs.append("-lcudadevrt")
    return libs


def mains(project: Project, units: list[Path]) -> list[list[Path]]:
    """Groups of units that link into one program: one group per file with main(), plus the units without one."""
    with_main = [u for u in units if "int main(" in u.read_text("utf-8", "replace")]
    rest = [u for u in units if u not in with_main]
    return [[m, *rest] for m in with_main]


def build_and_run(project: Project, nvcc: Path, arch: str, work: Path) -> tuple[str, str]:
    search = header_search_dirs(nvcc)
    if missing_headers(project, search) and project.name not in BUILD_ONLY:
        return "skipped", f"missing {missing_headers(project, search)}"
    units = project.translation_units()
    hosts = [p for p in project.root.rglob("*.cpp") if p not in units]  # host-only C++ (references, PGM I/O)
    implicit = {nvcc.resolve().parent.parent / "include", Path("/usr/include"), Path("/usr/local/include")}
    inc = [f"-I{d}" for d in project.include_dirs()] + [f"-isystem={d}" for d in search if d not in implicit]
    objs: dict[Path, Path] = {}
    for i, src in enumerate(units + hosts):
        obj = work / f"{project.name}_{i}.o"
        cmd = [str(nvcc), "-c", f"-arch={arch}", "-std=c++17", "-O2", str(src), "-o", str(obj), *inc,
               *project.nvcc_flags]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=project.root, check=False)
        if proc.returncode:
            return "build failed", f"{src.name}: {proc.stderr[-800:]}"
        objs[src] = obj
    if project.name in BUILD_ONLY:
        return "built", BUILD_ONLY[project.name]
    groups = mains(project, units + hosts)
    if not groups:
        return "built", "a library without main()"
    out = []
    for group in groups:
        exe = work / f"{project.name}_{group[0].stem}"
        link = [str(nvcc), f"-arch={arch}", *[str(objs[g]) for g in group], "-o", str(exe), *libraries(project)]
        if "-rdc=true" in project.nvcc_flags:
            link.insert(1, "-rdc=true")
        proc = subprocess.run(link, capture_output=True, text=True, check=False)
        if proc.returncode:
            return "link failed", proc.stderr[-800:]
        try:
            run = subprocess.run([str(exe), *ARGS.get(project.name, [])], capture_output=True, text=True,
                                 cwd=work, timeout=120, check=False)
        except subprocess.TimeoutExpired:
            return "run timed out", group[0].name
        tail = (run.stdout + run.stderr).strip().splitlines()[-2:]
        if run.returncode:
            return "run failed", f"{group[0].name} exit {run.returncode}: {' | '.join(tail)}"
        out.append(f"{group[0].name}: {' | '.join(tail)[:160]}")
    return "passed", "; ".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", action="append")
    parser.add_argument("-j", "--jobs", type=int, default=4)
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    nvcc = find_nvcc()
    if nvcc is None:
        print("corpus_smoke: nvcc not found", file=sys.stderr)
        return 2
    projects = [p for p in load_projects() if not args.project or p.name in args.project]
    with tempfile.TemporaryDirectory(prefix="corpus-smoke-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: (p.name, *build_and_run(p, nvcc, args.arch, Path(tmp))), projects))
    for name, status, detail in results:
        print(f"{status:>14}  {name:<24} {detail}")
    counts: dict[str, int] = {}
    for _, status, _ in results:
        counts[status] = counts.get(status, 0) + 1
    print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 0 if all(s in ("passed", "built", "skipped") for _, s, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
