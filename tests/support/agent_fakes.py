"""In-process fakes for the agent tests: an environment whose build checks file content, and a scripted Model."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from porter.agent.types import ModelResponse, ToolCall
from porter.build import results
from porter.targets import resolve_target

BROKEN = "cudaMallocFoo"  # the "compile error": any .hip file mentioning it fails to build
FIXED = "hipMalloc"

SOURCE = f"""#include <hip/hip_runtime.h>

int main() {{
  float* d = nullptr;
  {BROKEN}(&d, 16 * sizeof(float));
  return 0;
}}
"""


class FakeEnvironment:
    """build() fails while a .hip file contains BROKEN; run_tests() fails while a file contains `test_marker`."""

    def __init__(self, root: Path, *, with_tests: bool = False, test_marker: str | None = None) -> None:
        self.root = root
        self.with_tests = with_tests
        self.test_marker = test_marker
        self.builds: list[str | None] = []
        self.test_runs = 0

    def _files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*.hip") if ".porter" not in p.parts)

    def build(self, path: str | None = None) -> results.BuildResult:
        self.builds.append(path)
        files = [self.root / path] if path else self._files()
        diagnostics = []
        for file in files:
            for number, line in enumerate(file.read_text().splitlines(), 1):
                column = line.find(BROKEN)
                if column >= 0:
                    rel = file.relative_to(self.root).as_posix()
                    diagnostics.append(results.Diagnostic(
                        rel, number, column + 1, "error", f"use of undeclared identifier '{BROKEN}'"))
        output = "\n".join(d.format() for d in diagnostics)
        return results.BuildResult(ok=not diagnostics, diagnostics=diagnostics, output=output, command="hipcc -c")

    def run_tests(self) -> results.TestResult | None:
        if not self.with_tests:
            return None
        self.test_runs += 1
        bad = self.test_marker and any(self.test_marker in f.read_text() for f in self._files())
        return results.TestResult(ok=not bad, output="FAIL: sum 32 != 64" if bad else "ok", command="./run_tests",
                                  returncode=1 if bad else 0)


def make_tree(root: Path, text: str = SOURCE) -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    file = root / "src" / "main.hip"
    file.write_text(text)
    return file


def make_task(env: FakeEnvironment, **kw: object):
    from porter.agent import AgentTask

    return AgentTask(errors=env.build().errors, target=resolve_target("gfx942"), compile_arch="gfx90a", **kw)


Step = ModelResponse | Callable[[list[dict]], ModelResponse]


def respond(*calls: tuple[str, str | dict], content: str | None = None, tokens: int = 100) -> ModelResponse:
    import json

    tool_calls = [
        ToolCall(id=f"c{i}", name=name, arguments=args if isinstance(args, str) else json.dumps(args))
        for i, (name, args) in enumerate(calls)
    ]
    return ModelResponse(content=content, tool_calls=tool_calls, prompt_tokens=tokens - tokens // 5,
                         completion_tokens=tokens // 5)


class ScriptedModel:
    """A Model answering from a list; `default` answers once the list is used up."""

    def __init__(self, script: list[Step], default: Step | None = None) -> None:
        self.script = list(script)
        self.default = default
        self.seen: list[list[dict]] = []

    def query(self, messages: list[dict], tools: list[dict]) -> ModelResponse:
        self.seen.append([dict(m) for m in messages])
        step = self.script.pop(0) if self.script else self.default
        if step is None:
            raise AssertionError("model script exhausted")
        return step(messages) if callable(step) else step


FIX_CALL = ("replace_in_file", {"path": "src/main.hip", "old": f"{BROKEN}(&d", "new": f"{FIXED}(&d"})


class FakeTreeEnvironment:
    """A UnitEnvironment over a tree of .hip units and the headers they include (`#include "x.h"`, one level):
    every line holding `BROKEN_<name>` is an error "use of undeclared identifier 'BROKEN_<name>'", in the unit or
    in a header it includes. `interrupt_on_build`: the build of that number raises KeyboardInterrupt (Ctrl-C).
    `test_marker`: the tests fail while a unit holds it (no tests without one)."""

    MARKER = re.compile(r"\bBROKEN_\w+")
    INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)

    def __init__(self, root: Path, interrupt_on_build: int | None = None, test_marker: str | None = None) -> None:
        self.root = root
        self.builds: list[list[str] | str | None] = []
        self.interrupt_on_build = interrupt_on_build
        self.test_marker = test_marker
        self.test_runs = 0

    def units(self) -> list[str]:
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.glob("*.hip"))

    def unit_dependencies(self) -> dict[str, list[str]]:
        return {u: sorted({u, *self.INCLUDE.findall((self.root / u).read_text())}) for u in self.units()}

    def _compile(self, units: list[str]) -> results.BuildResult:
        if self.interrupt_on_build is not None and len(self.builds) == self.interrupt_on_build:
            raise KeyboardInterrupt
        deps = self.unit_dependencies()
        diagnostics: list[results.Diagnostic] = []
        for file in dict.fromkeys(f for u in units for f in deps.get(u, [u])):
            path = self.root / file
            for number, line in enumerate(path.read_text().splitlines() if path.is_file() else [], 1):
                for m in self.MARKER.finditer(line):
                    diagnostics.append(results.Diagnostic(file, number, m.start() + 1, "error",
                                                          f"use of undeclared identifier '{m.group()}'"))
        failed = sorted({u for u in units for d in diagnostics if d.file in deps.get(u, [u])})
        return results.BuildResult(ok=not diagnostics, diagnostics=diagnostics, command="fake-hipcc",
                                   units=list(units), failed_units=failed)

    def build(self, path: str | None = None) -> results.BuildResult:
        self.builds.append(path)
        return self._compile([path] if path else self.units())

    def build_units(self, units: list[str]) -> results.BuildResult:
        self.builds.append(list(units))
        return self._compile(list(units))

    def run_tests(self) -> results.TestResult | None:
        if self.test_marker is None:
            return None
        self.test_runs += 1
        bad = any(self.test_marker in (self.root / u).read_text() for u in self.units())
        return results.TestResult(ok=not bad, output="FAIL: sum 32 != 64" if bad else "ok", command="./run_tests",
                                  returncode=1 if bad else 0)
