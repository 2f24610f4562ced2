"""The agent repairing a real compile error with the real hipcc (HipccEnvironment) and the scripted HTTP server."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_openai_server import MODEL, FakeOpenAIServer, call, reply

from porter.agent import AgentTask, run_agent
from porter.config import PortConfig
from porter.targets import resolve_target

pytestmark = pytest.mark.hipcc

KERNEL = """#include <hip/hip_runtime.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  float* d = nullptr;
  cudaMalloc(&d, 16 * sizeof(float));
  hipLaunchKernelGGL(scale, dim3(1), dim3(16), 0, 0, d, 2.0f, 16);
  return 0;
}
"""


def test_agent_repairs_a_real_hipcc_error(hip_toolchain, tmp_path: Path) -> None:
    from porter.build.environment import HipccEnvironment

    root = tmp_path / "out"
    root.mkdir()
    (root / "scale.hip").write_text(KERNEL)
    env = HipccEnvironment(root, hip_toolchain.toolchain, arch=hip_toolchain.arch, jobs=1,
                           extra_flags=hip_toolchain.extra_arch_flags())
    initial = env.build()
    assert not initial.ok
    assert any("cudaMalloc" in d.message for d in initial.errors), initial.output

    task = AgentTask(errors=initial.errors, target=resolve_target("gfx942"), compile_arch=hip_toolchain.arch,
                     hip_version=hip_toolchain.toolchain.hip_version)
    fix = {"path": "scale.hip", "old": "  cudaMalloc(&d,", "new": "  (void)hipMalloc(&d,"}
    script = [reply(call("replace_in_file", fix)), reply(call("finish", {"summary": "cudaMalloc -> hipMalloc"}))]
    with FakeOpenAIServer(script) as server:
        config = PortConfig(model=MODEL, base_url=server.base_url, use_cache=False,
                            extra={"agent_retry_base_delay": 0.01})
        outcome = run_agent(task, env, config, root / ".porter" / "transcript.jsonl")
        first_prompt = server.completions[0].body["messages"][1]["content"]
    assert outcome.status == "submitted", outcome.message
    assert outcome.build_ok is True and outcome.edited_files == ["scale.hip"]
    assert "hipMalloc(&d" in (root / "scale.hip").read_text()
    assert "scale.hip:10:3: error: use of undeclared identifier 'cudaMalloc'" in first_prompt
