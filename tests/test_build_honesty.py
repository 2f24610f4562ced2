"""The build step never claims what it did not do (issue 9, part 1): every way a user names the paths compiles
the port's translation units, lists the error that remains and exits 1; a port where nothing compiles is an error."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_convert_cli import porter

pytestmark = pytest.mark.hipcc

# translates cleanly, then fails to compile for a reason no rule can fix: the error must reach the user
BROKEN = b"""#include <cuda_runtime.h>
__global__ void k(float* a) { a[threadIdx.x] = porter_test_undeclared(a[0]); }
int main() { float* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); cudaFree(d); return 0; }
"""
HOST_ONLY = b"int twice(int x) { return 2 * x; }\n"


@pytest.fixture(autouse=True)
def _need_hipcc() -> None:
    if shutil.which("hipcc") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")


def _project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "kernel.cu").write_bytes(BROKEN)
    (root / "src" / "host.cpp").write_bytes(HOST_ONLY)
    return root


def _assert_compiled_and_failed(proc, report: Path) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert "porter_test_undeclared" in err and "Traceback" not in err
    assert "build ok" not in err
    assert "1 translation unit(s), 0 ok, 1 failed" in err
    assert "skipped 1 (host-only C++" in err
    units = json.loads(report.read_text())["fix_loop"]["build"]["units"]
    assert units["units"] == units["compiled"] == 1 and units["failed"] == ["src/kernel.cu"]
    assert units["skipped"] == {"src/host.cpp": "host-only C++: no HIP include, kernel, launch or HIP call"}


@pytest.mark.parametrize("out", ["out", "./out", "../x/out"])
def test_relative_outputs(tmp_path: Path, out: str) -> None:
    work = tmp_path / "work"
    _project(work / "proj")
    (tmp_path / "x").mkdir()
    proc = porter("convert", "proj", "-o", out, "--target", "MI250X", cwd=work)
    _assert_compiled_and_failed(proc, (work / out).resolve() / ".porter" / "report.json")


def test_in_place_from_inside_the_tree(tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    proc = porter("convert", ".", "--in-place", "--target", "MI250X", cwd=proj / "src")
    # run from a subfolder: `.` is src/, so the units are named relative to it
    err = proc.stderr.decode()
    assert proc.returncode == 1 and "porter_test_undeclared" in err and "build ok" not in err, err
    assert "1 translation unit(s), 0 ok, 1 failed" in err
    proc = porter("convert", ".", "--in-place", "--target", "MI250X", cwd=proj)
    _assert_compiled_and_failed(proc, proj / ".porter" / "report.json")


def test_input_through_a_symlinked_directory(tmp_path: Path) -> None:
    _project(tmp_path / "real" / "proj")
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    proc = porter("convert", "link/proj", "-o", "out", "--target", "MI250X", cwd=tmp_path)
    _assert_compiled_and_failed(proc, tmp_path / "out" / ".porter" / "report.json")


def test_paths_with_spaces(tmp_path: Path) -> None:
    _project(tmp_path / "my project")
    proc = porter("convert", "my project", "-o", "ported tree/out", "--target", "MI250X", cwd=tmp_path)
    _assert_compiled_and_failed(proc, tmp_path / "ported tree" / "out" / ".porter" / "report.json")


def test_a_single_file_with_a_relative_output(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_bytes(BROKEN)
    proc = porter("convert", "k.cu", "-o", "k.hip", "--target", "MI250X", cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 1 and "porter_test_undeclared" in err and "build ok" not in err, err
    assert "1 translation unit(s), 0 ok, 1 failed" in err


def test_sources_but_nothing_compiled_is_an_error(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "host.cpp").write_bytes(HOST_ONLY)
    (proj / "helpers.cuh").write_bytes(b"#pragma once\n__device__ inline int lane() { return threadIdx.x % 32; }\n")
    proc = porter("convert", "proj", "-o", "out", "--target", "MI250X", cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert "nothing was compiled: 1 host-only C++" in err and "build ok" not in err
    build = json.loads((tmp_path / "out" / ".porter" / "report.json").read_text())["fix_loop"]["build"]
    assert build["units"]["units"] == 0 and build["units"]["headers"] == 1
    assert json.loads((tmp_path / "out" / ".porter" / "report.json").read_text())["fix_loop"]["ok"] is False
