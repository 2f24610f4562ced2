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
from fake_openai_server import MODEL, FakeOpenAIServer, call, reply
from support.task_scenarios import (
    FIX_HEADER,
    FIX_LANES,
    INCLUDE_HIP,
    THREE_ROOT_CAUSES,
    WAVE_REDUCE,
    WITH_WAVE,
    finish,
    fix_sums,
    make_tree,
)

pytestmark = pytest.mark.hipcc

SECRET = "sk-test-tasks-never-written"


def _require_hipcc() -> None:
    if shutil.which("hipcc") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")


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
    make_tree(tmp_path / "proj", units=5, sums=3, lanes=True)
    with FakeOpenAIServer([], conversations=THREE_ROOT_CAUSES) as server:
        proc = _porter(tmp_path, server, "proj", "-o", "out", "--target", "gfx90a", "-j", "2")
        arrivals = [server.conversation_of(r.body) for r in server.completions]
        bodies = _bodies(server)
    assert proc.returncode == 0, proc.stderr
    report = _report(tmp_path / "out")
    agent = report["fix_loop"]["agent"]
    tasks = agent["tasks"]
    assert [t["kind"] for t in tasks] == ["header", "pattern", "unit"]
    assert [t["title"] for t in tasks] == ["header common.cuh (included by 5 units)",
                                          "`__vimax_s32_relu`: use of undeclared identifier '…' (in 3 files)",
                                          "unit lanes.cu"]
    assert all(t["status"] == "fixed" and t["agent_status"] == "submitted" for t in tasks), tasks
    assert tasks[0]["files"] == ["common.cuh"] and tasks[0]["units"] == [f"u{n}.cu" for n in range(1, 6)]
    # -j 2: the header task and the one independent of it ran at once, lanes.cu after them; `kTile` never
    assert set(arrivals[:2]) == {"header common.cuh", "`__vimax_s32_relu`"} and "`kTile`" not in arrivals
    assert max(i for i, key in enumerate(arrivals) if key == "header common.cuh") < arrivals.index("unit lanes.cu")
    assert sorted(set(arrivals)) == sorted(["header common.cuh", "`__vimax_s32_relu`", "unit lanes.cu"])
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
    later = next(json.loads(b) for b, key in zip(bodies, arrivals, strict=True) if key == "unit lanes.cu")
    assert "TILE_SIZE came from the CUDA build's flags" in later["messages"][1]["content"]
    assert "agent tasks (3)" in proc.stderr
    for path in (tmp_path / "out" / ".porter").rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), f"API key written to {path}"


def test_a_stubborn_task_uses_its_share_and_the_run_moves_on(tmp_path: Path) -> None:
    _require_hipcc()
    make_tree(tmp_path / "proj", units=1, sums=2, lanes=True)
    stubborn = reply(call("read_file", {"path": "sum1.cu"}))  # reads forever, never edits
    conversations = {
        "header common.cuh": [reply(FIX_HEADER), finish("TILE_SIZE defaulted to 64")],
        "`__vimax_s32_relu`": [],
        "unit lanes.cu": [reply(FIX_LANES), finish("inline PTX %warpid -> threadIdx.x / warpSize")],
    }
    with FakeOpenAIServer([], conversations=conversations,
                          conversation_default={"`__vimax_s32_relu`": stubborn}) as server:
        proc = _porter(tmp_path, server, "proj", "-o", "out", "--target", "gfx90a", "--task-iterations", "3")
        asked = {key: len(requests) for key, requests in server.by_conversation().items()}
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert asked == {"header common.cuh": 2, "`__vimax_s32_relu`": 3, "unit lanes.cu": 2}
    report = _report(tmp_path / "out")
    tasks = {t["kind"]: t for t in report["fix_loop"]["agent"]["tasks"]}
    stuck = tasks["pattern"]
    assert (stuck["status"], stuck["agent_status"], stuck["turns"], stuck["share"]) == ("unfinished", "limits_exceeded", 3, 3)
    assert stuck["share_of"] == "task_iterations" and "task_iterations=3" in stuck["message"]
    assert "2 of its errors remain" in stuck["message"] and stuck["edited_files"] == []
    assert tasks["header"]["status"] == tasks["unit"]["status"] == "fixed"
    assert report["fix_loop"]["agent"]["status"] == "unfinished"
    assert report["fix_loop"]["status"] == "errors_remain"
    assert sorted(e["file"] for e in report["fix_loop"]["remaining_errors"]) == ["sum1.cu", "sum2.cu"]
    # the report names the unfinished task, and so does the summary on stderr
    assert f"not fixed: {stuck['id']} ({stuck['title']}: unfinished)" in report["fix_loop"]["message"]
    assert f"not fixed: {stuck['id']}" in proc.stderr


