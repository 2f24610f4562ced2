"""Command-line interface: parse options, call library functions, turn expected errors into exit codes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from porter import __version__
from porter.config import ConfigError, build_config
from porter.files import PorterInputError, ShardSpec, WriteMode, atomic_write, default_output, resolve_path
from porter.targets import UnknownTargetError, resolve_target
from porter.translate import LaunchSyntax

# command name -> (module, attribute): each module owns its command, and is imported only when that command runs
# (or when --help lists them), so `porter convert` does not pay for tune, review and the rest at start-up
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "scan": ("porter.scan", "scan"),
    "check": ("porter.scan", "check"),
    "review": ("porter.review", "review"),
    "sync": ("porter.revisions", "sync"),
    "doctor": ("porter.doctor", "doctor"),
    "targets": ("porter.doctor", "targets"),
    "tune": ("porter.tune", "tune"),
    "toolchain": ("porter.build", "toolchain_app"),
}


class LazyCommands(TyperGroup):
    """The root group: the commands defined here, plus LAZY_COMMANDS built from their modules on first use."""

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return [*super().list_commands(ctx), *(name for name in LAZY_COMMANDS if name not in self.commands)]

    def get_command(self, ctx: typer.Context, cmd_name: str):  # -> the command, or None where none has that name
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            import importlib

            module, attribute = LAZY_COMMANDS[cmd_name]
            target = getattr(importlib.import_module(module), attribute)
            if isinstance(target, typer.Typer):
                command = typer.main.get_command(target)
            else:
                holder = typer.Typer(pretty_exceptions_enable=False)
                holder.command(cmd_name)(target)
                command = typer.main.get_command(holder)
            command.name = cmd_name
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    name="porter",
    cls=LazyCommands,
    help="Port CUDA code to AMD HIP: translate, build, fix, scan.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

def stderr_console() -> Console:
    return Console(stderr=True, no_color=bool(os.environ.get("NO_COLOR")) or None, highlight=False)


def fail(message: str, code: int = 2) -> typer.Exit:
    stderr_console().print(f"[bold red]error[/]: {escape(message)}", markup=True, soft_wrap=True)
    return typer.Exit(code)


def _version(value: bool) -> None:
    if value:
        print(f"porter {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")] = False,
) -> None:
    """Port CUDA code to AMD HIP: translate, build, fix, scan."""


@app.command()
def convert(
    path: Annotated[Path | None, typer.Argument(help="CUDA file or directory to port.", show_default=False)] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Output file (for a file) or directory (for a tree). Default: DIR-hip/ beside a tree, NAME.hip.EXT beside a file.")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Rewrite in place; originals are kept under .porter/backup/.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff to stdout and write nothing.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 when anything would change.")] = False,
    rename: Annotated[bool, typer.Option("--rename", help="Give .cu sources the .hip suffix and update includes and build files.")] = False,
    launch_syntax: Annotated[LaunchSyntax, typer.Option(help="Keep kernel<<<...>>> launches or emit hipLaunchKernelGGL.")] = LaunchSyntax.CHEVRON,
    jobs: Annotated[int, typer.Option("-j", "--jobs", min=0, help="Parallel workers: translation processes and hipcc jobs (0: all cores), and agent tasks with disjoint files run at once (default 1).")] = 0,
    full_parse: Annotated[bool, typer.Option("--full-parse", help="Parse every file whole with tree-sitter (slower; by default only the pieces where the grammar decides more than the tokens).")] = False,
    report: Annotated[Path | None, typer.Option(help="Write the JSON report here (default: OUT/.porter/report.json).")] = None,
    rocm: Annotated[str | None, typer.Option(help="ROCm version to port for, e.g. 6.4 (default: detected from hipconfig).")] = None,
    target: Annotated[str | None, typer.Option(help="Target GPU: arch or product (gfx942/MI300X, gfx950/MI355X, ...). Default gfx942.")] = None,
    no_build: Annotated[bool, typer.Option("--no-build", help="Skip the build-and-fix step.")] = False,
    build_cmd: Annotated[str | None, typer.Option(help="Build with this command (run in the output root) instead of hipcc -c per file.")] = None,
    test_cmd: Annotated[str | None, typer.Option(help="Run this after a clean build; failures go to the agent.")] = None,
    offload_arch: Annotated[str | None, typer.Option(help="Override the --offload-arch passed to hipcc.")] = None,
    toolchain: Annotated[str | None, typer.Option(help="Build with this toolchain: an installed one's name (rocm-6.4, see `porter toolchain list`), a ROCm version, 'system', or a path to hipcc or a ROCm (default: PORTER_HIPCC, else hipcc on PATH or under ROCM_PATH).")] = None,
    model: Annotated[str | None, typer.Option(help="Model for the fix agent (or PORTER_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (or OPENAI_BASE_URL).")] = None,
    max_iterations: Annotated[int | None, typer.Option(min=1, help="Model turns at most.")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Token budget for the agent.")] = None,
    max_seconds: Annotated[float | None, typer.Option(min=1, help="Wall-clock budget for the agent, in seconds.")] = None,
    task_iterations: Annotated[int | None, typer.Option(min=1, help="Model turns per agent task (one root cause). Default: a fair share of --max-iterations, at least 4.")] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Continue an interrupted or budget-stopped run on OUT from its report: no new translation, fixed agent tasks are not redone.", show_default=False)] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the model response cache.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when any CUDA identifier was left untranslated.")] = False,
    review: Annotated[bool, typer.Option("--review", help="Review the port hunk by hunk when it is written.")] = False,
    shard: Annotated[str | None, typer.Option("--shard", help="K/N: build and fix only the K-th of N shares of the translation units, by path (join the shards with `porter report merge`).")] = None,
) -> None:
    """Translate CUDA to HIP, then build, fix and test the result.

    Exit codes: 0 done; 1 --check found changes, a file failed, errors remain after the fix loop, or --strict found
    untranslated identifiers; 2 bad input or usage; 130 interrupted.
    """
    from porter.convert import ConvertRequest, write_diff
    from porter.convert import convert as run_convert

    chosen = [name for name, on in (("-o", output is not None), ("--in-place", in_place), ("--diff", diff), ("--check", check)) if on]
    if resume is not None:
        clashing = [*chosen, *(name for name, on in (("PATH", path is not None), ("--rename", rename), ("--no-build", no_build), ("--review", review), ("--shard", shard is not None)) if on)]
        if clashing:
            raise fail(f"--resume continues the run of its output tree: it takes no {', '.join(clashing)}")
        _resume(resolve_path(resume), report=resolve_path(report) if report else None, target=target,
                build_cmd=build_cmd, test_cmd=test_cmd, offload_arch=offload_arch, model=model, base_url=base_url,
                max_iterations=max_iterations, max_tokens=max_tokens, max_seconds=max_seconds,
                task_iterations=task_iterations, jobs=jobs or None, use_cache=False if no_cache else None)
    if path is None:
        raise fail("missing PATH: the CUDA file or directory to port (or --resume OUT to continue an earlier run)")
    if len(chosen) > 1:
        raise fail(f"{' and '.join(chosen)} cannot be combined")
    # every path is made absolute and resolved here, once: the core never sees a path relative to the cwd
    path = resolve_path(path)
    output = resolve_path(output) if output is not None else default_output(path) if not chosen else None
    mode = WriteMode.IN_PLACE if in_place else WriteMode.DIFF if diff else WriteMode.CHECK if check else WriteMode.WRITE
    try:
        share = ShardSpec.parse(shard) if shard is not None else None
    except PorterInputError as exc:
        raise fail(str(exc)) from None
    if share is not None and test_cmd:
        raise fail("--test-cmd needs the whole port built: run the tests after `porter report merge`, not per shard")
    if review and not mode.writes:
        raise fail("--review needs a written port (-o OUT or --in-place)")
    if review and not sys.stdin.isatty():
        raise fail("--review needs a terminal on stdin; run `porter review OUT --accept-all` in scripts")
    console = stderr_console()
    try:
        project = path if path.is_dir() else path.parent
        config = build_config(
            project, target=target, rocm=rocm, launch_syntax=launch_syntax, build=False if no_build or not mode.writes else None,
            full_parse=True if full_parse else None, jobs=jobs or None,
            build_cmd=build_cmd, test_cmd=test_cmd, offload_arch=offload_arch, toolchain=toolchain, model=model,
            base_url=base_url,
            max_iterations=max_iterations, max_tokens=max_tokens, max_seconds=max_seconds,
            task_iterations=task_iterations, use_cache=False if no_cache else None, report_path=report,
        )
        resolve_target(config.target)
        chosen_toolchain = _selected_toolchain(config)
        if config.rocm is None and chosen_toolchain is not None and chosen_toolchain.rocm is not None:
            from dataclasses import replace

            config = replace(config, rocm=chosen_toolchain.rocm)
        request = ConvertRequest(path, output, mode, config, rename=rename, jobs=jobs,
                                 report_path=resolve_path(report) if report else None, strict=strict,
                                 default_output=not chosen, shard=share)
        result = run_convert(request, console, out=write_diff if mode is WriteMode.DIFF else None)
    except (PorterInputError, ConfigError, UnknownTargetError, ValueError) as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        raise fail("interrupted; every file is either as it was or fully converted", 130) from None
    result.render_summary(console)
    if result.interrupted:
        raise typer.Exit(130)
    if review and mode.writes and result.output_root and not result.interrupted:
        from porter.review import ReviewError, print_summary, review_port

        try:
            summary = review_port(Path(result.output_root), target=resolve_target(config.target),
                                  console=Console(no_color=bool(os.environ.get("NO_COLOR")) or None), err_console=console)
        except ReviewError as exc:
            raise fail(str(exc), 1) from None
        print_summary(summary, Path(result.output_root), console)
    raise typer.Exit(result.exit_code(check=mode is WriteMode.CHECK, strict=strict))


def _resume(output: Path, report: Path | None, **options: object) -> None:
    """`porter convert --resume OUT`; exits like a convert: 0 done, 1 errors remain, 2 bad input, 130 interrupted."""
    from porter.convert import resume as run_resume

    console = stderr_console()
    try:
        result = run_resume(output, console, report, **options)
    except (PorterInputError, ConfigError, UnknownTargetError, ValueError) as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        raise fail("interrupted; the report says where the run stopped (--resume again continues)", 130) from None
    result.render_summary(console)
    raise typer.Exit(result.exit_code(check=False))


def _selected_toolchain(config):
    """The toolchain `config` selects (--toolchain, [tool.porter] toolchain, PORTER_HIPCC, else the system's):
    its ROCm is what porter ports for unless --rocm says otherwise. A toolchain that names nothing is a usage error
    (ToolchainError is a ValueError)."""
    try:
        from porter.build import resolve_toolchain
    except ImportError:
        return None
    return resolve_toolchain(config.toolchain, origin="--toolchain" if config.toolchain else "PORTER_HIPCC")


report_app = typer.Typer(help="Work with the reports `porter convert` writes.", no_args_is_help=True)
app.add_typer(report_app, name="report")


@report_app.command("merge")
def report_merge(
    reports: Annotated[list[Path], typer.Argument(help="The shards' reports (OUT/.porter/report.json of each `--shard K/N` run).", show_default=False)],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the merged report here (default: stdout).")] = None,
    tree: Annotated[Path | None, typer.Option("--tree", help="Also assemble the merged port here, from the shards' output trees.")] = None,
    sarif: Annotated[Path | None, typer.Option("--sarif", help="Also write the merged findings as SARIF 2.1.0.")] = None,
) -> None:
    """Join the reports of a sharded port into the report of one run: summary, untranslated identifiers,
    findings, remaining errors (and, with --tree, the port itself).

    Exit codes: 0 merged, the port builds; 1 merged, errors remain; 2 bad input (a shard missing or repeated,
    reports of different splits, two shards that fixed one file differently).
    """
    from porter.shards import assemble_tree, load_reports, merge_reports, to_sarif

    try:
        shards = load_reports([resolve_path(r) for r in reports])
        merged = merge_reports(shards)
        if tree is not None:
            dest = resolve_path(tree)
            files = assemble_tree(shards, dest)
            merged["output_root"] = merged["written_to"] = str(dest)
            stderr_console().print(f"merged port written to {escape(str(tree))} ({len(files)} files)")
        text = json.dumps(merged, indent=2, default=str) + "\n"
        if output is not None:
            atomic_write(resolve_path(output), text.encode())
        elif tree is not None:
            atomic_write(resolve_path(tree) / ".porter" / "report.json", text.encode())
        else:
            sys.stdout.write(text)
        if sarif is not None:
            atomic_write(resolve_path(sarif), (json.dumps(to_sarif(merged), indent=2) + "\n").encode())
    except PorterInputError as exc:
        raise fail(str(exc)) from None
    fix_loop = merged.get("fix_loop") or {}
    raise typer.Exit(0 if fix_loop.get("ok", True) and not merged["summary"]["failed"] else 1)




def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        stderr_console().print("[bold red]error[/]: interrupted")
        sys.exit(130)
