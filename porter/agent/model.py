"""OpenAI-compatible chat model with function calling, bounded retries, and an endpoint check for `porter doctor`."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import openai

from porter.agent.errors import ModelUnavailable
from porter.agent.redact import scrub
from porter.agent.types import ModelResponse, ToolCall
from porter.config import PortConfig

# status codes worth another attempt: timeouts, conflicts, rate limits, server errors
_RETRY_STATUS = {408, 409, 429}


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5  # total tries, the first included
    base_delay: float = 1.0  # seconds; doubled each attempt
    max_delay: float = 30.0  # cap for the backoff and for Retry-After


def retry_policy_from(config: PortConfig) -> RetryPolicy:
    """Knobs live in config.extra so tests (and impatient users) can shrink them."""
    extra = config.extra or {}
    default = RetryPolicy()
    return RetryPolicy(
        attempts=int(extra.get("agent_retry_attempts", default.attempts)),
        base_delay=float(extra.get("agent_retry_base_delay", default.base_delay)),
        max_delay=float(extra.get("agent_retry_max_delay", default.max_delay)),
    )


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    millis = response.headers.get("retry-after-ms")  # OpenAI's finer-grained variant
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def _is_transient(exc: Exception) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError and dropped connections
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out"
    if isinstance(exc, openai.APIConnectionError):
        return f"connection failed ({exc.__cause__ or exc})"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


class OpenAIModel:
    """Talks to any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, LiteLLM...)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 300.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        on_retry: Callable[[int, str, float], None] | None = None,
    ) -> None:
        self.name = model
        self.on_retry = on_retry  # (attempt, reason, delay): lets the caller log retries
        self._secrets = (api_key,)
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        # our own retry loop (honours Retry-After, reports clearly), so the client's is off
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", max_retries=0, timeout=timeout)

    @classmethod
    def from_config(cls, config: PortConfig, **kw: object) -> OpenAIModel:
        if not config.model:
            raise ModelUnavailable("no model configured (use --model, [tool.porter] model, or PORTER_MODEL)")
        timeout = float((config.extra or {}).get("agent_request_timeout", 300.0))
        return cls(
            config.model, base_url=config.base_url, api_key=config.api_key, timeout=timeout,
            retry=retry_policy_from(config), **kw,  # type: ignore[arg-type]
        )

    def query(self, messages: list[dict], tools: list[dict]) -> ModelResponse:
        last: Exception | None = None
        for attempt in range(self.retry.attempts):
            try:
                completion = self._client.chat.completions.create(model=self.name, messages=messages, tools=tools)
                return self._convert(completion)
            except openai.OpenAIError as exc:
                if not _is_transient(exc):
                    reason = scrub(_describe(exc), self._secrets)  # servers may echo the key back
                    raise ModelUnavailable(f"model endpoint refused the request: {reason}") from None
                last = exc
                if attempt + 1 < self.retry.attempts:
                    delay = self._delay(attempt, exc)
                    if self.on_retry is not None:
                        self.on_retry(attempt + 1, scrub(_describe(exc), self._secrets), delay)
                    self._sleep(delay)
        assert last is not None
        reason = scrub(_describe(last), self._secrets)
        raise ModelUnavailable(f"model endpoint unavailable after {self.retry.attempts} attempts: {reason}") from None

    def _delay(self, attempt: int, exc: Exception) -> float:
        hinted = _retry_after(exc)
        if hinted is not None:
            return min(hinted, self.retry.max_delay)
        backoff = self.retry.base_delay * (2**attempt)
        return min(backoff * (1 + random.random() * 0.1), self.retry.max_delay)  # small jitter

    def _convert(self, completion: object) -> ModelResponse:
        choices = getattr(completion, "choices", None)
        if not choices:
            raise ModelUnavailable("model endpoint returned no choices")
        choice = choices[0]
        message = choice.message
        calls = [
            ToolCall(id=tc.id or f"call_{i}", name=tc.function.name or "", arguments=tc.function.arguments or "")
            for i, tc in enumerate(message.tool_calls or [])
            if getattr(tc, "function", None) is not None
        ]
        usage = getattr(completion, "usage", None)
        if usage is not None:
            prompt, done = usage.prompt_tokens or 0, usage.completion_tokens or 0
        else:  # some servers omit usage; estimate so the token budget still bites
            prompt, done = 0, len(message.content or "") // 4 + sum(len(c.arguments) // 4 for c in calls)
        return ModelResponse(
            content=message.content, tool_calls=calls, prompt_tokens=prompt, completion_tokens=done,
            model=getattr(completion, "model", "") or self.name, finish_reason=choice.finish_reason,
        )


def check_endpoint(config: PortConfig, timeout: float = 10.0) -> tuple[bool, str]:
    """For `porter doctor`: is the endpoint reachable and does it serve the configured model?"""
    ok, message = _check_endpoint(config, timeout)
    return ok, scrub(message, (config.api_key,))


def _check_endpoint(config: PortConfig, timeout: float) -> tuple[bool, str]:
    if not config.model:
        return False, "no model configured (use --model, [tool.porter] model, or PORTER_MODEL)"
    client = openai.OpenAI(base_url=config.base_url, api_key=config.api_key or "unused", max_retries=0, timeout=timeout)
    where = config.base_url or str(client.base_url)
    try:
        served = [m.id for m in client.models.list()]
    except openai.NotFoundError:
        served = None  # no /models route on this server: fall back to a 1-token request
    except openai.OpenAIError as exc:
        return False, f"{where}: {_describe(exc)}"
    if served is not None:
        if config.model in served:
            return True, f"{where}: reachable, serves {config.model}"
        if served:
            shown = ", ".join(served[:10]) + (" ..." if len(served) > 10 else "")
            return False, f"{where}: reachable, but does not list {config.model} (serves: {shown})"
    try:
        client.chat.completions.create(
            model=config.model, messages=[{"role": "user", "content": "ping"}], max_tokens=1
        )
    except openai.OpenAIError as exc:
        return False, f"{where}: {_describe(exc)}"
    return True, f"{where}: reachable, {config.model} answered"
