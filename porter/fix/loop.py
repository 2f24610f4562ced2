"""The loop `porter convert` runs after translating: shims -> build -> rule fixers -> agent -> tests."""

from __future__ import annotations

import enum
import os
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from porter.build import (
    HEADER_SUFFIXES,
    SOURCE_SUFFIXES,
    BuildCache,
    BuildResult,
    Diagnostic,
    HipccEnvironment,
    TestResult,
    Toolchain,
    choose_compile_arch,
    limits_for,
    render_diagnostics,
    resolve_toolchain,
    skip_kind,
    walk_files,
)
from porter.config import PortConfig
from porter.fix.rules import FixApplied, apply_fixers, explain
from porter.fix.shims import install_shims
from porter.targets import resolve_target

MAX_FIXER_ROUNDS = 5  # each round is a rebuild; rules that keep firing without progress stop here
MODEL_HELP = ("configure a model to let the agent fix them: --model NAME (or PORTER_MODEL), "
              "--base-url URL (or OPENAI_BASE_URL) for an OpenAI-compatible endpoint, and OPENAI_API_KEY")


class LoopStatus(enum.StrEnum):
    OK = "ok"  # builds (and tests pass when --test-cmd is given)
    ERRORS_REMAIN = "errors_remain"  # build errors or failing tests left
    LIMITS_HIT = "limits_hit"  # the agent stopped on its iteration/token/time limits
    NO_TOOLCHAIN = "no_toolchain"  # no hipcc: build skipped
    NOTHING_COMPILED = "nothing_compiled"  # sources present, but no translation unit was compiled: an error
    SKIPPED = "skipped"  # --no-build, or no sources at all


@dataclass
class FixLoopOutcome:
    status: LoopStatus
    message: str
    build_ok: bool | None = None
    tests_ok: bool | None = None
    remaining_errors: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status in (LoopStatus.OK, LoopStatus.SKIPPED)


class _ProgressBar:
    """What is compiling and how many units remain (a terminal only; nothing in logs)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Progress | None = None
        self.lock = threading.Lock()

    def start(self, total: int) -> None:
        self.close()
        if self.console.is_terminal and total > 1:
            self.progress = Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(),
                                     TextColumn("{task.fields[unit]}"), console=self.console, transient=True)
            self.task = self.progress.add_task("compiling", total=total, unit="")
            self.progress.start()

    def done(self, unit: str, cached: bool, ok: bool) -> None:
        with self.lock:
            if self.progress is not None:
                self.progress.update(self.task, advance=1, unit=unit + (" (unchanged)" if cached else ""))
                if self.progress.finished:
                    self.close()

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def _diag_dict(d: Diagnostic) -> dict:
    out = {"file": d.file, "line": d.line, "column": d.column, "severity": d.severity, "message": d.message,
           "notes": d.notes}
    if (why := explain(d)) is not None:
        out["explanation"] = {"id": why.id, "message": why.message}
    return out


def _explained(remaining: list[Diagnostic]) -> list[dict]:
    """Each known limit the remaining errors hit, once, with how many errors it explains."""
    found: dict[str, dict] = {}
    for d in remaining:
        why = explain(d)
        if why is not None:
            entry = found.setdefault(why.id, {"id": why.id, "message": why.message, "errors": 0})
            entry["errors"] += 1
    return list(found.values())


def _tests_dict(t: TestResult | None) -> dict | None:
    if t is None:
        return None
    return {"ok": t.ok, "command": t.command, "returncode": t.returncode, "output_tail": t.output[-4000:]}


def _where(record: dict) -> tuple:
    """A canonical order for the report's lists, so a run split in shards and merged reads the same."""
    return (record.get("file", ""), record.get("line", 0), record.get("column", 0), record.get("rule", ""),
            record.get("message", ""))


def _error_keys(errors: list[Diagnostic]) -> list[str]:
    return sorted({f"{d.file}:{d.line}:{d.column}: {d.message}" for d in errors})


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()


def _source_files(out_root: Path, files: list[Path] | None) -> list[Path]:
    if files:
        return [Path(f).resolve() for f in files]  # relative to the working directory, like any path
    return [p for p in walk_files(out_root) if p.suffix.lower() in SOURCE_SUFFIXES | HEADER_SUFFIXES]


def _transcripts_dir(out_root: Path, config: PortConfig) -> Path:
    """One JSONL transcript per agent task, beside the report."""
    base = config.report_path.parent if config.report_path else out_root / ".porter"
    return base / "transcripts"


# what `porter convert --resume OUT` reuses of the run it continues (never the API key: it is not in PortConfig)
RESUMED_OPTIONS = ("target", "model", "base_url", "build_cmd", "test_cmd", "offload_arch", "max_iterations",
                   "max_tokens", "max_seconds", "task_iterations", "jobs", "use_cache")


