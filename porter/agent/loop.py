"""The agent loop: `step() = execute(query())` until an exception (Submitted, LimitsExceeded, ModelUnavailable)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from porter.agent import feedback, tools
from porter.agent.errors import AgentStop, LimitsExceeded, PromptError, Submitted
from porter.agent.paths import PathRefused, display_path, resolve_inside
from porter.agent.prompts import Prompts
from porter.agent.protocols import Environment, Model
from porter.agent.schemas import TOOL_NAMES, TOOLS
from porter.agent.tasks import signature
from porter.agent.transcript import Transcript
from porter.agent.types import AgentOutcome, AgentTask, ModelResponse, ToolCall
from porter.build import BuildResult, Diagnostic, TestResult
from porter.config import PortConfig

_EDIT_TOOLS = {"replace_in_file", "write_file"}


@dataclass(frozen=True)
class Limits:
    max_iterations: int = 30  # model turns
    max_tokens: int = 400_000  # prompt + completion tokens over the run
    max_seconds: float = 1800.0  # wall clock
    turns_option: str = "max_iterations"  # named when the turns run out (a task's share: task_iterations)

    @classmethod
    def from_config(cls, config: PortConfig) -> Limits:
        return cls(config.max_iterations, config.max_tokens, config.max_seconds)

    def reason(self, turns: int, tokens: int, elapsed: float) -> str | None:
        if turns >= self.max_iterations:
            return f"stopped after {turns} model turns ({self.turns_option}={self.max_iterations})"
        if tokens >= self.max_tokens:
            return f"token budget spent: {tokens} tokens used (max_tokens={self.max_tokens})"
        if elapsed >= self.max_seconds:
            return f"time limit reached after {elapsed:.0f}s (max_seconds={self.max_seconds:g})"
        return None


class RunBudget:
    """The run-wide limits, shared by every task of a run (tasks may run in threads at once). A turn is taken
    before each request, so concurrent tasks cannot overrun the turns; tokens are counted as answers arrive."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.started = clock()
        self.turns = 0
        self.tokens = 0
        self.stop_reason: str | None = None  # set once the budget refused a turn (or the run was cancelled)
        self._lock = threading.Lock()

    def take_turn(self) -> None:
        with self._lock:
            if self.stop_reason is None:
                reason = self.limits.reason(self.turns, self.tokens, self.clock() - self.started)
                self.stop_reason = f"run budget: {reason}" if reason else None
            if self.stop_reason is not None:
                raise LimitsExceeded(self.stop_reason)
            self.turns += 1

    def spend(self, tokens: int) -> None:
        with self._lock:
            self.tokens += tokens

    def cancel(self, reason: str) -> None:
        with self._lock:
            self.stop_reason = self.stop_reason or reason

    @property
    def turns_left(self) -> int:
        return max(0, self.limits.max_iterations - self.turns)


