"""`porter doctor` (is the toolchain / model usable?) and `porter targets` (the GPU profiles porter knows)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from porter.build import (
    COMMON_ARCHES,
    Toolchain,
    ToolchainError,
    absent_for,
    accepted_arches,
    choose_compile_arch,
    find_toolchains,
    resolve_toolchain,
)
from porter.config import ConfigError, build_config
from porter.targets import DEFAULT_TARGET, UnknownTargetError, all_targets, resolve_target


def _console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, no_color=bool(os.environ.get("NO_COLOR")) or None, highlight=False)


def _check_model(config) -> tuple[bool | None, str]:
    if not config.model:
        return None, "no model configured: --model / PORTER_MODEL (the agent step is skipped without one)"
    try:
        from porter.agent import check_endpoint
    except ImportError as exc:
        return False, f"agent module not available: {exc}"
    return check_endpoint(config)


def _show_toolchain(out: Console, toolchain: Toolchain, selected: bool) -> list[str]:
    """Print one toolchain's versions and accepted arches; returns the arches it accepts."""
    mark = "[green]✓[/]" if selected else "[dim]·[/]"
    chosen = " [bold](selected)[/]" if selected else ""
    out.print(f"{mark} hipcc: {escape(str(toolchain.hipcc))}{chosen}")
    out.print(f"  toolchain: {toolchain.name} ({toolchain.origin}); HIP version: {toolchain.hip_version or 'unknown'}; "
              f"ROCm: {toolchain.rocm or 'unknown'}")
    arches = accepted_arches(toolchain, list(dict.fromkeys([*COMMON_ARCHES, *all_targets()])))
    yes = [a for a, ok in arches.items() if ok]
    no = [a for a, ok in arches.items() if not ok]
    out.print(f"  --offload-arch accepted: {', '.join(yes) or 'none'}")
    if no:
        out.print(f"  not accepted: {', '.join(no)}")
    for lib, why in sorted(absent_for(toolchain).items()):
        out.print(f"  [yellow]absent:[/] {lib}: {escape(why)}")
    return yes


def doctor(
    model: Annotated[str | None, typer.Option(help="Model name to check (else [tool.porter] / PORTER_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (else OPENAI_BASE_URL).")] = None,
    target: Annotated[str, typer.Option(help="Target whose compile arch to check.")] = DEFAULT_TARGET,
    toolchain: Annotated[str | None, typer.Option(help="Toolchain to check as the selected one (name, ROCm version, 'system' or hipcc path; else [tool.porter] toolchain, PORTER_HIPCC, the system's).")] = None,
) -> None:
    """Check the HIP toolchains (every one porter finds: versions, accepted --offload-arch values; the selected one
    is what `porter convert` builds with) and the model endpoint."""
    out = _console(stderr=True)
    problems = 0
    try:
        config = build_config(Path.cwd(), model=model, base_url=base_url, toolchain=toolchain)
        selected = resolve_toolchain(config.toolchain)
    except (ConfigError, ToolchainError) as exc:
        out.print(f"[red]✗[/] {exc}")
        raise typer.Exit(2) from None
    try:
        profile = resolve_target(target)
    except UnknownTargetError as exc:
        out.print(f"[red]✗[/] {exc}")
        raise typer.Exit(2) from None
    others = [t for t in find_toolchains() if selected is None or t.hipcc.resolve() != selected.hipcc.resolve()]
    if selected is None:
        out.print("[red]✗[/] hipcc: not found (PATH, $ROCM_PATH/bin, /opt/rocm/bin): porter can translate "
                  "but not build; `porter toolchain install` provisions ROCm 6.4")
        problems += 1
    else:
        yes = _show_toolchain(out, selected, selected=True)
        choice = choose_compile_arch(selected, profile.arch)
        if choice.note:
            out.print(f"  [yellow]note:[/] {choice.note}")
        if not yes:
            problems += 1
    for other in others:
        _show_toolchain(out, other, selected=False)
    if others:
        out.print(f"  [dim]{len(others) + (selected is not None)} toolchains found; pick one with --toolchain NAME|PATH, "
                  "PORTER_HIPCC or \\[tool.porter] toolchain[/]")
    ok, message = _check_model(config)
    mark = "[green]✓[/]" if ok else ("[yellow]-[/]" if ok is None else "[red]✗[/]")
    out.print(f"{mark} model: {message}")
    if ok is False:
        problems += 1
    if problems:
        raise typer.Exit(1)


def targets_table() -> Table:
    table = Table(title="porter targets")
    for col in ("arch", "names", "family", "wavefront", "LDS/workgroup", "CUs", "HBM", "BW", "FP8"):
        table.add_column(col, justify="right" if col in ("wavefront", "CUs", "BW") else "left", no_wrap=col == "arch")
    for arch, p in all_targets().items():
        table.add_row(arch, ", ".join(p.names), p.family, str(p.wavefront), f"{p.lds_per_workgroup_kib} KiB",
                      str(p.cu_count), f"{p.hbm_gb:g} GB {p.hbm_kind}", f"{p.hbm_bandwidth_tbs:g} TB/s",
                      p.fp8_format + (" (derived)" if p.derived else ""))
    return table


def targets() -> None:
    """List the GPU targets porter knows (arch, names, wavefront, LDS, CUs, HBM, bandwidth, FP8 format)."""
    _console().print(targets_table())
