"""The agent at repository scale, end to end: `porter convert` translates a CUDA tree, builds it with the real hipcc,
groups what is left into one task per root cause, and each task talks to the scripted OpenAI-compatible server on
127.0.0.1 through the real `openai` client in a conversation of its own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai_server import MODEL, FakeOpenAIServer, Turn, call, reply

pytestmark = pytest.mark.hipcc

SECRET = "sk-test-tasks-never-written"

COMMON = """#pragma once
#include <cuda_runtime.h>

constexpr int kTile = TILE_SIZE;

__device__ inline float tile_scale(int i) { return 1.0f / (1 + i % kTile); }
"""
UNIT = """#include <cuda_runtime.h>
#include "common.cuh"

__global__ void scale{n}(float* out) {{
    __shared__ float buf[kTile];
    buf[threadIdx.x % kTile] = out[threadIdx.x] * tile_scale(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x % kTile];
}}
"""
SUM = """#include <cuda_runtime.h>

__global__ void block_sum{n}(const int* in, int* out) {{
    int v = in[threadIdx.x];
    int total = __reduce_add_sync(0xffffffff, v);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}}
"""
LANES = """#include <cuda_runtime.h>

__device__ unsigned lane_id() {
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__global__ void lanes(unsigned* out) { out[threadIdx.x] = lane_id(); }
"""
WAVE_REDUCE = """#pragma once
#include <hip/hip_runtime.h>

// porter: __reduce_add_sync has no HIP counterpart; a butterfly over the whole wavefront
__device__ inline int wave_reduce_add(unsigned long long mask, int v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
    return v;
}
"""
INCLUDE_HIP = "#include <hip/hip_runtime.h>\n"
WITH_WAVE = '#include <hip/hip_runtime.h>\n#include "wave_reduce.cuh"\n'

FIX_HEADER = call("replace_in_file", {
    "path": "common.cuh", "old": "constexpr int kTile = TILE_SIZE;",
    "new": "#ifndef TILE_SIZE\n#define TILE_SIZE 64  // porter: the CUDA build passed -DTILE_SIZE=64\n#endif\n"
           "constexpr int kTile = TILE_SIZE;"})
FIX_LANES = call("replace_in_file", {"path": "lanes.cu", "old": '    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));',
                                     "new": "    lane = __lane_id();"})


def finish(summary: str) -> Turn:
    return reply(call("finish", {"summary": summary}))


def fix_sums(*numbers: int) -> Turn:
    calls = [call("write_file", {"path": "wave_reduce.cuh", "content": WAVE_REDUCE})]
    for n in numbers:
        calls.append(call("replace_in_file", {"path": f"sum{n}.cu", "old": INCLUDE_HIP, "new": WITH_WAVE}))
        calls.append(call("replace_in_file", {"path": f"sum{n}.cu", "old": "__reduce_add_sync(", "new": "wave_reduce_add("}))
    return reply(*calls)


def _require_hipcc() -> None:
    if shutil.which("hipcc") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")


def _tree(root: Path, *, units: int = 0, sums: int = 0, lanes: bool = False) -> Path:
    root.mkdir(parents=True)
    if units:
        (root / "common.cuh").write_text(COMMON)
    for n in range(1, units + 1):
        (root / f"u{n}.cu").write_text(UNIT.format(n=n))
    for n in range(1, sums + 1):
        (root / f"sum{n}.cu").write_text(SUM.format(n=n))
    if lanes:
        (root / "lanes.cu").write_text(LANES)
    return root


def _porter(cwd: Path, server: FakeOpenAIServer, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "OPENAI_API_KEY": SECRET, "HIP_PLATFORM": "amd", "COLUMNS": "200"}
    cmd = [sys.executable, "-m", "porter", "convert", *args, "--model", MODEL, "--base-url", server.base_url]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=900)


def _report(out: Path) -> dict:
    return json.loads((out / ".porter" / "report.json").read_text())


def _bodies(server: FakeOpenAIServer) -> list[str]:
    return [json.dumps(r.body) for r in server.completions]


def test_three_root_causes_three_tasks_header_first(tmp_path: Path) -> None:
    _require_hipcc()
    _tree(tmp_path / "proj", units=5, sums=3, lanes=True)
    conversations = {
        "header common.cuh": [reply(FIX_HEADER), finish("TILE_SIZE came from the CUDA build's flags: default it to 64")],
        "`__reduce_add_sync`": [fix_sums(1, 2, 3), finish("__reduce_add_sync -> a wavefront butterfly in wave_reduce.cuh")],
        "unit lanes.cu": [reply(FIX_LANES), finish("inline PTX %laneid -> __lane_id()")],
        # the units' own errors are consequences of the header: their task must never be asked for
        "`kTile`": [],
    }
    with FakeOpenAIServer([], conversations=conversations) as server:
        proc = _porter(tmp_path, server, "proj", "-o", "out", "--target", "gfx90a", "-j", "2")
        arrivals = [server.conversation_of(r.body) for r in server.completions]
        bodies = _bodies(server)
    assert proc.returncode == 0, proc.stderr
    report = _report(tmp_path / "out")
    agent = report["fix_loop"]["agent"]
    tasks = agent["tasks"]
    assert [t["kind"] for t in tasks] == ["header", "pattern", "unit"]
    assert [t["title"] for t in tasks] == ["header common.cuh (included by 5 units)",
                                          "`__reduce_add_sync`: use of undeclared identifier '…' (in 3 files)",
                                          "unit lanes.cu"]
    assert all(t["status"] == "fixed" and t["agent_status"] == "submitted" for t in tasks), tasks
    assert tasks[0]["files"] == ["common.cuh"] and tasks[0]["units"] == [f"u{n}.cu" for n in range(1, 6)]
    assert arrivals[0] == "header common.cuh" and "`kTile`" not in arrivals
    assert sorted(set(arrivals)) == sorted(["header common.cuh", "`__reduce_add_sync`", "unit lanes.cu"])
    # the five units' errors ("... in __global__ function" in u1..u5.cu) never reach the model: the header task
    # is planned first, porter rebuilds after it, and they are gone
    assert not any("in __global__ function" in body for body in bodies)
    assert report["fix_loop"]["ok"] is True and report["fix_loop"]["remaining_errors"] == []
    units = report["fix_loop"]["build"]["units"]
    assert units["units"] == 9 and units["ok"] == 9
    assert (tmp_path / "out" / "wave_reduce.cuh").is_file()
    for task in tasks:  # one transcript per task, holding that task only
        transcript = Path(task["transcript"])
        assert transcript.parent == tmp_path / "out" / ".porter" / "transcripts"
        events = [json.loads(line) for line in transcript.read_text().splitlines()]
        assert events[0]["event"] == "start" and events[0]["task"] == task["title"]
        assert events[-1]["event"] == "end" and events[-1]["status"] == "submitted"
    # the header task's lesson reaches the tasks after it
    later = [json.loads(b) for b, key in zip(bodies, arrivals, strict=True) if key == "unit lanes.cu"][0]
    assert "TILE_SIZE came from the CUDA build's flags" in later["messages"][1]["content"]
    assert "agent tasks (3)" in proc.stderr
    for path in (tmp_path / "out" / ".porter").rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), f"API key written to {path}"
