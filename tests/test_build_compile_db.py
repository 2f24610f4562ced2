"""Include paths and defines from compile_commands.json, CMakeLists.txt, Makefiles; translation units."""

from __future__ import annotations

import json
from pathlib import Path

from porter.build.compile_db import collect_flags, plan_units, translation_units


def test_cmake_includes_and_definitions(tmp_path: Path) -> None:
    (tmp_path / "include").mkdir()
    (tmp_path / "CMakeLists.txt").write_text(
        "project(x LANGUAGES CXX HIP)\n"
        "include_directories(include ${CMAKE_CURRENT_SOURCE_DIR}/third)  # comment\n"
        "target_include_directories(app PRIVATE ${PROJECT_SOURCE_DIR}/gen SYSTEM PUBLIC ${UNKNOWN}/x)\n"
        "add_definitions(-DUSE_FAST=1 -O2)\n"
        "target_compile_definitions(app PUBLIC BLOCK=256)\n")
    (tmp_path / "include" / "a.cuh").write_text("")
    flags = collect_flags(tmp_path)
    root = tmp_path.resolve()
    assert flags.source == "CMakeLists.txt"
    assert flags.include_dirs == [str(root / "include"), str(root / "third"), str(root / "gen")]
    assert flags.defines == ["USE_FAST=1", "BLOCK=256"]


