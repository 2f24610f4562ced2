"""Result records shared by the build step, the rule fixers and the agent."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Diagnostic:
    file: str  # path relative to the output root where possible
    line: int
    column: int
    severity: str  # "error", "warning", "note", "fatal"
    message: str
    notes: list[str] = field(default_factory=list)

    def format(self) -> str:
        head = f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"
        return "\n".join([head, *self.notes])


@dataclass
class BuildResult:
    ok: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    output: str = ""  # raw compiler output, truncated by the producer if huge
    command: str = ""

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity in ("error", "fatal")]


@dataclass
class TestResult:
    ok: bool
    output: str = ""
    command: str = ""
    returncode: int = 0
