"""`porter scan` and `porter check`: thin typer commands over porter.scan."""

from __future__ import annotations

import contextlib
import enum
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from porter.files import PorterInputError, ShardSpec, atomic_write
from porter.scan import ScanResult, is_source, scan_tree, source_files
from porter.scan.changes import GitError, changed_files
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


def _resolve(target: str, rocm: str | None):
    try:
        profile = resolve_target(target)
        version = RocmVersion.parse(rocm) if rocm else None
    except (UnknownTargetError, ValueError) as exc:
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
    shard: ShardOpt = None,
) -> None:
    """Report porting hazards and an inventory for an AMD target; writes nothing.

    Exit codes: 0 nothing at or above --fail-on; 1 findings at or above --fail-on; 2 usage error; 3 internal error.
    """
    with _command_boundary():
        profile, version = _resolve(target, rocm)
        for path in paths:
            if not path.exists():
                raise _usage(f"no such file or directory: {path}")
        result = _scan_paths(paths, profile, version, shard)
        _emit(result, fmt)
        _finish(result, fail_on)


def check(
    path: Annotated[Path, typer.Argument(help="Repository (or folder in it) to check.")] = Path("."),
    base: Annotated[
        str | None,
        typer.Option(
            "--base", help="Git ref to compare with (default: origin/$GITHUB_BASE_REF in pull requests)."
        ),
    ] = None,
    target: TargetOpt = DEFAULT_TARGET,
    rocm: RocmOpt = None,
    fail_on: FailOnOpt = FailOn.ERROR,
    sarif: Annotated[
        Path | None, typer.Option("--sarif", help="Also write SARIF 2.1.0 to this file.")
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format on stdout.")] = Format.TABLE,
    shard: ShardOpt = None,
) -> None:
    """Scan only the files changed since --base (plus uncommitted changes), for CI and hooks.

    Writes a Markdown summary to $GITHUB_STEP_SUMMARY when set.
    Exit codes: 0 nothing at or above --fail-on; 1 findings at or above --fail-on; 2 usage error; 3 internal error.
    """
    with _command_boundary():
        profile, version = _resolve(target, rocm)
        if base is None and os.environ.get("GITHUB_BASE_REF"):
            base = f"origin/{os.environ['GITHUB_BASE_REF']}"
        if base is None:
            raise _usage("--base REF is required (e.g. --base origin/main)")
        if not path.is_dir():
            raise _usage(f"not a directory: {path}")
        try:
            files = _share([f for f in changed_files(path, base) if is_source(f)], path, shard)
        except GitError as exc:
            raise _usage(str(exc)) from None
        result = scan_tree(path, profile, version, files=files)
        _emit(result, fmt)
        if sarif is not None:
            atomic_write(sarif, (to_sarif(result) + "\n").encode("utf-8"))
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(to_markdown(result, title=f"porter check (changes since {base})") + "\n")
        _finish(result, fail_on)