def run_fix_loop(out_root: Path, config: PortConfig, report: dict, files: list[Path] | None = None,
                 findings: list[dict] | None = None, console: Console | None = None,
                 share: Callable[[str], bool] | None = None, *, earlier_tasks: list[dict] | None = None,
                 checkpoint: Callable[[], None] | None = None, tuning: list[str] | None = None) -> FixLoopOutcome:
    """Build the port, fix what rules can, hand the rest to the agent if a model is set; fills `report`.

    `share` (a --shard run) picks the translation units this run builds, by their path in the tree; the other
    files are still there for the units to include. `earlier_tasks`: the agent tasks of the report a --resume
    continues (the fixed ones are not redone); `checkpoint` saves the report, called as the loop starts and after
    each agent task, so an interrupted run can be resumed. `tuning`: porter tune's launch facts, for the agent."""
    console = console or Console(stderr=True)
    out_root = out_root.resolve()
    report.update({"build": None, "fixers": None, "agent": None, "tests": None, "remaining_errors": [],
                   "explained": [], "status": "running", "options": {k: getattr(config, k) for k in RESUMED_OPTIONS}})
    if checkpoint is not None and config.build:
        checkpoint()  # from here on the report on disk says where the run is, for --resume
    if not config.build:
        report["build"] = {"skipped": True, "reason": "build disabled"}
        return FixLoopOutcome(LoopStatus.SKIPPED, "build skipped (disabled)")

    toolchain = resolve_toolchain(config.toolchain)
    if toolchain is None and not config.build_cmd:
        msg = ("hipcc not found (looked in PATH, $ROCM_PATH/bin, /opt/rocm/bin): build skipped; "
               "install ROCm/HIP, `porter toolchain install`, or pass --build-cmd")
        report["build"] = {"skipped": True, "reason": msg}
        console.print(f"[yellow]{escape(msg)}[/]")
        return FixLoopOutcome(LoopStatus.NO_TOOLCHAIN, msg)

    target = resolve_target(config.target)
    rocm = config.rocm or (toolchain.rocm if toolchain else None)
    arch, arch_note = config.offload_arch or target.arch, None
    if toolchain is not None and not config.offload_arch:
        choice = choose_compile_arch(toolchain, target.arch, config.cache_dir)
        arch, arch_note = choice.arch, choice.note
        if arch_note:
            console.print(f"[yellow]note:[/] {escape(arch_note)}")

    sources = _source_files(out_root, files)
    if not sources and not config.build_cmd:
        report["build"] = {"skipped": True, "reason": "no C/C++/CUDA sources in the port"}
        return FixLoopOutcome(LoopStatus.SKIPPED, "nothing to build: the port has no C/C++/CUDA sources")
    shims_added = install_shims(out_root, sources, rocm)
    only = sources if files else None
    if share is not None:
        only = [p for p in sources if p.suffix.lower() in HEADER_SUFFIXES or share(_rel(p, out_root))]
    env = HipccEnvironment(out_root, toolchain, arch=arch, build_cmd=config.build_cmd, test_cmd=config.test_cmd,
                           jobs=config.jobs or os.cpu_count() or 1, only=only,
                           cache=BuildCache.for_tree(out_root), progress=_ProgressBar(console))
    result = env.build()
    if share is not None and result.compiled_nothing:
        report["build"] = {"skipped": True, "reason": "no translation unit in this share"}
        return FixLoopOutcome(LoopStatus.SKIPPED, "nothing to build: no translation unit in this share")
    build_info = {
        "toolchain": str(toolchain.hipcc) if toolchain else None,
        "toolchain_name": toolchain.name if toolchain else None,
        "hip_version": toolchain.hip_version if toolchain else None,
        "rocm": str(rocm) if rocm else None,
        "arch": arch, "requested_arch": target.arch, "arch_note": arch_note,
        "command": config.build_cmd or "hipcc -c (each translation unit)",
        "flags_from": env.flags.source if not config.build_cmd else None,
        "shims": shims_added,
        "errors_initial": len(result.errors),
        "initial_errors": _error_keys(result.errors),  # what a merge of shard reports counts without repeats
        "units_initial": result.units_summary(),
    }
    report["build"] = build_info
    known = _known_limits(toolchain, arch, result)
    if known:
        build_info["toolchain_limits"] = known
        for reason in known:
            console.print(f"[yellow]note:[/] {escape(reason)}")

    applied: list[FixApplied] = []
    rounds = 0
    while not result.ok and result.errors and rounds < MAX_FIXER_ROUNDS:
        fixes = apply_fixers(out_root, result.diagnostics)
        if not fixes:
            break
        rounds += 1
        applied.extend(fixes)
        result = env.build()
    report["fixers"] = {"rounds": rounds, "applied": sorted((f.as_dict() for f in applied), key=_where),
                        "counts": dict(Counter(f.rule for f in applied)),
                        "errors_after": len(result.errors), "errors_left": _error_keys(result.errors)}
    if applied:
        console.print(f"rule fixers: {len(applied)} fix(es) in {rounds} round(s), "
                      f"{build_info['errors_initial']} -> {len(result.errors)} error(s)")

    tests: TestResult | None = env.run_tests() if result.ok else None
    limits_hit, agent_note = False, None
    if result.compiled_nothing:
        pass  # nothing for rules or the agent to work on: the outcome says why
    elif (not result.ok or (tests is not None and not tests.ok)) and config.model:
        try:
            result, tests, limits_hit, agent_note = _run_agent(
                env, config, report, result, tests, target, findings, toolchain, arch, out_root, console,
                earlier_tasks, checkpoint, tuning)
        except KeyboardInterrupt:
            report["status"] = "interrupted"
            if checkpoint is not None:
                checkpoint()
            raise
    elif not result.ok or (tests is not None and not tests.ok):
        report["agent"] = {"status": "not_configured", "message": MODEL_HELP}

    build_info["ok"] = result.ok
    build_info["units"] = result.units_summary()
    report["tests"] = _tests_dict(tests)
    report["remaining_errors"] = sorted((_diag_dict(d) for d in result.errors), key=_where)
    report["explained"] = _explained(result.errors)
    return _finish(result, tests, result.errors, limits_hit, config, console, agent_note)