def test_makefile_flag_variables(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(
        "NVCCFLAGS := -O3 -I./inc -I $(CUDA_HOME)/include -DN=4 \\\n  -D DEBUG\n"
        "LDFLAGS = -lcudart\nall:\n\tnvcc $(NVCCFLAGS) -Iignored x.cu\n")
    flags = collect_flags(tmp_path)
    assert flags.source == "Makefile"
    assert flags.include_dirs == [str((tmp_path / "inc").resolve())]
    assert flags.defines == ["N=4", "DEBUG"]


LLMC_LIKE = """PRECISION ?= BF16
SHELL_UNAME = $(shell uname)
ifeq ($(PRECISION), FP32)
  PFLAGS = -DENABLE_FP32
else ifeq ($(PRECISION), FP16)
  PFLAGS = -DENABLE_FP16
else
  PFLAGS = -DENABLE_BF16
endif
define check_flag
  ifeq ($(FLAG_SUPPORTED),yes)
    CFLAGS += -DNEVER_READ
  endif
endef
ifeq ($(USE_CUDNN), 1)
  NVCC_FLAGS += -DENABLE_CUDNN -Icudnn-frontend/include
endif
ifneq ($(OS), Windows_NT)
  ifeq ($(SHELL_UNAME), Linux)
    NVCC_FLAGS += -DON_LINUX
  endif
  ifeq ($(shell dpkg -l | grep -q nccl && echo "exists"), exists)
    NVCC_FLAGS += -DMULTI_GPU -Inccl/include
  else
    NVCC_FLAGS += -DNO_NCCL_FOUND
  endif
else
  NVCC_FLAGS += -DWINDOWS_ONLY
endif
ifndef GPU_COMPUTE_CAPABILITY
  NVCC_FLAGS += -DDEFAULT_ARCH
endif
ifneq ($(CI),true)
  NVCC_FLAGS += -DNOT_CI
endif
NVCC_FLAGS += $(PFLAGS) -DALWAYS
"""


def test_makefile_conditionals_are_followed_as_a_plain_make_would(tmp_path: Path) -> None:
    """llm.c's Makefile: -DMULTI_GPU only where `dpkg -l` lists NCCL, -DENABLE_CUDNN only with USE_CUDNN=1, one
    precision of three. Reading every branch defined them all (and compiled the NCCL and cuDNN paths, whose
    libraries are not installed); a branch porter cannot decide gives its include folders, not its defines."""
    (tmp_path / "Makefile").write_text(LLMC_LIKE)
    flags = collect_flags(tmp_path)
    assert flags.defines == ["ENABLE_BF16", "ON_LINUX", "DEFAULT_ARCH", "NOT_CI", "ALWAYS"]
    assert flags.include_dirs == [str((tmp_path / "nccl" / "include").resolve())]


def test_make_conditions_branch_by_branch() -> None:
    from porter.build.make_conditions import Branch, conditioned_lines

    seen = dict(conditioned_lines(LLMC_LIKE))
    assert seen["  PFLAGS = -DENABLE_BF16"] is Branch.TAKEN
    assert seen["  PFLAGS = -DENABLE_FP32"] is Branch.NOT_TAKEN and seen["  PFLAGS = -DENABLE_FP16"] is Branch.NOT_TAKEN
    assert seen["    NVCC_FLAGS += -DMULTI_GPU -Inccl/include"] is Branch.UNKNOWN
    assert seen["    NVCC_FLAGS += -DNO_NCCL_FOUND"] is Branch.UNKNOWN  # the else of an unknown condition
    assert seen["  NVCC_FLAGS += -DWINDOWS_ONLY"] is Branch.NOT_TAKEN
    assert "    CFLAGS += -DNEVER_READ" not in seen  # inside define ... endef
    overridden = dict(conditioned_lines('PRECISION = FP16\nifeq "$(PRECISION)" "FP16"\nA = 1\nendif\n'))
    assert overridden["A = 1"] is Branch.TAKEN


def test_sources_a_plain_make_does_not_build_are_not_units(tmp_path: Path) -> None:
    """llm.c: `$(NVCC_CUDNN): llmc/cudnn_att.cpp`, with NVCC_CUDNN set only under USE_CUDNN=1, is not built by a
    plain make (it needs cuDNN's frontend); train_gpt2.cu is built although profile_gpt2.cu includes it; a source
    the Makefile never names is planned as before."""
    from porter.build.make_conditions import source_mentions

    makefile = (
        "USE_CUDNN ?= 0\nNVCC_CUDNN =\nifeq ($(USE_CUDNN), 1)\n  NVCC_CUDNN = $(BUILD_DIR)/cudnn_att.o\nendif\n"
        "ifeq ($(USE_MPI), 1)\n  EXTRA = mpi_part.cu\nendif\n"
        "$(NVCC_CUDNN): llmc/cudnn_att.cpp\n\t$(NVCC) -c $< -o $@\n"
        "train_gpt2cu: train_gpt2.cu $(NVCC_CUDNN)\n\t$(NVCC) $^ -o $@\n"
        "profile_gpt2cu: profile_gpt2.cu $(NVCC_CUDNN)\n\t$(NVCC) $^ -o $@\n")
    mentions = source_mentions(makefile)
    assert (mentions["llmc/cudnn_att.cpp"].read, mentions["mpi_part.cu"].read) == (False, False)
    assert mentions["train_gpt2.cu"].compiled and mentions["profile_gpt2.cu"].compiled
    (tmp_path / "llmc").mkdir()
    (tmp_path / "Makefile").write_text(makefile)
    (tmp_path / "llmc" / "cudnn_att.cpp").write_text("#include <hip/hip_runtime.h>\n")
    (tmp_path / "mpi_part.cu").write_text("")
    (tmp_path / "train_gpt2.cu").write_text("int main() { return 0; }\n")
    (tmp_path / "profile_gpt2.cu").write_text('#define main train_main\n#include "train_gpt2.cu"\n')
    (tmp_path / "LICENSE.gups.cu").write_text("Copyright (c) ...\n")  # beside a Makefile that lists its sources
    (tmp_path / "bfs").mkdir()  # a folder with no Makefile: planned as before
    (tmp_path / "bfs" / "kernel.cu").write_text("")
    (tmp_path / "bfs" / "bfs.cu").write_text('#include "kernel.cu"\n')
    plan = plan_units(tmp_path)
    assert sorted(p.name for p in plan.units) == ["bfs.cu", "profile_gpt2.cu", "train_gpt2.cu"]
    assert plan.skipped["llmc/cudnn_att.cpp"] == "Makefile builds it only under a condition a plain `make` does not meet"
    assert plan.skipped["mpi_part.cu"].startswith("Makefile builds it only")
    assert plan.skipped["LICENSE.gups.cu"] == "not among the sources Makefile names"
    assert plan.skipped["bfs/kernel.cu"].startswith("included by bfs/bfs.cu")
    # a Makefile that finds its sources (a wildcard) says nothing of the ones it does not name
    (tmp_path / "Makefile").write_text(makefile + "ALL := $(wildcard *.cu)\n")
    assert "LICENSE.gups.cu" not in plan_units(tmp_path).skipped
    (tmp_path / "CMakeLists.txt").write_text("project(x CUDA)\n")  # CMake says what it builds its own way
    assert "mpi_part.cu" not in plan_units(tmp_path).skipped


def test_sources_a_cmake_build_leaves_out_are_not_units(tmp_path: Path) -> None:
    """Tony-Tan/CUDA_Freshman: an old copy beside the source a target names, a sample folder the top CMakeLists does
    not add (dynamic parallelism), a stray folder, and a committed build folder's compiler probe are not compiled;
    sources named through set() variables, a GLOB folder, `${CMAKE_CURRENT_SOURCE_DIR}/...`, and a project() of its
    own that nothing adds are."""
    def write(rel: str, text: str = "__global__ void k() {}\n") -> None:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)

    write("CMakeLists.txt", "project(F CXX CUDA)\n# add_subdirectory(13_nested)\nadd_subdirectory(7_info)\n"
          "add_subdirectory(libs)\nadd_subdirectory(globbed)\n")
    write("7_info/CMakeLists.txt", "set(SRCS device_information.cu)\nadd_executable(${PROJECT_NAME}_info ${SRCS})\n")
    write("7_info/device_information.cu")
    write("7_info/evice_information.cu")  # an old copy the repository kept
    write("13_nested/nested.cu")
    write("13_nested/CMakeLists.txt", "add_executable(nested nested.cu)\n")
    write("libs/CMakeLists.txt", "add_library(k STATIC ${CMAKE_CURRENT_SOURCE_DIR}/kern/a.cu)\n")
    write("libs/kern/a.cu")
    write("libs/kern/b.cu")
    write("globbed/CMakeLists.txt", "file(GLOB S *.cu)\nadd_executable(g ${S})\n")
    write("globbed/sub/any.cu")
    write("tools/CMakeLists.txt", "project(tools CUDA)\nadd_executable(t t.cu)\n")
    write("tools/t.cu")
    write("cmake-build-debug/CMakeFiles/3.9.6/CompilerIdCUDA/CMakeCUDACompilerId.cu")
    plan = plan_units(tmp_path, sorted(p for p in tmp_path.rglob("*") if p.is_file()))  # as convert gives them
    assert sorted(str(p.relative_to(tmp_path)) for p in plan.units) == [
        "7_info/device_information.cu", "globbed/sub/any.cu", "libs/kern/a.cu", "tools/t.cu"]
    left_out = "not among the sources the CMake build of the tree compiles"
    assert plan.skipped["7_info/evice_information.cu"] == left_out
    assert plan.skipped["13_nested/nested.cu"] == left_out
    assert plan.skipped["libs/kern/b.cu"] == left_out
    assert plan.skipped["cmake-build-debug/CMakeFiles/3.9.6/CompilerIdCUDA/CMakeCUDACompilerId.cu"].startswith(
        "a CMake build folder's file")
    # sources the reading cannot see (a target's sources in a variable set elsewhere) leave the folder as it was
    write("7_info/CMakeLists.txt", "add_executable(info ${INFO_SOURCES})\n")
    assert "7_info/evice_information.cu" not in plan_units(tmp_path).skipped
    # compile_commands.json says what the build compiles: no CMake reading
    write("compile_commands.json", "[]")
    assert "13_nested/nested.cu" not in plan_units(tmp_path).skipped


