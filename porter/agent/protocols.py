"""The three seams of the agent: where it edits and builds, who answers, and the loop itself."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from porter.agent.types import AgentOutcome, AgentTask, ModelResponse
from porter.build import BuildResult, TestResult


@runtime_checkable
class Environment(Protocol):
    """Implemented by porter.build.environment.HipccEnvironment."""

    root: Path  # output tree root; every file path is resolved inside it

    def build(self, path: str | None = None) -> BuildResult: ...

    def run_tests(self) -> TestResult | None:  # None when no test command is configured
        ...


@runtime_checkable
class UnitEnvironment(Environment, Protocol):
    """An Environment that can build a few units and say what each reads: what repository-scale runs need.
    Implemented by HipccEnvironment (the build cache records each unit's dependencies)."""

    def build_units(self, units: list[str]) -> BuildResult: ...

    def unit_dependencies(self) -> dict[str, list[str]]:  # unit -> the tree files it read, itself included
        ...


@runtime_checkable
class Model(Protocol):
    def query(self, messages: list[dict], tools: list[dict]) -> ModelResponse: ...


@runtime_checkable
class Agent(Protocol):
    def run(self, task: AgentTask) -> AgentOutcome: ...