def test_independent_tasks_run_concurrently_with_j2(tmp_path: Path) -> None:
    _require_hipcc()
    make_tree(tmp_path / "proj", units=1, lanes=True)
    slow = {"delay": 0.6}
    conversations = {
        "header common.cuh": [reply(call("read_file", {"path": "common.cuh"}), **slow), reply(FIX_HEADER, **slow),
                              finish("TILE_SIZE defaulted to 64")],
        "unit lanes.cu": [reply(call("read_file", {"path": "lanes.cu"}), **slow), reply(FIX_LANES, **slow),
                          finish("inline PTX %warpid -> threadIdx.x / warpSize")],
    }
    with FakeOpenAIServer([], conversations=conversations) as server:
        proc = _porter(tmp_path, server, "proj", "-o", "out", "--target", "gfx90a", "-j", "2")
        arrivals = [server.conversation_of(r.body) for r in server.completions]
    assert proc.returncode == 0, proc.stderr
    # both conversations were open at once: the second began before the first had its second answer, and the
    # server saw them interleaved, not one after the other
    assert len(arrivals) == 6 and set(arrivals[:2]) == {"header common.cuh", "unit lanes.cu"}
    assert arrivals not in (sorted(arrivals), sorted(arrivals, reverse=True))
    report = _report(tmp_path / "out")
    agent = report["fix_loop"]["agent"]
    assert agent["budget"]["concurrency"] == 2
    assert [(t["title"], t["status"]) for t in agent["tasks"]] == [
        ("header common.cuh (included by 1 unit)", "fixed"), ("unit lanes.cu", "fixed")]
    own = {"header common.cuh (included by 1 unit)": ("common.cuh", "lanes.cu"), "unit lanes.cu": ("lanes.cu", "common.cuh")}
    for task in agent["tasks"]:
        mine, theirs = own[task["title"]]
        events = [json.loads(line) for line in Path(task["transcript"]).read_text().splitlines()]
        sent = json.dumps([e for e in events if e["event"] in ("request", "response", "tool_call", "tool_result")])
        assert mine in sent and theirs not in sent, task["title"]
        assert [e["iteration"] for e in events if e["event"] == "request"] == [1, 2, 3]


REDUCE_UTIL = """#pragma once
#include <cuda_runtime.h>

__device__ inline int block_total(int v) { return __vimax_s32_relu(0xffffffff, v); }
"""
USES_UTIL = """#include <cuda_runtime.h>
#include "reduce_util.cuh"

__global__ void totals(const int* in, int* out) { out[threadIdx.x] = block_total(in[threadIdx.x]); }
"""


