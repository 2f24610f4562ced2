"""One `Report` owns what a conversion did: per-file facts, counts, the JSON report and the exit code."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from porter import __version__
from porter.build import skip_kind

if TYPE_CHECKING:
    from porter.files import ShardSpec
from porter.translate import Conversion, Reason, TranslationResult, Unconverted


def _shown(path: str) -> str:
    """A path as the user would type it: relative to the working directory when that is shorter."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if len(rel) < len(path) else path


def group_conversions(conversions: list[Conversion]) -> dict[tuple[str, str, str], list[int]]:
    grouped: dict[tuple[str, str, str], list[int]] = {}
    for c in conversions:
        grouped.setdefault((c.family, c.cuda, c.hip), []).append(c.line)
    return grouped


@dataclass
class FileReport:
    path: str  # relative to the input root (or the file name for a single file)
    output: str  # relative to the output root
    kind: str  # source | build | other | symlink
    status: str  # translated | unchanged | copied | skipped | failed
    # (family, cuda, hip) -> lines: one row per distinct rewrite, so a file with thousands of them stays small
    conversions: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    unconverted: list[Unconverted] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    @classmethod
    def from_result(cls, path: str, output: str, kind: str, source: bytes, result: TranslationResult) -> FileReport:
        status = "translated" if result.changed(source) else "unchanged"
        return cls(path, output, kind, status, group_conversions(result.conversions), list(result.unconverted),
                   list(result.warnings))

    @classmethod
    def from_dict(cls, data: dict) -> FileReport:
        """A file's entry of a saved report (`porter convert --resume` continues from one)."""
        conversions = {(c["family"], c["cuda"], c["hip"]): list(c["lines"]) for c in data.get("conversions", [])}
        unconverted = [Unconverted(u["name"], u["line"], u["column"], Reason(u["reason"]), u.get("family", ""),
                                   u.get("detail", "")) for u in data.get("not_converted", [])]
        return cls(data["path"], data["output"], data["kind"], data["status"], conversions, unconverted,
                   list(data.get("warnings", [])), data.get("error"))

    def family_counts(self) -> Counter:
        counts: Counter = Counter()
        for (family, _, _), lines in self.conversions.items():
            counts[family] += len(lines)
        return counts

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "output": self.output,
            "kind": self.kind,
            "status": self.status,
            "converted": dict(self.family_counts()),
            "conversions": [{"family": f, "cuda": c, "hip": h, "lines": lines} for (f, c, h), lines in self.conversions.items()],
            "not_converted": [
                {"name": u.name, "line": u.line, "column": u.column, "reason": str(u.reason), "family": u.family, "detail": u.detail}
                for u in self.unconverted
            ],
            "warnings": self.warnings,
            "error": self.error,
        }


def summary_of(files: list[dict], interrupted: bool = False) -> dict:
    """The report's counts, from its per-file records (a merged report computes them the same way)."""
    families: Counter = Counter()
    for f in files:
        families.update(f["converted"])
    return {
        "files": len(files),
        "translated": sum(f["status"] == "translated" for f in files),
        "failed": sum(f["status"] == "failed" for f in files),
        "converted_by_family": dict(sorted(families.items())),
        "not_converted_by_reason": dict(sorted(Counter(u["reason"] for f in files for u in f["not_converted"]).items())),
        "interrupted": interrupted,
    }


