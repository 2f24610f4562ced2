"""The benchmark corpus (bench/corpus/): its metadata covers every failure class of issue 9, porter translates every
project without a failed file, nvcc compiles every translation unit, and the failure-class table classes real
hipcc messages as intended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import corpus_projects as cp  # noqa: E402

PROJECTS = cp.load_projects()
IDS = [p.name for p in PROJECTS]


def test_the_corpus_is_big_enough_and_every_class_is_covered() -> None:
    assert len(PROJECTS) >= 40
    covered = {c for p in PROJECTS for c in p.classes}
    assert covered == set(cp.CLASSES), f"classes without a project: {sorted(set(cp.CLASSES) - covered)}"
    # several projects per class, so no class rests on one way of writing it
    for cls in cp.CLASSES:
        assert sum(cls in p.classes for p in PROJECTS) >= 2, cp.CLASSES[cls]


@pytest.mark.parametrize("project", PROJECTS, ids=IDS)
def test_project_metadata_matches_its_files(project: cp.Project) -> None:
    units = project.translation_units()
    assert units, f"{project.name} has no translation unit"
    assert len(project.description) > 40
    if project.build == "cmake":
        cmake = (project.root / "CMakeLists.txt").read_text("utf-8")
        assert "CUDA" in cmake and "find_package(CUDA" in cmake
    elif project.build == "make":
        assert (project.root / "Makefile").is_file()
        makefiles = [*project.root.rglob("Makefile"), *project.root.rglob("*.mk")]
        assert any("NVCC" in m.read_text("utf-8") for m in makefiles)
    for header in project.needs_headers:
        assert any(header in cp.included_headers(u, project.include_dirs()) for u in units), header


def test_the_corpus_has_the_layouts_real_code_has() -> None:
    builds = {p.build for p in PROJECTS}
    assert {"cmake", "make", "none"} <= builds
    assert {p.layout for p in PROJECTS} == cp.LAYOUTS
    assert sum(len(p.translation_units()) > 1 for p in PROJECTS) >= 15  # several units sharing headers
    assert sum(not p.classes for p in PROJECTS) >= 2  # controls: code that should port as it is


def test_porter_translates_every_project_without_a_failed_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "NO_COLOR": "1", "HIP_PLATFORM": "amd"}
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(cp.CORPUS), "-o", str(out), "--no-build",
                           "-j", "2"], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    report = json.loads((out / ".porter" / "report.json").read_text("utf-8"))
    failed = [f["path"] for f in report["files"] if f["status"] == "failed" or f.get("error")]
    assert failed == []
    for project in PROJECTS:
        for unit in project.translation_units():
            rel = unit.relative_to(cp.CORPUS)
            assert (out / rel).is_file(), rel


def _nvcc_units() -> list[tuple[cp.Project, Path]]:
    return [(p, u) for p in PROJECTS for u in p.translation_units()]


@pytest.mark.nvcc
@pytest.mark.parametrize("project", PROJECTS, ids=IDS)
def test_nvcc_compiles_every_unit(project: cp.Project) -> None:
    """Real compiles (nvcc -c -arch=sm_90). A unit whose files, command and nvcc version already compiled once is
    not compiled again (content-hash cache under ~/.cache/porter/corpus-nvcc; CORPUS_NVCC_NOCACHE=1 disables it)."""
    nvcc = cp.find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: the corpus is checked against the CUDA compiler where it is installed")
    search = cp.header_search_dirs(nvcc)
    missing = set(cp.missing_headers(project, search))
    compiled, skipped = 0, []
    with tempfile.TemporaryDirectory(prefix="corpus-nvcc-") as tmp:
        for unit in project.translation_units():
            lacking = missing & cp.included_headers(unit, project.include_dirs())
            if lacking:
                skipped.append(f"{unit.name} needs {', '.join(sorted(lacking))}")
                continue
            cmd = cp.nvcc_command(nvcc, project, unit, Path(tmp) / "unit.o", search)
            ok, output = cp.compile_unit_cached(project, unit, cmd, use_cache=not os.environ.get("CORPUS_NVCC_NOCACHE"))
            assert ok, f"{unit.relative_to(project.root)}:\n{output[-4000:]}"
            compiled += 1
    if not compiled:
        pytest.skip(f"no unit of {project.name} can be compiled here: {'; '.join(skipped)} "
                    f"({project.nvcc_unavailable or 'see bench/corpus/README.md for the library headers'})")


# ---- the failure-class table -----------------------------------------------------------------------------------

from compile_rate import classify, load_rules  # noqa: E402

RULES = load_rules()


@pytest.mark.parametrize(("message", "file", "expected"), [
    ("use of undeclared identifier 'hipBlockDim_z'", "/usr/include/hip/amd_detail/hip_cooperative_groups_helper.h", "1"),
    ("redefinition of '_errorString'", "helper_errors.h", "2"),
    ("call to 'getErrorString' is ambiguous", "include/cuda_helpers.h", "2"),
    ("use of overloaded operator '+' is ambiguous (with operand types 'float3' and 'float3')", "src/a.cu", "3"),
    ("redefinition of 'make_float4'", "include/vec.h", "3"),
    ("use of undeclared identifier '__fadd_rd'", "include/interval.cuh", "4"),
    ("use of undeclared identifier 'umin'", "include/grid_math.cuh", "4"),
    ("use of undeclared identifier 'atomicInc_system'", "src/progress.cu", "4"),
    ("use of undeclared identifier '__shfl_down_sync'", "src/reduce.cu", "5"),
    ("no member named 'persistingL2CacheMaxSize' in 'hipDeviceProp_t'", "device_query.cu", "6"),
    ("no matching function for call to 'hipMemPrefetchAsync'", "src/jacobi_um.cu", "7"),
    ("no member named 'meta_group_rank' in 'cooperative_groups::thread_block_tile<32, void>'", "src/r.cu", "8"),
    ("no member named 'binary_partition' in namespace 'cooperative_groups'", "cg.cu", "8"),
    ("'tex2D<float>' is unavailable: The image/texture API not supported on the device", "src/box.cu", "9"),
    ("'hipfft/hipfftXt.h' file not found", "poisson_xt.cu", "10"),
    ("'thrust/device_vector.h' file not found", "sensor_stats.cu", "10"),
    ("'cudla.h' file not found", "src/dla_infer.cu", "11"),
    ("use of undeclared identifier 'hipGraphSetConditional'", "src/solver.cu", "11"),
    ("'hipblas/hipblas.h' file not found", "src/main.cu", "other"),
    ("expected ';' after expression", "src/main.cu", "other"),
])
def test_failure_classes_table(message: str, file: str, expected: str) -> None:
    assert classify(message, file, RULES)[0] == expected
