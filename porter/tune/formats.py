"""`porter tune` output: a terminal table (rich), JSON and Markdown, and the one-line facts other stages show."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from porter.tune.analyze import SiteReport, TuneReport, report_dict
from porter.tune.model import Occupancy


def _occ(o: Occupancy | None) -> str:
    if o is None:
        return "?"
    if o.error:
        return "cannot launch"
    return f"{o.waves_per_simd:g}/SIMD ({o.percent:.0f}%)"


def _nv(o: Occupancy | None) -> str:
    if o is None:
        return "-"
    if o.error:
        return "cannot launch"
    return f"{o.percent:.0f}%" + (f" ({o.limiter})" if o.percent < 100 else "")


def _limiter(o: Occupancy | None) -> str:
    if o is None or o.error:
        return "-"
    return o.limiter if o.percent < 100 else "full"


def _occ_with_compiler(site: SiteReport, report: TuneReport) -> str:
    """The hardware figure, and the compiler's remark when it says something else (the remark is for the arch
    compiled for and counts static LDS only, so it is shown only for the target itself and no dynamic LDS)."""
    text = _occ(site.occupancy)
    u = site.instance.amd if site.instance else None
    dynamic = site.launch.shmem.value.total if site.launch.shmem.value else 0
    if u is not None and u.compiler_occupancy is not None and site.occupancy and not site.occupancy.error \
            and report.compile_arch == report.target.arch and not dynamic \
            and u.compiler_occupancy != site.occupancy.waves_per_simd:
        text += f", compiler: {u.compiler_occupancy}"
    return text


def _usage(site: SiteReport) -> str:
    u = site.instance.amd if site.instance else None
    if u is None:
        return "?"
    regs = f"{u.vgprs}v" + (f"+{u.agprs}a" if u.agprs else "") + f" {u.sgprs}s"
    lds = site.launch.shmem.value.total if site.launch.shmem.value else 0
    if u.lds_bytes or lds:
        regs += f", LDS {u.lds_bytes + lds}"
    if u.vgpr_spills or u.scratch_bytes:
        regs += f", spills {u.vgpr_spills}/{u.scratch_bytes}B"
    return regs


def _last_wave(site: SiteReport) -> str:
    q = site.quantization
    if q is None:
        return "-" if site.launch.grid.known else f"grid {site.launch.grid.describe()}"
    return f"{q.waves} wave{'s' * (q.waves != 1)}, last: {q.last_wave_share:.0%} of CUs; {q.efficiency:.0%} of slots"


def _suggestion(site: SiteReport) -> str:
    if not site.suggestions:
        if site.launch_bounds_edit is not None:
            return f"add {site.launch_bounds_edit[2].decode().strip()} (safe)"
        return "-"
    best = site.suggestions[0]
    safe = next((s for s in site.suggestions if s.safe), None)
    if safe is not None:
        return f"{safe.block} -> {safe.occupancy.waves_per_simd:g}/SIMD (safe)"
    return f"{best.block} -> {best.occupancy.waves_per_simd:g}/SIMD (unsafe: {best.reasons[0]})"


def side_by_side(site: SiteReport, report: TuneReport) -> str | None:
    """"kernel K: 100% occupancy on sm_90 -> 25% on gfx942, VGPR-limited"."""
    if site.occupancy is None:
        return None
    occ = site.occupancy
    amd = f"does not launch ({occ.error})" if occ.error else f"{occ.percent:.0f}%"
    limiter = f", {occ.limiter}-limited" if not occ.error and occ.percent < 100 else ""
    if site.nvidia is not None and report.nvidia_chip is not None:
        nv = f"does not launch ({site.nvidia.error})" if site.nvidia.error else f"{site.nvidia.percent:.0f}% occupancy"
        return f"kernel {site.launch.kernel}: {nv} on {report.nvidia_chip.arch} -> {amd} on {report.target.arch}{limiter}"
    return f"kernel {site.launch.kernel}: {amd} occupancy on {report.target.arch}{limiter}"


def header(report: TuneReport) -> str:
    chip = report.chip
    parts = [f"{report.target.arch} ({chip.device}, {chip.cu_count} CUs)"]
    if report.compile_arch:
        parts.append(f"usage from hipcc for {report.compile_arch}")
    else:
        parts.append("no hipcc: register usage unknown")
    if report.nvcc and report.nvidia_chip:
        parts.append(f"CUDA side: nvcc for {report.nvidia_chip.arch}")
    return "; ".join(parts)


def summary(report: TuneReport) -> str:
    safe = sum(1 for s in report.sites if any(x.safe for x in s.suggestions))
    text = (f"porter tune: {len(report.sites)} launch site(s) of {len(report.kernels)} kernel(s) in "
            f"{len(report.files)} file(s); {len(report.compiled)} translation unit(s) compiled for "
            f"{report.compile_arch or 'no AMD arch'}")
    if report.compile_failures:
        text += f", {len(report.compile_failures)} failed"
    if report.cuda_compiled or report.cuda_failures:
        text += f"; {len(report.cuda_compiled)} compiled with nvcc"
        if report.cuda_failures:
            text += f", {len(report.cuda_failures)} failed"
    return text + f"; {safe} with a safe suggestion"


def render_table(report: TuneReport, console: Console) -> None:
    console.print(escape(header(report)), highlight=False)
    if report.compile_note:
        console.print(f"[yellow]note[/]: {escape(report.compile_note)}")
    table = Table(show_edge=False, title=f"launch sites on {report.target.arch}", title_justify="left")
    for column in ("where", "kernel", "block / grid", "uses", "occupancy", "limiter",
                   report.nvidia_chip.arch if report.nvidia_chip else "nvidia", "last wave", "suggestion"):
        table.add_column(column, overflow="fold")
    for site in report.sites:
        table.add_row(
            escape(f"{site.file}:{site.line}"), escape(site.launch.kernel),
            escape(f"{site.launch.block.describe()} / {site.launch.grid.describe()}"), escape(_usage(site)),
            escape(_occ_with_compiler(site, report)), escape(_limiter(site.occupancy)), escape(_nv(site.nvidia)),
            escape(_last_wave(site)), escape(_suggestion(site)),
        )
    console.print(table)
    for site in report.sites:
        line = side_by_side(site, report)
        if line and (site.nvidia is not None or (site.occupancy and site.occupancy.percent < 100)):
            console.print(escape(f"{site.file}:{site.line}: {line}"), highlight=False)
        for note in site.notes:
            console.print(f"[dim]{escape(f'{site.file}:{site.line}: {note}')}[/]")
        for s in site.suggestions:
            if not s.safe:
                console.print(f"[dim]{escape(f'{site.file}:{site.line}: block {s.block} not applied: ' + '; '.join(s.reasons))}[/]")
    for rel, error in report.compile_failures.items():
        console.print(f"[yellow]warning[/]: hipcc could not compile {escape(rel)}: {escape(error)}")
    for rel, error in report.cuda_failures.items():
        console.print(f"[yellow]warning[/]: nvcc could not compile {escape(rel)}: {escape(error)}")
    for warning in report.warnings:
        console.print(f"[yellow]warning[/]: {escape(warning)}")
    console.print(escape(summary(report)), highlight=False)


def render_json(report: TuneReport) -> str:
    return json.dumps(report_dict(report), indent=2, default=str) + "\n"


def render_markdown(report: TuneReport) -> str:
    nv = report.nvidia_chip.arch if report.nvidia_chip else "nvidia"
    lines = [f"## porter tune: {report.target.arch}", "", header(report), ""]
    if report.compile_note:
        lines += [f"> {report.compile_note}", ""]
    lines += [f"| where | kernel | block | grid | uses | occupancy | limiter | compiler | {nv} | last wave | suggestion |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for site in report.sites:
        u = site.instance.amd if site.instance else None
        cells = [f"{site.file}:{site.line}", f"`{site.launch.kernel}`", site.launch.block.describe(),
                 site.launch.grid.describe(), _usage(site), _occ(site.occupancy), _limiter(site.occupancy),
                 str(u.compiler_occupancy) if u and u.compiler_occupancy is not None else "-", _nv(site.nvidia),
                 _last_wave(site), _suggestion(site)]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines.append("")
    for site in report.sites:
        line = side_by_side(site, report)
        if line:
            lines.append(f"- {site.file}:{site.line}: {line}")
    lines += ["", summary(report), ""]
    return "\n".join(lines)


def hints(report: TuneReport, limit: int = 20) -> list[str]:
    """Facts for the agent's prompt: one line per launch site below full occupancy on the target, or that cannot
    launch on one side."""
    out = []
    for site in report.sites:
        line = side_by_side(site, report)
        if line is None or site.occupancy is None:
            continue
        nv_error = site.nvidia is not None and site.nvidia.error
        if site.occupancy.percent >= 100 and not site.occupancy.error and not nv_error:
            continue
        u = site.instance.amd if site.instance else None
        detail = f" ({u.vgprs} VGPRs, {u.agprs} AGPRs, {u.sgprs} SGPRs, {u.lds_bytes} B static LDS)" if u else ""
        out.append(f"{site.file}:{site.line}: {line}; block {site.launch.block.describe()}{detail}")
        if len(out) >= limit:
            break
    return out
