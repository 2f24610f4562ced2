"""`porter toolchain install/list/remove`: thin typer commands over porter.build.provision."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from porter.build.provision import (
    ProvisionError,
    absent_for,
    install,
    installed_metadata,
    remove,
    toolchain_specs,
)
from porter.build.toolchain import find_toolchains, read_registry

toolchain_app = typer.Typer(
    name="toolchain", help="Install, list and remove compile-only ROCm toolchains (Debian's ROCm packages).",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)


def _console(stderr: bool = True) -> Console:
    return Console(stderr=stderr, no_color=bool(os.environ.get("NO_COLOR")) or None, highlight=False)


def _fail(message: str, code: int = 1) -> typer.Exit:
    _console().print(f"[bold red]error[/]: {escape(message)}", soft_wrap=True)
    return typer.Exit(code)


def _size(n: int | None) -> str:
    return f"{n / 1024**2:.0f} MB" if n else "?"


@toolchain_app.command("install")
def install_cmd(
    rocm: Annotated[str, typer.Option(help=f"ROCm version to provision ({', '.join(toolchain_specs())}).")] = "6.4",
    directory: Annotated[Path | None, typer.Option("--dir", help="Install here (default: porter's cache, ~/.cache/porter/toolchains/rocm-VERSION).")] = None,
    mirror: Annotated[str | None, typer.Option(help="Debian mirror to take the packages from.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Reinstall even when a working toolchain is there.")] = False,
) -> None:
    """Provision a compile-only ROCm (hipcc, HIP and library headers) as a Debian root, and check it compiles for
    gfx942 and gfx950. Runs as root, or rootless through user namespaces.

    Exit codes: 0 installed (or already there and working); 1 it cannot be installed here (the reason in one line).
    """
    out = _console()
    try:
        result = install(rocm, directory, mirror, force, status=lambda msg: out.print(f"[dim]{escape(msg)}[/]"))
    except ProvisionError as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        raise _fail("interrupted; nothing was installed", 130) from None
    meta = result.metadata
    verb = "already installed" if result.reused else f"installed in {meta.get('install_seconds', '?')} s"
    out.print(f"[green]✓[/] {result.toolchain.name} {verb}: HIP {result.toolchain.hip_version}, clang "
              f"{meta.get('clang', '?')}, {_size(meta.get('size_bytes'))}, compiles for "
              f"{', '.join(meta.get('verified_arches', []))}")
    out.print(f"  hipcc: {result.toolchain.hipcc}")
    out.print(f"  use it: --toolchain {result.toolchain.name}, or PORTER_HIPCC={result.toolchain.hipcc}")
    out.print("  compile-only: the libraries' GPU kernels are left out, so linking against rocBLAS, rocSOLVER, "
              "rocSPARSE or rocRAND does not work")
    for lib, why in sorted(meta.get("absent", {}).items()):
        out.print(f"  [yellow]absent:[/] {lib}: {escape(why)}")


@toolchain_app.command("list")
def list_cmd() -> None:
    """List the toolchains porter can use: installed ones, PORTER_HIPCC's and the system's hipcc."""
    table = Table(title="porter toolchains")
    for col in ("name", "HIP", "ROCm", "from", "compiles for", "size", "hipcc"):
        table.add_column(col, no_wrap=col in ("name", "HIP"), overflow="fold")
    found = find_toolchains()
    for t in found:
        meta = installed_metadata(t.root.parent) if t.root is not None else {}
        arches = ", ".join(meta.get("verified_arches", [])) if meta else "(see porter doctor)"
        table.add_row(t.name, t.hip_version or "?", str(t.rocm or "?"), t.origin, arches,
                      _size(meta.get("size_bytes")) if meta else "", str(t.hipcc))
    usable = {t.root.parent for t in found if t.root is not None}
    missing = [(n, d) for n, d in read_registry().items() if d not in usable]
    _console(stderr=False).print(table)
    for name, directory in missing:
        _console().print(f"[yellow]{escape(name)}[/]: recorded at {directory}, but no working toolchain is there "
                         f"(porter toolchain remove {name})")
    for t in found:
        for lib, why in sorted(absent_for(t).items()):
            _console().print(f"{t.name}: [yellow]absent[/] {lib}: {escape(why)}")
    if not found:
        _console().print("no toolchain found: install ROCm's hipcc, or `porter toolchain install`")


@toolchain_app.command("remove")
def remove_cmd(
    name: Annotated[str, typer.Argument(help="Installed toolchain's name (porter toolchain list) or directory.")],
) -> None:
    """Delete an installed toolchain and forget it."""
    try:
        directory = remove(name)
    except ProvisionError as exc:
        raise _fail(str(exc)) from None
    _console().print(f"removed {escape(name)} ({directory})")
