"""The pieces of the repository-scale agent on their own: task planning (pure), batches, shares and the run budget,
edit patterns and suggested rules, the focused context, a focused task's `finish`, and the scheduler over an
in-process tree (the model is the scripted server on 127.0.0.1, through the real openai client)."""

from __future__ import annotations

import json
import threading
import tomllib
from pathlib import Path

import pytest
from fake_openai_server import MODEL, FakeOpenAIServer, Turn, call, reply
from support.agent_fakes import FakeTreeEnvironment, ScriptedModel, respond

from porter.agent import (
    AgentTask,
    DefaultAgent,
    EditPattern,
    Limits,
    LimitsExceeded,
    RunBudget,
    edit_patterns,
    independent_batch,
    message_pattern,
    plan_tasks,
    run_tasks,
    suggest_rules,
    task_share,
)
from porter.agent.context import focus_view
from porter.agent.learning import TaskLearning, lesson
from porter.agent.prompts import Prompts
from porter.agent.scheduler import ScopedEnvironment
from porter.build import Diagnostic
from porter.config import PortConfig
from porter.targets import resolve_target


def err(file: str, line: int, message: str) -> Diagnostic:
    return Diagnostic(file, line, 1, "error", message)


def undeclared(file: str, line: int, name: str) -> Diagnostic:
    return err(file, line, f"use of undeclared identifier '{name}'")


# --- planning ------------------------------------------------------------------------------------------------

def test_message_pattern_blanks_quoted_parts_and_keeps_the_identifier() -> None:
    assert message_pattern("use of undeclared identifier '__reduce_add_sync'") == (
        "use of undeclared identifier '…'", "__reduce_add_sync")
    assert message_pattern("no member named 'x' in 'Foo'; did you mean 'y'?") == ("no member named '…' in '…'", "x")
    assert message_pattern("invalid instruction") == ("invalid instruction", None)
    assert message_pattern("cannot initialize 'int *' with 'const int *'") == ("cannot initialize '…' with '…'", None)


DEPS = {  # unit -> what it reads
    "a.hip": ["a.hip", "inc/common.h", "inc/small.h"], "b.hip": ["b.hip", "inc/common.h"],
    "c.hip": ["c.hip", "inc/common.h"], "d.hip": ["d.hip", "inc/small.h"], "e.hip": ["e.hip"],
}


def test_headers_first_by_how_many_units_include_them_then_patterns_then_units() -> None:
    errors = [
        undeclared("e.hip", 3, "own_error"),
        undeclared("inc/small.h", 2, "SMALL"),
        undeclared("b.hip", 7, "missing_shim"), undeclared("d.hip", 9, "missing_shim"),
        undeclared("e.hip", 5, "missing_shim"),
        undeclared("inc/common.h", 4, "TILE"), err("inc/common.h", 6, "reference to __host__ variable 'kTile'"),
        undeclared("a.hip", 1, "lonely"),  # the same message shape, but its identifier is in one file only
    ]
    tasks = plan_tasks(errors, DEPS)
    assert [t.key for t in tasks] == [
        "header:inc/common.h", "header:inc/small.h", "pattern:use of undeclared identifier '…'|missing_shim",
        "unit:a.hip", "unit:e.hip"]
    common, small, shim, _, e = tasks
    assert common.title == "header inc/common.h (included by 3 units)" and len(common.errors) == 2
    assert common.includers == common.units == ("a.hip", "b.hip", "c.hip")
    assert small.includers == ("a.hip", "d.hip")
    assert shim.files == ("b.hip", "d.hip", "e.hip") and shim.units == ("b.hip", "d.hip", "e.hip")
    assert shim.title == "`missing_shim`: use of undeclared identifier '…' (in 3 files)"
    assert [d.message for d in e.errors] == ["use of undeclared identifier 'own_error'"]  # its shim error is grouped
    assert common.footprint == {"inc/common.h", "inc/small.h", "a.hip", "b.hip", "c.hip"}


def test_skipped_keys_leave_their_errors_out_and_unknown_dependencies_mean_the_whole_build() -> None:
    errors = [undeclared("inc/common.h", 4, "TILE"), undeclared("x.hip", 2, "y")]
    assert [t.key for t in plan_tasks(errors, DEPS, skip={"header:inc/common.h"})] == ["unit:x.hip"]
    only = plan_tasks(errors, {})
    assert [t.units for t in only] == [None, None]  # no dependency data (a --build-cmd build): check everything
    assert only[0].title == "header inc/common.h (a header)"
    assert plan_tasks([Diagnostic("a.hip", 1, 1, "warning", "unused")], DEPS) == []


