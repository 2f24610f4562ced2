"""Clang diagnostics: parsing compiler output into `Diagnostic` records and showing them grouped by file."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from porter.build.results import Diagnostic

SHIMS_DIRNAME = "porter_shims"  # porter.fix.shims.OUT_DIRNAME (porter.fix imports this package, not the reverse)

# file:line:col: severity: message   (clang also prints file:line: without a column for some notes)
_DIAG_RE = re.compile(
    r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
    r"(?P<sev>fatal error|error|warning|note|remark):\s*(?P<msg>.*)$"
)
# `clang: error: ...`, `hipcc: error: ...`, `ld.lld: error: ...`: no source location
_TOOL_RE = re.compile(r"^(?P<tool>[\w.+-]+(?:-\d+)?):\s*(?P<sev>fatal error|error|warning):\s*(?P<msg>.*)$")
_BARE_RE = re.compile(r"^(?P<sev>fatal error|error|warning):\s*(?P<msg>.*)$")
_INCLUDED_RE = re.compile(r"^In file included from (?P<file>.+?):(?P<line>\d+):?$")
_GENERATED_RE = re.compile(r"^\d+ (?:errors?|warnings?)( and \d+ (?:errors?|warnings?))? generated")


def relative_path(path: str, root: Path | None) -> str:
    """Path relative to the output root where it lies inside it; system headers stay absolute."""
    if root is None:
        return path
    p = Path(path)
    absolute = p if p.is_absolute() else (root / p)
    try:
        return Path(os.path.normpath(absolute)).relative_to(root.resolve()).as_posix()
    except ValueError:
        try:
            return Path(os.path.normpath(absolute)).relative_to(root).as_posix()
        except ValueError:
            return os.path.normpath(path)


def parse_clang_output(output: str, root: Path | None = None, default_file: str = "") -> list[Diagnostic]:
    """Errors and warnings with their notes and include chains; duplicates (host + device pass) dropped."""
    diags: list[Diagnostic] = []
    pending_includes: list[str] = []
    chains: dict[str, list[str]] = {}  # clang prints a header's include chain once, for its first diagnostic
    current: Diagnostic | None = None
    for raw in output.splitlines():
        line = raw.rstrip()
        if m := _INCLUDED_RE.match(line):
            pending_includes.append(f"In file included from {relative_path(m['file'], root)}:{m['line']}")
            continue
        if m := _DIAG_RE.match(line):
            sev = "fatal" if m["sev"] == "fatal error" else m["sev"]
            file = relative_path(m["file"], root)
            if sev in ("note", "remark"):
                if current is not None:
                    current.notes.append(f"{file}:{m['line']}:{m['col'] or 0}: note: {m['msg']}")
                pending_includes = []
                continue
            if pending_includes:
                chains[file] = pending_includes
            current = Diagnostic(file, int(m["line"]), int(m["col"] or 0), sev, m["msg"], list(chains.get(file, [])))
            diags.append(current)
            pending_includes = []
            continue
        if m := _TOOL_RE.match(line):
            sev = "fatal" if m["sev"] == "fatal error" else m["sev"]
            if "linker command failed" in m["msg"] and any(d.severity in ("error", "fatal") for d in diags):
                continue  # a consequence of errors already listed
            current = Diagnostic(default_file, 0, 0, sev, f"{m['tool']}: {m['msg']}")
            diags.append(current)
            continue
        if m := _BARE_RE.match(line):  # clang prints some errors inside macro expansions without a location
            sev = "fatal" if m["sev"] == "fatal error" else m["sev"]
            current = Diagnostic(default_file, 0, 0, sev, m["msg"], list(pending_includes))
            diags.append(current)
            pending_includes = []
            continue
        if _GENERATED_RE.match(line):
            current = None
    if root is not None:
        diags = [attribute_to_tree(d) for d in diags]
    return dedupe(diags)


_NOTE_LOC_RE = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?P<col>\d+): note: (?P<msg>.*)$")
_CHAIN_RE = re.compile(r"^In file included from (?P<file>.+):(?P<line>\d+)$")
_FROM_USER_CODE = ("requested here", "in instantiation of", "expanded from macro", "while substituting",
                   "in call to", "called by", "while checking")


def _in_tree(path: str) -> bool:
    return bool(path) and not Path(path).is_absolute() and not path.startswith("..")


def _user_file(path: str) -> bool:
    return _in_tree(path) and not path.startswith(SHIMS_DIRNAME + "/")


def attribute_to_tree(diag: Diagnostic) -> Diagnostic:
    """An error clang reports inside a HIP or system header lands on the port's file that leads there: the
    innermost template instantiation (or macro expansion) in the port, else the port's innermost `#include` in
    the chain. The original location stays, as `origin` and as the first note, so nothing is lost."""
    if _in_tree(diag.file) or diag.severity not in ("error", "fatal") or not diag.file:
        return diag
    target = None
    # the user's own files before porter's shims (a shim including a HIP header is not what the user can fix)
    for editable in (_user_file, _in_tree):
        for note in diag.notes:
            m = _NOTE_LOC_RE.match(note)
            if m and editable(m["file"]) and any(k in m["msg"] for k in _FROM_USER_CODE):
                target = (m["file"], int(m["line"]), int(m["col"]))
                break
        if target is None:
            chain = [m for n in diag.notes if (m := _CHAIN_RE.match(n)) and editable(m["file"])]
            if chain:
                target = (chain[-1]["file"], int(chain[-1]["line"]), 1)
        if target is not None:
            break
    if target is None:
        return diag
    origin = f"{diag.file}:{diag.line}:{diag.column}"
    note = f"{origin}: note: the error is reported here, outside the port"
    return Diagnostic(*target, diag.severity, diag.message, [note, *diag.notes], origin=origin)


def dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple] = set()
    out = []
    for d in diags:
        key = (d.file, d.line, d.column, d.severity, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def group_by_file(diags: list[Diagnostic]) -> dict[str, list[Diagnostic]]:
    groups: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in sorted(diags, key=lambda d: (d.file, d.line, d.column)):
        groups[d.file or "(no file)"].append(d)
    return dict(groups)


_STYLE = {"error": "bold red", "fatal": "bold red", "warning": "yellow", "note": "cyan"}


def render_diagnostics(diags: list[Diagnostic], console: Console, *, max_per_file: int = 20,
                       warnings: bool = False) -> None:
    """One panel per file, errors first; warnings only when asked (hipcc output is noisy)."""
    shown = [d for d in diags if warnings or d.severity in ("error", "fatal")]
    for file, items in group_by_file(shown).items():
        lines: list[Text] = []
        for d in items[:max_per_file]:
            text = Text(f"{d.line}:{d.column} " if d.line else "")
            text.append(d.severity, style=_STYLE.get(d.severity, ""))
            text.append(f": {d.message}")
            lines.append(text)
            lines.extend(Text(f"    {n}", style="dim") for n in d.notes[:4])
        if len(items) > max_per_file:
            lines.append(Text(f"... {len(items) - max_per_file} more", style="dim"))
        console.print(Panel(Group(*lines), title=file, title_align="left", expand=False))
