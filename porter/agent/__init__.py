"""LLM agent that repairs a port the rule fixers could not: edits files through tools, porter builds and verifies.

Entry points for porter.fix.loop:
- `run_tasks(env, config, build, tests, ...) -> TaskRun`: the repository-scale run. The build's errors are grouped
  into one task per root cause (a shared header, one message and identifier across files, one unit), headers
  first; each task gets a fresh focused conversation and a share of the budget; porter rebuilds after each task
  and trusts only that. The report lists every task; repeated fixes become suggested rules.
- `run_agent(task, env, config, transcript_path) -> AgentOutcome`: one conversation over the whole tree.
Neither raises for expected failures (no model configured, endpoint down, limits hit); those come back as status.
"""

from __future__ import annotations

from pathlib import Path

from porter.agent.cache import CachedModel
from porter.agent.errors import LimitsExceeded, ModelUnavailable, PromptError, Submitted
from porter.agent.learning import EditPattern, edit_patterns, suggest_rules, toml_entry
from porter.agent.loop import DefaultAgent, Limits, RunBudget
from porter.agent.model import OpenAIModel, check_endpoint
from porter.agent.prompts import Prompts
from porter.agent.protocols import Agent, Environment, Model, UnitEnvironment
from porter.agent.scheduler import TaskRecord, TaskRun, make_model, run_tasks, task_share
from porter.agent.scheduler import default_cache_dir as _cache_dir
from porter.agent.tasks import RepairTask, independent_batch, message_pattern, plan_tasks
from porter.agent.transcript import Transcript
from porter.agent.types import AgentOutcome, AgentTask, ModelResponse, ToolCall
from porter.config import PortConfig

__all__ = [
    "Agent", "AgentOutcome", "AgentTask", "CachedModel", "DefaultAgent", "EditPattern", "Environment", "Limits",
    "LimitsExceeded", "Model", "ModelResponse", "ModelUnavailable", "OpenAIModel", "PromptError", "RepairTask",
    "RunBudget", "Submitted", "TaskRecord", "TaskRun", "ToolCall", "UnitEnvironment", "check_endpoint",
    "default_cache_dir", "edit_patterns", "independent_batch", "make_model", "message_pattern", "plan_tasks",
    "run_agent", "run_tasks", "suggest_rules", "task_share", "toml_entry",
]


def default_cache_dir(env: Environment, config: PortConfig) -> Path:
    return _cache_dir(Path(env.root), config)


def run_agent(
    task: AgentTask, env: Environment, config: PortConfig, transcript_path: Path, *, model: Model | None = None
) -> AgentOutcome:
    """Run the agent on `env`'s tree. `model` replaces the configured endpoint (tests, other backends)."""
    transcript = Transcript(transcript_path, secrets=(config.api_key,))
    try:
        prompts = Prompts()
        if model is None:
            model = make_model(config, Path(env.root), transcript)
    except (ModelUnavailable, PromptError) as exc:
        message = exc.message if isinstance(exc, ModelUnavailable) else str(exc)
        transcript.event("end", status="model_error", message=message)
        transcript.close()
        return AgentOutcome("model_error", message, build_ok=not task.errors,
                            tests_ok=None if task.test_failure is None else False)
    agent = DefaultAgent(model, env, limits=Limits.from_config(config), transcript=transcript, prompts=prompts,
                         has_tests=config.test_cmd is not None)
    return agent.run(task)
