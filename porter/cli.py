"""Command-line interface: parse options, call library functions, turn expected errors into exit codes."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="porter",
    help="Port CUDA code to AMD HIP: translate, build, fix, scan.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# --- command registrations (one line per command; each module owns its command) ---


def main() -> None:
    app()