def test_a_fix_repeated_in_two_tasks_is_suggested_once_as_a_rule(tmp_path: Path) -> None:
    _require_hipcc()
    root = make_tree(tmp_path / "proj", sums=1)
    (root / "reduce_util.cuh").write_text(REDUCE_UTIL)
    (root / "totals.cu").write_text(USES_UTIL)
    header_fix = reply(
        call("write_file", {"path": "wave_reduce.cuh", "content": WAVE_REDUCE}),
        call("replace_in_file", {"path": "reduce_util.cuh", "old": INCLUDE_HIP, "new": WITH_WAVE}),
        call("replace_in_file", {"path": "reduce_util.cuh", "old": "__vimax_s32_relu(", "new": "wave_reduce_add("}))
    unit_fix = reply(  # the header exists by now (the header task ran first): the same rewrite, the same include
        call("replace_in_file", {"path": "sum1.cu", "old": INCLUDE_HIP, "new": WITH_WAVE}),
        call("replace_in_file", {"path": "sum1.cu", "old": "__vimax_s32_relu(", "new": "wave_reduce_add("}))
    conversations = {"header reduce_util.cuh": [header_fix, finish("__vimax_s32_relu -> wave_reduce_add")],
                     "unit sum1.cu": [unit_fix, finish("__vimax_s32_relu -> wave_reduce_add, as in the header")]}
    with FakeOpenAIServer([], conversations=conversations) as server:
        proc = _porter(tmp_path, server, "proj", "-o", "out", "--target", "gfx90a")
    assert proc.returncode == 0, proc.stderr
    agent = _report(tmp_path / "out")["fix_loop"]["agent"]
    assert [t["kind"] for t in agent["tasks"]] == ["header", "unit"]
    rules = agent["suggested_rules"]
    renames = [r for r in rules if r["entry"].get("action") == "replace_ident"]
    assert len(renames) == 1 and renames[0]["seen_in"] == ["T1", "T2"]
    rename = renames[0]["entry"]
    assert (rename["ident"], rename["replacement"]) == ("__vimax_s32_relu", "wave_reduce_add")
    includes = [r for r in rules if r["table"] == "include_for"]
    assert [r["entry"] for r in includes] == [{"pattern": "^(?:__vimax_s32_relu)$", "header": "wave_reduce.cuh"}]
    assert len(rules) == 2  # each pattern once, though each task made it (the header task in two places)
    # in the format of porter/data/fixers.toml: the TOML parses back to the entry, and the rule fixes a third file
    import re
    import tomllib

    from porter.build import Diagnostic
    from porter.fix import apply_fixers
    from porter.fix.rules import Rule

    parsed = tomllib.loads(renames[0]["toml"])["rule"][0]
    assert parsed == rename
    third = tmp_path / "third"
    third.mkdir()
    (third / "k.hip").write_text("__global__ void k(int* p) { p[0] = __vimax_s32_relu(~0ull, p[0]); }\n")
    params = {k: v for k, v in parsed.items() if k not in ("id", "description", "match", "action")}
    rule = Rule(parsed["id"], parsed["description"], re.compile(parsed["match"]), parsed["action"], False, params)
    error = Diagnostic("k.hip", 1, 36, "error", "use of undeclared identifier '__vimax_s32_relu'")
    assert [f.rule for f in apply_fixers(third, [error], rules=(rule,))] == [parsed["id"]]
    assert "wave_reduce_add(~0ull" in (third / "k.hip").read_text()
    assert "porter/data/fixers.toml" in proc.stderr  # the summary points the maintainer at the candidates