def test_independent_batch_takes_tasks_whose_files_are_disjoint() -> None:
    errors = [undeclared("inc/common.h", 4, "TILE"), undeclared("b.hip", 7, "b_own"),
              undeclared("d.hip", 9, "d_own"), undeclared("e.hip", 3, "e_own")]
    tasks = plan_tasks(errors, DEPS)
    assert [t.key for t in tasks] == ["header:inc/common.h", "unit:b.hip", "unit:d.hip", "unit:e.hip"]
    # b.hip reads the header the first task fixes, and d.hip the small.h that a.hip (a header unit) reads
    assert [t.key for t in independent_batch(tasks, 4)] == ["header:inc/common.h", "unit:e.hip"]
    assert [t.key for t in independent_batch(tasks, 1)] == ["header:inc/common.h"]
    assert [t.key for t in independent_batch(tasks[1:], 3)] == ["unit:b.hip", "unit:d.hip", "unit:e.hip"]
    whole = plan_tasks(errors, {})
    assert len(independent_batch(whole, 4)) == 1
    assert independent_batch([], 2) == []


# --- budgets -------------------------------------------------------------------------------------------------

def test_task_share_is_fair_at_least_a_few_turns_and_never_more_than_is_left() -> None:
    budget = RunBudget(Limits(max_iterations=30))
    assert task_share(PortConfig(), budget, 3) == (10, "fair share")
    assert task_share(PortConfig(), budget, 20) == (4, "fair share")
    assert task_share(PortConfig(task_iterations=7), budget, 3) == (7, "task_iterations")
    for _ in range(28):
        budget.take_turn()
    assert task_share(PortConfig(), budget, 20) == (2, "turns left of max_iterations")
    assert task_share(PortConfig(task_iterations=7), budget, 1) == (2, "turns left of max_iterations")


def test_run_budget_is_shared_by_threads_without_overrun() -> None:
    budget = RunBudget(Limits(max_iterations=50))
    taken = []

    def worker() -> None:
        try:
            while True:
                budget.take_turn()
                taken.append(1)
        except LimitsExceeded:
            pass

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(taken) == 50 and budget.turns == 50 and budget.turns_left == 0
    assert budget.stop_reason == "run budget: stopped after 50 model turns (max_iterations=50)"


def test_run_budget_counts_tokens_and_can_be_cancelled() -> None:
    budget = RunBudget(Limits(max_tokens=1000))
    budget.take_turn()
    budget.spend(1200)
    with pytest.raises(LimitsExceeded, match="token budget spent: 1200 tokens"):
        budget.take_turn()
    other = RunBudget(Limits())
    other.cancel("interrupted")
    with pytest.raises(LimitsExceeded, match="interrupted"):
        other.take_turn()


# --- learning ------------------------------------------------------------------------------------------------

def test_edit_patterns_find_renames_includes_and_argument_casts() -> None:
    before = ('#include <hip/hip_runtime.h>\n\nint f(int v) {\n  int t = __reduce_add_sync(~0u, v);\n'
              "  hipMemcpyHtoD(dst, src, n);\n  return t;\n}\n")
    after = ('#include <hip/hip_runtime.h>\n#include "wave_reduce.h"\n\nint f(int v) {\n  int t = wave_reduce_add(~0u, v);\n'
             "  hipMemcpyHtoD(dst, const_cast<float*>(src), n);\n  return t;\n}\n")
    assert edit_patterns(before, after) == {
        EditPattern("include", new='"wave_reduce.h"'),
        EditPattern("replace_ident", old="__reduce_add_sync", new="wave_reduce_add"),
        EditPattern("wrap_call_arg", call="hipMemcpyHtoD", arg=1, prefix="const_cast<float*>("),
    }
    assert edit_patterns(before, before) == set()
    assert edit_patterns("int x = 1;\n", "long x = 1;\n") == set()  # a type keyword is no identifier rewrite
    assert edit_patterns(None, '#pragma once\n#include <hip/hip_runtime.h>\n') == set()  # a new file


