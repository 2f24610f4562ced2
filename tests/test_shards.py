"""`porter convert --shard K/N` and `porter report merge`: a port split over machines reads like one run."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_convert_cli import assert_clean_error, porter

from porter.files import PorterInputError, ShardSpec


def test_every_path_is_in_exactly_one_share() -> None:
    paths = [f"src/unit_{i}.cu" for i in range(300)]
    for n in (1, 2, 5):
        owners = [[k for k in range(1, n + 1) if ShardSpec(k, n).owns(p)] for p in paths]
        assert all(len(o) == 1 for o in owners)
        if n > 1:
            assert len({o[0] for o in owners}) == n  # every share gets some


@pytest.mark.parametrize("text", ["0/3", "4/3", "2", "a/b", "2/0", "-1/2"])
def test_bad_shard_specs(text: str) -> None:
    with pytest.raises(PorterInputError, match="expected K/N"):
        ShardSpec.parse(text)


def test_shard_is_a_clean_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("int main() { return 0; }\n")
    assert_clean_error(porter("convert", tmp_path, "-o", tmp_path / "o", "--shard", "3/2"), 2, "expected K/N")
    assert_clean_error(porter("convert", tmp_path, "-o", tmp_path / "o", "--shard", "1/2", "--test-cmd", "true"),
                       2, "--test-cmd needs the whole port built")
    assert_clean_error(porter("scan", tmp_path, "--shard", "x"), 2, "expected K/N")


def test_scan_shards_partition_the_findings(tmp_path: Path) -> None:
    for i in range(12):
        (tmp_path / f"k{i}.cu").write_text(f"__global__ void k{i}(int* p) {{ p[threadIdx.x % 32] = {i}; }}\n")
    whole = json.loads(porter("scan", tmp_path, "--format", "json", "--fail-on", "never").stdout)
    parts = [json.loads(porter("scan", tmp_path, "--format", "json", "--fail-on", "never", "--shard", f"{k}/3").stdout)
             for k in (1, 2, 3)]
    key = lambda f: (f["file"], f["line"], f["rule"])  # noqa: E731
    assert sorted(map(key, whole["findings"])) == sorted(key(f) for p in parts for f in p["findings"])
    assert all(p["findings"] for p in parts)


SHARED = "#pragma once\ninline void* grab(size_t n) { void* p = nullptr; cudaMalloc(&p, n); return p; }\n"
UNIT = """#include "common.h"
#include <cuda_runtime.h>
__global__ void k{i}(float* p) {{ p[threadIdx.x] = {i}.0f; }}
void run{i}() {{ float* d = (float*)grab(256); k{i}<<<1, 64>>>(d); cudaFree(d); }}
"""
BROKEN = "#include <cuda_runtime.h>\n__global__ void broken(float* p) { p[0] = porter_test_undeclared(); }\n"
IMPLICIT = "__global__ void fill(int* p) { p[threadIdx.x] = 7; }\nvoid go(int* d) { fill<<<1, 64>>>(d); cudaDeviceSynchronize(); }\n"


def _project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "common.h").write_text(SHARED)
    for i in range(7):
        (root / "src" / f"unit{i}.cu").write_text(UNIT.format(i=i))
    (root / "src" / "broken.cu").write_text(BROKEN)
    (root / "src" / "implicit.cu").write_text(IMPLICIT)
    (root / "README.md").write_text("# sharded\n")
    return root


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".porter" not in p.relative_to(root).parts}


def _comparable(report: dict) -> dict:
    report = {k: v for k, v in report.items() if k not in ("output_root", "written_to", "shard")}
    return json.loads(json.dumps(report))


@pytest.mark.hipcc
def test_shards_merged_equal_one_unsharded_run(tmp_path: Path) -> None:
    if shutil.which("hipcc") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    _project(tmp_path / "proj")
    whole = porter("convert", "proj", "-o", "whole", "--target", "MI250X", "-j", "2", cwd=tmp_path)
    assert whole.returncode == 1, whole.stderr.decode()  # broken.cu stays broken
    for k in (1, 2, 3):
        proc = porter("convert", "proj", "-o", f"shard{k}", "--target", "MI250X", "--shard", f"{k}/3", "-j", "2",
                      cwd=tmp_path)
        assert proc.returncode in (0, 1), proc.stderr.decode()
    merge = porter("report", "merge", *(f"shard{k}/.porter/report.json" for k in (3, 1, 2)), "--tree", "merged",
                   "--sarif", "merged.sarif", cwd=tmp_path)
    assert merge.returncode == 1, merge.stderr.decode()  # errors remain, as in the unsharded run
    assert _tree(tmp_path / "merged") == _tree(tmp_path / "whole")
    expected = json.loads((tmp_path / "whole" / ".porter" / "report.json").read_text())
    merged = json.loads((tmp_path / "merged" / ".porter" / "report.json").read_text())
    assert _comparable(merged) == _comparable(expected)
    assert expected["fix_loop"]["fixers"]["applied"], "the test needs a rule fix to compare"
    assert "src/common.h" in expected["fix_loop"]["edited"]  # a header several shards fixed, the same way
    sarif = json.loads((tmp_path / "merged.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == len(expected["findings"])


def test_merge_refuses_incomplete_or_mixed_splits(tmp_path: Path) -> None:
    def report(name: str, index: int, count: int) -> Path:
        path = tmp_path / name / ".porter" / "report.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"shard": {"index": index, "count": count}, "target": "gfx942", "rocm": None,
                                    "mode": "write", "porter_version": "x", "files": [], "summary": {}}))
        return path

    a, b, c = report("a", 1, 3), report("b", 3, 3), report("c", 1, 2)
    assert_clean_error(porter("report", "merge", a, b), 2, "missing [2]")
    assert_clean_error(porter("report", "merge", a, a), 2, "repeated [1]")
    assert_clean_error(porter("report", "merge", a, c), 2, "different splits")
    plain = tmp_path / "plain.json"
    plain.write_text("{}")
    assert_clean_error(porter("report", "merge", plain), 2, "not the report of a `porter convert --shard K/N` run")


@pytest.mark.hipcc
def test_the_example_workflow_ports_in_shards_and_merges(tmp_path: Path) -> None:
    """Runs the port and merge steps of examples/ci/porter-sharded.yml, as written, on a small project."""
    import subprocess
    import sys

    import yaml

    if shutil.which("hipcc") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    workflow = yaml.safe_load((Path(__file__).parent.parent / "examples" / "ci" / "porter-sharded.yml").read_text())
    shards = int(workflow["env"]["SHARDS"])
    assert workflow["jobs"]["port"]["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    port_step = next(s for s in workflow["jobs"]["port"]["steps"] if s.get("name", "").startswith("Port and build"))
    merge_step = next(s for s in workflow["jobs"]["merge"]["steps"] if s.get("name") == "Join the shards")
    _project(tmp_path / "src")  # where the workflow checks the repository out
    env = {**os.environ, **workflow["env"], "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    for k in range(1, shards + 1):
        command = port_step["run"].replace("${{ matrix.shard }}", str(k))
        proc = subprocess.run(["bash", "-ec", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(["bash", "-ec", merge_step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr  # broken.cu: errors remain, and the merged report says so
    report = json.loads((tmp_path / "porter-report.json").read_text())
    assert report["fix_loop"]["build"]["units"]["units"] == 9 and report["fix_loop"]["remaining_errors"]
    assert (tmp_path / "port" / "src" / "unit3.cu").is_file() and (tmp_path / "porter.sarif").is_file()
