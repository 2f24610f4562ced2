"""The fix loop: shims -> build -> rule fixers -> agent (stubbed) -> tests, and what it writes into the report."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest
from rich.console import Console

from porter.config import PortConfig
from porter.fix import loop as fixloop
from porter.fix.loop import LoopStatus, run_fix_loop
from porter.translate import RocmVersion

FIXABLE = """#include <hip/hip_runtime.h>
template <typename T, int N>
__global__ void scale(T* p, T s) { p[threadIdx.x * N] *= s; }
__global__ void reduce(float* p) { p[0] = __shfl_down_sync(0xffffffff, p[threadIdx.x], 1); }
int main() {
  float* d = nullptr;
  hipLaunchKernelGGL(scale<float, 4>, dim3(1), dim3(64), 0, 0, d, 2.0f);
  return 0;
}
"""


def _quiet() -> Console:
    return Console(file=open(os.devnull, "w"), no_color=True)


def test_build_disabled(tmp_path: Path) -> None:
    report: dict = {}
    outcome = run_fix_loop(tmp_path, PortConfig(build=False), report, console=_quiet())
    assert outcome.status == LoopStatus.SKIPPED and outcome.ok
    assert report["build"] == {"skipped": True, "reason": "build disabled"}


def test_no_toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fixloop, "resolve_toolchain", lambda spec=None: None)
    report: dict = {}
    outcome = run_fix_loop(tmp_path, PortConfig(), report, console=_quiet())
    assert outcome.status == LoopStatus.NO_TOOLCHAIN and not outcome.ok
    assert "hipcc not found" in outcome.message and report["build"]["skipped"] is True


@pytest.mark.hipcc
def test_rules_and_shims_make_it_build(hip_toolchain, tmp_path: Path) -> None:
    (tmp_path / "main.hip").write_text(FIXABLE)
    report: dict = {}
    config = PortConfig(target="gfx942", test_cmd="echo tests-ran", cache_dir=tmp_path / ".cache",
                        toolchain=hip_toolchain.hipcc)
    outcome = run_fix_loop(tmp_path, config, report, console=_quiet())
    assert outcome.status == LoopStatus.OK, (outcome.message, report)
    # ROCm 5.2 stands in with gfx90a; 6.4 compiles for gfx942 itself
    assert report["build"]["arch"] == ("gfx942" if "gfx942" in hip_toolchain.arches else "gfx90a")
    assert report["build"]["requested_arch"] == "gfx942"
    assert report["build"]["toolchain"] == hip_toolchain.hipcc
    assert report["build"]["shims"] == {"main.hip": ["porter_warp_sync"]}
    expected = {"launch-template-kernel": 1}
    if hip_toolchain.rocm >= RocmVersion(6, 2):  # HIP's own builtins, enabled by the shim, want a 64-bit mask
        expected["warp-mask-64bit"] = 1
    assert report["fixers"]["counts"] == expected
    assert report["tests"]["ok"] is True and "tests-ran" in report["tests"]["output_tail"]
    assert report["remaining_errors"] == []
    assert "HIP_KERNEL_NAME(scale<float, 4>)" in (tmp_path / "main.hip").read_text()


@pytest.mark.hipcc
def test_errors_remain_without_model(hip_toolchain, tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = nope; }\n")
    report: dict = {}
    config = PortConfig(target=hip_toolchain.arch, toolchain=hip_toolchain.hipcc)
    outcome = run_fix_loop(tmp_path, config, report, console=_quiet())
    assert outcome.status == LoopStatus.ERRORS_REMAIN
    assert "--model" in outcome.message and "OPENAI_API_KEY" in outcome.message
    assert report["agent"]["status"] == "not_configured"
    assert [(e["file"], e["line"]) for e in report["remaining_errors"]] == [("k.hip", 2)]


@pytest.mark.hipcc
def test_agent_called_with_remaining_errors(hip_toolchain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import porter.agent as agent

    (tmp_path / "k.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = nope; }\n")
    seen = {}

    def fake_run_tasks(env, config, build, tests, **kw):
        seen["errors"] = [e.message for e in build.errors]
        seen["arch"] = kw["compile_arch"]
        (env.root / "k.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n")
        record = agent.TaskRecord("T1", "unit:k.hip", "unit", "unit k.hip", ["k.hip"], ["k.hip"], [], 1,
                                  status="fixed", edited_files=["k.hip"])
        return agent.TaskRun(env.build(), None, [record])

    monkeypatch.setattr(agent, "run_tasks", fake_run_tasks)
    report: dict = {}
    config = PortConfig(target=hip_toolchain.arch, model="m", toolchain=hip_toolchain.hipcc)
    outcome = run_fix_loop(tmp_path, config, report, console=_quiet())
    assert outcome.status == LoopStatus.OK
    assert seen == {"errors": ["use of undeclared identifier 'nope'"], "arch": hip_toolchain.arch}
    assert report["agent"]["status"] == "fixed" and report["agent"]["edited_files"] == ["k.hip"]
    assert report["agent"]["transcripts"] == str(tmp_path / ".porter" / "transcripts")


def test_agent_limits_hit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from porter.build.results import BuildResult, Diagnostic

    class Env:
        def __init__(self, root, toolchain, **kw):
            self.root = root
            self.flags = types.SimpleNamespace(source="tree")

        def build(self, path=None):
            return BuildResult(False, [Diagnostic("a.hip", 1, 1, "error", "stuck")])

        def run_tests(self):
            return None

    def fake_run_tasks(env, config, build, tests, **kw):
        run = types.SimpleNamespace(build=env.build(), tests=None, status="limits_exceeded",
                                    unfinished=["T1"], message=lambda: "0 of 1 task(s) fixed; run budget: 30 turns")
        run.as_dict = lambda config, transcripts: {"status": run.status, "message": run.message()}
        kw["on_progress"](run)
        return run

    fake = types.ModuleType("porter.agent")
    fake.run_tasks = fake_run_tasks
    monkeypatch.setitem(sys.modules, "porter.agent", fake)
    monkeypatch.setattr(fixloop, "HipccEnvironment", Env)
    monkeypatch.setattr(fixloop, "resolve_toolchain", lambda spec=None: None)
    report: dict = {}
    saved = []
    outcome = run_fix_loop(tmp_path, PortConfig(model="m", build_cmd="make"), report, console=_quiet(),
                           checkpoint=lambda: saved.append(dict(report)))
    assert outcome.status == LoopStatus.LIMITS_HIT and "limits" in outcome.message
    assert "0 of 1 task(s) fixed" in outcome.message and "--resume" in outcome.message
    assert report["agent"]["status"] == "limits_exceeded"
    assert saved and saved[0]["status"] == "running"  # the report is saved while the agent works