def _known_limits(toolchain: Toolchain | None, arch: str, result: BuildResult) -> list[str]:
    """What the toolchain is known not to compile (data/toolchains.toml), where this build ran into it."""
    if toolchain is None or result.ok:
        return []
    return [limit.reason for limit in limits_for(toolchain) if limit.applies(arch, result.output)]


def _run_agent(env, config, report, result: BuildResult, tests, target, findings, toolchain, arch, out_root,
               console, earlier_tasks, checkpoint, tuning=None) -> tuple[BuildResult, TestResult | None, bool, str | None]:
    try:
        from porter.agent import run_tasks
    except ImportError as exc:
        report["agent"] = {"status": "unavailable", "message": f"agent not available: {exc}"}
        console.print(f"[yellow]agent not available ({escape(str(exc))}); errors remain[/]")
        return result, tests, False, None
    transcripts = _transcripts_dir(out_root, config)
    what = f"{len(result.errors)} error(s)" if result.errors else "failing tests" if result.ok else "a failed build"
    console.print(f"agent: {what} to fix with {config.model}, one task per root cause")

    def progress(run) -> None:
        report["agent"] = run.as_dict(config, transcripts)
        report["remaining_errors"] = sorted((_diag_dict(d) for d in run.build.errors), key=_where)
        if checkpoint is not None:
            checkpoint()

    run = run_tasks(env, config, result, tests, target=target, findings=findings or [],
                    hip_version=toolchain.hip_version if toolchain else None, compile_arch=arch,
                    transcripts=transcripts, earlier=earlier_tasks, log=lambda line: console.print(escape(line)),
                    on_progress=progress, tuning=tuning)
    report["agent"] = run.as_dict(config, transcripts)
    # run.build and run.tests are porter's own build and test run after the last task, not the agent's word
    return run.build, run.tests, run.status == "limits_exceeded", run.message() if run.unfinished else None


def _finish(result: BuildResult, tests: TestResult | None, remaining: list[Diagnostic], limits_hit: bool,
            config: PortConfig, console: Console, agent_note: str | None = None) -> FixLoopOutcome:
    tests_ok = None if tests is None else tests.ok
    if result.compiled_nothing:
        msg = _nothing_compiled(result)
        console.print(f"[red]{escape(msg)}[/]")
        return FixLoopOutcome(LoopStatus.NOTHING_COMPILED, msg, False, None)
    if result.ok and tests_ok is not False:
        units = f": {len(result.units)} translation unit(s) compile" if result.units is not None else ""
        msg = "build ok" + units + ("; tests pass" if tests_ok else "")
        console.print(f"[green]{escape(msg)}[/]")
        return FixLoopOutcome(LoopStatus.OK, msg, True, tests_ok)
    if remaining:
        render_diagnostics(remaining, console)
        for why in _explained(remaining):
            console.print(f"[yellow]why ({why['errors']} error(s)):[/] {escape(why['message'])}")
        msg = errors_remain(len(remaining), len({d.file for d in remaining}))
    elif not result.ok:
        msg = "build failed (see the build output in the report)"
    else:
        msg = f"tests failed: {tests.command if tests else ''}"
    status = LoopStatus.LIMITS_HIT if limits_hit else LoopStatus.ERRORS_REMAIN
    if agent_note:
        msg += f"; agent: {agent_note}"
    if limits_hit:
        msg += ("; the agent hit its limits (--max-iterations/--max-tokens/--max-seconds); "
                "`porter convert --resume OUT` continues from there")
    elif not config.model:
        msg += "; " + MODEL_HELP
    console.print(f"[red]{escape(msg)}[/]")
    return FixLoopOutcome(status, msg, result.ok, tests_ok, remaining)


def errors_remain(errors: int, files: int) -> str:
    return f"{errors} build error(s) remain in {files} file(s)"


def _nothing_compiled(result: BuildResult) -> str:
    reasons = Counter(map(skip_kind, result.skipped.values()))
    why = "; ".join(f"{n} {reason}" for reason, n in reasons.most_common()) or "no translation unit found"
    if result.headers and not result.skipped:
        why = f"{result.headers} header(s) and no translation unit that includes them"
    return (f"nothing was compiled: {why}. A port with sources must compile at least one translation unit; "
            "build it your way with --build-cmd")