def test_suggested_rules_need_two_tasks_and_come_out_once_in_fixers_toml_format() -> None:
    rename = EditPattern("replace_ident", old="cudaFoo", new="hipFoo")
    cast = EditPattern("wrap_call_arg", call="hipMemcpyHtoD", arg=1, prefix="const_cast<float*>(")
    learned = [
        TaskLearning("T1", ["use of undeclared identifier 'cudaFoo'"], {rename, cast}),
        TaskLearning("T3", ["use of undeclared identifier 'cudaFoo'", "no matching function for call to 'hipMemcpyHtoD'"],
                     {rename, cast}),
        TaskLearning("T4", ["use of undeclared identifier 'other'"], {EditPattern("include", new="<x.h>")}),
    ]
    rules = suggest_rules(learned)
    assert [(r["table"], r["entry"]["action"], r["seen_in"]) for r in rules] == [
        ("rule", "replace_ident", ["T1", "T3"]), ("rule", "wrap_call_arg", ["T1", "T3"])]
    by_action = {r["entry"]["action"]: r for r in rules}
    assert tomllib.loads(by_action["replace_ident"]["toml"]) == {"rule": [by_action["replace_ident"]["entry"]]}
    assert by_action["replace_ident"]["entry"]["match"] == "use of undeclared identifier 'cudaFoo'"
    cast_rule = by_action["wrap_call_arg"]["entry"]
    assert (cast_rule["call"], cast_rule["arg"], cast_rule["prefix"], cast_rule["suffix"]) == (
        "hipMemcpyHtoD", 1, "const_cast<float*>(", ")")
    assert cast_rule["match"] == "no matching function for call to 'hipMemcpyHtoD'"
    # a pattern no error message names cannot be keyed: no rule for it
    unkeyed = [TaskLearning(t, ["invalid instruction"], {EditPattern("replace_ident", old="a", new="b")}) for t in "XY"]
    assert suggest_rules(unkeyed) == []
    included = suggest_rules([TaskLearning(t, ["unknown type name 'half2x'"], {EditPattern("include", new='"h.h"')})
                              for t in ("T1", "T2")])
    assert [r["entry"] for r in included] == [{"pattern": "^(?:half2x)$", "header": "h.h"}]
    assert tomllib.loads(included[0]["toml"])["include_for"] == [{"pattern": "^(?:half2x)$", "header": "h.h"}]


def test_a_lesson_is_one_short_line() -> None:
    text = lesson("unit a.hip", "cudaError_t and CUresult collapse:\n keep one overload",
                  {EditPattern("replace_ident", old="a", new="b")})
    assert text == "unit a.hip: cudaError_t and CUresult collapse: keep one overload (`a` -> `b`)"
    assert len(lesson("t", "x" * 1000, set())) == 240


# --- the focused context -------------------------------------------------------------------------------------

def test_focus_shows_small_files_whole_and_the_head_and_error_ranges_of_large_ones(tmp_path: Path) -> None:
    (tmp_path / "small.hip").write_text("".join(f"small {n}\n" for n in range(1, 11)))
    (tmp_path / "big.hip").write_text("".join(f"big {n}\n" for n in range(1, 1001)))
    errors = [undeclared("small.hip", 4, "x"), undeclared("big.hip", 500, "x"), undeclared("big.hip", 505, "x")]
    [task] = plan_tasks(errors, {"small.hip": [], "big.hip": []})
    findings = [{"file": "big.hip", "line": 3, "rule": "PW001", "category": "warp-size", "severity": "warning",
                 "message": "32-lane warp assumed", "fix": ""},
                {"file": "elsewhere.hip", "line": 1, "rule": "PW001", "category": "warp-size", "severity": "warning",
                 "message": "not this task's", "fix": ""}]
    view = focus_view(tmp_path, task, findings, [f"lesson {n}" for n in range(10)])
    small, big = view["files"]
    assert small["whole"] and [(e["start"], e["end"]) for e in small["excerpts"]] == [(1, 10)]
    assert "> 4 | small 4" in small["excerpts"][0]["text"] and "  5 | small 5" in small["excerpts"][0]["text"]
    assert not big["whole"] and [(e["start"], e["end"]) for e in big["excerpts"]] == [(1, 30), (492, 513)]
    assert [f["message"] for f in view["findings"]] == ["32-lane warp assumed"]
    assert view["lessons"] == [f"lesson {n}" for n in range(4, 10)]
    text = Prompts().render("focused_task.md.j2", target=resolve_target("gfx942"), compile_arch="gfx90a",
                            hip_version=None, has_tests=False, tools=("read_file",), wave64=True, inline_ptx=False,
                            **view)
    assert text.startswith("# Task: `x`: use of undeclared identifier '…' (in 2 files)\n")
    assert ">500 | big 500" in text and "big 600" not in text and "lesson 9" in text and "64-lane" in text


