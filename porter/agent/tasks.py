"""Grouping a build's errors into repair tasks, one per root cause (pure: diagnostics and dependency data in).

A task is what one fresh conversation works on:
- a header of the tree and every error clang reported in it, through whichever units include it;
- one message pattern and identifier across several files (one missing shim used in 40 places);
- otherwise the errors of one file (a translation unit).
Headers come first, those included by most units before the others: a header fix removes errors from every unit
that includes it, and the caller rebuilds before planning again, so those errors never reach the model.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from porter.build import HEADER_SUFFIXES, Diagnostic

_QUOTED = re.compile(r"'([^']*)'")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w:]*")
_DID_YOU_MEAN = re.compile(r";\s*did you mean .*$")


@dataclass(frozen=True, eq=False)
class RepairTask:
    key: str  # stable across runs and rebuilds: what --resume and the "already tried" set compare
    kind: str  # "header" | "pattern" | "unit"
    title: str
    errors: tuple[Diagnostic, ...]
    files: tuple[str, ...]  # the files the errors are in: where the fix is expected
    units: tuple[str, ...] | None  # what to compile to check the fix; None: the whole build
    includers: tuple[str, ...] = ()  # header tasks: the units that include the header
    footprint: frozenset[str] = frozenset()  # every tree file its units read, and its files: what it may touch


def signature(diag: Diagnostic) -> tuple[str, str]:
    """An error's identity across edits: where and what, without the line (edits above it move it)."""
    return diag.file, diag.message


def message_pattern(message: str) -> tuple[str, str | None]:
    """(`use of undeclared identifier '…'`, `__reduce_add_sync`): the message with its quoted parts blanked, and
    the first quoted part that is an identifier."""
    text = _DID_YOU_MEAN.sub("", message)
    names = [m for m in _QUOTED.findall(text) if _IDENTIFIER.fullmatch(m)]
    return _QUOTED.sub("'…'", text), (names[0] if names else None)


def is_header(path: str) -> bool:
    return PurePosixPath(path).suffix.lower() in HEADER_SUFFIXES


def _in_tree(path: str) -> bool:
    return bool(path) and not path.startswith(("/", ".."))


def includers_of(dependencies: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """file -> the units that read it (a unit reads itself)."""
    out: dict[str, set[str]] = defaultdict(set)
    for unit, files in dependencies.items():
        out[unit].add(unit)
        for file in files:
            out[file].add(unit)
    return out


def plan_tasks(errors: Iterable[Diagnostic], dependencies: Mapping[str, Iterable[str]],
               skip: Iterable[str] = ()) -> list[RepairTask]:
    """The repair tasks for these errors, in the order they should run; tasks whose key is in `skip` (fixed
    before, or tried in this run already) are left out, and their errors with them."""
    errors = [d for d in errors if d.severity in ("error", "fatal")]
    skipped = set(skip)
    readers = includers_of(dependencies)
    deps = {unit: set(files) | {unit} for unit, files in dependencies.items()}

    by_header: dict[str, list[Diagnostic]] = defaultdict(list)
    rest: list[Diagnostic] = []
    for d in errors:
        (by_header[d.file] if _in_tree(d.file) and is_header(d.file) else rest).append(d)

    by_pattern: dict[tuple[str, str], list[Diagnostic]] = defaultdict(list)
    for d in rest:
        template, name = message_pattern(d.message)
        if name is not None:
            by_pattern[(template, name)].append(d)
    patterns = {k: v for k, v in by_pattern.items() if len({d.file for d in v}) > 1}
    grouped = {id(d) for v in patterns.values() for d in v}
    by_file: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in rest:
        if id(d) not in grouped:
            by_file[d.file].append(d)

    def units_for(files: Iterable[str]) -> tuple[str, ...] | None:
        units = set().union(*(readers.get(f, set()) for f in files))
        return tuple(sorted(units)) if units else None

    def make(key: str, kind: str, title: str, diags: list[Diagnostic], includers: tuple[str, ...] = ()) -> RepairTask:
        files = tuple(dict.fromkeys(d.file for d in diags))
        units = units_for(files)
        footprint = set(files).union(*(deps.get(u, {u}) for u in units or ()))
        return RepairTask(key, kind, title, tuple(diags), files, units, includers, frozenset(footprint))

    headers = []
    for header, diags in by_header.items():
        includers = tuple(sorted(readers.get(header, set())))
        users = f"included by {len(includers)} unit{'s' if len(includers) != 1 else ''}" if includers else "a header"
        headers.append(make(f"header:{header}", "header", f"header {header} ({users})", diags, includers))
    headers.sort(key=lambda t: (-len(t.includers), -len(t.errors), t.key))

    grouped_tasks = []
    for (template, name), diags in patterns.items():
        files = len({d.file for d in diags})
        grouped_tasks.append(make(f"pattern:{template}|{name}", "pattern",
                                  f"`{name}`: {template} (in {files} files)", diags))
    grouped_tasks.sort(key=lambda t: (-len(t.files), t.key))

    units = [make(f"unit:{file}", "unit", f"unit {file or '(no file)'}", diags) for file, diags in by_file.items()]
    units.sort(key=lambda t: t.key)
    return [t for t in (*headers, *grouped_tasks, *units) if t.key not in skipped]


def independent_batch(tasks: list[RepairTask], limit: int) -> list[RepairTask]:
    """The first task, and the following ones (up to `limit` in all) that share no file with those chosen: they
    can run at once. A task that reads a header another chosen task fixes waits for it."""
    if not tasks:
        return []
    chosen = [tasks[0]]
    if tasks[0].units is None:
        return chosen  # a task checked by the whole build is independent of nothing
    used = set(tasks[0].footprint)
    for task in tasks[1:]:
        if len(chosen) >= limit:
            break
        if task.units is not None and used.isdisjoint(task.footprint):
            chosen.append(task)
            used |= task.footprint
    return chosen
