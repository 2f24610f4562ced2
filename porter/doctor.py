"""`porter doctor` (is the toolchain / model usable?) and `porter targets` (the GPU profiles porter knows)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from porter.build import COMMON_ARCHES, accepted_arches, choose_compile_arch, detect_toolchain
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


def doctor(
    model: Annotated[str | None, typer.Option(help="Model name to check (else [tool.porter] / PORTER_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (else OPENAI_BASE_URL).")] = None,
    target: Annotated[str, typer.Option(help="Target whose compile arch to check.")] = DEFAULT_TARGET,
) -> None:
    """Check the HIP toolchain (hipcc, versions, accepted --offload-arch values) and the model endpoint."""
    out = _console(stderr=True)
    problems = 0
    toolchain = detect_toolchain()
    if toolchain is None:
        out.print("[red]✗[/] hipcc: not found (PATH, $ROCM_PATH/bin, /opt/rocm/bin): porter can translate "
                  "but not build")
        problems += 1
    else:
        out.print(f"[green]✓[/] hipcc: {toolchain.hipcc}")
        out.print(f"  HIP version: {toolchain.hip_version or 'unknown'}; ROCm: {toolchain.rocm or 'unknown'}")
        arches = accepted_arches(toolchain, list(dict.fromkeys([*COMMON_ARCHES, *all_targets()])))
        yes = [a for a, ok in arches.items() if ok]
        no = [a for a, ok in arches.items() if not ok]
        out.print(f"  --offload-arch accepted: {', '.join(yes) or 'none'}")
        if no:
            out.print(f"  not accepted: {', '.join(no)}")
        try:
            choice = choose_compile_arch(toolchain, resolve_target(target).arch)
        except UnknownTargetError as exc:
            out.print(f"[red]✗[/] {exc}")
            raise typer.Exit(2) from None
        if choice.note:
            out.print(f"  [yellow]note:[/] {choice.note}")
        if not yes:
            problems += 1
    try:
        config = build_config(Path.cwd(), model=model, base_url=base_url)
    except ConfigError as exc:
        out.print(f"[red]✗[/] config: {exc}")
        raise typer.Exit(2) from None
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
