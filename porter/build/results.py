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
    # where clang reported it ("file:line:col"), when that is outside the port (a HIP or system header) and the
    # diagnostic was attributed to the port's file that leads there; None when file/line are clang's own
    origin: str | None = None

    def format(self) -> str:
        head = f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"
        return "\n".join([head, *self.notes])


@dataclass
class BuildResult:
    ok: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    output: str = ""  # raw compiler output, truncated by the producer if huge
    command: str = ""
    # what was compiled, relative to the output root; None when a --build-cmd built the tree its own way
    units: list[str] | None = None
    failed_units: list[str] = field(default_factory=list)
    cached_units: list[str] = field(default_factory=list)  # results reused: nothing they read changed
    skipped: dict[str, str] = field(default_factory=dict)  # not compiled, and why
    headers: int = 0

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity in ("error", "fatal")]

    @property
    def compiled_nothing(self) -> bool:
        """hipcc ran on no translation unit at all: never a passing build."""
        return self.units is not None and not self.units

    def units_summary(self) -> dict | None:
        if self.units is None:
            return None
        return {"units": len(self.units), "ok": len(self.units) - len(self.failed_units),
                "failed": sorted(self.failed_units), "compiled": len(self.units) - len(self.cached_units),
                "cached": len(self.cached_units), "skipped": dict(sorted(self.skipped.items())),
                "headers": self.headers}


@dataclass
class TestResult:
    ok: bool
    output: str = ""
    command: str = ""
    returncode: int = 0
