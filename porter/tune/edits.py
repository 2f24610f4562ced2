"""The safe suggestions of a tune report as file edits (pure: bytes in, bytes out).

For each launch site the best safe block size (most resident waves, then the fullest last wave) is applied: the
block argument and the block size inside a ceiling-division grid are rewritten together, so the launch covers the
same work. A kernel that has no `__launch_bounds__`, spills at the default 1024-thread bound and is launched with
known, smaller blocks everywhere gets `__launch_bounds__(largest block)`, unless one of its launches changes size.
Overlapping edits are dropped, never merged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from porter.tune.analyze import SiteReport, TuneReport


@dataclass
class FileEdit:
    file: str  # relative to the analyzed root
    old: bytes
    new: bytes
    changes: list[str] = field(default_factory=list)  # one line per change, for the summary


def plan_edits(report: TuneReport) -> list[FileEdit]:
    per_file: dict[str, list[tuple[int, int, bytes, str]]] = {}
    resized: set[int] = set()
    for site in report.sites:
        best = next((s for s in site.suggestions if s.safe and s.edits), None)
        if best is None:
            continue
        old_block = site.launch.block.describe()
        desc = (f"{site.file}:{site.line}: {site.launch.kernel} block {old_block} -> {best.block} "
                f"({_occ(site)} -> {best.occupancy.waves_per_simd:g} waves/SIMD)")
        for start, end, data in best.edits:
            per_file.setdefault(site.file, []).append((start, end, data, desc))
        if site.kernel is not None:
            resized.add(id(site.kernel))
    seen_bounds: set[int] = set()
    for site in report.sites:
        if site.launch_bounds_edit is None or site.kernel is None or id(site.kernel) in resized:
            continue
        if id(site.kernel) in seen_bounds:
            continue
        seen_bounds.add(id(site.kernel))
        start, end, data = site.launch_bounds_edit
        k = site.kernel.kernel
        per_file.setdefault(k.file, []).append(
            (start, end, data, f"{k.file}:{k.line}: {k.name}: add {data.decode().strip()} ({site.launch_bounds_reason})"))
    out = []
    for file, edits in sorted(per_file.items()):
        facts = report.facts.get(file)
        if facts is None:
            continue
        source = facts.source
        kept: list[tuple[int, int, bytes, str]] = []
        for edit in sorted(edits, key=lambda e: (e[0], e[1])):
            if kept and edit[0] < kept[-1][1]:
                continue  # overlaps the edit before: keep the first
            if kept and edit[0] == kept[-1][0] == edit[1] == kept[-1][1]:
                continue
            kept.append(edit)
        new = source
        for start, end, data, _desc in reversed(kept):
            new = new[:start] + data + new[end:]
        changes = list(dict.fromkeys(desc for *_rest, desc in kept))
        if new != source:
            out.append(FileEdit(file, source, new, changes))
    return out


def _occ(site: SiteReport) -> str:
    return f"{site.occupancy.waves_per_simd:g}" if site.occupancy else "?"