@dataclass
class Report:
    source_root: str
    output_root: str | None
    mode: str
    target: str
    rocm: str | None
    written_to: str | None = None  # the file or tree the port went to (None: --diff/--check)
    shard: ShardSpec | None = None  # a --shard run's share
    files: list[FileReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    fix_loop: dict = field(default_factory=dict)  # build / fixers / agent / tests, filled by porter.fix.loop
    findings: list[dict] = field(default_factory=list)  # hazard findings still open in the output
    tuning: list[dict] = field(default_factory=list)  # per launch site: usage and occupancy (porter.tune)
    interrupted: bool = False

    @classmethod
    def from_dict(cls, data: dict) -> Report:
        """A report as `write_json` saved it. Raises KeyError/TypeError/ValueError for one that is not."""
        from porter.files import ShardSpec

        shard = ShardSpec(int(data["shard"]["index"]), int(data["shard"]["count"])) if data.get("shard") else None
        return cls(data["source_root"], data["output_root"], data["mode"], data["target"], data.get("rocm"),
                   written_to=data.get("written_to"), shard=shard, files=[FileReport.from_dict(f) for f in data["files"]],
                   warnings=list(data.get("warnings", [])), fix_loop=dict(data.get("fix_loop") or {}),
                   findings=list(data.get("findings", [])))

    # -- counts ---------------------------------------------------------------------------------------------
    @property
    def changed(self) -> list[FileReport]:
        return [f for f in self.files if f.status == "translated"]

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if f.status == "failed"]

    def family_counts(self) -> Counter:
        return sum((f.family_counts() for f in self.files), Counter())

    def unconverted_counts(self) -> Counter:
        return Counter(str(u.reason) for f in self.files for u in f.unconverted)

    def exit_code(self, check: bool, strict: bool = False) -> int:
        """0 fine; 1 --check found changes, files failed, the build/fix loop left errors, or --strict found leftovers."""
        if self.interrupted or self.failed:
            return 1
        if check and self.changed:
            return 1
        if self.fix_loop.get("ok") is False:
            return 1
        return 1 if strict and any(f.unconverted for f in self.files) else 0

    # -- output ---------------------------------------------------------------------------------------------
    def as_dict(self) -> dict:
        files = [f.as_dict() for f in self.files]
        return {
            "porter_version": __version__,
            "source_root": self.source_root,
            "output_root": self.output_root,
            "written_to": self.written_to,
            "shard": {"index": self.shard.index, "count": self.shard.count} if self.shard else None,
            "mode": self.mode,
            "target": self.target,
            "rocm": self.rocm,
            "summary": summary_of(files, self.interrupted),
            "files": files,
            "warnings": self.warnings,
            "fix_loop": self.fix_loop,
            "findings": self.findings,
            "tuning": self.tuning,
        }

    def write_json(self, path: Path) -> None:
        from porter.files import atomic_write

        atomic_write(path, json_text(self.as_dict(), indent=2, default=str).encode() + b"\n")

    def _render_findings(self, console: Console, max_items: int) -> None:
        """Hazards still open in the port, worst first: what the translation could not make right for the target."""
        rank = {"error": 0, "warning": 1, "note": 2}
        ordered = sorted(self.findings, key=lambda f: (rank.get(f["severity"], 3), f["file"], f["line"]))
        table = Table(show_edge=False, title=f"open hazards for {self.target} ({len(ordered)})", title_justify="left")
        for column in ("where", "rule", "severity", "what"):
            table.add_column(column)
        for f in ordered[:max_items]:
            table.add_row(escape(f"{f['file']}:{f['line']}"), f"{f['rule']} {f['category']}", f["severity"],
                          escape(f["message"]))
        console.print(table)
        if len(ordered) > max_items:
            console.print(f"... and {len(ordered) - max_items} more (see the report; `porter scan` lists them too)")

    def destination_line(self) -> str:
        """The summary's first line: where the port went, in the user's terms."""
        if self.mode == "in-place":
            return f"ported in place: {_shown(self.source_root)} (originals under .porter/backup/)"
        if self.written_to is None:
            return "diff on stdout; nothing written" if self.mode == "diff" else "checked; nothing written"
        return f"port written to {_shown(self.written_to)}"

    def build_line(self) -> str:
        """What the build step did, in counts: compiled, failed and skipped translation units."""
        build = self.fix_loop.get("build") or {}
        if build.get("skipped"):
            return f"build: skipped ({build.get('reason', '')})"
        units = build.get("units")
        where = f"for {build.get('arch')}" + (f" with HIP {build['hip_version']}" if build.get("hip_version") else "")
        if units is None:
            return f"build: `{build.get('command')}` {where}: {'ok' if build.get('ok') else 'failed'}"
        line = f"build {where}: {units['units']} translation unit(s), {units['ok']} ok"
        if units["failed"]:
            line += f", {len(units['failed'])} failed"
        if units["cached"]:
            line += f" ({units['compiled']} compiled, {units['cached']} unchanged since the last build)"
        if units["skipped"]:
            reasons = Counter(map(skip_kind, units["skipped"].values()))
            line += "; skipped " + ", ".join(f"{n} ({reason})" for reason, n in reasons.most_common())
        fixers = self.fix_loop.get("fixers") or {}
        if fixers.get("applied"):
            before = (build.get("units_initial") or {}).get("ok")
            line += f"; rule fixers applied {len(fixers['applied'])} fix(es)"
            if before is not None:
                line += f" ({before} ok before them)"
        return line

    def _render_tasks(self, console: Console, max_items: int) -> None:
        """The agent's tasks, in the order they ran: what each was about and how it ended."""
        agent = self.fix_loop.get("agent") or {}
        tasks = agent.get("tasks") or []
        if not tasks:
            return
        table = Table(show_edge=False, title=f"agent tasks ({len(tasks)})", title_justify="left")
        for column in ("task", "root cause", "errors", "status", "turns", "tokens", "edited"):
            table.add_column(column, justify="right" if column in ("errors", "turns", "tokens") else "left")
        for t in tasks[:max_items]:
            status = t["status"] + (" (earlier run)" if t.get("earlier_run") else "")
            table.add_row(t["id"], escape(t["title"]), str(t["error_count"]), status, f"{t['turns']}/{t['share']}",
                          str(t["tokens"]), escape(", ".join(t["edited_files"][:3])))
        console.print(table)
        for rule in agent.get("suggested_rules") or []:
            console.print(f"suggested rule (review it, then add it to porter/data/fixers.toml): "
                          f"{escape(rule['pattern'])}, seen in {', '.join(rule['seen_in'])}")

    def render_summary(self, console: Console, max_items: int = 40) -> None:
        console.print(escape(self.destination_line()))
        counts = self.family_counts()
        table = Table(title="porter convert", title_justify="left", show_edge=False)
        table.add_column("files", justify="right")
        table.add_column("translated", justify="right")
        table.add_column("unchanged/copied", justify="right")
        table.add_column("failed", justify="right")
        table.add_row(str(len(self.files)), str(len(self.changed)),
                      str(len(self.files) - len(self.changed) - len(self.failed)), str(len(self.failed)))
        console.print(table)
        if self.fix_loop.get("build") is not None:
            console.print(escape(self.build_line()))
        self._render_tasks(console, max_items)
        if counts:
            fam = Table(show_edge=False, title="converted by API family", title_justify="left")
            fam.add_column("family")
            fam.add_column("count", justify="right")
            for family, n in counts.most_common():
                fam.add_row(family, str(n))
            console.print(fam)
        leftovers = [(f, u) for f in self.files for u in f.unconverted]
        if leftovers:
            left = Table(show_edge=False, title=f"not converted ({len(leftovers)})", title_justify="left")
            left.add_column("where")
            left.add_column("identifier")
            left.add_column("why")
            for f, u in leftovers[:max_items]:
                why = f"{u.reason}: {u.detail}" if u.detail else str(u.reason)
                left.add_row(escape(f"{f.path}:{u.line}"), escape(u.name), escape(why))
            console.print(left)
            if len(leftovers) > max_items:
                console.print(f"... and {len(leftovers) - max_items} more (see --report)")
        if self.findings:
            self._render_findings(console, max_items)
        low = [t for t in self.tuning if t.get("occupancy_percent") is not None and t["occupancy_percent"] < 100]
        for t in low[:max_items]:  # porter tune's facts: where the port runs below full occupancy on the target
            console.print(escape(f"occupancy: {t['file']}:{t['line']}: {t['kernel']} {t['occupancy_percent']:.0f}% "
                                 f"on {self.target}, {t['limiter']}-limited (see `porter tune`)"), highlight=False)
        for f in self.files:
            for warning in f.warnings:
                console.print(f"[yellow]warning[/]: {escape(f.path)}: {escape(warning)}")
            if f.error:
                console.print(f"[red]error[/]: {escape(f.error)}")
        for warning in self.warnings:
            console.print(f"[yellow]warning[/]: {escape(warning)}")
        if self.interrupted:
            console.print("[red]interrupted[/]: every file is either as it was or fully converted")


