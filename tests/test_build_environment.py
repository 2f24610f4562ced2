"""HipccEnvironment: compiling an output tree with the real hipcc, --build-cmd, --test-cmd."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.build.environment import HipccEnvironment


@pytest.mark.hipcc
def test_build_tree_with_header_dir_and_cmake_define(hip_toolchain, tmp_path: Path) -> None:
    (tmp_path / "include").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "include" / "util.h").write_text("#pragma once\n#define SCALE_BY FACTOR\n")
    (tmp_path / "CMakeLists.txt").write_text("add_compile_definitions(FACTOR=2)\n")
    (tmp_path / "src" / "ok.hip").write_text(
        '#include <hip/hip_runtime.h>\n#include "util.h"\n__global__ void k(int* p) { p[0] = SCALE_BY; }\n')
    (tmp_path / "src" / "bad.cu").write_text(
        '#include <hip/hip_runtime.h>\n#include "util.h"\n__global__ void k2(int* p) { p[0] = missing_name; }\n')
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    env = HipccEnvironment(tmp_path, hip_toolchain.toolchain, arch=hip_toolchain.arch, jobs=2,
                           extra_flags=hip_toolchain.extra_arch_flags())
    result = env.build()
    assert not result.ok
    assert [(d.file, d.line, d.message) for d in result.errors] == [
        ("src/bad.cu", 3, "use of undeclared identifier 'missing_name'")]
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # no objects in the tree
    assert env.build("src/ok.hip").ok


def test_build_cmd_and_test_cmd(tmp_path: Path) -> None:
    (tmp_path / "a.hip").write_text("")
    env = HipccEnvironment(tmp_path, None, build_cmd="echo 'a.hip:2:4: error: boom' >&2; exit 1",
                           test_cmd="echo ran; exit 3")
    result = env.build()
    assert not result.ok and [(d.file, d.line, d.message) for d in result.errors] == [("a.hip", 2, "boom")]
    tests = env.run_tests()
    assert tests is not None and not tests.ok and tests.returncode == 3 and "ran" in tests.output
    assert HipccEnvironment(tmp_path, None).run_tests() is None


def test_no_toolchain_build_fails_cleanly(tmp_path: Path) -> None:
    (tmp_path / "a.hip").write_text("")
    result = HipccEnvironment(tmp_path, None).build()
    assert not result.ok and "hipcc not found" in result.output


@pytest.mark.hipcc
def test_build_leaves_nothing_in_the_temp_directory(hip_toolchain, tmp_path: Path, monkeypatch) -> None:
    # ROCm 5.2's clang leaves empty directories in $TMPDIR per compile (thousands over a real tree)
    import tempfile

    tmp = tmp_path / "tmp"
    tree = tmp_path / "tree"
    tmp.mkdir()
    tree.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    (tree / "unit.hip").write_text('#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n')
    env = HipccEnvironment(tree, hip_toolchain.toolchain, arch=hip_toolchain.arch,
                           extra_flags=hip_toolchain.extra_arch_flags())
    assert env.build().ok
    assert list(tmp.iterdir()) == []


def _two_projects(root: Path) -> None:
    # a tree of independent projects (cuda-samples, HeCBench), each with its own support header of one name
    for name, value in (("alpha", 1), ("beta", 2)):
        (root / name / "inc").mkdir(parents=True)
        (root / name / "Makefile").write_text("all:\n\thipcc -Iinc main.hip\n")
        (root / name / "inc" / "util.h").write_text(f"#pragma once\n#define PROJECT_VALUE {value}\n")
        (root / name / "main.hip").write_text(
            '#include <hip/hip_runtime.h>\n#include "util.h"\n'
            f'static_assert(PROJECT_VALUE == {value}, "a sibling project\'s util.h");\n')


def test_a_units_own_project_comes_first_on_the_include_path(tmp_path: Path) -> None:
    from porter.build.compile_db import collect_flags

    _two_projects(tmp_path)
    flags = collect_flags(tmp_path)
    for name in ("alpha", "beta"):
        includes = [a.removeprefix("-I").removeprefix("-idirafter") for a in flags.args(tmp_path / name / "main.hip")
                    if a.startswith(("-I", "-idirafter"))]
        assert includes.index(str(tmp_path / name / "inc")) < includes.index(
            str(tmp_path / ("beta" if name == "alpha" else "alpha") / "inc")), includes


@pytest.mark.hipcc
def test_sibling_projects_build_with_their_own_headers(hip_toolchain, tmp_path: Path) -> None:
    _two_projects(tmp_path)
    env = HipccEnvironment(tmp_path, hip_toolchain.toolchain, arch=hip_toolchain.arch, jobs=2,
                           extra_flags=hip_toolchain.extra_arch_flags())
    result = env.build()
    assert result.ok, result.output
    assert sorted(result.units) == ["alpha/main.hip", "beta/main.hip"]


@pytest.mark.hipcc
def test_a_projects_header_named_like_a_system_header_does_not_shadow_it(hip_toolchain, tmp_path: Path) -> None:
    """Rodinia's kmeans ships a Windows `unistd.h`: the tree's header folders come after the system's, so
    `#include <unistd.h>` elsewhere still means the system's, and `#include "util.h"` still finds the tree's."""
    (tmp_path / "kmeans").mkdir()
    (tmp_path / "kmeans" / "unistd.h").write_text('#error "the Windows stand-in, not the system header"\n')
    (tmp_path / "kmeans" / "util.h").write_text("#pragma once\n#define FROM_THE_TREE 1\n")
    (tmp_path / "bfs").mkdir()
    (tmp_path / "bfs" / "bfs.hip").write_text(
        '#include <hip/hip_runtime.h>\n#include <unistd.h>\n#include "util.h"\n'
        "static_assert(FROM_THE_TREE, \"\");\n__global__ void k(int* p) { p[0] = (int)sizeof(pid_t); }\n")
    env = HipccEnvironment(tmp_path, hip_toolchain.toolchain, arch=hip_toolchain.arch,
                           extra_flags=hip_toolchain.extra_arch_flags())
    result = env.build()
    assert result.ok, result.output


@pytest.mark.hipcc
def test_a_source_included_by_another_is_compiled_as_part_of_it(hip_toolchain, tmp_path: Path) -> None:
    """Rodinia's bfs: bfs.cu defines Node and then `#include "kernel.cu"`; compiled alone, kernel.cu fails (as it
    would with nvcc); the Makefile compiles bfs.cu only."""
    (tmp_path / "bfs").mkdir()
    (tmp_path / "bfs" / "kernel.cu").write_text("__global__ void visit(Node* nodes) { nodes[threadIdx.x].depth += 1; }\n")
    (tmp_path / "bfs" / "bfs.cu").write_text(
        '#include <hip/hip_runtime.h>\nstruct Node { int depth; };\n#include "kernel.cu"\n'
        "void run(Node* d) { visit<<<1, 32>>>(d); }\n")
    env = HipccEnvironment(tmp_path, hip_toolchain.toolchain, arch=hip_toolchain.arch,
                           extra_flags=hip_toolchain.extra_arch_flags())
    result = env.build()
    assert result.ok, result.output
    assert result.units == ["bfs/bfs.cu"]
    assert result.skipped == {"bfs/kernel.cu": "included by bfs/bfs.cu: compiled as part of it"}
    assert not env.build("bfs/kernel.cu").ok  # asked for by name, it is compiled alone (and fails, as with nvcc)
    # `porter convert` builds the files it wrote (`only`): the same plan
    written = HipccEnvironment(tmp_path, hip_toolchain.toolchain, arch=hip_toolchain.arch, only=sorted(
        (tmp_path / "bfs").iterdir()), extra_flags=hip_toolchain.extra_arch_flags()).build()
    assert written.ok and written.units == ["bfs/bfs.cu"], written.output