def test_compile_commands_remapped_to_output_tree(tmp_path: Path) -> None:
    src_root, out = tmp_path / "in", tmp_path / "out"
    (out / ".porter").mkdir(parents=True)
    (out / ".porter" / "manifest.json").write_text(json.dumps({"source_root": str(src_root)}))
    (out / "compile_commands.json").write_text(json.dumps([
        {"directory": str(src_root), "file": "a.cu", "command": f"nvcc -I{src_root}/inc -Ilocal -DX=1 -c a.cu"},
        {"directory": str(src_root), "file": "b.cu", "arguments": ["nvcc", "-isystem", "/opt/x", "-D", "Y", "b.cu"]},
    ]))
    flags = collect_flags(out)
    assert flags.include_dirs == [str(out.resolve() / "inc"), str(out.resolve() / "local"), "/opt/x"]
    assert flags.defines == ["X=1", "Y"]


def test_translation_units_skip_host_only_cpp_and_hidden_dirs(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text("")
    (tmp_path / "old.cu").write_text("")
    (tmp_path / "host.cpp").write_text("int main() { return 0; }\n")
    (tmp_path / "gpu.cpp").write_text("void f() { hipDeviceSynchronize(); }\n")
    (tmp_path / ".porter").mkdir()
    (tmp_path / ".porter" / "x.hip").write_text("")
    names = [p.name for p in translation_units(tmp_path)]
    assert names == ["gpu.cpp", "k.hip", "old.cu"]


def test_cmake_generator_expressions_variables_and_language_options(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(warpkit LANGUAGES CXX CUDA)\n"
        "set(WK_GEN ${CMAKE_CURRENT_SOURCE_DIR}/generated)\n"
        "find_package(OpenMP REQUIRED)\n"
        "add_library(warpkit STATIC src/a.cu)\n"
        "target_include_directories(warpkit PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>\n"
        "  $<INSTALL_INTERFACE:include> ${WK_GEN} ${warpkit_SOURCE_DIR}/third)\n"
        "target_compile_options(warpkit PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-DFAST_PATH>)\n"
        "set_target_properties(warpkit PROPERTIES CUDA_STANDARD 17 CUDA_SEPARABLE_COMPILATION ON)\n")
    flags = collect_flags(tmp_path)
    root = tmp_path.resolve()
    assert flags.include_dirs == [str(root / "include"), str(root / "generated"), str(root / "third")]
    assert flags.defines == ["FAST_PATH"]
    assert (flags.std, flags.openmp, flags.rdc) == ("c++17", True, True)
    assert flags.args()[-3:] == ["-std=c++17", "-fopenmp", "-fgpu-rdc"]


def test_makefile_host_options_and_relocatable_code(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(
        "NVCCFLAGS = -O2 -std=c++14 -rdc=true -Xcompiler -fopenmp,-Wall -arch=sm_80\nall:\n\t$(NVCC) x.cu\n")
    flags = collect_flags(tmp_path)
    assert (flags.std_for(tmp_path.resolve() / "x.cu"), flags.openmp, flags.rdc) == ("c++14", True, True)


def test_plain_tree_gets_no_language_options(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    flags = collect_flags(tmp_path)
    assert (flags.std, flags.openmp, flags.rdc) == (None, False, False)
    # nvcc's default standard, not ROCm 5.x hipcc's forced -std=c++11 (olcf's `auto` return types); none for C
    assert flags.args() == ["-std=c++17"] and flags.args(tmp_path / "host.c") == []


def test_nested_include_resolves_to_the_folder_above_its_path(tmp_path: Path) -> None:
    # a library whose build file says where include/ is in a way porter does not read: the include still resolves
    (tmp_path / "include" / "warpkit").mkdir(parents=True)
    (tmp_path / "include" / "warpkit" / "warp_ops.cuh").write_text("#pragma once\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "reduce.cu").write_text('#include "warpkit/warp_ops.cuh"\n#include <vector>\n')
    (tmp_path / "src" / "local.cuh").write_text("")
    (tmp_path / "src" / "other.cu").write_text('#include "missing/nowhere.cuh"\n#include "local.cuh"\n')
    flags = collect_flags(tmp_path)
    root = tmp_path.resolve()
    assert flags.include_dirs == [str(root / "include")]
    assert flags.header_dirs == [str(root / "include" / "warpkit"), str(root / "src")]  # after the system's


def test_an_included_source_is_left_out_only_where_a_unit_reaches_it(tmp_path: Path) -> None:
    from porter.build.compile_db import plan_units

    (tmp_path / "main.cu").write_text('#include "defs.h"\n')
    (tmp_path / "defs.h").write_text('#pragma once\n#include "kernels.cu"\n')  # reached from main.cu
    (tmp_path / "kernels.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "orphan.h").write_text('#include "alone.cu"\n')  # no unit includes orphan.h
    (tmp_path / "alone.cu").write_text("__global__ void a() {}\n")
    plan = plan_units(tmp_path.resolve())
    assert sorted(p.name for p in plan.units) == ["alone.cu", "main.cu"]
    assert plan.skipped == {"kernels.cu": "included by defs.h: compiled as part of it"}


def test_each_cmake_project_of_a_tree_keeps_its_own_language_standard(tmp_path: Path) -> None:
    """CUDALibrarySamples: one sample's CMakeLists sets C++11, the others none or C++17; before, the first found
    applied to every unit of the tree (C++11 for all, which hipBLASLt's and rocThrust's headers reject)."""
    for sample, std in (("lt/auto", "11"), ("blas/gemm", "17"), ("fft/c2c", None)):
        (tmp_path / sample).mkdir(parents=True)
        (tmp_path / sample / "CMakeLists.txt").write_text(
            "project(s LANGUAGES CXX CUDA)\n" + (f"set(CMAKE_CXX_STANDARD {std})\n" if std else ""))
        (tmp_path / sample / "main.cu").write_text("")
    flags = collect_flags(tmp_path)
    root = tmp_path.resolve()
    assert flags.std is None
    assert flags.std_for(root / "lt" / "auto" / "main.cu") == "c++11"
    assert "-std=c++17" in flags.args(root / "blas" / "gemm" / "main.cu")
    # a project that names no standard gets nvcc's default
    assert [a for a in flags.args(root / "fft" / "c2c" / "main.cu") if a.startswith("-std=")] == ["-std=c++17"]


def test_recipe_flags_apply_to_the_units_the_recipe_compiles(tmp_path: Path) -> None:
    """The NVIDIA blog's nvtx and rnn samples put their defines in the recipe (`nvcc -DUSE_NVTX ... manual_nvtx.cu`,
    `$(NVCC) -DPERFOPTS=31 $<`): those are that unit's flags, not the tree's; in a tree that also has CMake
    projects, a Makefile outside them is read."""
    (tmp_path / "nvtx").mkdir()
    (tmp_path / "nvtx" / "Makefile").write_text(
        "all: manual lstm\nmanual: manual.cu\n\tnvcc -DUSE_NVTX -arch=sm_70 -lnvToolsExt -o manual manual.cu\n"
        "lstm: lstm.cu\n\t$(NVCC) -D PERFOPTS=31 -Iinc $< -o $@\nplain: plain.cu\n\tnvcc plain.cu\n")
    (tmp_path / "cm").mkdir()
    (tmp_path / "cm" / "CMakeLists.txt").write_text("project(p CUDA)\nadd_definitions(-DFROM_CMAKE)\n")
    (tmp_path / "cm" / "Makefile").write_text("x: x.cu\n\tnvcc -DLEFTOVER x.cu\n")  # inside a CMake project
    flags = collect_flags(tmp_path)
    root = tmp_path.resolve()
    assert flags.source == "CMakeLists.txt and Makefile" and flags.defines == ["FROM_CMAKE"]
    assert "-DUSE_NVTX" in flags.args(root / "nvtx" / "manual.cu")
    assert flags.args(root / "nvtx" / "lstm.cu")[-3:-1] == [f"-I{root / 'nvtx' / 'inc'}", "-DPERFOPTS=31"]
    assert not [a for a in flags.args(root / "nvtx" / "plain.cu") if a in ("-DUSE_NVTX", "-DPERFOPTS=31")]
    assert not [a for a in flags.args(root / "cm" / "x.cu") if "LEFTOVER" in a]
    # a -std= in a Makefile's flags is its project's, in a recipe its units'
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "Makefile").write_text("NVCCFLAGS = -std=c++11\nv: v.cu\n\tnvcc $(NVCCFLAGS) v.cu\n"
                                             "w: w.cu\n\tnvcc -std=c++14 w.cu\n")
    flags = collect_flags(tmp_path)
    assert flags.std_for(root / "old" / "v.cu") == "c++11" and flags.std_for(root / "old" / "w.cu") == "c++14"
    assert flags.std_for(root / "nvtx" / "manual.cu") is None


def test_a_unit_using_rocthrust_gets_cxx14_where_its_build_says_cxx11(tmp_path: Path) -> None:
    """The NVIDIA blog's c++11_cuda builds with `nvcc --std=c++11` and Thrust; rocPRIM refuses C++11 ("rocPRIM
    requires at least C++14"). Units that include no Thrust, CUB or rocPRIM header keep the build's standard."""
    (tmp_path / "Makefile").write_text("all:\n\tnvcc --std=c++11 count.cu plain.cu -o count\n")
    (tmp_path / "count.cu").write_text("#include <thrust/count.h>\nint main() { return 0; }\n")
    (tmp_path / "plain.cu").write_text("#include <cstdio>\n__global__ void k() {}\n")
    (tmp_path / "gnu.cu").write_text("  #  include <hipcub/hipcub.hpp>\n")
    root = tmp_path.resolve()
    flags = collect_flags(tmp_path)
    assert "-std=c++14" in flags.args(root / "count.cu")
    assert "-std=c++11" in flags.args(root / "plain.cu")
    flags.std = "gnu++11"
    assert "-std=gnu++14" in flags.args(root / "gnu.cu")
