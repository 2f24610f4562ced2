"""`porter tune PATH`: occupancy, its limiter, last-wave CU usage and safe block sizes, per launch site.

Writes only with `--apply`: the edited files are replaced atomically, their originals kept under
`<root>/.porter/backup/` (or, for a port, left as the manifest names them), and `.porter/manifest.json` lists them,
so `porter review <root>` walks tune's edits hunk by hunk like any other change.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from porter import __version__
from porter.build import Toolchain, ToolchainError, resolve_toolchain
from porter.files import STATE_DIR, PorterInputError, atomic_write, backup
from porter.targets import UnknownTargetError, resolve_target
from porter.tune.analyze import TuneOptions, analyze
from porter.tune.edits import FileEdit, plan_edits
from porter.tune.formats import render_json, render_markdown, render_table
from porter.tune.launches import parse_assumptions
from porter.tune.model import NoModelError
from porter.tune.usage import find_nvcc

FORMATS = ("table", "json", "markdown")


def _fail(message: str, code: int = 2) -> typer.Exit:
    Console(stderr=True, highlight=False).print(f"[bold red]error[/]: {escape(message)}", soft_wrap=True)
    return typer.Exit(code)


def select_toolchain(spec: str | None = None) -> Toolchain | None:
    """The toolchain porter builds with (`--toolchain`, else `PORTER_HIPCC`, else the system's hipcc)."""
    return resolve_toolchain(spec, origin="--toolchain" if spec else "PORTER_HIPCC")


def tune(
    path: Annotated[Path, typer.Argument(help="CUDA or HIP file or directory (a port from `porter convert` too).", show_default=False)],
    target: Annotated[str | None, typer.Option(help="Target GPU: arch or product (MI300X, MI300A, MI355X, gfx942, ...). Default gfx942.")] = None,
    assume: Annotated[list[str] | None, typer.Option("--assume", help="NAME=VALUE for a name a launch uses that porter cannot evaluate (repeatable; 16x16 for a dim3).")] = None,
    output_format: Annotated[str, typer.Option("--format", help="table, json or markdown.")] = "table",
    apply: Annotated[bool, typer.Option("--apply", help="Rewrite the safe launch sites and add __launch_bounds__ where it helps; review with `porter review`.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print the edits --apply would make as a unified diff; write nothing.")] = False,
    nvidia_arch: Annotated[str, typer.Option(help="NVIDIA arch of the CUDA original, for the side-by-side view.")] = "sm_90",
    no_nvcc: Annotated[bool, typer.Option("--no-nvcc", help="Do not compile the CUDA original with nvcc.")] = False,
    offload_arch: Annotated[str | None, typer.Option(help="Compile for this --offload-arch instead of the target's (or its stand-in).")] = None,
    toolchain: Annotated[str | None, typer.Option(help="The hipcc to read usage from: an installed toolchain (rocm-6.4), a ROCm version, 'system' or a path (default: PORTER_HIPCC, else hipcc on PATH).")] = None,
    jobs: Annotated[int, typer.Option("-j", "--jobs", min=0, help="Parallel compiles (0: all cores).")] = 0,
) -> None:
    """Predict occupancy per launch site from the compiler's resource usage; never runs a kernel.

    Exit codes: 0 done; 1 --apply could not write a file; 2 bad input or usage.
    """
    if output_format not in FORMATS:
        raise _fail(f"--format {output_format!r}: choose one of {', '.join(FORMATS)}")
    if apply and diff:
        raise _fail("--apply and --diff cannot be combined")
    if not path.exists():
        raise _fail(f"{path}: no such file or directory")
    try:
        profile = resolve_target(target)
        assumptions = parse_assumptions(assume or [])
        chosen = select_toolchain(toolchain)
        device = target if target and not target.lower().startswith("gfx") else None
        options = TuneOptions(profile, device, assumptions, chosen, None if no_nvcc else find_nvcc(),
                              nvidia_arch=nvidia_arch, jobs=jobs, compile_arch=offload_arch)
        report = analyze(path, options)
    except (UnknownTargetError, NoModelError, PorterInputError, ToolchainError, ValueError) as exc:
        raise _fail(str(exc)) from None
    out = Console(no_color=bool(os.environ.get("NO_COLOR")) or None, highlight=False,
                  width=None if sys.stdout.isatty() else 200)
    err = Console(stderr=True, highlight=False)
    if output_format == "json":
        sys.stdout.write(render_json(report))
    elif output_format == "markdown":
        sys.stdout.write(render_markdown(report))
    else:
        render_table(report, out)
    if not (apply or diff):
        return
    edits = plan_edits(report)
    root = path if path.is_dir() else path.parent
    if diff:
        for edit in edits:
            sys.stdout.write(unified_diff(edit))
        sys.stdout.flush()
        err.print(f"porter tune --diff: {sum(len(e.changes) for e in edits)} change(s) in {len(edits)} file(s)")
        return
    try:
        write_edits(root, edits)
    except PorterInputError as exc:
        raise _fail(str(exc), 1) from None
    for edit in edits:
        for change in edit.changes:
            err.print(escape(f"applied: {change}"))
    if edits:
        err.print(f"porter tune --apply: {sum(len(e.changes) for e in edits)} change(s) in {len(edits)} file(s); "
                  f"review them with `porter review {root}`")
    else:
        err.print("porter tune --apply: no safe change to make")


def unified_diff(edit: FileEdit) -> str:
    a = edit.old.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    b = edit.new.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    lines = difflib.unified_diff(a, b, f"a/{edit.file}", f"b/{edit.file}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def write_edits(root: Path, edits: list[FileEdit]) -> None:
    """Write the edits so `porter review root` shows them: the original of each file is what the manifest names
    (a port's CUDA source) or a backup under .porter/backup/ taken now; the manifest marks the file as changed."""
    if not edits:
        return
    manifest_path = root / STATE_DIR / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_bytes())
        rows = manifest["files"]
    except FileNotFoundError:
        manifest = {"porter_version": __version__, "source_root": str(root.resolve()),
                    "output_root": str(root.resolve()), "in_place": True, "files": []}
        rows = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise PorterInputError(f"unreadable porter manifest {manifest_path}: {exc}") from None
    by_output = {row.get("output"): row for row in rows}
    for edit in edits:
        target = root / edit.file
        if target.read_bytes() != edit.old:
            raise PorterInputError(f"{target}: changed since porter tune read it; run porter tune again")
        row = by_output.get(edit.file)
        original = Path(row["original"]) if row and row.get("original") else None
        if original is None or not original.is_file() or original.resolve() == target.resolve():
            original = backup(root, edit.file)
        atomic_write(target, edit.new)
        if row is None:
            row = {"output": edit.file, "source": edit.file}
            rows.append(row)
            by_output[edit.file] = row
        row["original"] = str(original.resolve())
        row["status"] = "translated"
    atomic_write(manifest_path, json.dumps(manifest, indent=2).encode() + b"\n")
