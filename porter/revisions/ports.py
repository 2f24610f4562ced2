"""Porter's conversion of one revision's files, and what it says about each file (kept as JSON for the caches).

A `ConvertedTree` is an output tree written by `porter convert` with the build left out, plus the facts the
comparison and the merge need: which output each source became, the identifiers left untranslated (source
lines) and the hazards still open in the output (output lines).
"""

from __future__ import annotations

import difflib
import io
import json
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from porter.config import PortConfig
from porter.files import atomic_write


@dataclass
class ConvertedTree:
    source_root: Path  # the files that were converted
    root: Path  # porter's output tree
    outputs: dict[str, str] = field(default_factory=dict)  # source rel -> output rel (every file written)
    kinds: dict[str, str] = field(default_factory=dict)  # source rel -> source | build | other | symlink
    statuses: dict[str, str] = field(default_factory=dict)  # source rel -> translated | unchanged | copied
    unconverted: dict[str, list[dict]] = field(default_factory=dict)  # source rel -> leftovers (source lines)
    findings: list[dict] = field(default_factory=list)  # hazards still open, in output paths and lines
    failed: dict[str, str] = field(default_factory=dict)  # source rel -> why it could not be converted

    def source_of(self, output: str) -> str | None:
        for src, out in self.outputs.items():
            if out == output:
                return src
        return None

    def as_dict(self) -> dict:
        return {"source_root": str(self.source_root), "root": str(self.root), "outputs": self.outputs,
                "kinds": self.kinds, "statuses": self.statuses, "unconverted": self.unconverted,
                "findings": self.findings, "failed": self.failed}

    @classmethod
    def from_dict(cls, data: dict) -> ConvertedTree:
        return cls(Path(data["source_root"]), Path(data["root"]), dict(data["outputs"]), dict(data["kinds"]),
                   dict(data["statuses"]), {k: list(v) for k, v in data["unconverted"].items()},
                   list(data["findings"]), dict(data.get("failed", {})))

    def save(self, path: Path) -> None:
        atomic_write(path, json.dumps(self.as_dict(), indent=1).encode() + b"\n")

    @classmethod
    def load(cls, path: Path) -> ConvertedTree:
        return cls.from_dict(json.loads(path.read_text("utf-8")))


def convert_tree(source: Path, output: Path, config: PortConfig, rename: bool = False, jobs: int = 0,
                 console: Console | None = None) -> ConvertedTree:
    """`porter convert SOURCE -o OUTPUT --no-build` with `config`'s options; the summary goes to `console` (quiet
    by default). Raises PorterInputError as convert does."""
    from dataclasses import replace

    from porter.convert import ConvertRequest, convert
    from porter.files import WriteMode

    request = ConvertRequest(source.resolve(), output.resolve(), WriteMode.WRITE, replace(config, build=False),
                             rename=rename, jobs=jobs)
    report = convert(request, console or Console(file=io.StringIO(), width=200))
    tree = ConvertedTree(source.resolve(), output.resolve(), findings=list(report.findings))
    for f in report.files:
        if f.status == "failed":
            tree.failed[f.path] = f.error or "failed"
            continue
        tree.outputs[f.path] = f.output
        tree.kinds[f.path] = f.kind
        tree.statuses[f.path] = f.status
        if f.unconverted:
            tree.unconverted[f.path] = [{"name": u.name, "line": u.line, "column": u.column, "reason": str(u.reason),
                                         "detail": u.detail} for u in f.unconverted]
    _place_findings(tree)
    return tree


def _place_findings(tree: ConvertedTree) -> None:
    """Each open hazard's source file and line, fixed now: a later build (shims, rule fixers) edits the output."""
    sources = {out: src for src, out in tree.outputs.items()}
    maps: dict[str, LineMap] = {}
    for f in tree.findings:
        source = sources.get(f["file"])
        f["source"] = source
        if source is None:
            f["source_line"] = f["line"]
            continue
        if source not in maps:
            try:
                maps[source] = LineMap((tree.source_root / source).read_bytes(), (tree.root / f["file"]).read_bytes())
            except OSError:
                f["source_line"] = f["line"]
                continue
        f["source_line"] = maps[source].nearest_old_line(int(f["line"]))


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines()


class LineMap:
    """Lines of one version of a file, as lines of another: equal lines map exactly, a rewritten block maps line by
    line from its start, and lines only the new version has map to the old line where they were inserted."""

    def __init__(self, old: bytes, new: bytes) -> None:
        self.starts: list[int] = []  # new-side block starts (0-based), sorted
        self.blocks: list[tuple[str, int, int, int, int]] = []
        matcher = difflib.SequenceMatcher(None, _lines(old), _lines(new), autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            self.starts.append(j1)
            self.blocks.append((tag, i1, i2, j1, j2))
        self.changed = {j + 1 for tag, _, _, j1, j2 in self.blocks if tag != "equal" for j in range(j1, j2)}

    def old_line(self, new_line: int) -> int | None:
        """The old version's line (1-based) for a new version's line; None when the new line is one it added."""
        if not self.blocks:
            return new_line
        index = max(0, bisect_right(self.starts, new_line - 1) - 1)
        tag, i1, i2, j1, _ = self.blocks[index]
        offset = new_line - 1 - j1
        if tag == "equal":
            return i1 + offset + 1
        if tag == "insert" or i1 == i2:
            return None
        return min(i1 + offset, i2 - 1) + 1

    def nearest_old_line(self, new_line: int) -> int:
        """Like old_line, but a line only the new version has maps to the old line before it (at least 1)."""
        found = self.old_line(new_line)
        if found is not None:
            return found
        index = max(0, bisect_right(self.starts, new_line - 1) - 1)
        return max(1, self.blocks[index][1])
