"""The agent at repository scale: one focused conversation per root cause, headers first, fair budgets.

    build -> plan tasks (porter.agent.tasks) -> run the first task (and the independent ones after it, with -j)
          -> porter rebuilds (only what changed compiles again) and checks each task itself -> plan again ...

Each task gets a fresh conversation (prompts/focused_task.md.j2), its own transcript, and at most its share of the
run's turns (`--task-iterations`, default a fair share); the run-wide `--max-iterations/--max-tokens/--max-seconds`
bound all of them together. A task porter's rebuild does not confirm stays unfinished and the run moves on. What
fixed tasks did becomes lessons for the next ones and, when it repeats, suggested rules (porter.agent.learning).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from porter.agent.cache import CachedModel
from porter.agent.context import focus_view
from porter.agent.errors import ModelUnavailable, PromptError
from porter.agent.learning import EditPattern, TaskLearning, edit_patterns, lesson, suggest_rules
from porter.agent.loop import DefaultAgent, Limits, RunBudget
from porter.agent.model import OpenAIModel
from porter.agent.prompts import Prompts
from porter.agent.protocols import Model, UnitEnvironment
from porter.agent.tasks import RepairTask, independent_batch, plan_tasks, signature
from porter.agent.transcript import Transcript
from porter.agent.types import AgentOutcome, AgentTask
from porter.build import BuildResult, Diagnostic, TestResult
from porter.config import PortConfig
from porter.targets import TargetProfile

MIN_TASK_TURNS = 4  # the fair share never drops below this (unless the run has fewer turns left)
MAX_ERRORS_LISTED = 20  # per task, in the report


def default_cache_dir(root: Path, config: PortConfig) -> Path:
    return config.cache_dir or Path(root) / ".porter" / "cache"


def make_model(config: PortConfig, root: Path, transcript: Transcript) -> Model:
    """The configured endpoint, retries logged to `transcript`, answers cached under OUT/.porter/cache."""
    def log_retry(attempt: int, reason: str, delay: float) -> None:
        transcript.event("retry", attempt=attempt, reason=reason, delay=round(delay, 3))

    model: Model = OpenAIModel.from_config(config, on_retry=log_retry)
    if config.use_cache:
        model = CachedModel(model, default_cache_dir(root, config), config.model or "", (config.api_key,))
    return model


class ScopedEnvironment:
    """What one task's agent builds: the task's units only (a full build when the task has none)."""

    def __init__(self, inner: UnitEnvironment, units: tuple[str, ...] | None) -> None:
        self.inner = inner
        self.units = list(units) if units is not None else None
        self.root = inner.root

    def build(self, path: str | None = None) -> BuildResult:
        if path is not None or self.units is None:
            return self.inner.build(path)
        return self.inner.build_units(self.units)

    def run_tests(self) -> TestResult | None:
        return self.inner.run_tests()


def _diag(d: Diagnostic) -> dict:
    return {"file": d.file, "line": d.line, "column": d.column, "message": d.message}


@dataclass
class TaskRecord:
    """One task as the report lists it."""

    id: str
    key: str
    kind: str  # header | pattern | unit | build | tests
    title: str
    files: list[str]
    units: list[str] | None
    errors: list[dict]
    error_count: int
    status: str = "pending"  # fixed | unfinished | model_error | interrupted | pending (never started)
    agent_status: str | None = None  # how the conversation ended: submitted | limits_exceeded | model_error
    message: str = ""
    share: int = 0  # model turns it could use ...
    share_of: str = ""  # ... and what set them: task_iterations, fair share, or the turns left of the run
    turns: int = 0
    tokens: int = 0
    edited_files: list[str] = field(default_factory=list)
    transcript: str | None = None
    lesson: str | None = None
    patterns: list[dict] = field(default_factory=list)  # the edit patterns of a fix (learning.EditPattern)
    earlier_run: bool = False  # fixed by an earlier run that this one resumed

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TaskRecord:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    def learning(self) -> TaskLearning:
        return TaskLearning(self.id, [e["message"] for e in self.errors],
                            {EditPattern(**p) for p in self.patterns})


@dataclass
class TaskRun:
    """What run_tasks did: the tasks, porter's own final build and tests, what was learned, the budget used."""

    build: BuildResult
    tests: TestResult | None
    tasks: list[TaskRecord] = field(default_factory=list)
    lessons: list[str] = field(default_factory=list)
    suggested_rules: list[dict] = field(default_factory=list)
    turns: int = 0
    tokens: int = 0
    stop_reason: str | None = None  # the run budget ran out, the endpoint failed, or the run was interrupted
    concurrency: int = 1

    @property
    def unfinished(self) -> list[TaskRecord]:
        return [t for t in self.tasks if t.status != "fixed"]

    @property
    def status(self) -> str:
        if self.stop_reason == "interrupted":
            return "interrupted"
        if any(t.status == "model_error" for t in self.tasks):
            return "model_error"
        if self.stop_reason and self.unfinished:
            return "limits_exceeded"
        return "unfinished" if self.unfinished else "fixed"

    def message(self) -> str:
        fixed = sum(t.status == "fixed" for t in self.tasks)
        text = f"{fixed} of {len(self.tasks)} task(s) fixed"
        if self.unfinished:
            text += "; not fixed: " + ", ".join(f"{t.id} ({t.title}: {t.status})" for t in self.unfinished[:5])
            text += f" and {len(self.unfinished) - 5} more" if len(self.unfinished) > 5 else ""
        return text + (f"; {self.stop_reason}" if self.stop_reason and self.unfinished else "")

    def as_dict(self, config: PortConfig, transcripts: Path) -> dict:
        edited = sorted({f for t in self.tasks for f in t.edited_files})
        return {
            "status": self.status, "message": self.message(), "model": config.model,
            "iterations": self.turns, "tokens": self.tokens, "edited_files": edited,
            "budget": {"max_iterations": config.max_iterations, "max_tokens": config.max_tokens,
                       "max_seconds": config.max_seconds, "task_iterations": config.task_iterations or "fair share",
                       "concurrency": self.concurrency, "stop_reason": self.stop_reason},
            "tasks": [t.as_dict() for t in self.tasks],
            "lessons": self.lessons,
            "suggested_rules": self.suggested_rules,
            "transcripts": str(transcripts),
        }