# --- a focused task's finish ---------------------------------------------------------------------------------

def _tree(root: Path) -> FakeTreeEnvironment:
    root.mkdir(parents=True, exist_ok=True)
    (root / "mine.hip").write_text("int a = BROKEN_mine;\nint b = BROKEN_other;\n")
    return FakeTreeEnvironment(root)


def _focused(env: FakeTreeEnvironment) -> AgentTask:
    build = env.build()
    mine = [d for d in build.errors if "BROKEN_mine" in d.message]
    [task] = plan_tasks(mine, env.unit_dependencies())
    return AgentTask(errors=mine, target=resolve_target("gfx942"), compile_arch="gfx90a",
                     focus=focus_view(env.root, task, [], []), baseline=build.errors)


def test_a_focused_task_may_finish_while_other_tasks_errors_remain(tmp_path: Path) -> None:
    env = _tree(tmp_path / "t")
    model = ScriptedModel([
        respond(("finish", {"summary": "too early"})),
        respond(("replace_in_file", {"path": "mine.hip", "old": "BROKEN_mine", "new": "1"})),
        respond(("finish", {"summary": "fixed mine"})),
    ])
    outcome = DefaultAgent(model, ScopedEnvironment(env, ("mine.hip",))).run(_focused(env))
    assert outcome.status == "submitted" and outcome.message == "fixed mine" and outcome.build_ok is True
    assert model.seen[0][1]["content"].startswith("# Task: unit mine.hip")
    refused = next(m["content"] for m in model.seen[1] if m["role"] == "tool")
    assert refused.startswith("finish refused: this task's errors are not gone yet.")
    assert "1 other errors in these units belong to other tasks" in refused
    assert "This task's errors are gone. The 1 other error in these units belongs to other tasks" in \
        model.seen[2][-1]["content"]
    assert env.builds[1:] == [["mine.hip"], ["mine.hip"]]  # the task's own units, not the whole tree


def test_a_focused_task_may_not_finish_with_an_error_its_edit_brought(tmp_path: Path) -> None:
    env = _tree(tmp_path / "t")
    model = ScriptedModel([
        respond(("replace_in_file", {"path": "mine.hip", "old": "BROKEN_mine", "new": "BROKEN_new"})),
        respond(("finish", {"summary": "renamed"})),
    ], default=respond(("read_file", {"path": "mine.hip"})))
    outcome = DefaultAgent(model, ScopedEnvironment(env, ("mine.hip",)), limits=Limits(max_iterations=3)).run(_focused(env))
    assert outcome.status == "limits_exceeded"
    assert "error: use of undeclared identifier 'BROKEN_new'" in model.seen[1][-1]["content"]  # after the edit
    refused = [m["content"] for m in model.seen[2] if m["role"] == "tool"][-1]
    assert refused.startswith("finish refused") and "BROKEN_new" in refused


# --- the scheduler over an in-process tree, the model on 127.0.0.1 -------------------------------------------

def _scheduler_tree(root: Path) -> None:
    root.mkdir(parents=True)
    (root / "shared.h").write_text("#pragma once\nint shared = BROKEN_shared;\n")
    for name in ("a", "b"):
        (root / f"{name}.hip").write_text(f'#include "shared.h"\nint {name} = shared;\n')
    (root / "c.hip").write_text("int c = BROKEN_c;\n")