# -- the report as JSON text ------------------------------------------------------------------------------
_float_repr = float.__repr__
_int_repr = int.__repr__


def _json_float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return _float_repr(value)


def _json_key(key: object) -> str:
    """A dict key as json writes it (it turns non-string scalars into strings; other keys are refused)."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _json_float(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return _int_repr(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def json_text(obj: object, indent: int = 2, default: Callable[[object], object] = str) -> str:
    """What json.dumps(obj, indent=indent, default=default) returns (ensure_ascii, no sort_keys, no cycles).

    json formats indented text with its pure-Python encoder (the C one writes only compact text), which made
    writing a convert's report (megabytes of conversions and findings) a sizeable part of a no-build run; this
    joins the same pieces by plain recursion and leaves strings to the C escaper. tests/test_json_text.py holds
    it to json.dumps."""
    out: list[str] = []
    append = out.append
    step = " " * indent
    # per nesting level, the strings between items, made once: millions of pieces share them
    opens: list[tuple[str, str, str, str, str]] = []

    def level_strings(level: int) -> tuple[str, str, str, str, str]:
        while len(opens) <= level:
            n = len(opens)
            inner, outer = "\n" + step * (n + 1), "\n" + step * n
            opens.append(("[" + inner, "{" + inner, "," + inner, outer + "]", outer + "}"))
        return opens[level]

    def encode(value: object, level: int) -> None:
        if isinstance(value, str):
            append(encode_basestring_ascii(value))
        elif value is None:
            append("null")
        elif value is True:
            append("true")
        elif value is False:
            append("false")
        elif isinstance(value, int):
            append(_int_repr(value))
        elif isinstance(value, float):
            append(_json_float(value))
        elif isinstance(value, list | tuple):
            if not value:
                append("[]")
                return
            open_list, _, separator, close_list, _ = level_strings(level)
            append(open_list)
            first = True
            for item in value:
                if first:
                    first = False
                else:
                    append(separator)
                encode(item, level + 1)
            append(close_list)
        elif isinstance(value, dict):
            if not value:
                append("{}")
                return
            _, open_dict, separator, _, close_dict = level_strings(level)
            append(open_dict)
            first = True
            for key, item in value.items():
                if first:
                    first = False
                else:
                    append(separator)
                append(encode_basestring_ascii(_json_key(key)))
                append(": ")
                encode(item, level + 1)
            append(close_dict)
        else:
            encode(default(value), level)

    encode(obj, 0)
    return "".join(out)
