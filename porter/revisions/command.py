"""`porter sync`: the thin typer command over `sync_port`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from porter.config import ConfigError, build_config
from porter.files import PorterInputError, resolve_path
from porter.revisions.git import GitError
from porter.revisions.merge import MergeError
from porter.revisions.sync import SyncError, SyncRequest, describe, sync_port


def _console() -> Console:
    return Console(stderr=True, no_color=bool(os.environ.get("NO_COLOR")) or None, highlight=False)


def _fail(message: str, code: int = 2) -> typer.Exit:
    _console().print(f"[bold red]error[/]: {escape(message)}", soft_wrap=True)
    return typer.Exit(code)


def sync(
    port: Annotated[Path, typer.Option("--port", help="The port to update (a directory `porter convert` wrote).")] = Path("."),
    from_ref: Annotated[str | None, typer.Option("--from", help="Upstream commit the port was converted from (default: the one its manifest records).")] = None,
    to_ref: Annotated[str | None, typer.Option("--to", help="Upstream commit to move the port to (default: the source's HEAD).")] = None,
    source: Annotated[Path | None, typer.Option("--source", help="The CUDA work tree (default: where the manifest says the port came from).")] = None,
    no_build: Annotated[bool, typer.Option("--no-build", help="Merge only; skip the fix loop on the changed files.")] = False,
    prune: Annotated[bool, typer.Option("--prune", help="Remove port files whose upstream file was deleted, when they hold no hand edits.")] = False,
    jobs: Annotated[int, typer.Option("-j", "--jobs", min=0, help="Parallel workers: translation processes and hipcc jobs (0: all cores).")] = 0,
    model: Annotated[str | None, typer.Option(help="Model for the fix agent (or PORTER_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (or OPENAI_BASE_URL).")] = None,
    max_iterations: Annotated[int | None, typer.Option(min=1, help="Model turns at most.")] = None,
) -> None:
    """Carry upstream CUDA changes from --from to --to into a port, keeping its hand edits (three-way merge).

    Exit codes: 0 merged cleanly (and the changed files build); 1 conflicts (written with <<<<<<< markers and
    listed) or build errors remain; 2 bad input or usage; 130 interrupted.
    """
    console = _console()
    port = resolve_path(port)
    try:
        project = resolve_path(source) if source is not None else port
        config = build_config(project if project.is_dir() else None, build=False if no_build else None,
                              jobs=jobs or None, model=model, base_url=base_url, max_iterations=max_iterations)
        request = SyncRequest(port, from_ref, to_ref, resolve_path(source) if source else None, config, prune, jobs)
        outcome = sync_port(request, status=lambda m: console.print(f"porter sync: {escape(m)}"), console=console)
    except (SyncError, GitError, MergeError, ConfigError, PorterInputError, ValueError) as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        raise _fail("interrupted; every file is either as it was or fully merged", 130) from None
    for line in describe(outcome):
        console.print(escape(line), soft_wrap=True)
    raise typer.Exit(0 if outcome.ok else 1)
