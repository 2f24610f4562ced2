"""The incremental build: a unit is compiled again only when something it reads changed (porter.build.cache)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from test_convert_cli import porter

from porter.build import BuildCache, HipccEnvironment, detect_toolchain
from porter.build.cache import parse_depfile


def test_depfiles_with_continuations_and_escaped_spaces() -> None:
    text = "obj.o: src/a.hip \\\n  include/my\\ header.h /usr/include/hip/hip_runtime.h \\\n  b.h\n"
    assert parse_depfile(text) == ["src/a.hip", "include/my header.h", "/usr/include/hip/hip_runtime.h", "b.h"]


@pytest.fixture
def toolchain():
    if shutil.which("hipcc") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    return detect_toolchain()


def _tree(root: Path) -> Path:
    (root / "include").mkdir(parents=True)
    (root / "include" / "shared.h").write_text("#pragma once\n__device__ inline float twice(float x) { return 2 * x; }\n")
    (root / "include" / "other.h").write_text("#pragma once\n__device__ inline float half(float x) { return x / 2; }\n")
    for name, header, fn in (("a", "shared.h", "twice"), ("b", "shared.h", "twice"), ("c", "other.h", "half")):
        (root / f"{name}.hip").write_text(f'#include <hip/hip_runtime.h>\n#include "{header}"\n'
                                          f"__global__ void k(float* p) {{ p[threadIdx.x] = {fn}(p[0]); }}\n")
    return root


def _env(root: Path, toolchain, arch: str = "gfx90a") -> HipccEnvironment:
    return HipccEnvironment(root, toolchain, arch=arch, jobs=2, cache=BuildCache.for_tree(root))


@pytest.mark.hipcc
def test_only_what_changed_is_compiled_again(tmp_path: Path, toolchain) -> None:
    root = _tree(tmp_path / "t")
    first = _env(root, toolchain).build()
    assert first.ok and first.units_summary()["compiled"] == 3 and first.cached_units == []
    again = _env(root, toolchain).build()  # a new environment: the cache is on disk, under .porter/
    assert again.ok and sorted(again.cached_units) == ["a.hip", "b.hip", "c.hip"]
    (root / "include" / "shared.h").write_text("#pragma once\n__device__ inline float twice(float x) { return x + x; }\n")
    touched = _env(root, toolchain).build()
    assert touched.ok and sorted(touched.cached_units) == ["c.hip"]  # a and b read the header that changed
    assert _env(root, toolchain, arch="gfx908").build().cached_units == []  # another arch is another build


@pytest.mark.hipcc
def test_a_failure_is_reused_until_the_header_it_lacks_appears(tmp_path: Path, toolchain) -> None:
    root = tmp_path / "t"
    (root / "src").mkdir(parents=True)
    (root / "src" / "m.hip").write_text('#include <hip/hip_runtime.h>\n#include "later.h"\n__global__ void k() { LATER; }\n')
    (root / "src" / "n.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k() { int x = undeclared_y; }\n")
    assert not _env(root, toolchain).build().ok
    again = _env(root, toolchain).build()
    assert sorted(again.cached_units) == ["src/m.hip", "src/n.hip"] and not again.ok
    (root / "src" / "later.h").write_text("#define LATER (void)0\n")
    fixed = _env(root, toolchain).build()
    assert fixed.failed_units == ["src/n.hip"]
    assert fixed.cached_units == []  # a new header may be the one a failed unit lacked: failures compile again


@pytest.mark.hipcc
def test_a_second_convert_of_an_unchanged_tree_compiles_nothing(tmp_path: Path, toolchain) -> None:
    _tree(tmp_path / "proj")
    first = porter("convert", "proj", "-o", "out", "--target", "MI250X", cwd=tmp_path)
    assert first.returncode == 0, first.stderr.decode()
    second = porter("convert", "proj", "-o", "out", "--target", "MI250X", cwd=tmp_path)
    err = second.stderr.decode()
    assert second.returncode == 0, err
    assert "3 translation unit(s), 3 ok (0 compiled, 3 unchanged since the last build)" in err


@pytest.mark.hipcc
def test_which_units_read_a_file_without_compiling_them(tmp_path: Path, toolchain) -> None:
    root = _tree(tmp_path / "t")
    deps = _env(root, toolchain).scan_dependencies()  # hipcc -M -MG: nothing compiled
    assert sorted(deps) == ["a.hip", "b.hip", "c.hip"] and "include/shared.h" in deps["a.hip"]
    cache = BuildCache.for_tree(root)
    assert cache.units_reading(["include/shared.h"]) == ["a.hip", "b.hip"]
    assert cache.units_reading(["include/other.h", "a.hip"]) == ["a.hip", "c.hip"]
    assert cache.units_reading(["nothing.h"]) == []
    built = _env(root, toolchain).build()
    assert built.ok and built.cached_units == []  # a dependency-only entry is never taken for a compile result
    assert _env(root, toolchain).scan_dependencies() == deps  # now from the compile's entries: no hipcc run
    (root / "c.hip").write_text('#include <hip/hip_runtime.h>\n#include "include/shared.h"\n'
                                "__global__ void k(float* p) { p[0] = twice(p[1]); }\n")
    assert _env(root, toolchain).scan_dependencies()["c.hip"] == ["c.hip", "include/shared.h"]
    assert BuildCache.for_tree(root).units_reading(["include/shared.h"]) == ["a.hip", "b.hip", "c.hip"]
