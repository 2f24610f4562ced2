"""LLM agent that repairs a port the rule fixers could not: edits files through tools, porter builds and verifies.

Entry point for porter.fix.loop: `run_agent(task, env, config, transcript_path) -> AgentOutcome`. It never raises
for expected failures (no model configured, endpoint down, limits hit); those come back as the outcome's status.
"""

from __future__ import annotations

from pathlib import Path

from porter.agent.cache import CachedModel
from porter.agent.errors import LimitsExceeded, ModelUnavailable, PromptError, Submitted
from porter.agent.loop import DefaultAgent, Limits
from porter.agent.model import OpenAIModel, check_endpoint
from porter.agent.prompts import Prompts
from porter.agent.protocols import Agent, Environment, Model
from porter.agent.transcript import Transcript
from porter.agent.types import AgentOutcome, AgentTask, ModelResponse, ToolCall
from porter.config import PortConfig

__all__ = [
    "Agent", "AgentOutcome", "AgentTask", "CachedModel", "DefaultAgent", "Environment", "Limits", "LimitsExceeded",
    "Model", "ModelResponse", "ModelUnavailable", "OpenAIModel", "PromptError", "Submitted", "ToolCall",
    "check_endpoint", "default_cache_dir", "run_agent",
]


def default_cache_dir(env: Environment, config: PortConfig) -> Path:
    return config.cache_dir or Path(env.root) / ".porter" / "cache"


def run_agent(
    task: AgentTask, env: Environment, config: PortConfig, transcript_path: Path, *, model: Model | None = None
) -> AgentOutcome:
    """Run the agent on `env`'s tree. `model` replaces the configured endpoint (tests, other backends)."""
    secrets = (config.api_key,)
    transcript = Transcript(transcript_path, secrets=secrets)
    try:
        prompts = Prompts()
        if model is None:
            def log_retry(attempt: int, reason: str, delay: float) -> None:
                transcript.event("retry", attempt=attempt, reason=reason, delay=round(delay, 3))

            model = OpenAIModel.from_config(config, on_retry=log_retry)
            if config.use_cache:
                model = CachedModel(model, default_cache_dir(env, config), config.model or "", secrets)
    except (ModelUnavailable, PromptError) as exc:
        message = exc.message if isinstance(exc, ModelUnavailable) else str(exc)
        transcript.event("end", status="model_error", message=message)
        transcript.close()
        return AgentOutcome("model_error", message, build_ok=not task.errors,
                            tests_ok=None if task.test_failure is None else False)
    agent = DefaultAgent(model, env, limits=Limits.from_config(config), transcript=transcript, prompts=prompts,
                         has_tests=config.test_cmd is not None)
    return agent.run(task)
