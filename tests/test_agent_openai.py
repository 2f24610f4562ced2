"""run_agent end to end with the real `openai` client against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai_server import MODEL, FakeOpenAIServer, Turn, call, reply
from support.agent_fakes import BROKEN, FIX_CALL, FIXED, SOURCE, FakeEnvironment, make_task, make_tree

from porter.agent import check_endpoint, run_agent
from porter.agent.model import OpenAIModel, RetryPolicy
from porter.agent.transcript import read_transcript
from porter.config import PortConfig

KEY = "sk-test-PORTER-secret-0123456789"
FINISH = call("finish", {"summary": "replaced the CUDA allocation"})


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return KEY


@pytest.fixture
def env(tmp_path: Path) -> FakeEnvironment:
    root = tmp_path / "out"
    make_tree(root)
    return FakeEnvironment(root)


def _config(server: FakeOpenAIServer, **kw: object) -> PortConfig:
    extra = {"agent_retry_base_delay": 0.01, "agent_retry_attempts": 3, "agent_request_timeout": 5.0}
    extra.update(kw.pop("extra", {}))  # type: ignore[arg-type]
    return PortConfig(model=MODEL, base_url=server.base_url, extra=extra, **kw)  # type: ignore[arg-type]


def _run(env: FakeEnvironment, server: FakeOpenAIServer, **kw: object):
    transcript = env.root / ".porter" / "transcript.jsonl"
    outcome = run_agent(make_task(env), env, _config(server, **kw), transcript)
    return outcome, transcript


def _tool_results(server: FakeOpenAIServer, request: int) -> list[str]:
    body = server.completions[request].body
    assert body is not None
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def test_repair_over_http(env: FakeEnvironment) -> None:
    script = [reply(call("read_file", {"path": "src/main.hip"})), reply(FIX_CALL), reply(FINISH)]
    with FakeOpenAIServer(script) as server:
        outcome, transcript = _run(env, server)
    assert outcome.status == "submitted", outcome.message
    assert (outcome.iterations, outcome.tokens, outcome.build_ok) == (3, 360, True)
    assert FIXED in (env.root / "src/main.hip").read_text()
    first = server.completions[0]
    assert first.body["model"] == MODEL
    assert [t["function"]["name"] for t in first.body["tools"]][:3] == ["read_file", "replace_in_file", "write_file"]
    assert {k.lower(): v for k, v in first.headers.items()}["authorization"] == f"Bearer {KEY}"
    assert "5 |" in _tool_results(server, 1)[0]
    assert [e["event"] for e in read_transcript(transcript)][-1] == "end"


def test_model_that_never_fixes_is_stopped(env: FakeEnvironment) -> None:
    with FakeOpenAIServer([], default=reply(call("read_file", {"path": "src/main.hip"}))) as server:
        outcome, _ = _run(env, server, max_iterations=3)
    assert outcome.status == "limits_exceeded"
    assert len(server.completions) == 3
    assert BROKEN in (env.root / "src/main.hip").read_text()


def test_malformed_unknown_and_escaping_calls_are_answered_not_executed(env: FakeEnvironment, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("OUTSIDE-CONTENT")
    (env.root / "src" / "link.txt").symlink_to(outside)
    script = [
        reply(call("read_file", '{"path": "src/main.hip",')),  # truncated JSON
        reply(call("exec", {"command": "cat /etc/passwd"})),
        reply(call("read_file", {"path": "../outside.txt"}), call("read_file", {"path": "/etc/passwd"}),
              call("read_file", {"path": "src/link.txt"}), call("write_file", {"path": "../x.hip", "content": "x"})),
        reply(FIX_CALL),
        reply(FINISH),
    ]
    with FakeOpenAIServer(script) as server:
        outcome, _ = _run(env, server)
    assert outcome.status == "submitted"
    assert "not valid JSON" in _tool_results(server, 1)[0]
    assert "unknown tool 'exec'" in _tool_results(server, 2)[1]
    refused = _tool_results(server, 3)[2:]
    assert len(refused) == 4 and all("outside the ported tree" in r for r in refused)
    everything = json.dumps([r.body for r in server.completions])
    assert "OUTSIDE-CONTENT" not in everything and "root:x:0:0" not in everything
    assert not (tmp_path / "x.hip").exists()


def test_rate_limit_then_success(env: FakeEnvironment) -> None:
    script = [Turn(status=429, headers={"Retry-After": "0"}, content="slow down"), reply(FIX_CALL), reply(FINISH)]
    with FakeOpenAIServer(script) as server:
        outcome, transcript = _run(env, server)
    assert outcome.status == "submitted"
    assert len(server.completions) == 3  # one retried request, the same turn
    assert outcome.iterations == 2
    retries = [e for e in read_transcript(transcript) if e["event"] == "retry"]
    assert len(retries) == 1 and "HTTP 429" in retries[0]["reason"] and retries[0]["delay"] == 0


def test_timeout_then_success(env: FakeEnvironment) -> None:
    script = [Turn(delay=1.0, content="too late"), reply(FIX_CALL), reply(FINISH)]
    with FakeOpenAIServer(script) as server:
        outcome, _ = _run(env, server, extra={"agent_request_timeout": 0.2})
    assert outcome.status == "submitted"
    assert outcome.iterations == 2


def test_server_going_away_mid_run_is_a_clean_model_error(env: FakeEnvironment) -> None:
    script = [reply(FIX_CALL), Turn(go_away=True)]
    with FakeOpenAIServer(script) as server:
        outcome, transcript = _run(env, server)
    assert outcome.status == "model_error"
    assert "unavailable after 3 attempts" in outcome.message and "Traceback" not in outcome.message
    assert outcome.iterations == 1
    # the edit made before the outage stays, and the outcome says whether the tree builds
    assert outcome.edited_files == ["src/main.hip"] and outcome.build_ok is True
    assert read_transcript(transcript)[-1]["status"] == "model_error"


def test_server_errors_exhaust_retries(env: FakeEnvironment) -> None:
    with FakeOpenAIServer([], default=Turn(status=503, content="overloaded")) as server:
        outcome, _ = _run(env, server)
    assert outcome.status == "model_error"
    assert "HTTP 503" in outcome.message
    assert len(server.completions) == 3


def test_client_errors_are_not_retried(env: FakeEnvironment) -> None:
    with FakeOpenAIServer([Turn(status=401, content="bad key")]) as server:
        outcome, _ = _run(env, server)
    assert outcome.status == "model_error" and "HTTP 401" in outcome.message
    assert len(server.completions) == 1


def test_dropped_connection_is_retried(env: FakeEnvironment) -> None:
    with FakeOpenAIServer([Turn(drop=True), reply(FIX_CALL), reply(FINISH)]) as server:
        outcome, _ = _run(env, server)
    assert outcome.status == "submitted"


def test_token_budget_exceeded(env: FakeEnvironment) -> None:
    read = reply(call("read_file", {"path": "src/main.hip"}), prompt_tokens=4000, completion_tokens=500)
    with FakeOpenAIServer([], default=read) as server:
        outcome, _ = _run(env, server, max_tokens=10_000)
    assert outcome.status == "limits_exceeded" and "token budget" in outcome.message
    assert outcome.tokens == 13_500 and len(server.completions) == 3


def test_cache_replays_a_second_run_without_requests(env: FakeEnvironment, tmp_path: Path) -> None:
    script = [reply(call("read_file", {"path": "src/main.hip"})), reply(FIX_CALL), reply(FINISH)]
    with FakeOpenAIServer(script) as server:
        first, _ = _run(env, server)
    assert first.status == "submitted" and len(server.completions) == 3
    cached = list((env.root / ".porter" / "cache").glob("*.json"))
    assert len(cached) == 3

    (env.root / "src" / "main.hip").write_text(SOURCE)  # a fresh port of the same input
    with FakeOpenAIServer([]) as empty:
        second, transcript = _run(env, empty)
    assert len(empty.requests) == 0
    assert second == first
    assert all(e["cached"] for e in read_transcript(transcript) if e["event"] == "response")

    (env.root / "src" / "main.hip").write_text(SOURCE)
    with FakeOpenAIServer(script) as server:
        third, _ = _run(env, server, use_cache=False)
    assert third.status == "submitted" and len(server.completions) == 3


def test_cache_dir_from_config(env: FakeEnvironment, tmp_path: Path) -> None:
    with FakeOpenAIServer([reply(FIX_CALL), reply(FINISH)]) as server:
        _run(env, server, cache_dir=tmp_path / "elsewhere")
    assert len(list((tmp_path / "elsewhere").glob("*.json"))) == 2
    assert not (env.root / ".porter" / "cache").exists()


def test_api_key_is_never_written(env: FakeEnvironment, tmp_path: Path) -> None:
    script = [reply(call("read_file", {"path": "src/main.hip"})), Turn(status=500, content=f"echo {KEY}"),
              reply(FIX_CALL), reply(FINISH)]
    with FakeOpenAIServer(script) as server:
        outcome, transcript = _run(env, server)
    assert outcome.status == "submitted"
    assert KEY not in outcome.message
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert transcript in written and any(p.suffix == ".json" for p in written)
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
        assert b"Authorization" not in path.read_bytes(), path


def test_key_echoed_in_an_error_is_scrubbed(env: FakeEnvironment) -> None:
    with FakeOpenAIServer([Turn(status=401, content=f"invalid key {KEY}")]) as server:
        outcome, transcript = _run(env, server)
    assert outcome.status == "model_error"
    assert KEY not in outcome.message
    assert KEY not in transcript.read_text()


def test_retry_after_is_honoured() -> None:
    sleeps: list[float] = []
    script = [Turn(status=429, headers={"Retry-After": "0.25"}), Turn(status=503),
              Turn(status=429, headers={"retry-after-ms": "40", "Retry-After": "9"}), Turn(content="ok")]
    with FakeOpenAIServer(script) as server:
        model = OpenAIModel(MODEL, base_url=server.base_url, api_key=KEY,
                            retry=RetryPolicy(attempts=4, base_delay=0.01, max_delay=5), sleep=sleeps.append)
        response = model.query([{"role": "user", "content": "hi"}], [])
    assert response.content == "ok"
    assert sleeps[0] == 0.25  # the server's hint, not the backoff
    assert 0.02 <= sleeps[1] < 0.03  # exponential backoff, second attempt
    assert sleeps[2] == 0.04  # retry-after-ms wins over Retry-After


def test_check_endpoint(tmp_path: Path) -> None:
    with FakeOpenAIServer([], models=(MODEL, "other")) as server:
        ok, message = check_endpoint(PortConfig(model=MODEL, base_url=server.base_url))
        assert ok and f"serves {MODEL}" in message
        ok, message = check_endpoint(PortConfig(model="missing-model", base_url=server.base_url))
        assert not ok and "does not list missing-model" in message
        assert {k.lower(): v for k, v in server.requests[0].headers.items()}["authorization"] == f"Bearer {KEY}"
        base = server.base_url
    ok, message = check_endpoint(PortConfig(model=MODEL, base_url=base), timeout=1.0)
    assert not ok and "connection failed" in message
    assert KEY not in message
    assert check_endpoint(PortConfig(model=None))[0] is False
