"""Hazard scanner: what goes wrong when CUDA code (or its HIP port) runs on a given AMD target.

`scan_source` is pure (bytes in, findings out); `scan_tree` walks a directory and adds the inventory.
Rule texts live in porter/data/hazards.toml, detection in porter/scan/detectors.py + porter/queries/hazards.scm.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from porter.scan.context import SourceContext
from porter.scan.detectors import DETECTORS, Hit
from porter.scan.inventory import FileInventory, file_inventory, merge
from porter.scan.rules import SEVERITY_RANK, all_rules, render, target_fields
from porter.targets import TargetProfile
from porter.translate import RocmVersion

SOURCE_SUFFIXES = frozenset(
    {".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl", ".cuinc"}
)
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".porter", "node_modules", "__pycache__", ".venv", "venv", ".tox"}
)
MAX_FILE_BYTES = 4 * 1024 * 1024  # generated amalgamations beyond this are not worth a parse


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    column: int
    rule: str
    category: str
    severity: str
    message: str
    fix: str

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def rank(self) -> int:
        return SEVERITY_RANK[self.severity]


@dataclass
class ScanResult:
    root: Path
    target: TargetProfile
    findings: list[Finding] = field(default_factory=list)
    inventory: dict = field(default_factory=dict)
    files: list[str] = field(default_factory=list)  # scanned, relative to root
    skipped: list[str] = field(default_factory=list)  # unreadable / too large, with the reason

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "note": 0}
        for f in self.findings:
            out[f.severity] += 1
        return out

    def as_dict(self) -> dict:
        return {
            "target": self.target.arch,
            "findings": [f.as_dict() for f in self.findings],
            "inventory": self.inventory,
            "summary": self.counts() | {"files": len(self.files)},
        }


def _findings(
    ctx: SourceContext, path: str, target: TargetProfile, rocm: RocmVersion | None
) -> list[Finding]:
    rules = all_rules()
    base = target_fields(target)
    out: dict[tuple, Finding] = {}
    for detect in DETECTORS:
        for hit in detect(ctx, target, rocm):
            finding = _finding(hit, path, rules, base)
            out.setdefault((finding.line, finding.column, finding.rule), finding)
    return sorted(out.values(), key=lambda f: (f.file, f.line, f.column, f.rule))


def _finding(hit: Hit, path: str, rules: dict, base: dict) -> Finding:
    rule = rules[hit.rule]
    fields = base | hit.fields
    return Finding(
        file=path,
        line=hit.node.start_point.row + 1,
        column=hit.node.start_point.column + 1,
        rule=rule.id,
        category=rule.category,
        severity=hit.severity or rule.severity,
        message=render(rule.message, fields),
        fix=render(rule.fix, fields),
    )


def scan_source(
    source: bytes, path: str, target: TargetProfile, rocm: RocmVersion | None = None
) -> list[Finding]:
    """Hazards of one file for `target` (pure: no I/O)."""
    return _findings(SourceContext(source, path), path, target, rocm)


def scan_file_with_inventory(
    source: bytes, path: str, target: TargetProfile, rocm: RocmVersion | None = None
) -> tuple[list[Finding], FileInventory]:
    ctx = SourceContext(source, path)
    return _findings(ctx, path, target, rocm), file_inventory(ctx)


def is_source(path: Path) -> bool:
    return path.suffix.lower() in SOURCE_SUFFIXES


def source_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        found += [Path(dirpath) / name for name in sorted(filenames) if is_source(Path(name))]
    return found


def _relative(path: Path, root: Path) -> str:
    base = root if root.is_dir() else root.parent
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _locate(path: Path, root: Path) -> Path:
    """Files given to scan_tree may be absolute, relative to root, or relative to the working directory."""
    if path.is_absolute() or not root.is_dir():
        return path
    return root / path if (root / path).exists() else path


def scan_tree(
    root: Path, target: TargetProfile, rocm: RocmVersion | None = None, files: list[Path] | None = None
) -> ScanResult:
    """Scan `root` (a directory or one file), or only `files` under it; paths in the result are relative to root."""
    root = Path(root)
    result = ScanResult(root=root, target=target)
    per_file: dict[str, FileInventory] = {}
    for path in files if files is not None else source_files(root):
        path = _locate(path, root)
        rel = _relative(path, root)
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                result.skipped.append(f"{rel} (larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB)")
                continue
            source = path.read_bytes()
        except OSError as exc:
            result.skipped.append(f"{rel} ({exc.strerror or exc})")
            continue
        findings, inventory = scan_file_with_inventory(source, rel, target, rocm)
        result.findings += findings
        per_file[rel] = inventory
        result.files.append(rel)
    result.findings.sort(key=lambda f: (f.file, f.line, f.column, f.rule))
    result.inventory = merge(per_file)
    return result


__all__ = [
    "Finding", "ScanResult", "all_rules", "apply_hazard_fixes", "check", "fix_trigger_offsets", "hazard_fix_edits",
    "may_need_fix", "scan", "scan_pieces", "scan_source", "scan_translated", "scan_tree", "to_sarif_dict",
]


# Last: the fixes and the commands import the names above. The fixes are what the translator merges as edits.
from porter.scan.cli import check, scan  # noqa: E402
from porter.scan.fixes import apply_hazard_fixes, fix_trigger_offsets, hazard_fix_edits, may_need_fix  # noqa: E402
from porter.scan.formats import to_sarif_dict  # noqa: E402
from porter.scan.pieces import scan_pieces, scan_translated  # noqa: E402
