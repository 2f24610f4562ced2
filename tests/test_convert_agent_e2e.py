"""`porter convert` end to end: translate, build with the real hipcc, and let the agent (scripted server on
127.0.0.1, the real openai client over HTTP) repair what neither the translator nor the rules can: inline PTX."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai_server import MODEL, FakeOpenAIServer, call, reply

pytestmark = pytest.mark.hipcc

SOURCE = """#include <cuda_runtime.h>
#include <cstdio>

__device__ unsigned lane_id() {
    unsigned lane;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(lane));
    return lane;
}

__global__ void lanes(unsigned* out) { out[threadIdx.x] = lane_id(); }

int main() {
    unsigned* d = nullptr;
    cudaMalloc(&d, 64 * sizeof(unsigned));
    lanes<<<1, 64>>>(d);
    cudaDeviceSynchronize();
    cudaFree(d);
    puts("ok");
    return 0;
}
"""
SECRET = "sk-test-never-written-anywhere"


def _convert(src: Path, out: Path, server: FakeOpenAIServer, toolchain, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "OPENAI_API_KEY": SECRET, "HIP_PLATFORM": "amd"}
    cmd = [sys.executable, "-m", "porter", "convert", str(src), "-o", str(out), "--target", toolchain.arch,
           "--toolchain", toolchain.hipcc, "--model", MODEL, "--base-url", server.base_url, *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def test_agent_replaces_inline_ptx_and_the_port_builds(hip_toolchain, tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "lanes.cu").write_text(SOURCE)
    out = tmp_path / "out"
    fix = {"path": "lanes.cu", "old": '    asm volatile("mov.u32 %0, %%warpid;" : "=r"(lane));',
           "new": "    lane = threadIdx.x / warpSize;"}
    script = [reply(call("read_file", {"path": "lanes.cu", "start_line": 1, "end_line": 12})),
              reply(call("replace_in_file", fix)),
              reply(call("finish", {"summary": "inline PTX warpid -> threadIdx.x / warpSize"}))]
    with FakeOpenAIServer(script) as server:
        proc = _convert(src, out, server, hip_toolchain)
        requests = len(server.completions)
    assert proc.returncode == 0, proc.stderr
    # (porter rewrites %laneid itself; %warpid has no HIP counterpart, so the model's fix is what removes it)
    assert "threadIdx.x / warpSize" in (out / "lanes.cu").read_text() and "asm" not in (out / "lanes.cu").read_text()
    assert requests == 3
    report = json.loads((out / ".porter" / "report.json").read_text())
    agent = report["fix_loop"]["agent"]
    assert report["fix_loop"]["ok"] is True and agent["status"] == "fixed"
    assert report["fix_loop"]["build"]["toolchain"] == hip_toolchain.hipcc
    assert report["fix_loop"]["build"]["arch"] == hip_toolchain.arch
    [task] = agent["tasks"]
    assert (task["title"], task["status"], task["agent_status"], task["turns"]) == ("unit lanes.cu", "fixed", "submitted", 3)
    transcript = Path(task["transcript"])
    assert transcript.parent == out / ".porter" / "transcripts" and transcript.stat().st_size > 0
    for path in (out / ".porter").rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), f"API key written to {path}"

    # a re-run replays the model from the cache: no request reaches the server
    out2 = tmp_path / "out2"
    shutil.copytree(out / ".porter" / "cache", out2 / ".porter" / "cache")
    with FakeOpenAIServer([]) as server:
        proc = _convert(src, out2, server, hip_toolchain)
        assert server.completions == []
    assert proc.returncode == 0, proc.stderr
    assert (out2 / "lanes.cu").read_text() == (out / "lanes.cu").read_text()


def test_without_a_fix_the_limit_stops_the_run_and_keeps_the_output(hip_toolchain, tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "lanes.cu").write_text(SOURCE)
    out = tmp_path / "out"
    idle = reply(call("read_file", {"path": "lanes.cu"}))
    with FakeOpenAIServer([], default=idle) as server:
        proc = _convert(src, out, server, hip_toolchain, "--max-iterations", "2")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    report = json.loads((out / ".porter" / "report.json").read_text())
    assert report["fix_loop"]["agent"]["status"] == "limits_exceeded"
    assert report["fix_loop"]["agent"]["tasks"][0]["turns"] == 2
    assert report["fix_loop"]["remaining_errors"]
    assert "asm volatile" in (out / "lanes.cu").read_text()  # the port is kept as it was