def task_share(config: PortConfig, budget: RunBudget, planned: int) -> tuple[int, str]:
    """Turns one task may use, and what set them: --task-iterations, else the turns left split over the tasks
    planned (at least a few); never more than the run has left."""
    left = budget.turns_left
    share, why = (config.task_iterations, "task_iterations") if config.task_iterations else \
        (max(MIN_TASK_TURNS, left // max(1, planned)), "fair share")
    return (share, why) if share <= left else (left, "turns left of max_iterations")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:60]


class _Scheduler:
    def __init__(self, env: UnitEnvironment, config: PortConfig, *, target: TargetProfile, findings: list[dict],
                 hip_version: str | None, compile_arch: str, transcripts: Path, earlier: list[dict],
                 log: Callable[[str], None], on_progress: Callable[[TaskRun], None] | None,
                 tuning: list[str] | None = None) -> None:
        self.env, self.config = env, config
        self.tuning = tuning or []  # porter tune's launch facts, "file:line: ..." each
        self.target, self.findings = target, findings
        self.hip_version, self.compile_arch = hip_version, compile_arch
        self.transcripts = transcripts
        self.log, self.on_progress = log, on_progress
        self.budget = RunBudget(Limits.from_config(config))
        self.prompts = Prompts()
        # what an earlier run fixed is kept as it was and never redone; everything else is planned afresh
        self.records = [TaskRecord.from_dict({**d, "earlier_run": True}) for d in earlier if d.get("status") == "fixed"]
        self.numbered = len(self.records)
        self.attempted = {r.key for r in self.records}
        self.lessons = [r.lesson for r in self.records if r.lesson]
        self.concurrency = max(1, config.jobs) if config.jobs else 1

    # --- the run ----------------------------------------------------------------------------------------------

    def run(self, build: BuildResult, tests: TestResult | None) -> TaskRun:
        state = TaskRun(build, tests, self.records, self.lessons, concurrency=self.concurrency)
        running: list[TaskRecord] = []
        self.changed = False  # whether any task ran (the tests then run again)
        try:
            while True:
                tasks = plan_tasks(state.build.errors, self.env.unit_dependencies(), skip=self.attempted)
                if not tasks and not state.build.ok and not state.build.errors and "build" not in self.attempted:
                    tasks = [self._whole("build", "the build fails without a diagnostic", state.build)]
                if not tasks:
                    break
                if self.budget.stop_reason or self.budget.turns_left == 0:
                    for task in tasks:
                        self.records.append(self._record(task, (0, "")))
                    self.budget.cancel(self.budget.stop_reason or "run budget: no model turns left")
                    break
                batch = independent_batch(tasks, self.concurrency)
                share = task_share(self.config, self.budget, len(tasks))
                running = [self._record(task, share) for task in batch]
                self.records.extend(running)
                self.attempted |= {t.key for t in batch}
                before = state.build
                results = self._run_batch(batch, running, before)
                self.changed = True
                state.build = self.env.build()  # porter's own check: only what the tasks changed compiles again
                for task, record, (outcome, originals) in zip(batch, running, results, strict=True):
                    self._verify(task, record, outcome, originals, before, state.build)
                running = []
                if self.budget.turns_left == 0:
                    self.budget.cancel(f"run budget: all {self.config.max_iterations} model turns used "
                                       f"(max_iterations={self.config.max_iterations})")
                self._progress(state)
            state.tests = self._tests(state)
        except KeyboardInterrupt:
            self.budget.cancel("interrupted")
            for record in running:
                record.status, record.message = "interrupted", "the run was interrupted"
            self._progress(state)
            raise
        self._progress(state)
        return state

    def _progress(self, state: TaskRun) -> None:
        state.turns, state.tokens = self.budget.turns, self.budget.tokens
        state.stop_reason = self.budget.stop_reason
        state.suggested_rules = suggest_rules([r.learning() for r in self.records if r.status == "fixed"])
        if self.on_progress is not None:
            self.on_progress(state)

    def _tests(self, state: TaskRun) -> TestResult | None:
        """With a clean build, the tests; failing tests become one more task over the whole tree."""
        if not state.build.ok:
            return None
        tests = self.env.run_tests() if self.changed or state.tests is None else state.tests
        if tests is None or tests.ok or "tests" in self.attempted or self.budget.stop_reason:
            return tests
        task = self._whole("tests", "the tests fail", state.build)
        share = task_share(self.config, self.budget, 1)
        if share[0] == 0:
            self.records.append(self._record(task, share))
            return tests
        record = self._record(task, share)
        self.records.append(record)
        self.attempted.add("tests")
        before = state.build
        [(outcome, originals)] = self._run_batch([task], [record], before, test_failure=tests.output[-8000:])
        state.build = self.env.build()
        tests = self.env.run_tests() if state.build.ok else None
        self._verify(task, record, outcome, originals, before, state.build, tests_ok=bool(tests and tests.ok))
        return tests

    # --- one batch of tasks -----------------------------------------------------------------------------------

    def _run_batch(self, batch: list[RepairTask], records: list[TaskRecord], before: BuildResult,
                   test_failure: str | None = None) -> list[tuple[AgentOutcome, dict[str, str | None]]]:
        for task, record in zip(batch, records, strict=True):
            self.log(f"agent: task {record.id} {task.title}: {len(task.errors)} error(s), up to {record.share} turn(s)")
        if len(batch) == 1:
            return [self._run_one(batch[0], records[0], before, test_failure)]
        with ThreadPoolExecutor(max_workers=len(batch), thread_name_prefix="porter-task") as pool:
            futures = [pool.submit(self._run_one, t, r, before, None) for t, r in zip(batch, records, strict=True)]
            try:
                return [f.result() for f in futures]
            except KeyboardInterrupt:
                self.budget.cancel("interrupted")  # the others stop at their next turn
                raise

    def _run_one(self, task: RepairTask, record: TaskRecord, before: BuildResult,
                 test_failure: str | None) -> tuple[AgentOutcome, dict[str, str | None]]:
        path = self.transcripts / f"{record.id}-{_slug(task.key)}.jsonl"
        again = 1
        while path.exists():  # a resumed run numbers on from the tasks it kept: never overwrite a transcript
            again += 1
            path = self.transcripts / f"{record.id}-{_slug(task.key)}-{again}.jsonl"
        record.transcript = str(path)
        transcript = Transcript(path, secrets=(self.config.api_key,))
        whole = task.kind in ("build", "tests")
        try:
            model = make_model(self.config, self.env.root, transcript)
            focus = None if whole else focus_view(self.env.root, task, self.findings, self.lessons)
        except (ModelUnavailable, PromptError) as exc:
            message = exc.message if isinstance(exc, ModelUnavailable) else str(exc)
            transcript.event("end", status="model_error", message=message)
            transcript.close()
            return AgentOutcome("model_error", message), {}
        in_files = set(task.files)
        agent_task = AgentTask(
            errors=list(task.errors), target=self.target, hip_version=self.hip_version, compile_arch=self.compile_arch,
            findings=self.findings if whole else [f for f in self.findings if f.get("file") in in_files],
            test_failure=test_failure, focus=focus, baseline=None if whole else before.errors,
            tuning=self.tuning if whole else [t for t in self.tuning if t.split(":", 1)[0] in in_files])
        limits = Limits(record.share, self.config.max_tokens, self.config.max_seconds, record.share_of)
        agent = DefaultAgent(model, ScopedEnvironment(self.env, task.units), limits=limits, transcript=transcript,
                             prompts=self.prompts, has_tests=task.kind == "tests", budget=self.budget)
        return agent.run(agent_task), agent.originals

    # --- bookkeeping ------------------------------------------------------------------------------------------

    def _whole(self, kind: str, title: str, build: BuildResult) -> RepairTask:
        return RepairTask(kind, kind, title, tuple(build.errors), (), None)

    def _record(self, task: RepairTask, share: tuple[int, str]) -> TaskRecord:
        self.numbered += 1
        return TaskRecord(f"T{self.numbered}", task.key, task.kind, task.title, list(task.files),
                          list(task.units) if task.units is not None else None,
                          [_diag(d) for d in task.errors[:MAX_ERRORS_LISTED]], len(task.errors),
                          share=share[0], share_of=share[1])

    def _verify(self, task: RepairTask, record: TaskRecord, outcome: AgentOutcome,
                originals: dict[str, str | None], before: BuildResult, after: BuildResult,
                tests_ok: bool | None = None) -> None:
        """Trust only porter's rebuild: the task's errors are gone and its edits brought no new ones."""
        record.agent_status, record.turns, record.tokens = outcome.status, outcome.iterations, outcome.tokens
        record.edited_files = list(outcome.edited_files)
        own = {signature(d) for d in task.errors}
        earlier = {signature(d) for d in before.errors}
        left = [d for d in after.errors if signature(d) in own]
        new = [d for d in after.errors if d.file in record.edited_files and signature(d) not in earlier]
        if task.kind == "tests":
            fixed = bool(tests_ok)
        elif task.kind == "build":
            fixed = after.ok
        else:
            fixed = not left and not new and (after.ok or bool(after.errors))
        if fixed:
            record.status = "fixed"
            patterns: set[EditPattern] = set()
            for rel, text in originals.items():
                try:
                    now: str | None = (self.env.root / rel).read_bytes().decode("utf-8", "surrogateescape")
                except OSError:
                    now = None
                patterns |= edit_patterns(text, now)
            record.patterns = [asdict(p) for p in sorted(patterns, key=lambda p: (p.action, p.old, p.new, p.call))]
            summary = outcome.message if outcome.status == "submitted" else ""
            record.lesson = lesson(task.title, summary, patterns)
            self.lessons.append(record.lesson)
            record.message = outcome.message if outcome.status == "submitted" else \
                f"its errors are gone in porter's rebuild (the conversation ended: {outcome.message})"
        else:
            record.status = "model_error" if outcome.status == "model_error" else "unfinished"
            why = f"{len(left)} of its errors remain" if left else \
                f"its edits brought {len(new)} new error(s)" if new else "porter's rebuild does not confirm it"
            record.message = f"{outcome.message}; {why}" if outcome.message else why
            if outcome.status == "model_error":
                self.budget.cancel(f"model endpoint failed: {outcome.message}")
        shown = "fixed" if fixed else record.status
        self.log(f"agent: task {record.id} {shown} after {record.turns} turn(s), {record.tokens} tokens")


def run_tasks(env: UnitEnvironment, config: PortConfig, build: BuildResult, tests: TestResult | None, *,
              target: TargetProfile, findings: list[dict] | None = None, hip_version: str | None = None,
              compile_arch: str = "", transcripts: Path, earlier: list[dict] | None = None,
              log: Callable[[str], None] = lambda _: None,
              on_progress: Callable[[TaskRun], None] | None = None, tuning: list[str] | None = None) -> TaskRun:
    """Fix `build`'s errors (and failing `tests`) task by task. `earlier`: the task rows of a report being resumed
    (its fixed tasks are kept, not redone). `on_progress` sees the state after every batch (the report is saved
    there, so an interrupted run can be resumed). KeyboardInterrupt propagates after the state is reported."""
    scheduler = _Scheduler(env, config, target=target, findings=findings or [], hip_version=hip_version,
                           compile_arch=compile_arch, transcripts=transcripts, earlier=earlier or [], log=log,
                           on_progress=on_progress, tuning=tuning)
    return scheduler.run(build, tests)
