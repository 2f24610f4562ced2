"""Build-file translation (porter.translate.buildfiles): CMake and Makefiles, CUDA -> HIP.

Every `port()` call also checks idempotency: translating the output again must change nothing.
The two integration tests at the end configure/build the translated files with the real toolchain.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from porter.translate.buildfiles import is_build_file, load_build_data, translate_build_file
from porter.translate.options import Reason, TranslateOptions, TranslationResult

DATA = load_build_data()


def port(text: str | bytes, name: str = "CMakeLists.txt", **options) -> TranslationResult:
    source = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    opts = TranslateOptions(**options)
    result = translate_build_file(name, source, opts)
    again = translate_build_file(name, result.output, opts)
    assert again.output == result.output, "not idempotent:\n" + again.output.decode("utf-8", "replace")
    return result


def out(result: TranslationResult) -> str:
    return result.output.decode("utf-8", "surrogateescape")


def names(result: TranslationResult) -> list[str]:
    return [u.name for u in result.unconverted]


def make(text: str, **options) -> TranslationResult:
    return port(text, "Makefile", **options)


# --- classification ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["CMakeLists.txt", "sub/CMakeLists.txt", "cmake/cuda.cmake", "Makefile", "makefile",
                                  "GNUmakefile", "rules.mk", "build/common.mak", "x/Config.CMAKE"])
def test_build_files_are_recognised(path: str) -> None:
    assert is_build_file(path)


@pytest.mark.parametrize("path", ["main.cu", "CMakeLists.txt.bak", "Makefile.am", "README.md", "cmake/notes.txt"])
def test_other_files_are_not_build_files(path: str) -> None:
    assert not is_build_file(path)


# --- CMake: languages, variables, properties -------------------------------------------------------------------

def test_project_and_enable_language() -> None:
    r = port("project(x LANGUAGES CXX CUDA)\nenable_language(CUDA)\ncheck_language(CUDA)\n")
    assert out(r) == "project(x LANGUAGES CXX HIP)\nenable_language(HIP)\ncheck_language(HIP)\n"
    assert all(c.family == "build" for c in r.conversions)


def test_project_without_languages_keyword_and_with_hip_already() -> None:
    assert out(port("project(x CXX CUDA)\n")) == "project(x CXX HIP)\n"
    assert out(port("project(x LANGUAGES CXX CUDA HIP)\n")) == "project(x LANGUAGES CXX HIP)\n"


def test_cuda_named_project_is_left() -> None:
    assert out(port("project(CUDA_tools LANGUAGES CXX)\n")) == "project(CUDA_tools LANGUAGES CXX)\n"


@pytest.mark.parametrize("cuda,hip", sorted(DATA.rename.items()))
def test_every_renamed_identifier(cuda: str, hip: str) -> None:
    assert out(port(f'set(X "${{{cuda}}}")\n')) == f'set(X "${{{hip}}}")\n'


def test_standard_and_flags_variables() -> None:
    r = port('set(CMAKE_CUDA_STANDARD 17)\nset(CMAKE_CUDA_FLAGS_RELEASE "${CMAKE_CUDA_FLAGS_RELEASE} -O3")\n')
    assert out(r) == 'set(CMAKE_HIP_STANDARD 17)\nset(CMAKE_HIP_FLAGS_RELEASE "${CMAKE_HIP_FLAGS_RELEASE} -O3")\n'


def test_architectures_become_the_gfx_target() -> None:
    r = port('set(CMAKE_CUDA_ARCHITECTURES 70 80-real "86;90a")\n', target="gfx90a")
    assert out(r) == "set(CMAKE_HIP_ARCHITECTURES gfx90a)\n"
    r = port('set(CMAKE_CUDA_ARCHITECTURES "native" CACHE STRING "archs")\n')
    assert out(r) == 'set(CMAKE_HIP_ARCHITECTURES gfx942 CACHE STRING "archs")\n'


def test_architecture_properties() -> None:
    src = ('set_target_properties(t PROPERTIES CUDA_ARCHITECTURES "70;80" POSITION_INDEPENDENT_CODE ON)\n'
           "set_property(TARGET t PROPERTY CUDA_ARCHITECTURES 75 86)\n")
    assert out(port(src)) == ("set_target_properties(t PROPERTIES HIP_ARCHITECTURES gfx942 POSITION_INDEPENDENT_CODE ON)\n"
                              "set_property(TARGET t PROPERTY HIP_ARCHITECTURES gfx942)\n")


def test_architectures_from_a_variable_are_reported() -> None:
    r = port("set(CMAKE_CUDA_ARCHITECTURES ${MY_ARCHS})\n")
    assert out(r) == "set(CMAKE_HIP_ARCHITECTURES ${MY_ARCHS})\n"
    assert names(r) == ["${MY_ARCHS}"] and r.unconverted[0].reason is Reason.NOT_MAPPED


def test_architectures_after_project_are_also_set_before_it() -> None:
    """nvcc has default architectures, CMake's HIP support needs them when project() enables the language (no GPU
    to detect on a CI machine): the value is set before project() too, unless the user gives one."""
    r = port("project(x LANGUAGES CUDA)\nset(CMAKE_CUDA_ARCHITECTURES 80)\n", target="gfx90a")
    assert r.output.decode() == ("if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n  set(CMAKE_HIP_ARCHITECTURES gfx90a)\n"
                                 "endif()\nproject(x LANGUAGES HIP)\nset(CMAKE_HIP_ARCHITECTURES gfx90a)\n")
    assert not r.warnings
    before = port("set(CMAKE_CUDA_ARCHITECTURES 80)\nproject(x LANGUAGES CUDA)\n", target="gfx90a")
    assert before.output.decode() == "set(CMAKE_HIP_ARCHITECTURES gfx90a)\nproject(x LANGUAGES HIP)\n"


def test_separable_compilation_is_reported_unless_off() -> None:
    r = port("set(CMAKE_CUDA_SEPARABLE_COMPILATION ON)\nset_target_properties(t PROPERTIES CUDA_SEPARABLE_COMPILATION ON)\n")
    assert names(r) == ["CMAKE_CUDA_SEPARABLE_COMPILATION", "CUDA_SEPARABLE_COMPILATION"]
    assert all(u.reason is Reason.NO_HIP_EQUIVALENT and "-fgpu-rdc" in u.detail for u in r.unconverted)
    assert [(u.line, u.column) for u in r.unconverted] == [(1, 5), (2, 36)]
    assert not port("set_target_properties(t PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)\n").unconverted


def test_unknown_cmake_cuda_variable_and_nvcc_flags_are_reported() -> None:
    r = port("set(CMAKE_CUDA_FANCY_THING 1)\nlist(APPEND CUDA_NVCC_FLAGS -O3)\nset(CUDA_TOOLKIT_ROOT_DIR /usr/local/cuda)\n")
    assert names(r) == ["CMAKE_CUDA_FANCY_THING", "CUDA_NVCC_FLAGS", "CUDA_TOOLKIT_ROOT_DIR", "/usr/local/cuda"]


def test_generator_expressions() -> None:
    src = ("target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-O3> $<$<COMPILE_LANGUAGE:CXX,CUDA>:-g>)\n"
           "target_compile_definitions(t PRIVATE $<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:NV>)\n")
    assert out(port(src)) == ("target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-O3> $<$<COMPILE_LANGUAGE:CXX,HIP>:-g>)\n"
                              "target_compile_definitions(t PRIVATE $<$<COMPILE_LANG_AND_ID:HIP,Clang>:NV>)\n")


def test_source_language_property_and_linker_language() -> None:
    src = "set_source_files_properties(a.cpp PROPERTIES LANGUAGE CUDA)\nset_target_properties(t PROPERTIES LINKER_LANGUAGE CUDA)\n"
    assert out(port(src)) == src.replace("CUDA", "HIP")


def test_minimum_version_is_raised_where_hip_is_enabled() -> None:
    assert out(port("cmake_minimum_required(VERSION 3.10)\nproject(x CUDA)\n")).startswith("cmake_minimum_required(VERSION 3.21)")
    assert out(port("cmake_minimum_required(VERSION 3.8...3.27)\nproject(x CUDA)\n")).startswith("cmake_minimum_required(VERSION 3.21...3.27)")
    assert out(port("cmake_minimum_required(VERSION 3.24)\nproject(x CUDA)\n")).startswith("cmake_minimum_required(VERSION 3.24)")
    assert out(port("cmake_minimum_required(VERSION 3.10)\nproject(x CXX)\n")).startswith("cmake_minimum_required(VERSION 3.10)")


# --- CMake: packages and link items ------------------------------------------------------------------------------

@pytest.mark.parametrize("cuda,link", sorted(DATA.link.items()))
def test_every_link_target(cuda: str, link) -> None:
    r = port(f"find_package(CUDAToolkit REQUIRED)\ntarget_link_libraries(app PRIVATE {cuda})\n")
    text = out(r)
    if link.hip:
        assert f"target_link_libraries(app PRIVATE {link.hip})" in text
    assert cuda not in text
    if link.package:
        assert f"find_package({link.package} REQUIRED)" in text


@pytest.mark.parametrize("cuda,hip,package", [
    ("CUDA::cudart", "hip::host", "hip"), ("CUDA::cublas", "roc::hipblas", "hipblas"),
    ("CUDA::curand", "hip::hiprand", "hiprand"), ("CUDA::cufft", "hip::hipfft", "hipfft"),
    ("CUDA::cusparse", "roc::hipsparse", "hipsparse"), ("CUDA::cusolver", "roc::hipsolver", "hipsolver"),
    ("CUDA::nvrtc", "hiprtc::hiprtc", "hiprtc"), ("CUDA::nvToolsExt", "roctx64", ""), ("NCCL::nccl", "rccl", "rccl"),
])
def test_documented_rocm_targets(cuda: str, hip: str, package: str) -> None:
    assert DATA.link[cuda].hip == hip and DATA.link[cuda].package == package


def test_find_cuda_toolkit_brings_the_packages_the_targets_need() -> None:
    src = ("find_package(CUDAToolkit 11 REQUIRED)\n"
           "target_link_libraries(a PRIVATE CUDA::cudart CUDA::cublas CUDA::cuda_driver)\n"
           "target_link_libraries(b PRIVATE CUDA::cufft)\n")
    assert out(port(src)) == ("find_package(hip REQUIRED)\nfind_package(hipblas REQUIRED)\nfind_package(hipfft REQUIRED)\n"
                              "target_link_libraries(a PRIVATE hip::host roc::hipblas)\n"
                              "target_link_libraries(b PRIVATE hip::hipfft)\n")


def test_packages_already_found_are_not_added_again() -> None:
    src = "find_package(hipblas REQUIRED)\nfind_package(CUDAToolkit)\ntarget_link_libraries(a CUDA::cublas)\n"
    assert out(port(src)) == "find_package(hipblas REQUIRED)\nfind_package(hip REQUIRED)\ntarget_link_libraries(a roc::hipblas)\n"


def test_subdirectory_without_find_package_gets_one_before_the_use() -> None:
    src = "add_library(k k.cpp)\n  target_link_libraries(k PUBLIC CUDA::curand)\n"
    assert out(port(src, "src/CMakeLists.txt")) == (
        "add_library(k k.cpp)\n  find_package(hiprand REQUIRED)\n  target_link_libraries(k PUBLIC hip::hiprand)\n")


def test_bare_library_names_and_findcuda_variables() -> None:
    src = "target_link_libraries(a cudart cublas ${CUDA_curand_LIBRARY} m)\n"
    text = out(port(src, "sub/CMakeLists.txt"))
    assert text.endswith("target_link_libraries(a hip::host roc::hipblas hip::hiprand m)\n")


def test_duplicate_runtime_items_collapse() -> None:
    assert out(port("find_package(CUDAToolkit)\ntarget_link_libraries(a CUDA::cudart CUDA::cuda_driver)\n")).endswith(
        "target_link_libraries(a hip::host)\n")


def test_unported_cuda_libraries_are_reported() -> None:
    r = port("find_package(CUDAToolkit)\ntarget_link_libraries(a CUDA::cupti CUDA::nvml CUDA::npp_magic)\nfind_package(CUDNN)\n")
    assert names(r) == ["CUDA::cupti", "CUDA::nvml", "CUDA::npp_magic", "CUDNN"]


def test_findcuda_project_gets_the_hip_language() -> None:
    src = ("cmake_minimum_required(VERSION 3.10)\nproject(p CXX)\nfind_package(CUDA REQUIRED)\n"
           "cuda_add_executable(p main.cpp k.cu OPTIONS -G)\ncuda_add_cublas_to_target(p)\n")
    r = port(src)
    assert out(r) == ("cmake_minimum_required(VERSION 3.21)\nproject(p CXX)\nenable_language(HIP)\nfind_package(hip REQUIRED)\n"
                      "find_package(hipblas REQUIRED)\nadd_executable(p main.cpp k.cu)\n"
                      "set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)\ntarget_link_libraries(p roc::hipblas)\n")
    assert names(r) == ["OPTIONS"]


def test_findcuda_helpers_without_hip_counterpart_are_reported() -> None:
    r = port("cuda_compile(OBJS k.cu)\ncuda_select_nvcc_arch_flags(F Auto)\n")
    assert names(r) == ["cuda_compile", "cuda_select_nvcc_arch_flags"]


# --- CMake: .cu sources ------------------------------------------------------------------------------------------

def test_cu_sources_get_language_hip_once() -> None:
    src = "add_executable(app main.cpp k1.cu \"dir/k 2.cu\") # the app\ntarget_sources(app PRIVATE k1.cu k3.cu)\n"
    assert out(port(src)) == (
        'add_executable(app main.cpp k1.cu "dir/k 2.cu") # the app\n'
        'set_source_files_properties(k1.cu "dir/k 2.cu" PROPERTIES LANGUAGE HIP)\n'
        "target_sources(app PRIVATE k1.cu k3.cu)\nset_source_files_properties(k3.cu PROPERTIES LANGUAGE HIP)\n")


def test_existing_language_property_is_respected() -> None:
    src = "add_library(k k.cu)\nset_source_files_properties(k.cu PROPERTIES LANGUAGE CUDA)\n"
    assert out(port(src)) == "add_library(k k.cu)\nset_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)\n"


def test_cu_sources_through_variables() -> None:
    src = ("set(SRCS main.cpp a.cu)\nlist(APPEND SRCS b.cu)\nfile(GLOB GPU src/*.cu)\n"
           "add_executable(app ${SRCS} ${GPU})\nadd_library(iface INTERFACE)\n")
    assert out(port(src)).endswith(
        "add_executable(app ${SRCS} ${GPU})\nset_source_files_properties(a.cu b.cu ${GPU} PROPERTIES LANGUAGE HIP)\n"
        "add_library(iface INTERFACE)\n")


def test_mixed_glob_warns() -> None:
    r = port("file(GLOB SRCS *.cpp *.cu)\nadd_executable(app ${SRCS})\n")
    assert "LANGUAGE HIP" not in out(r) and any("SRCS" in w for w in r.warnings)


def test_renamed_sources_keep_no_property_and_follow_the_rename() -> None:
    renamed = (("src/k.cu", "src/k.hip"), ("k.cu", "k.hip"))
    src = "add_executable(app src/main.cpp src/k.cu)\nset(OTHER ${CMAKE_CURRENT_SOURCE_DIR}/src/k.cu)\nfile(GLOB G *.cu)\n"
    assert out(port(src, renamed=renamed)) == (
        "add_executable(app src/main.cpp src/k.hip)\nset(OTHER ${CMAKE_CURRENT_SOURCE_DIR}/src/k.hip)\nfile(GLOB G *.hip)\n")


def test_renames_match_paths_relative_to_a_subdirectory() -> None:
    renamed = (("lib/gpu/k.cu", "lib/gpu/k.hip"), ("k.cu", "k.hip"))
    assert out(port("add_library(g gpu/k.cu)\n", "lib/CMakeLists.txt", renamed=renamed)) == "add_library(g gpu/k.hip)\n"


# --- CMake: flags ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("flag,spec", sorted(DATA.plain.items()))
def test_every_plain_flag(flag: str, spec) -> None:
    r = port(f'set(CMAKE_CUDA_FLAGS "-O2 {flag} -g")\n')
    assert out(r) == f'set(CMAKE_HIP_FLAGS "-O2 {spec.hip + " " if spec.hip else ""}-g")\n'


@pytest.mark.parametrize("nvcc,hip", [
    ("-arch=sm_80", "--offload-arch=gfx942"), ("-arch sm_80", "--offload-arch=gfx942"),
    ("--gpu-architecture=compute_70", "--offload-arch=gfx942"),
    ("-gencode arch=compute_70,code=sm_70 -gencode=arch=compute_80,code=[sm_80,compute_80]", "--offload-arch=gfx942"),
    ("--generate-code arch=compute_90,code=sm_90 -code=sm_90", "--offload-arch=gfx942"),
    ("-Xcompiler -fPIC,-Wall", "-fPIC -Wall"), ("-Xcompiler=-fopenmp", "-fopenmp"), ("--compiler-options -fPIC", "-fPIC"),
    ("--default-stream per-thread", "-fgpu-default-stream=per-thread"), ("-rdc=true", "-fgpu-rdc"),
    ("--relocatable-device-code true", "-fgpu-rdc"), ("-ccbin g++-12", ""), ("--std c++17", "-std=c++17"),
    ("-x cu", "-x hip"), ("-cudart shared", ""), ("-Xlinker -rpath", "-Xlinker -rpath"),
])
def test_valued_flags(nvcc: str, hip: str) -> None:
    r = port(f'set(CMAKE_CUDA_FLAGS "-O2 {nvcc}")\n')
    assert out(r) == f'set(CMAKE_HIP_FLAGS "-O2{" " + hip if hip else ""}")\n'


@pytest.mark.parametrize("nvcc", ["-Xptxas -v", "-maxrregcount=64", "-Xcudafe --diag_suppress=1", "--diag-suppress 20012"])
def test_flags_without_equivalent_are_removed_and_reported(nvcc: str) -> None:
    r = port(f'set(CMAKE_CUDA_FLAGS "-O2 {nvcc}")\n')
    assert out(r) == 'set(CMAKE_HIP_FLAGS "-O2")\n'
    assert names(r) == [nvcc.replace(" ", " ")] and r.unconverted[0].detail.startswith("removed")


def test_flags_in_genex_lists_and_target_options() -> None:
    src = 'target_compile_options(t PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr;-lineinfo>" -G)\n'
    assert out(port(src)) == 'target_compile_options(t PRIVATE "$<$<COMPILE_LANGUAGE:HIP>:-gline-tables-only>" -g)\n'


def test_nvcc_only_flags_need_an_nvcc_context() -> None:
    src = "set(MY_OPTS -G -x cu)\nset(CMAKE_CUDA_FLAGS_DEBUG -G)\n"
    assert out(port(src)) == "set(MY_OPTS -G -x cu)\nset(CMAKE_HIP_FLAGS_DEBUG -g)\n"


def test_link_flags_in_cmake() -> None:
    assert out(port("target_link_libraries(a -lcublas -lcudart -lcuda)\n")) == "target_link_libraries(a -lhipblas -lamdhip64)\n"


# --- CMake: what must not change ---------------------------------------------------------------------------------

def test_comments_strings_and_messages_are_untouched() -> None:
    src = ("# project(x CUDA) CUDA::cublas -arch=sm_70 CMAKE_CUDA_FLAGS\n"
           "#[==[ enable_language(CUDA)\n  target_link_libraries(a CUDA::cudart) ]==]\n"
           'message(STATUS "Using CUDA::cublas and CMAKE_CUDA_FLAGS=${CMAKE_CUDA_FLAGS}")\n'
           "set(DOC [[CUDA::cufft -lineinfo]])\n"
           'add_custom_target(x COMMAND echo "k.cu")  # k.cu\n')
    r = port(src)
    assert out(r) == src and not r.conversions


def test_crlf_and_non_utf8_bytes_survive_cmake() -> None:
    src = b"# caf\xe9\r\nproject(x LANGUAGES CXX CUDA)\r\nadd_executable(x k.cu) # \xff\r\n"
    r = port(src)
    assert r.output == (b"# caf\xe9\r\nproject(x LANGUAGES CXX HIP)\r\nadd_executable(x k.cu) # \xff\r\n"
                        b"set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)\r\n")


def test_unterminated_input_does_not_crash() -> None:
    for src in ['project(x CUDA', 'set(A "unterminated', "#[[ open", "add_executable(", "set(A [=[ x"]:
        port(src)


def test_conversion_lines_point_at_the_change() -> None:
    r = port("cmake_minimum_required(VERSION 3.21)\n\nproject(x CUDA)\n")
    assert [(c.cuda, c.hip, c.line) for c in r.conversions] == [("CUDA", "HIP", 3)]


# --- Makefiles ---------------------------------------------------------------------------------------------------

def test_nvcc_becomes_hipcc_in_values_and_recipes() -> None:
    src = ("NVCC ?= nvcc\nCUDA_CC := /usr/local/cuda/bin/nvcc\nNV=$(CUDA_HOME)/bin/nvcc\n"
           "a: a.cu\n\tnvcc -o $@ $<\n\t@nvcc --version\n")
    assert out(make(src)) == ("NVCC ?= hipcc\nCUDA_CC := hipcc\nNV=hipcc\n"
                              "a: a.cu\n\thipcc -o $@ $<\n\t@hipcc --version\n")


def test_arch_flags_collapse_to_one_offload_arch() -> None:
    src = ("GENCODE := -gencode arch=compute_70,code=sm_70 \\\n\t-gencode arch=compute_80,code=sm_80 -O3\n"
           "a:\n\tnvcc -arch sm_70 -o a a.cu\n\tnvcc -arch=sm_70 -o b b.cu\n")
    assert out(make(src, target="gfx90a")) == (
        "GENCODE := --offload-arch=gfx90a \\\n\t-O3\n"
        "a:\n\thipcc --offload-arch=gfx90a -o a a.cu\n\thipcc --offload-arch=gfx90a -o b b.cu\n")


def test_gencode_inside_foreach() -> None:
    src = "G := $(foreach sm,$(SMS),-gencode arch=compute_$(sm),code=sm_$(sm))\n"
    assert out(make(src)) == "G := $(foreach sm,$(SMS),--offload-arch=gfx942)\n"


def test_host_arch_flag_is_not_touched() -> None:
    src = "CFLAGS += -arch arm64\n"
    assert out(make(src)) == src


def test_cuda_paths_become_rocm_path_defined_once() -> None:
    src = ("# header\n\nCUDA_HOME ?= /usr/local/cuda\nINC := -I$(CUDA_HOME)/include -I/usr/local/cuda-12.2/include\n"
           "LIBS := -L${CUDA_PATH}/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart\n")
    r = make(src)
    assert out(r) == ("# header\n\nROCM_PATH ?= /opt/rocm\nCUDA_HOME ?= /usr/local/cuda\n"
                      "INC := -I$(ROCM_PATH)/include -D__HIP_PLATFORM_AMD__ -I$(ROCM_PATH)/include -D__HIP_PLATFORM_AMD__\n"
                      "LIBS := -L$(ROCM_PATH)/lib -Wl,-rpath,$(ROCM_PATH)/lib -lamdhip64\n")
    assert not r.unconverted


def test_existing_rocm_path_is_not_redefined() -> None:
    src = "ROCM_PATH := /opt/rocm-6.2\nINC := -I$(CUDA_HOME)/include\n"
    assert out(make(src)) == "ROCM_PATH := /opt/rocm-6.2\nINC := -I$(ROCM_PATH)/include -D__HIP_PLATFORM_AMD__\n"


def test_other_cuda_paths_are_reported() -> None:
    r = make("CUDA_HOME ?= /usr/local/cuda\nINC := -I$(CUDA_HOME)/samples/common/inc\nX := $(CUDA_HOME)/extras/CUPTI\n")
    assert names(r) == ["$(CUDA_HOME)", "$(CUDA_HOME)"]
    assert [u.line for u in r.unconverted] == [2, 3]


@pytest.mark.parametrize("cuda,hip", sorted(DATA.libraries.items()))
def test_every_library_flag(cuda: str, hip: str) -> None:
    r = make(f"LIBS := -lm -l{cuda} -lpthread\n")
    assert out(r) == f"LIBS := -lm{' -l' + hip if hip else ''} -lpthread\n"


@pytest.mark.parametrize("lib", sorted(DATA.libraries_report))
def test_libraries_without_port_are_reported(lib: str) -> None:
    r = make(f"LIBS := -l{lib}\n")
    assert out(r) == f"LIBS := -l{lib}\n" and names(r) == [f"-l{lib}"]


def test_make_flags() -> None:
    src = ("NVCCFLAGS := -O3 --use_fast_math -lineinfo -Xcompiler -fopenmp,-Wall -rdc=true --expt-extended-lambda -G\n"
           "CXXFLAGS := -G -O2\n")
    assert out(make(src)) == "NVCCFLAGS := -O3 -ffast-math -gline-tables-only -fopenmp -Wall -fgpu-rdc -g\nCXXFLAGS := -G -O2\n"


def test_make_comments_are_untouched() -> None:
    src = ("# nvcc -arch=sm_70 -lcudart $(CUDA_HOME)/include\nFLAGS := -O2 # -lineinfo\n"
           "a:\n\techo '#x' && nvcc -c a.cu # nvcc -arch=sm_80\nB := x\\#-lineinfo\n")
    assert out(make(src)) == src.replace("&& nvcc", "&& hipcc")


def test_make_renames_follow_rename() -> None:
    renamed = (("src/k.cu", "src/k.hip"), ("k.cu", "k.hip"))
    src = ("SRCS := $(wildcard src/*.cu) main.cpp\nOBJS := $(SRCS:.cu=.o)\n%.o: %.cu k.cuh\n"
           "\tnvcc -c $< -o $@\nk.o: src/k.cu\nall: $(patsubst %.cu,%.o,$(SRCS))\n")
    assert out(make(src, renamed=renamed)) == (
        "SRCS := $(wildcard src/*.hip) main.cpp\nOBJS := $(SRCS:.hip=.o)\n%.o: %.hip k.cuh\n"
        "\thipcc -c $< -o $@\nk.o: src/k.hip\nall: $(patsubst %.hip,%.o,$(SRCS))\n")


def test_make_without_rename_keeps_cu_names() -> None:
    src = "%.o: %.cu\n\tnvcc -c $< -o $@\n"
    assert out(make(src)) == "%.o: %.cu\n\thipcc -c $< -o $@\n"


def test_make_crlf_continuations_and_bytes() -> None:
    src = b"# \xe9t\xe9\r\nNVCCFLAGS = -O2 -arch=sm_75 \\\r\n\t--use_fast_math -Wno-deprecated-gpu-targets\r\nall:\r\n\t@echo \xff\r\n"
    r = make(src)
    assert r.output == b"# \xe9t\xe9\r\nNVCCFLAGS = -O2 --offload-arch=gfx942 \\\r\n\t-ffast-math\r\nall:\r\n\t@echo \xff\r\n"


def test_removed_flag_never_eats_the_recipe_tab() -> None:
    src = "a:\n\t-Wno-deprecated-gpu-targets nvcc a.cu\n"
    assert out(make(src)).startswith("a:\n\t")


def test_included_makefile_fragment() -> None:
    r = port("NVCC := nvcc\n", "build/cuda.mk")
    assert out(r) == "NVCC := hipcc\n"


def test_make_without_trailing_newline_gets_rocm_path() -> None:
    r = make("# only a comment")
    assert out(r) == "# only a comment"
    assert out(make("LIBS := -L/usr/local/cuda/lib64")) == "ROCM_PATH ?= /opt/rocm\nLIBS := -L$(ROCM_PATH)/lib"


# --- integration: the translated files build with the real toolchain ---------------------------------------------

_KERNEL = """#include <hip/hip_runtime.h>
__global__ void scale(float* x, float s) { x[threadIdx.x] *= s; }
int launch(float* d) {
  scale<<<1, 64>>>(d, 2.0f);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
"""
_MAIN = """#include <hip/hip_runtime_api.h>
#include <cstdio>
int launch(float* d);
int main() {
  float* d = nullptr;
  if (hipMalloc(&d, 64 * sizeof(float)) != hipSuccess) { std::puts("no device"); return 0; }
  int rc = launch(d);
  (void)hipFree(d);
  return rc;
}
"""


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path:
        return path
    message = f"{tool} not found: cannot build the translated build files"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _rocm_root() -> Path:
    try:
        text = subprocess.run(["hipconfig", "--rocmpath"], capture_output=True, text=True, timeout=60).stdout.strip()
    except OSError:
        text = ""
    return Path(text or os.environ.get("ROCM_PATH", "/opt/rocm"))


def _hip_cmake_setup(tmp: Path) -> tuple[list[str], dict[str, str]]:
    """-D arguments (and env) that let CMake's HIP language find this ROCm; distro layouts need a little help."""
    rocm = _rocm_root()
    args, env = ["-DCMAKE_HIP_ARCHITECTURES=gfx90a"], dict(os.environ, HIP_PLATFORM="amd")
    if not (rocm / "lib/cmake/hip-lang/hip-lang-config.cmake").is_file():
        # Debian keeps CMake packages under lib/<multiarch>/cmake, which CMake 3.25 does not search for hip-lang
        found = sorted(rocm.glob("lib/*/cmake/hip-lang/hip-lang-config.cmake"))
        if not found:
            pytest.skip(f"no hip-lang CMake package under {rocm}: the HIP language cannot be enabled here")
        fake = tmp / "rocm-root"
        (fake / "lib").mkdir(parents=True)
        (fake / "lib" / "cmake").symlink_to(found[0].parent.parent)
        args.append(f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={fake}")
        env["CMAKE_PREFIX_PATH"] = str(fake)
    clang = next((c for c in [rocm / "llvm/bin/clang++", rocm / "lib/llvm/bin/clang++", *sorted(Path("/usr/lib").glob("llvm-*/bin/clang++"))]
                  if c.is_file()), None)
    if clang is None:
        pytest.skip("no ROCm clang++ found for CMAKE_HIP_COMPILER")
    args.append(f"-DCMAKE_HIP_COMPILER={clang}")
    if not any((rocm / p).is_dir() for p in ("amdgcn/bitcode", "lib/amdgcn/bitcode", "llvm/lib/amdgcn/bitcode")):
        bitcode = sorted(rocm.glob("lib/*/amdgcn/bitcode"))
        if bitcode:
            args.append(f"-DCMAKE_HIP_FLAGS=--rocm-path={rocm} --hip-device-lib-path={bitcode[0]}")
    return args, env


@pytest.mark.hipcc
def test_translated_cmake_project_configures_and_builds(tmp_path: Path) -> None:
    _need("hipcc")
    cmake = _need("cmake")
    cuda_cmake = """cmake_minimum_required(VERSION 3.18)
project(tiny LANGUAGES CXX CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --expt-relaxed-constexpr -Xptxas -v")
find_package(CUDAToolkit REQUIRED)
add_executable(tiny main.cpp scale.cu)
set_property(TARGET tiny PROPERTY CUDA_ARCHITECTURES 80)
target_compile_options(tiny PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math;-lineinfo>")
target_link_libraries(tiny PRIVATE CUDA::cudart)
"""
    src = tmp_path / "src"
    src.mkdir()
    result = translate_build_file("CMakeLists.txt", cuda_cmake.encode(), TranslateOptions(target="gfx90a"))
    text = result.output.decode()
    assert "LANGUAGES CXX HIP" in text and "set_source_files_properties(scale.cu PROPERTIES LANGUAGE HIP)" in text
    (src / "CMakeLists.txt").write_bytes(result.output)
    (src / "scale.cu").write_text(_KERNEL)  # already HIP: this test is about the build file
    (src / "main.cpp").write_text(_MAIN)
    args, env = _hip_cmake_setup(tmp_path)
    build = tmp_path / "build"
    configure = subprocess.run([cmake, "-S", str(src), "-B", str(build), *args], capture_output=True, text=True, env=env,
                               timeout=300)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    done = subprocess.run([cmake, "--build", str(build), "--verbose"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--offload-arch=gfx90a" in done.stdout and "-gline-tables-only" in done.stdout
    assert (build / "tiny").is_file()


@pytest.mark.hipcc
def test_translated_makefile_builds_with_hipcc(tmp_path: Path) -> None:
    _need("hipcc")
    make_tool = _need("make")
    makefile = """# nvcc for the kernels, the host compiler for main.cpp, linked by the host compiler
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
GENCODE   := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
NVCCFLAGS := -O2 -std=c++17 $(GENCODE) -Xcompiler -Wall --expt-relaxed-constexpr -lineinfo
CXXFLAGS  := -O2 -std=c++17 -I$(CUDA_HOME)/include
LDFLAGS   := -L$(CUDA_HOME)/lib64
LDLIBS    := -lcudart

app: main.o scale.o
\t$(CXX) -o $@ $^ $(LDFLAGS) $(LDLIBS)

scale.o: scale.cu
\t$(NVCC) $(NVCCFLAGS) -c $< -o $@

main.o: main.cpp
\t$(CXX) $(CXXFLAGS) -c $< -o $@
"""
    result = translate_build_file("Makefile", makefile.encode(), TranslateOptions(target="gfx90a"))
    text = result.output.decode()
    assert "NVCC      ?= hipcc" in text and "--offload-arch=gfx90a" in text and "ROCM_PATH ?= /opt/rocm" in text
    (tmp_path / "Makefile").write_bytes(result.output)
    (tmp_path / "scale.cu").write_text(_KERNEL)
    (tmp_path / "main.cpp").write_text(_MAIN)
    env = dict(os.environ, HIP_PLATFORM="amd")
    env.pop("NVCC", None)
    done = subprocess.run([make_tool, "-C", str(tmp_path), f"ROCM_PATH={_rocm_root()}"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "app").is_file()


# --- edge cases found while fuzzing -------------------------------------------------------------------------------

@pytest.mark.parametrize("src,expected", [
    ('F := -Xcompiler "-fPIC -Wall" -O2\n', "F := -fPIC -Wall -O2\n"),
    ('F := -Xcompiler "-fPIC,-Wall" -O2\n', "F := -fPIC -Wall -O2\n"),
    ("F := -Xcompiler '-a -b -c'\n", "F := -a -b -c\n"),
])
def test_quoted_host_compiler_options(src: str, expected: str) -> None:
    assert out(make(src)) == expected


def test_renamed_word_that_is_also_nvcc() -> None:
    r = make("X := $(wildcard a.cu) nvcc\n", renamed=(("a.cu", "a.hip"),))
    assert out(r) == "X := $(wildcard a.hip) hipcc\n"


def test_env_cuda_home_in_cmake_is_reported() -> None:
    r = port("include_directories($ENV{CUDA_HOME}/include)\n")
    assert names(r) == ["$ENV{CUDA_HOME}"]


def test_unclosed_cmake_command_leaves_the_rest_alone() -> None:
    src = "project(x CUDA)\nadd_executable(app k.cu\nset(CMAKE_CUDA_STANDARD 17)\n"
    r = port(src)
    assert out(r) == "project(x HIP)\nadd_executable(app k.cu\nset(CMAKE_CUDA_STANDARD 17)\n"
    assert any("never closed" in w for w in r.warnings)


def test_device_binaries_for_the_driver_api_become_code_objects() -> None:
    """gpu-burn builds compare.ptx (or .cubin) with nvcc and loads it with cuModuleLoad; hipModuleLoad loads the
    code object hipcc --genco writes."""
    out = translate_build_file("Makefile", b"k.cubin: k.cu\n\tnvcc -cubin -arch=sm_80 k.cu -o k.cubin\n"
                               b"k.ptx: k.cu\n\tnvcc --ptx -arch=sm_80 k.cu -o k.ptx\n",
                               TranslateOptions(target="gfx942"))
    text = out.output.decode()
    assert "hipcc --genco --offload-arch=gfx942 k.cu -o k.cubin" in text
    assert "hipcc --genco --offload-arch=gfx942 k.cu -o k.ptx" in text
    assert not out.unconverted

