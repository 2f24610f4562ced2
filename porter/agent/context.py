"""What one task's fresh conversation starts with: its errors, the code around them, the files involved (the first
lines and the relevant ranges of large ones), the open hazard findings in those files, and the lessons of earlier
tasks. Read from the tree; rendered by prompts/focused_task.md.j2."""

from __future__ import annotations

from pathlib import Path

from porter.agent import feedback
from porter.agent.paths import PathRefused, resolve_inside
from porter.agent.tasks import RepairTask, message_pattern

MAX_ERRORS = 25
MAX_FILES = 6  # files shown with their code; the rest are named
WHOLE_FILE_LINES = 150  # a file up to this long is shown whole
HEAD_LINES = 30  # of a larger file: its first lines (includes, macros, types) ...
AROUND = 8  # ... and this many lines either side of each error
MAX_LINE_CHARS = 300
MAX_CODE_CHARS = 30_000  # all excerpts together
MAX_LESSONS = 6
MAX_LISTED = 12


def _ranges(lines: int, marks: set[int]) -> list[tuple[int, int]]:
    if lines <= WHOLE_FILE_LINES:
        return [(1, lines)] if lines else []
    wanted = [(1, min(HEAD_LINES, lines))] + [(max(1, m - AROUND), min(lines, m + AROUND)) for m in sorted(marks)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(wanted):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _excerpt(lines: list[str], start: int, end: int, marks: set[int]) -> str:
    width = len(str(end))
    out = []
    for number in range(start, end + 1):
        text = lines[number - 1]
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + " [...]"
        out.append(f"{'>' if number in marks else ' '}{number:>{width}} | {text}")
    return "\n".join(out)


def file_view(root: Path, path: str, marks: set[int]) -> dict | None:
    """The file's code as the model sees it first: whole when short, else its head and the ranges around `marks`
    (error lines, marked with `>`). None for a file outside the tree or unreadable."""
    try:
        file = resolve_inside(root, path)
        text = file.read_bytes().decode("utf-8", "replace")
    except (PathRefused, OSError):
        return None
    lines = text.splitlines()
    ranges = _ranges(len(lines), marks)
    excerpts = [{"start": a, "end": b, "text": _excerpt(lines, a, b, marks)} for a, b in ranges]
    return {"path": path, "lines": len(lines), "whole": len(lines) <= WHOLE_FILE_LINES, "excerpts": excerpts}


def focus_view(root: Path, task: RepairTask, findings: list[dict], lessons: list[str]) -> dict:
    """Template variables of prompts/focused_task.md.j2 for `task`. Nothing run-specific (no task number): the
    same task on the same tree asks the same, so the response cache replays a resumed run's earlier turns."""
    marks: dict[str, set[int]] = {}
    for d in task.errors:
        marks.setdefault(d.file, set()).add(d.line)
    files, more_files, size = [], [], 0
    for path in task.files:
        view = file_view(root, path, marks.get(path, set())) if len(files) < MAX_FILES else None
        cost = sum(len(e["text"]) for e in view["excerpts"]) if view else 0
        if view is None or (files and size + cost > MAX_CODE_CHARS):
            more_files.append(path)
            continue
        files.append(view)
        size += cost
    in_files = set(task.files)
    _, name = message_pattern(task.errors[0].message) if task.errors else ("", None)
    return {
        "task_title": task.title,
        "task_kind": task.kind,
        "task_files": list(task.files),
        "identifier": name or "",
        "errors": feedback.format_diagnostics(list(task.errors), MAX_ERRORS),
        "error_count": len(task.errors),
        "files": files,
        "more_files": more_files,
        "includers": list(task.includers[:MAX_LISTED]),
        "more_includers": max(0, len(task.includers) - MAX_LISTED),
        "unit_count": len(task.units) if task.units is not None else 0,
        "findings": [{k: f.get(k, "") for k in ("file", "line", "rule", "category", "severity", "message", "fix")}
                     for f in findings if f.get("file") in in_files][:20],
        "lessons": lessons[-MAX_LESSONS:],
    }
