"""`porter scan` and `porter check`: thin typer commands over porter.scan."""

from __future__ import annotations

import contextlib
import enum
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from porter.files import PorterInputError, ShardSpec, atomic_write
from porter.scan import ScanResult, is_source, scan_tree, source_files
from porter.scan.changes import GitError, changed_files, changes_commit
from porter.scan.formats import (
    findings_at_or_above,
    print_table,
    summary_line,
    to_json,
    to_markdown,
    to_sarif,
)
from porter.targets import DEFAULT_TARGET, UnknownTargetError, resolve_target
from porter.translate import RocmVersion


class Format(enum.StrEnum):
    TABLE = "table"
    JSON = "json"
    SARIF = "sarif"
    MARKDOWN = "markdown"


class FailOn(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    NEVER = "never"


TargetOpt = Annotated[
    str, typer.Option("--target", "-t", help="AMD target: arch (gfx942) or product name (MI300X).")
]
RocmOpt = Annotated[
    str | None, typer.Option("--rocm", help="ROCm version to check API availability against, e.g. 6.4.")
]
ToolchainOpt = Annotated[
    str | None,
    typer.Option("--toolchain", help="Check API availability against this toolchain's ROCm (installed name, "
                 "'system' or hipcc path) when --rocm is not given."),
]
FailOnOpt = Annotated[FailOn, typer.Option("--fail-on", help="Lowest severity that makes the exit code 1.")]
ShardOpt = Annotated[
    str | None, typer.Option("--shard", help="Scan only the K-th of N shares of the files, by path (K/N), as convert --shard.")
]


def _share(files: list[Path], root: Path, shard: str | None) -> list[Path]:
    if shard is None:
        return files
    spec = ShardSpec.parse(shard)
    return [f for f in files if spec.owns(f.resolve().relative_to(root.resolve()).as_posix())]


def _err(message: str) -> None:
    Console(stderr=True, highlight=False).print(message, markup=False, soft_wrap=True)


def _usage(message: str) -> typer.Exit:
    _err(f"porter: {message}")
    return typer.Exit(2)


@contextlib.contextmanager
def _command_boundary() -> Iterator[None]:
    """Expected exits pass through; anything else is an internal error: one line, exit 3, no traceback."""
    try:
        yield
    except typer.Exit:
        raise
    except PorterInputError as exc:
        raise _usage(str(exc)) from None
    except Exception as exc:
        _err(f"porter: internal error: {type(exc).__name__}: {exc}")
        raise typer.Exit(3) from None


def _resolve(target: str, rocm: str | None, toolchain: str | None = None):
    try:
        profile = resolve_target(target)
        version = RocmVersion.parse(rocm) if rocm else None
        if version is None and toolchain is not None:
            from porter.build import resolve_toolchain

            chosen = resolve_toolchain(toolchain)
            version = chosen.rocm if chosen is not None else None
    except (UnknownTargetError, ValueError) as exc:  # ToolchainError is a ValueError
        raise _usage(str(exc)) from None
    return profile, version


def _emit(result: ScanResult, fmt: Format) -> None:
    if fmt is Format.JSON:
        sys.stdout.write(to_json(result) + "\n")
    elif fmt is Format.SARIF:
        sys.stdout.write(to_sarif(result) + "\n")
    elif fmt is Format.MARKDOWN:
        sys.stdout.write(to_markdown(result) + "\n")
    else:
        print_table(result, Console(highlight=False))


def _finish(result: ScanResult, fail_on: FailOn) -> None:
    for skipped in result.skipped:
        _err(f"porter: skipped {skipped}")
    _err(summary_line(result))
    if findings_at_or_above(result.findings, fail_on.value):
        raise typer.Exit(1)


def _scan_paths(paths: list[Path], profile, version, shard: str | None = None) -> ScanResult:
    if len(paths) == 1 and paths[0].is_dir():
        files = None if shard is None else _share([f.resolve() for f in source_files(paths[0])], paths[0], shard)
        return scan_tree(paths[0], profile, version, files=files)
    if len(paths) == 1:
        return scan_tree(paths[0], profile, version, files=[paths[0]])
    root = Path.cwd()  # several paths (pre-commit passes changed files): report them relative to here
    files: list[Path] = []
    for path in paths:
        files += source_files(path) if path.is_dir() else [path]
    return scan_tree(root, profile, version, files=_share([f.resolve() for f in files], root, shard))


def scan(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Files or directories to scan (CUDA or already-ported HIP).", show_default=False),
    ],
    target: TargetOpt = DEFAULT_TARGET,
    rocm: RocmOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.TABLE,
    fail_on: FailOnOpt = FailOn.ERROR,
    toolchain: ToolchainOpt = None,
    shard: ShardOpt = None,
) -> None:
    """Report porting hazards and an inventory for an AMD target; writes nothing.

    Exit codes: 0 nothing at or above --fail-on; 1 findings at or above --fail-on; 2 usage error; 3 internal error.
    """
    with _command_boundary():
        profile, version = _resolve(target, rocm, toolchain)
        for path in paths:
            if not path.exists():
                raise _usage(f"no such file or directory: {path}")
        result = _scan_paths(paths, profile, version, shard)
        _emit(result, fmt)
        _finish(result, fail_on)