def test_an_interrupted_run_reports_where_it_stopped_and_a_resume_keeps_what_was_fixed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unit")
    root = tmp_path / "t"
    _scheduler_tree(root)
    fix_shared = reply(call("replace_in_file", {"path": "shared.h", "old": "BROKEN_shared", "new": "1"}))
    conversations = {"header shared.h": [fix_shared, reply(call("finish", {"summary": "shared fixed"}))],
                     "unit c.hip": [reply(call("compile", {"path": "c.hip"})),
                                    reply(call("replace_in_file", {"path": "c.hip", "old": "BROKEN_c", "new": "2"})),
                                    reply(call("finish", {"summary": "c fixed"}))]}
    seen: list[dict] = []
    with FakeOpenAIServer([], conversations=conversations) as server:
        config = PortConfig(model=MODEL, base_url=server.base_url, extra={"agent_retry_base_delay": 0.01})
        env = FakeTreeEnvironment(root, interrupt_on_build=4)  # Ctrl-C while task T2 (c.hip) compiles
        with pytest.raises(KeyboardInterrupt):
            run_tasks(env, config, env.build(), None, target=resolve_target("gfx942"), transcripts=tmp_path / "tr",
                      on_progress=lambda run: seen.append(json.loads(json.dumps(run.as_dict(config, tmp_path)))))
        state = seen[-1]
        assert [(t["id"], t["key"], t["status"]) for t in state["tasks"]] == [
            ("T1", "header:shared.h", "fixed"), ("T2", "unit:c.hip", "interrupted")]
        assert state["status"] == "interrupted"
        env = FakeTreeEnvironment(root)
        run = run_tasks(env, config, env.build(), None, target=resolve_target("gfx942"),
                        transcripts=tmp_path / "tr", earlier=state["tasks"])
        asked = {key: len(requests) for key, requests in server.by_conversation().items()}
    assert [(t.id, t.key, t.status, t.earlier_run) for t in run.tasks] == [
        ("T1", "header:shared.h", "fixed", True), ("T2", "unit:c.hip", "fixed", False)]
    assert run.build.ok and run.status == "fixed"
    # T1 is not asked again; T2's first request is the one the interrupted run made, so the cache answers it
    assert asked == {"header shared.h": 2, "unit c.hip": 1 + 2}
    assert sorted(p.name for p in (tmp_path / "tr").iterdir()) == [
        "T1-header_shared.h.jsonl", "T2-unit_c.hip-2.jsonl", "T2-unit_c.hip.jsonl"]
    assert run.lessons[0].startswith("header shared.h (included by 2 units): shared fixed")


def test_failing_tests_after_a_clean_build_become_one_task_over_the_whole_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unit")
    root = tmp_path / "t"
    root.mkdir()
    (root / "a.hip").write_text("int lanes = 32; // WRONG_WIDTH\n")
    fix = reply(call("replace_in_file", {"path": "a.hip", "old": "int lanes = 32; // WRONG_WIDTH", "new": "int lanes = 64;"}))
    conversations = {"## Test failure": [fix, reply(call("finish", {"summary": "64-lane wavefronts"}))]}
    env = FakeTreeEnvironment(root, test_marker="WRONG_WIDTH")
    with FakeOpenAIServer([], conversations=conversations) as server:
        config = PortConfig(model=MODEL, base_url=server.base_url, test_cmd="./run_tests", use_cache=False)
        build = env.build()
        run = run_tasks(env, config, build, env.run_tests(), target=resolve_target("gfx942"), transcripts=tmp_path / "tr")
        first = server.completions[0].body["messages"][1]["content"]
    assert [(t.kind, t.title, t.status, t.units) for t in run.tasks] == [("tests", "the tests fail", "fixed", None)]
    assert "FAIL: sum 32 != 64" in first
    assert run.tests is not None and run.tests.ok and run.status == "fixed"
    assert env.test_runs == 3  # given to run_tasks; after the edit (finish reuses it); porter's own check


def test_an_endpoint_that_refuses_stops_the_run_and_leaves_the_rest_pending(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unit")
    root = tmp_path / "t"
    _scheduler_tree(root)
    env = FakeTreeEnvironment(root)
    with FakeOpenAIServer([], default=Turn(status=401, content="bad key")) as server:
        config = PortConfig(model=MODEL, base_url=server.base_url, use_cache=False)
        run = run_tasks(env, config, env.build(), None, target=resolve_target("gfx942"), transcripts=tmp_path / "tr")
        requests = len(server.completions)
    assert requests == 1  # a 401 is not retried, and no other task asks again
    assert [(t.id, t.status, t.turns) for t in run.tasks] == [("T1", "model_error", 0), ("T2", "pending", 0)]
    assert run.status == "model_error" and "HTTP 401" in run.tasks[0].message
    assert "model endpoint failed" in run.message() and not run.build.ok
