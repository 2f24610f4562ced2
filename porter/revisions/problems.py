"""Problems of a port in the user's terms, and which of them a change introduced (pure).

A `Problem` is a build error, an identifier porter left untranslated, or a hazard still open in the port, placed
on the CUDA source file and line it comes from. `new_problems` keeps the head's problems that the base did not
have: a problem is old when the base has the same one (same file, same kind, same message) on the line the head's
line was before the change; a problem on a line the change touched is new unless the base had it on that very
line.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace

from porter.build import Diagnostic
from porter.revisions.ports import ConvertedTree, LineMap

SEVERITY_RANK = {"error": 3, "warning": 2, "note": 1}
KIND_TITLES = {"build": "HIP build error", "untranslated": "not translated to HIP", "hazard": "porting hazard"}
_LOCATION = re.compile(r"(?:[\w./-]+)?:\d+(?::\d+)?")
_SUBJECT = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Problem:
    kind: str  # build | untranslated | hazard
    file: str  # the source file, relative to the repository's top ('' when the compiler named none)
    line: int  # 1-based; 0 when unknown
    column: int
    severity: str  # error | warning | note
    rule: str  # a hazard's rule id (PL002), else "build-error" / "untranslated"
    message: str
    fix: str = ""
    targets: tuple[str, ...] = ()
    changed_line: bool = False  # on a line the change added or modified
    port_file: str = ""  # where porter's output has it, when that is not `file` (another name, a shim)

    @property
    def rank(self) -> int:
        return SEVERITY_RANK.get(self.severity, 0)

    @property
    def title(self) -> str:
        return KIND_TITLES[self.kind] + (f" {self.rule}" if self.kind == "hazard" else "")

    @property
    def identity(self) -> tuple:
        """What stays the same when the code around a problem moves."""
        if self.kind == "build":
            return (self.kind, self.file, _LOCATION.sub("", self.message))
        return (self.kind, self.file, self.rule, self.message)

    def location(self) -> str:
        if not self.file:
            return "(no file)"
        return f"{self.file}:{self.line}" if self.line else self.file

    def as_dict(self) -> dict:
        return {"kind": self.kind, "file": self.file, "line": self.line, "column": self.column,
                "severity": self.severity, "rule": self.rule, "message": self.message, "fix": self.fix,
                "targets": list(self.targets), "changed_line": self.changed_line, "port_file": self.port_file}


@dataclass
class Side:
    """One revision's port, for the files a change touched: where each problem is, in source terms."""

    tree: ConvertedTree
    prefix: str  # the scope's path inside the repository ('' for the top), prepended to file names
    problems: list[Problem] = field(default_factory=list)
    _maps: dict[str, LineMap] = field(default_factory=dict)

    def repo_path(self, rel: str) -> str:
        return f"{self.prefix}/{rel}" if self.prefix else rel

    def _source_line(self, source: str, output: str, line: int) -> int:
        """An output line as the source file's line (porter adds shim includes, so they can differ)."""
        if line <= 0:
            return line
        if source not in self._maps:
            try:
                src = (self.tree.source_root / source).read_bytes()
                out = (self.tree.root / output).read_bytes()
            except OSError:
                return line
            self._maps[source] = LineMap(src, out)
        return self._maps[source].nearest_old_line(line)

    def place(self, output: str, line: int) -> tuple[str, int, str]:
        """(repository path of the source, source line, the port's file when it is not the source's name)."""
        source = self.tree.source_of(output)
        if source is None:  # a shim porter copied, or a path outside the tree
            return (self.repo_path(output) if output and not output.startswith("/") else output), line, output
        shown = output if output != source else ""
        return self.repo_path(source), self._source_line(source, output, line), shown

    def add_build_errors(self, errors: list[Diagnostic], target: str) -> None:
        """Errors of a build of the port as it is now (the build may have edited it since the conversion)."""
        self._maps.clear()
        for e in errors:
            if e.severity not in ("error", "fatal"):
                continue
            file, line, port_file = self.place(e.file or "", e.line)
            self.problems.append(Problem("build", file, line, e.column, "error", "build-error", e.message,
                                         targets=(target,), port_file=port_file))

    def add_conversion_facts(self, sources: set[str], target: str) -> None:
        """Untranslated identifiers and open hazards of the changed `sources` (scope-relative names)."""
        for source in sorted(sources & set(self.tree.unconverted)):
            for u in self.tree.unconverted[source]:
                why = f"{u['reason']}: {u['detail']}" if u.get("detail") else u["reason"]
                self.problems.append(Problem("untranslated", self.repo_path(source), u["line"], u["column"], "error",
                                             "untranslated", f"`{u['name']}` was left untranslated ({why})",
                                             targets=(target,)))
        outputs = {self.tree.outputs[s]: s for s in sources if s in self.tree.outputs}
        left = {(self.repo_path(s), u["line"], u["name"]) for s in sources for u in self.tree.unconverted.get(s, [])}
        for f in self.tree.findings:
            if f["file"] not in outputs:
                continue
            source = f.get("source") or outputs[f["file"]]
            file, line = self.repo_path(source), int(f.get("source_line", f["line"]))
            port_file = f["file"] if f["file"] != source else ""
            if f.get("category") == "unsupported-api" and (file, line, _subject(f["message"])) in left:
                continue  # the same identifier is reported as untranslated: once is enough
            self.problems.append(Problem("hazard", file, line, int(f["column"]), f["severity"], f["rule"],
                                         f["message"], f.get("fix", ""), targets=(target,), port_file=port_file))


