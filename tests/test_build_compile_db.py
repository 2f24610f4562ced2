"""Include paths and defines from compile_commands.json, CMakeLists.txt, Makefiles; translation units."""

from __future__ import annotations

import json
from pathlib import Path

from porter.build.compile_db import collect_flags, translation_units


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
