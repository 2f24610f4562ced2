"""porter tune's facts elsewhere: `porter convert`'s report and summary, and the agent's prompt."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from support.agent_fakes import FIX_CALL, FakeEnvironment, ScriptedModel, make_task, make_tree, respond
from typer.testing import CliRunner

from porter.agent import DefaultAgent, Limits
from porter.agent.transcript import Transcript
from porter.cli import app

runner = CliRunner()

CUDA = b"""\
#include <cuda_runtime.h>
__global__ void staged(const float* in, float* out, int n) {
  extern __shared__ float buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = buf[(threadIdx.x + 1) % blockDim.x];
}
int main() {
  float *x, *y;
  int n = 1 << 20;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  staged<<<(n + 63) / 64, 64, 16384>>>(x, y, n);
  cudaDeviceSynchronize();
  return 0;
}
"""


def test_agent_prompt_carries_the_launch_facts(tmp_path: Path) -> None:
    root = tmp_path / "out"
    make_tree(root)
    env = FakeEnvironment(root)
    line = "src/main.hip:9: kernel k: 100% occupancy on sm_90 -> 25% on gfx942, VGPRs-limited; block 256"
    model = ScriptedModel([respond(FIX_CALL), respond(("finish", {"summary": "ok"}))])
    agent = DefaultAgent(model, env, limits=Limits(), transcript=Transcript(tmp_path / "t.jsonl"), has_tests=False)
    agent.run(make_task(env, tuning=[line]))
    user = model.seen[0][1]["content"]
    assert "## Launch configuration facts (porter tune)" in user and line in user
    assert "nothing was run" in user  # facts, not orders
    plain = ScriptedModel([respond(FIX_CALL), respond(("finish", {"summary": "ok"}))])
    make_tree(root)
    DefaultAgent(plain, env, limits=Limits(), transcript=Transcript(tmp_path / "u.jsonl"), has_tests=False).run(
        make_task(env))
    assert "Launch configuration facts" not in plain.seen[0][1]["content"]


@pytest.mark.hipcc
def test_convert_reports_per_kernel_facts(tmp_path: Path) -> None:
    if shutil.which("hipcc") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.cu").write_bytes(CUDA)
    out = tmp_path / "out"
    result = runner.invoke(app, ["convert", str(tmp_path / "src"), "-o", str(out), "--target", "MI300X"])
    assert result.exit_code == 0, result.output
    report = json.loads((out / ".porter" / "report.json").read_text())
    (site,) = report["tuning"]
    assert (site["file"], site["kernel"], site["block"], site["dynamic_lds"]) == ("main.cu", "staged", "64", "16384")
    assert site["vgprs"] > 0 and site["limiter"] == "LDS" and site["occupancy_percent"] == 12.5
    assert site["suggested_block"] == 512 and site["suggestion_safe"] is True
    assert "occupancy: main.cu:14: staged 12% on MI300X, LDS-limited" in result.output


@pytest.mark.hipcc
def test_a_second_convert_of_an_unchanged_tree_reuses_the_facts(tmp_path: Path, monkeypatch) -> None:
    """The facts cost a compile of every kernel unit: an unchanged tree must not pay it again (issue 11: a second
    convert compiles nothing), and an edited source must."""
    if shutil.which("hipcc") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    import porter.tune

    calls = []
    real = porter.tune.port_facts
    monkeypatch.setattr(porter.tune, "port_facts", lambda *a, **k: calls.append(1) or real(*a, **k))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.cu").write_bytes(CUDA)
    out = tmp_path / "out"
    args = ["convert", str(tmp_path / "src"), "-o", str(out), "--target", "MI300X"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    facts = json.loads((out / ".porter" / "report.json").read_text())["tuning"]
    second = runner.invoke(app, args)
    assert second.exit_code == 0, second.output
    assert len(calls) == 1 and json.loads((out / ".porter" / "report.json").read_text())["tuning"] == facts
    (tmp_path / "src" / "main.cu").write_bytes(CUDA.replace(b"16384", b"8192"))
    third = runner.invoke(app, args)
    assert third.exit_code == 0, third.output
    assert len(calls) == 2
    assert json.loads((out / ".porter" / "report.json").read_text())["tuning"][0]["dynamic_lds"] == "8192"