def test_resume_after_a_budget_stop_redoes_nothing_finished(tmp_path: Path) -> None:
    _require_hipcc()
    make_tree(tmp_path / "proj", sums=2, lanes=True)
    sums = [fix_sums(1, 2), finish("__vimax_s32_relu -> wave_reduce_add")]
    lanes = [reply(call("read_file", {"path": "lanes.cu"})), reply(FIX_LANES), finish("inline PTX %warpid -> threadIdx.x / warpSize")]
    with FakeOpenAIServer([], conversations={"`__vimax_s32_relu`": sums, "unit lanes.cu": lanes}) as server:
        first = _porter(tmp_path, server, "proj", "-o", "out", "--target", "gfx90a", "-j", "1", "--max-iterations", "3")
        first_asked = {key: len(requests) for key, requests in server.by_conversation().items()}
    assert first.returncode == 1, first.stderr
    assert first_asked == {"`__vimax_s32_relu`": 2, "unit lanes.cu": 1}  # 3 turns: the budget stopped lanes
    report = _report(tmp_path / "out")
    assert report["fix_loop"]["status"] == "limits_hit" and "--resume" in report["fix_loop"]["message"]
    assert [(t["id"], t["status"]) for t in report["fix_loop"]["agent"]["tasks"]] == [("T1", "fixed"), ("T2", "unfinished")]
    fixed_sum = (tmp_path / "out" / "sum1.cu").read_text()

    # from inside the output tree, as a user would: `porter convert --resume .`
    with FakeOpenAIServer([], conversations={"`__vimax_s32_relu`": [], "unit lanes.cu": lanes}) as server:
        second = _porter(tmp_path / "out", server, "--resume", ".")
        second_asked = {key: len(requests) for key, requests in server.by_conversation().items()}
    assert second.returncode == 0, second.stderr
    # nothing of the finished task is asked again; lanes' first turn is the same request as before, so the
    # response cache answers it and only its two new turns reach the server
    assert second_asked == {"unit lanes.cu": 2}
    report = _report(tmp_path / "out")
    tasks = report["fix_loop"]["agent"]["tasks"]
    assert [(t["id"], t["kind"], t["status"], t["earlier_run"]) for t in tasks] == [
        ("T1", "pattern", "fixed", True), ("T2", "unit", "fixed", False)]
    assert report["fix_loop"]["ok"] is True and report["fix_loop"]["options"]["max_iterations"] == 3
    assert (tmp_path / "out" / "sum1.cu").read_text() == fixed_sum  # not translated again, not touched
    assert len(list((tmp_path / "out" / ".porter" / "transcripts").glob("T2-*.jsonl"))) == 2  # both attempts kept


def test_resume_without_a_report_is_a_one_line_error(tmp_path: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    (tmp_path / "empty").mkdir()
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "--resume", "empty"], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no porter report here to resume from" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "src", "--resume", "empty"], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2 and "takes no PATH" in proc.stderr


def test_ctrl_c_during_a_task_leaves_a_report_that_resume_continues(tmp_path: Path) -> None:
    import signal
    import time

    _require_hipcc()
    make_tree(tmp_path / "proj", sums=2, lanes=True)
    sums = [fix_sums(1, 2), finish("__vimax_s32_relu -> wave_reduce_add")]
    lanes = [reply(FIX_LANES), finish("inline PTX %warpid -> threadIdx.x / warpSize")]
    env = {**os.environ, "NO_COLOR": "1", "OPENAI_API_KEY": SECRET, "HIP_PLATFORM": "amd"}
    hanging = [reply(FIX_LANES, delay=60.0)]  # the answer Ctrl-C interrupts
    with FakeOpenAIServer([], conversations={"`__vimax_s32_relu`": sums, "unit lanes.cu": hanging}) as server:
        cmd = [sys.executable, "-m", "porter", "convert", "proj", "-o", "out", "--target", "gfx90a", "-j", "1",
               "--model", MODEL, "--base-url", server.base_url]
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 600
        while "unit lanes.cu" not in server.by_conversation() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    report = _report(tmp_path / "out")
    assert report["fix_loop"]["status"] == "interrupted"
    assert [(t["id"], t["status"]) for t in report["fix_loop"]["agent"]["tasks"]] == [("T1", "fixed"), ("T2", "interrupted")]
    with FakeOpenAIServer([], conversations={"`__vimax_s32_relu`": [], "unit lanes.cu": lanes}) as server:
        resumed = _porter(tmp_path, server, "--resume", "out")
        asked = {key: len(requests) for key, requests in server.by_conversation().items()}
    assert resumed.returncode == 0, resumed.stderr
    assert asked == {"unit lanes.cu": 2}
    tasks = _report(tmp_path / "out")["fix_loop"]["agent"]["tasks"]
    assert [(t["id"], t["status"], t["earlier_run"]) for t in tasks] == [("T1", "fixed", True), ("T2", "fixed", False)]