def _subject(message: str) -> str:
    """The identifier a hazard message names first (`name` in backticks)."""
    m = _SUBJECT.search(message)
    return m.group(1) if m else ""


def new_problems(base: list[Problem], head: list[Problem], line_maps: dict[str, LineMap]) -> list[Problem]:
    """The head's problems the base did not have. `line_maps[file]` maps the head's lines of a changed file (by
    repository path) to the base's; a file without one is unchanged."""
    at_line: dict[tuple, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    pool: dict[tuple, int] = defaultdict(int)
    for p in base:
        at_line[p.identity][p.line] += 1
        pool[p.identity] += 1
    fresh: list[Problem] = []
    leftover: list[Problem] = []
    for p in head:
        lm = line_maps.get(p.file)
        changed = lm is not None and p.line in lm.changed
        before = p.line if lm is None else lm.old_line(p.line) if p.line > 0 else 0
        p = replace(p, changed_line=changed)
        lines = at_line[p.identity]
        if before is not None and lines.get(before, 0) > 0:
            lines[before] -= 1
            pool[p.identity] -= 1
        elif changed:
            fresh.append(p)
        else:
            leftover.append(p)
    for p in leftover:  # not on a changed line, and not where the base had it: the same problem moved, or a new one
        if pool[p.identity] > 0:
            pool[p.identity] -= 1
        else:
            fresh.append(p)
    return sorted(fresh, key=lambda p: (p.file, p.line, p.column, p.kind, p.rule))


def merge_targets(per_target: list[list[Problem]]) -> list[Problem]:
    """One problem per place and message, with every target that has it."""
    merged: dict[tuple, Problem] = {}
    for problems in per_target:
        for p in problems:
            key = (p.kind, p.file, p.line, p.column, p.rule, p.message)
            if key in merged:
                have = merged[key]
                merged[key] = replace(have, targets=tuple(dict.fromkeys(have.targets + p.targets)),
                                      changed_line=have.changed_line or p.changed_line)
            else:
                merged[key] = p
    return sorted(merged.values(), key=lambda p: (p.file, p.line, p.column, p.kind, p.rule))


def at_or_above(problems: list[Problem], fail_on: str) -> list[Problem]:
    if fail_on == "never":
        return []
    threshold = SEVERITY_RANK[fail_on]
    return [p for p in problems if p.rank >= threshold]


def from_findings(findings: list, prefix: str = "", changed: dict[str, set[int]] | None = None) -> list[Problem]:
    """Hazard findings of `porter scan` (scope-relative files) as problems."""
    out = []
    for f in findings:
        file = f"{prefix}/{f.file}" if prefix else f.file
        out.append(Problem("hazard", file, f.line, f.column, f.severity, f.rule, f.message, f.fix,
                           changed_line=bool(changed and f.line in changed.get(file, set()))))
    return out
