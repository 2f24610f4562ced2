"""The agent loop with an in-process scripted Model: turns, limits, finish verification, reflection, transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.agent_fakes import (
    BROKEN,
    FIX_CALL,
    FIXED,
    FakeEnvironment,
    ScriptedModel,
    make_task,
    make_tree,
    respond,
)

from porter.agent import DefaultAgent, Limits, run_agent, tools
from porter.agent.errors import PromptError
from porter.agent.prompts import Prompts, prompts_dir
from porter.agent.transcript import Transcript, read_transcript
from porter.config import PortConfig
from porter.targets import resolve_target


def _agent(model, env, tmp_path: Path, **limits) -> DefaultAgent:
    transcript = Transcript(tmp_path / "transcript.jsonl")
    return DefaultAgent(model, env, limits=Limits(**limits), transcript=transcript, has_tests=env.with_tests)


def _tool_messages(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "tool"]


@pytest.fixture
def env(tmp_path: Path) -> FakeEnvironment:
    root = tmp_path / "out"
    make_tree(root)
    return FakeEnvironment(root)


def test_repair_that_makes_the_build_pass(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([
        respond(("read_file", {"path": "src/main.hip"})),
        respond(FIX_CALL),
        respond(("finish", {"summary": "renamed the allocation to hipMalloc"})),
    ])
    outcome = _agent(model, env, tmp_path).run(make_task(env))
    assert outcome.status == "submitted", outcome.message
    assert outcome.message == "renamed the allocation to hipMalloc"
    assert outcome.iterations == 3
    assert outcome.tokens == 300
    assert outcome.edited_files == ["src/main.hip"]
    assert outcome.build_ok is True and outcome.tests_ok is None
    text = (env.root / "src/main.hip").read_text()
    assert FIXED in text and BROKEN not in text
    # the read came back with line numbers; the auto-build after the edit told the model it builds now
    assert "5 |" in _tool_messages(model.seen[1])[0]
    assert "The build succeeds" in model.seen[2][-1]["content"]
    # finish reused the build done right after the edit instead of building again
    assert env.builds == [None, None]


def test_conversation_is_valid_chat_format(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([respond(("read_file", {"path": "src/main.hip"}), FIX_CALL), respond(("finish", {"summary": "x"}))])
    _agent(model, env, tmp_path).run(make_task(env))
    messages = model.seen[-1]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool", "user"]
    ids = [c["id"] for c in messages[2]["tool_calls"]]
    assert [m["tool_call_id"] for m in messages[3:5]] == ids


def test_model_that_never_fixes_anything_is_stopped_by_max_iterations(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([], default=respond(("read_file", {"path": "src/main.hip"})))
    outcome = _agent(model, env, tmp_path, max_iterations=4).run(make_task(env))
    assert outcome.status == "limits_exceeded"
    assert "max_iterations=4" in outcome.message
    assert outcome.iterations == 4 and len(model.seen) == 4
    assert outcome.build_ok is False and outcome.edited_files == []
    assert BROKEN in (env.root / "src/main.hip").read_text()  # the tree is kept as it was


def test_token_budget_stops_the_loop(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([], default=respond(("read_file", {"path": "src/main.hip"}), tokens=1000))
    outcome = _agent(model, env, tmp_path, max_tokens=2500).run(make_task(env))
    assert outcome.status == "limits_exceeded"
    assert "token budget" in outcome.message
    assert outcome.iterations == 3 and outcome.tokens == 3000


def test_wall_clock_limit(env: FakeEnvironment, tmp_path: Path) -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 10.0  # every look at the clock costs 10 s
        return now[0]

    model = ScriptedModel([], default=respond(("read_file", {"path": "src/main.hip"})))
    agent = DefaultAgent(model, env, limits=Limits(max_seconds=45), clock=clock)
    outcome = agent.run(make_task(env))
    assert outcome.status == "limits_exceeded"
    assert "time limit" in outcome.message
    assert 1 <= outcome.iterations < 5


def test_finish_is_refused_while_the_build_fails(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([
        respond(("finish", {"summary": "done"})),
        respond(FIX_CALL),
        respond(("finish", {"summary": "fixed for real"})),
    ])
    outcome = _agent(model, env, tmp_path).run(make_task(env))
    assert outcome.status == "submitted" and outcome.message == "fixed for real"
    refused = _tool_messages(model.seen[1])[0]
    assert refused.startswith("finish refused")
    assert f"undeclared identifier '{BROKEN}'" in refused


def test_finish_is_refused_while_tests_fail(tmp_path: Path) -> None:
    root = tmp_path / "out"
    make_tree(root, f"// offset = 16\nint main() {{ return {FIXED}; }}\n")
    env = FakeEnvironment(root, with_tests=True, test_marker="offset = 16")
    model = ScriptedModel([
        respond(("finish", {"summary": "builds"})),
        respond(("replace_in_file", {"path": "src/main.hip", "old": "offset = 16", "new": "offset = warpSize / 2"})),
        respond(("finish", {"summary": "wave64 reduction"})),
    ])
    outcome = _agent(model, env, tmp_path).run(make_task(env, test_failure="FAIL: sum 32 != 64"))
    assert outcome.status == "submitted"
    assert outcome.tests_ok is True and outcome.build_ok is True
    assert "tests fail" in _tool_messages(model.seen[1])[0]
    assert "tests pass" in model.seen[2][-1]["content"]  # reflected after the edit
    # the initial prompt carried the test failure and wave64 guidance
    first_user = model.seen[0][1]["content"]
    assert "FAIL: sum 32 != 64" in first_user


def test_compile_error_after_edit_is_reflected_back(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([
        respond(("replace_in_file", {"path": "src/main.hip", "old": "return 0;", "new": "return 1;"})),
        respond(FIX_CALL),
        respond(("finish", {"summary": "ok"})),
    ])
    outcome = _agent(model, env, tmp_path).run(make_task(env))
    assert outcome.status == "submitted"
    reflected = model.seen[1][-1]
    assert reflected["role"] == "user"
    assert "After your edits the build still fails (1 error)" in reflected["content"]
    assert f"src/main.hip:5:3: error: use of undeclared identifier '{BROKEN}'" in reflected["content"]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (("read_file", '{"path": "src/main.hip"'), "not valid JSON"),
        (("read_file", "[1, 2]"), "must be a JSON object"),
        (("run_shell", {"cmd": "rm -rf /"}), "unknown tool 'run_shell'"),
        (("read_file", {}), "missing required argument(s): path"),
        (("read_file", {"path": "src/main.hip", "mode": "r"}), "unexpected argument(s): mode"),
        (("read_file", {"path": "src/main.hip", "start_line": "3"}), "'start_line' must be a integer"),
        (("replace_in_file", {"path": "src/main.hip", "old": 1, "new": "x"}), "'old' must be a string"),
        (("write_file", {"path": "../escape.hip", "content": "x"}), "outside the ported tree"),
    ],
)
def test_malformed_tool_calls_become_error_messages(env: FakeEnvironment, tmp_path: Path, call, expected) -> None:
    model = ScriptedModel([respond(call), respond(FIX_CALL), respond(("finish", {"summary": "ok"}))])
    outcome = _agent(model, env, tmp_path).run(make_task(env))
    assert outcome.status == "submitted"
    result = _tool_messages(model.seen[1])[0]
    assert result.startswith("Error:") and expected in result
    assert not (tmp_path / "escape.hip").exists()


def test_os_errors_in_tools_go_back_to_the_model(env: FakeEnvironment, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def read_only(file, text, encoding="utf-8"):
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(tools, "atomic_write", read_only)
    model = ScriptedModel([respond(("write_file", {"path": "src/new.hip", "content": "x"})),
                           respond(("finish", {"summary": "ok"}))])
    outcome = _agent(model, env, tmp_path, max_iterations=2).run(make_task(env))
    assert outcome.status == "limits_exceeded" and outcome.edited_files == []
    assert _tool_messages(model.seen[1])[0].startswith("Error: Permission denied: ")


def test_plain_text_answer_gets_a_nudge(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([respond(content="I think you should rename it."), respond(FIX_CALL),
                           respond(("finish", {"summary": "ok"}))])
    outcome = _agent(model, env, tmp_path).run(make_task(env))
    assert outcome.status == "submitted"
    assert "You did not call a tool" in model.seen[1][-1]["content"]


def test_compile_tool_and_run_tests_without_test_command(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([
        respond(("compile", {"path": "src/main.hip"}), ("run_tests", {}), ("compile", {"path": "nope.hip"})),
        respond(("compile", {})),
    ], default=respond(("finish", {"summary": "x"})))
    outcome = _agent(model, env, tmp_path, max_iterations=3).run(make_task(env))
    one, tests, missing = _tool_messages(model.seen[1])
    assert one.startswith("Build failed (1 errors)")
    assert tests == "No test command is configured for this port."
    assert "no such file" in missing
    assert env.builds[1] == "src/main.hip"
    assert outcome.status == "limits_exceeded"  # finish keeps being refused


def test_transcript_records_every_event(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([respond(("read_file", {"path": "src/main.hip"})), respond(FIX_CALL),
                           respond(("finish", {"summary": "ok"}))])
    _agent(model, env, tmp_path).run(make_task(env))
    events = read_transcript(tmp_path / "transcript.jsonl")
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "end"
    assert kinds.count("request") == 3 and kinds.count("response") == 3
    assert {"tool_call", "tool_result", "build"} <= set(kinds)
    first_request = next(e for e in events if e["event"] == "request")
    assert [m["role"] for m in first_request["messages"]] == ["system", "user"]
    second_request = [e for e in events if e["event"] == "request"][1]
    assert [m["role"] for m in second_request["messages"]] == ["tool"]  # only the delta since the last request
    end = events[-1]
    assert end["status"] == "submitted" and end["edited_files"] == ["src/main.hip"]
    assert all("t" in e for e in events)
    response = next(e for e in events if e["event"] == "response")
    assert response["usage"]["total"] == 100 and "seconds" in response


def test_transcript_written_even_when_the_loop_crashes(env: FakeEnvironment, tmp_path: Path) -> None:
    def boom(messages):
        raise RuntimeError("bug")

    with pytest.raises(RuntimeError):
        _agent(ScriptedModel([boom]), env, tmp_path).run(make_task(env))
    kinds = [e["event"] for e in read_transcript(tmp_path / "transcript.jsonl")]
    assert kinds == ["start", "request"]


def test_run_agent_without_a_model_is_a_clean_model_error(env: FakeEnvironment, tmp_path: Path) -> None:
    outcome = run_agent(make_task(env), env, PortConfig(model=None), tmp_path / "t.jsonl")
    assert outcome.status == "model_error"
    assert "no model configured" in outcome.message
    assert json.loads((tmp_path / "t.jsonl").read_text())["status"] == "model_error"


def test_run_agent_with_injected_model(env: FakeEnvironment, tmp_path: Path) -> None:
    model = ScriptedModel([respond(FIX_CALL), respond(("finish", {"summary": "ok"}))])
    config = PortConfig(model="m", max_iterations=5)
    outcome = run_agent(make_task(env), env, config, tmp_path / "t.jsonl", model=model)
    assert outcome.status == "submitted" and outcome.build_ok


# --- prompts -----------------------------------------------------------------------------------------------

def test_prompts_use_strict_undefined() -> None:
    prompts = Prompts()
    with pytest.raises(PromptError, match="'target' is undefined"):
        prompts.render("target_hints.md.j2")


def test_missing_prompts_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="prompt templates not found"):
        Prompts(tmp_path / "nowhere")
    with pytest.raises(PromptError, match="not found"):
        Prompts(tmp_path).render("system.md.j2")


def test_prompts_dir_is_beside_the_package() -> None:
    assert (prompts_dir() / "system.md.j2").is_file()


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950", "gfx1100"])
def test_target_hints_render_the_profile_facts(arch: str) -> None:
    target = resolve_target(arch)
    text = Prompts().render("target_hints.md.j2", target=target)
    for fact in (f"{target.wavefront} lanes", f"{target.lds_per_workgroup_kib} KiB", str(target.cu_count),
                 str(target.max_threads_per_block), str(target.hbm_bandwidth_tbs), str(target.peak_fp16_tflops)):
        assert fact in text, fact
    expected_fp8 = {"fnuz": "FNUZ", "ocp": "OCP", "none": "No hardware FP8"}[target.fp8_format]
    assert expected_fp8 in text


def test_guidance_sections_follow_the_findings(env: FakeEnvironment, tmp_path: Path) -> None:
    finding = {"file": "src/main.hip", "line": 3, "rule": "warp-size-32", "category": "wavefront",
               "severity": "warning", "message": "shuffle reduction starts at offset 16", "fix": "start at warpSize/2"}
    ptx = {"file": "src/main.hip", "line": 4, "rule": "inline-ptx", "category": "asm", "severity": "error",
           "message": "inline PTX assembly", "fix": ""}
    model = ScriptedModel([respond(FIX_CALL), respond(("finish", {"summary": "ok"}))])
    _agent(model, env, tmp_path).run(make_task(env, findings=[finding, ptx]))
    system, user = model.seen[0][0]["content"], model.seen[0][1]["content"]
    assert "gfx90a" in system and "gfx942" in system and "64 lanes" in system
    assert "## Warp size: 64-lane wavefronts" in user and "## Inline PTX" in user
    assert "src/main.hip:3 [warning] warp-size-32" in user

    plain = ScriptedModel([respond(FIX_CALL), respond(("finish", {"summary": "ok"}))])
    make_tree(env.root)
    _agent(plain, env, tmp_path).run(make_task(env))
    assert "Warp size" not in plain.seen[0][1]["content"] and "Inline PTX" not in plain.seen[0][1]["content"]