class DefaultAgent:
    def __init__(
        self,
        model: Model,
        env: Environment,
        *,
        limits: Limits | None = None,
        transcript: Transcript | None = None,
        prompts: Prompts | None = None,
        has_tests: bool = False,
        clock: Callable[[], float] = time.monotonic,
        budget: RunBudget | None = None,
    ) -> None:
        self.model = model
        self.env = env
        self.limits = limits or Limits()
        self.budget = budget  # the run's, when this agent works on one task of several
        self.transcript = transcript or Transcript(None)
        self.prompts = prompts or Prompts()
        self.has_tests = has_tests
        self.clock = clock

    # --- the loop -------------------------------------------------------------------------------------------

    def run(self, task: AgentTask) -> AgentOutcome:
        self._reset(task)
        try:
            self.transcript.event("start", task=(task.focus or {}).get("task_title"), limits=self.limits.__dict__,
                                  target=task.target.arch, compile_arch=task.compile_arch, errors=len(task.errors),
                                  findings=len(task.findings))
            try:
                self.messages = self._initial_messages(task)
                while True:
                    self.step()
            except AgentStop as stop:
                status, message = stop.status, stop.message
            except PromptError as exc:
                status, message = "model_error", str(exc)
            build_ok, tests_ok = self._final_state()
            outcome = AgentOutcome(status, message, self.iterations, self.tokens, sorted(self.edited), build_ok, tests_ok)
            self.transcript.event("end", **outcome.as_dict())
            return outcome
        finally:
            self.transcript.close()

    def step(self) -> None:
        self.execute(self.query())

    def query(self) -> ModelResponse:
        self._check_limits()
        if self.budget is not None:
            self.budget.take_turn()
        self.transcript.event("request", iteration=self.iterations + 1, messages=self.messages[self._logged :])
        self._logged = len(self.messages)
        started = self.clock()
        response = self.model.query(self.messages, TOOLS)
        self.iterations += 1
        self.tokens += response.total_tokens
        if self.budget is not None:
            self.budget.spend(response.total_tokens)
        self.messages.append(response.assistant_message())
        self._logged = len(self.messages)
        self.transcript.event(
            "response", iteration=self.iterations, content=response.content,
            tool_calls=[c.__dict__ for c in response.tool_calls], finish_reason=response.finish_reason,
            usage={"prompt": response.prompt_tokens, "completion": response.completion_tokens,
                   "total": response.total_tokens, "run_total": self.tokens},
            seconds=round(self.clock() - started, 3), cached=response.cached,
        )
        return response

    def execute(self, response: ModelResponse) -> None:
        if not response.tool_calls:
            self._say(self.prompts.render("no_tool_call.md.j2", tools=TOOL_NAMES))
            return
        for call in response.tool_calls:
            content = self._run_tool(call)  # finish may raise Submitted here
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        if self._dirty:  # edits the model has not compiled yet: build now and reflect the result back
            self._reflect()

    # --- limits and state -----------------------------------------------------------------------------------

    def _reset(self, task: AgentTask) -> None:
        self.task = task
        self.messages: list[dict] = []
        self.iterations = 0
        self.tokens = 0
        self.edited: set[str] = set()
        self.originals: dict[str, str | None] = {}  # each edited file as it was before its first edit (None: new)
        self.started = self.clock()
        self._logged = 0
        self._dirty = False  # edited since the last full build
        self._build: BuildResult | None = None  # full build of the current tree, if known
        self._tests: TestResult | None = None
        self._tests_known = False  # _tests describes the current tree

    def _check_limits(self) -> None:
        reason = self.limits.reason(self.iterations, self.tokens, self.clock() - self.started)
        if reason:
            raise LimitsExceeded(reason)

    def _open_errors(self, build: BuildResult) -> list[Diagnostic]:
        """The errors that keep the task from being done: all of them, or for a focused task (one root cause of a
        larger build) its own errors and any its edits brought into the files it edited."""
        if self.task.baseline is None:
            return build.errors
        own = {signature(d) for d in self.task.errors}
        before = {signature(d) for d in self.task.baseline}
        return [d for d in build.errors
                if signature(d) in own or (d.file in self.edited and signature(d) not in before)]

    def _done(self, build: BuildResult) -> bool:
        """A focused task is done when its errors are gone, whatever other tasks' errors its units still show; a
        failed build that names no error is never done."""
        return build.ok or (self.task.baseline is not None and bool(build.errors) and not self._open_errors(build))

    def _final_state(self) -> tuple[bool, bool | None]:
        """Build/test state of the tree as the agent leaves it."""
        if self._build is None:
            if not self.edited:  # untouched: what the caller told us
                return not self.task.errors, (None if self.task.test_failure is None else False)
            self._full_build()
        assert self._build is not None
        if not self._done(self._build):
            return False, None
        if self.task.baseline is not None:  # a focused task: the tests run once the whole build is clean
            return True, None
        if not self._tests_known and (self.edited or self.task.test_failure is not None):
            self._run_tests()
        return True, (self._tests.ok if self._tests is not None else None)

    def _say(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    # --- environment ----------------------------------------------------------------------------------------

    def _full_build(self) -> BuildResult:
        started = self.clock()
        result = self.env.build(None)
        self._build, self._dirty = result, False
        self.transcript.event("build", ok=result.ok, errors=len(result.errors), command=result.command,
                              seconds=round(self.clock() - started, 3))
        return result

    def _run_tests(self) -> TestResult | None:
        started = self.clock()
        result = self.env.run_tests()
        self._tests, self._tests_known = result, True
        self.transcript.event("tests", configured=result is not None, ok=result.ok if result else None,
                              seconds=round(self.clock() - started, 3))
        return result

    def _reflect(self) -> None:
        result = self._full_build()
        if not self._done(result):
            view = feedback.build_view(result, self._open_errors(result) if self.task.baseline is not None else None)
            self._say(self.prompts.render("compile_error.md.j2", build=view, after_edit=True))
            return
        tests = self._run_tests() if self.task.baseline is None else None
        if tests is not None and not tests.ok:
            self._say(self.prompts.render("test_failure.md.j2", output=feedback.truncate(tests.output),
                                          command=tests.command, returncode=tests.returncode, after_edit=True))
            return
        self._say(self.prompts.render("build_ok.md.j2", tests_ran=tests is not None, others=len(result.errors)))

    # --- tools ----------------------------------------------------------------------------------------------

    def _run_tool(self, call: ToolCall) -> str:
        self.transcript.event("tool_call", id=call.id, name=call.name, arguments=call.arguments)
        ok = True
        try:
            args = tools.parse_arguments(call.name, call.arguments)
            content = self._dispatch(call.name, args)
        except tools.ToolError as exc:
            ok, content = False, f"Error: {exc}"
        except OSError as exc:  # e.g. a read-only file: the model should hear about it, not crash the run
            ok, content = False, f"Error: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
        except Submitted as done:
            self.transcript.event("tool_result", id=call.id, name=call.name, ok=True, content="accepted")
            raise done
        self.transcript.event("tool_result", id=call.id, name=call.name, ok=ok, content=content)
        return content

    def _dispatch(self, name: str, args: dict) -> str:
        root = self.env.root
        if name == "read_file":
            return tools.read_file(root, **args)
        if name in _EDIT_TOOLS:
            self._remember(args["path"])
            edit = tools.replace_in_file if name == "replace_in_file" else tools.write_file
            content = edit(root, **args)
            self.edited.add(tools.relative_path(root, args["path"]))
            self._dirty, self._build, self._tests_known = True, None, False
            return content
        if name == "compile":
            if args.get("path"):
                return feedback.format_build(self.env.build(tools.relative_path(root, args["path"])))
            return feedback.format_build(self._full_build())
        if name == "run_tests":
            return feedback.format_tests(self._run_tests())
        if name == "finish":
            return self._finish(args["summary"])
        raise tools.ToolError(f"unknown tool {name!r}")  # parse_arguments already refuses these

    def _remember(self, path: str) -> None:
        """Keep a file's content from before the task's first edit of it: the edit patterns are learned from it."""
        try:
            file = resolve_inside(self.env.root, path)
        except PathRefused:
            return  # the tool refuses it too
        rel = display_path(self.env.root, file)
        if rel not in self.originals:
            self.originals[rel] = file.read_bytes().decode("utf-8", "surrogateescape") if file.is_file() else None

    def _finish(self, summary: str) -> str:
        """Accept only a tree that builds (and passes its tests), or for a focused task one where its errors are
        gone; otherwise tell the model and carry on."""
        build = self._build if self._build is not None and not self._dirty else self._full_build()
        focused = self.task.baseline is not None
        if not self._done(build):
            if not focused:
                return "finish refused: the port does not build yet.\n" + feedback.format_build(build)
            view = feedback.build_view(build, self._open_errors(build))
            return "finish refused: this task's errors are not gone yet.\n" + feedback.format_view(view)
        if focused:  # the tests are for the clean build of the whole tree
            raise Submitted(summary.strip() or "finished")
        tests = self._tests if self._tests_known else self._run_tests()
        if tests is not None and not tests.ok:
            return "finish refused: the build succeeds but the tests fail.\n" + feedback.format_tests(tests)
        raise Submitted(summary.strip() or "finished")

    # --- prompts --------------------------------------------------------------------------------------------

    def _initial_messages(self, task: AgentTask) -> list[dict]:
        flags = feedback.guidance_flags(task)
        common = {
            "target": task.target,
            "compile_arch": task.compile_arch or task.target.arch,
            "hip_version": task.hip_version,
            "has_tests": self.has_tests,
            "tools": TOOL_NAMES,
        }
        system = self.prompts.render("system.md.j2", **common)
        if task.focus is not None:  # one root cause of a larger build: porter chose what the model sees
            user = self.prompts.render("focused_task.md.j2", **common, **flags, **task.focus, tuning=task.tuning[:20])
            return [{"role": "system", "content": system}, {"role": "user", "content": user}]
        findings = [
            {k: f.get(k, "") for k in ("file", "line", "rule", "category", "severity", "message", "fix")}
            for f in task.findings
        ]
        user = self.prompts.render(
            "task.md.j2", **common, **flags,
            errors=feedback.format_diagnostics(task.errors), error_count=len(task.errors),
            test_failure=feedback.truncate(task.test_failure) if task.test_failure else None,
            findings=findings[:40], more_findings=max(0, len(findings) - 40), tuning=task.tuning[:20],
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