TargetsOpt = Annotated[
    list[str] | None,
    typer.Option("--target", "-t", help="AMD target: arch (gfx942) or product name (MI300X); repeat for several. "
                 f"Default {DEFAULT_TARGET}."),
]


def check(
    path: Annotated[Path, typer.Argument(help="Repository (or folder in it) to check.")] = Path("."),
    base: Annotated[
        str | None,
        typer.Option(
            "--base", help="Git ref to compare with (default: origin/$GITHUB_BASE_REF in pull requests)."
        ),
    ] = None,
    target: TargetsOpt = None,
    rocm: RocmOpt = None,
    fail_on: FailOnOpt = FailOn.ERROR,
    build: Annotated[
        bool, typer.Option("--build", help="Port the base and the change, build the translation units the change "
                           "touches with hipcc, and report only what the change introduced.")
    ] = False,
    sarif: Annotated[
        Path | None, typer.Option("--sarif", help="Also write SARIF 2.1.0 to this file.")
    ] = None,
    comment: Annotated[
        Path | None, typer.Option("--comment", help="Also write a short pull-request comment (Markdown) here.")
    ] = None,
    gitlab: Annotated[
        Path | None, typer.Option("--gitlab", help="Also write GitLab code-quality JSON here.")
    ] = None,
    annotations: Annotated[
        bool, typer.Option("--annotations", help="Print GitHub workflow commands (::error file=...::) for each "
                           "problem on stdout.")
    ] = False,
    link_base: Annotated[
        str | None, typer.Option("--link-base", help="URL that file paths are appended to for links in the comment "
                                 "(default: from GitHub Actions' or GitLab CI's variables).")
    ] = None,
    cache_dir: Annotated[
        Path | None, typer.Option("--cache-dir", help="Where --build keeps the base's ports (default: "
                                  "<repository>/.git/porter/check-cache).")
    ] = None,
    jobs: Annotated[int, typer.Option("-j", "--jobs", min=0, help="Parallel workers for --build (0: all cores).")] = 0,
    toolchain: Annotated[
        str | None, typer.Option("--toolchain", help="hipcc for --build: 'system' (PATH, $ROCM_PATH), hipcc itself, "
                                 "or a directory with bin/hipcc (`porter toolchain install --dir`'s).")
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format on stdout.")] = Format.TABLE,
    shard: ShardOpt = None,
) -> None:
    """Check a change against --base: the changed files' hazards, or with --build what the change breaks in the port.

    Writes a Markdown summary to $GITHUB_STEP_SUMMARY when set.
    Exit codes: 0 nothing at or above --fail-on; 1 findings at or above --fail-on; 2 usage error; 3 internal error.
    """
    with _command_boundary():
        targets = target or [DEFAULT_TARGET]
        profiles = [_resolve(t, rocm, toolchain) for t in targets]
        version = profiles[0][1]
        if base is None and os.environ.get("GITHUB_BASE_REF"):
            base = f"origin/{os.environ['GITHUB_BASE_REF']}"
        if base is None:
            raise _usage("--base REF is required (e.g. --base origin/main)")
        if not path.is_dir():
            raise _usage(f"not a directory: {path}")
        from porter.revisions import at_or_above

        if build and shard is not None:
            raise _usage("--shard splits the hazard scan; --build checks the translation units the change touches")
        if build:
            outcome = _check_build(path, base, [p.arch for p, _ in profiles], rocm, cache_dir, jobs, toolchain)
            _emit_outcome(outcome, fmt)
        else:
            try:
                files = _share([f for f in changed_files(path, base) if is_source(f)], path, shard)
            except GitError as exc:
                raise _usage(str(exc)) from None
            result = _scan_targets(path, [p for p, _ in profiles], version, files)
            outcome = _scan_outcome(path, base, result, [p.arch for p, _ in profiles])
            _emit(result, fmt)
        _write_outputs(outcome, sarif, comment, gitlab, annotations, link_base,
                       None if build else to_sarif(result), None if build else to_markdown(
                           result, title=f"porter check (changes since {base})"))
        if not build:
            for skipped in result.skipped:
                _err(f"porter: skipped {skipped}")
        _err(outcome.headline() if build else summary_line(result))
        if at_or_above(outcome.problems, fail_on.value):
            raise typer.Exit(1)


def _scan_targets(path: Path, profiles: list, version, files: list[Path]) -> ScanResult:
    """The changed files scanned for each target; one result, each finding once."""
    result = scan_tree(path, profiles[0], version, files=files)
    for profile in profiles[1:]:
        more = scan_tree(path, profile, version, files=files)
        seen = {(f.file, f.line, f.column, f.rule, f.message) for f in result.findings}
        result.findings += [f for f in more.findings if (f.file, f.line, f.column, f.rule, f.message) not in seen]
    result.findings.sort(key=lambda f: (f.file, f.line, f.column, f.rule))
    return result


def _scan_outcome(path: Path, base: str, result: ScanResult, targets: list[str]):
    from porter.revisions import CheckOutcome, from_findings, scope_of

    try:
        scope = scope_of(path)
        prefix = scope.path
        commit = changes_commit(scope.top, base)
    except GitError as exc:
        raise _usage(str(exc)) from None
    args = "" if path.resolve() == Path.cwd().resolve() else f" {path}"
    reproduce = f"porter check{args} --base {base} " + " ".join(f"--target {t}" for t in targets)
    return CheckOutcome(base, commit, "the work tree", [f"{prefix}/{f}" if prefix else f for f in result.files],
                        from_findings(result.findings, prefix), targets, reproduce, built=False)


def _check_build(path: Path, base: str, targets: list[str], rocm: str | None, cache_dir: Path | None, jobs: int,
                 toolchain: str | None):
    from porter.config import ConfigError
    from porter.files import PorterInputError
    from porter.revisions import CheckError, CheckRequest, check_port
    from porter.revisions import GitError as RevisionGitError

    request = CheckRequest(path, base, targets, rocm=rocm, cache_dir=cache_dir, jobs=jobs, toolchain=toolchain)
    try:
        return check_port(request, status=lambda message: _err(f"porter check: {message}"))
    except (CheckError, ConfigError, PorterInputError, RevisionGitError) as exc:
        raise _usage(str(exc)) from None


def _emit_outcome(outcome, fmt: Format) -> None:
    from porter.revisions import sarif as to_sarif_outcome
    from porter.revisions import step_summary

    if fmt is Format.JSON:
        sys.stdout.write(json.dumps(outcome.as_dict(), indent=2) + "\n")
    elif fmt is Format.SARIF:
        sys.stdout.write(to_sarif_outcome(outcome) + "\n")
    elif fmt is Format.MARKDOWN:
        sys.stdout.write(step_summary(outcome) + "\n")
    else:
        _print_problems(outcome, Console(highlight=False))


def _print_problems(outcome, console: Console) -> None:
    from rich.markup import escape
    from rich.table import Table

    if not outcome.problems:
        return
    table = Table(title=f"new since {outcome.base}", title_justify="left")
    for column in ("Location", "Severity", "What", "Targets", "Problem / fix"):
        table.add_column(column, overflow="fold")
    for p in outcome.problems:
        fix = f"\n[dim]fix: {escape(p.fix)}[/]" if p.fix else ""
        table.add_row(escape(p.location()), f"[{_SEVERITY_STYLE.get(p.severity, '')}]{p.severity}[/]",
                      escape(p.title), ", ".join(p.targets), escape(p.message) + fix)
    console.print(table)


_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def _write_outputs(outcome, sarif: Path | None, comment: Path | None, gitlab: Path | None, annotate: bool,
                   link_base: str | None, scan_sarif: str | None, scan_markdown: str | None) -> None:
    from porter.revisions import (
        annotations,
        gitlab_code_quality,
        link_base_from_env,
        pr_comment,
        step_summary,
    )
    from porter.revisions import sarif as to_sarif_outcome

    links = link_base or link_base_from_env()
    if sarif is not None:
        atomic_write(sarif, ((scan_sarif or to_sarif_outcome(outcome)) + "\n").encode("utf-8"))
    if comment is not None:
        atomic_write(comment, pr_comment(outcome, links).encode("utf-8"))
    if gitlab is not None:
        atomic_write(gitlab, (gitlab_code_quality(outcome) + "\n").encode("utf-8"))
    if annotate:
        sys.stdout.write(annotations(outcome.problems))
        sys.stdout.flush()
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write((scan_markdown or step_summary(outcome, links)) + "\n")
