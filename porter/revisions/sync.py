"""`porter sync`: carry upstream CUDA changes into an existing port without losing the hand edits made since.

The port in `hip/` was converted from upstream commit A and edited since; upstream moved to commit B. Each file is
merged three ways: base = porter's conversion of A, theirs = porter's conversion of B, ours = the port as it is
(`git merge-file`). Hand edits stay, upstream changes arrive translated, and where both changed the same lines the
file gets standard conflict markers and is listed. Renamed upstream files move in the port (with their hand
edits), new ones arrive converted, deleted ones are reported (and kept: they may hold hand edits). Every file the
sync rewrites or removes is kept as it was under `.porter/sync/<B>/before/`, the manifest's `original` of a synced
file points there (so `porter review` walks what the sync changed), and the fix loop runs on what changed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console

from porter import __version__
from porter.config import PortConfig
from porter.files import STATE_DIR, atomic_write
from porter.revisions.git import GitError, Scope, changes_between, commit_of, export_commit, scope_of
from porter.revisions.merge import merge_three
from porter.revisions.ports import ConvertedTree, convert_tree
from porter.translate import LaunchSyntax, RocmVersion

SHIM_DIR = "porter_shims"  # shims porter copies into a port (porter.fix.OUT_DIRNAME)


class SyncError(RuntimeError):
    """The sync cannot run (no manifest, not a git source, unknown commits): one line, exit 2."""


@dataclass
class SyncRequest:
    port: Path
    from_ref: str | None = None  # default: the commit the manifest records
    to_ref: str | None = None  # default: the source's HEAD
    source: Path | None = None  # the CUDA tree (default: where the manifest says it was converted from)
    config: PortConfig | None = None  # the fix loop's settings (target and conversion options come from the manifest)
    prune: bool = False  # remove port files whose upstream file was deleted, when they hold no hand edits
    jobs: int = 0


@dataclass
class SyncOutcome:
    from_commit: str
    to_commit: str
    merged: list[str] = field(default_factory=list)  # upstream changes applied (hand edits, if any, kept)
    conflicts: dict[str, int] = field(default_factory=dict)  # port file -> conflicting hunks (markers written)
    added: list[str] = field(default_factory=list)  # new upstream files, converted
    renamed: dict[str, str] = field(default_factory=dict)  # old port file -> new port file
    deleted_upstream: list[str] = field(default_factory=list)  # port files whose upstream source is gone (kept)
    removed: list[str] = field(default_factory=list)  # of those, removed with --prune (no hand edits)
    skipped: dict[str, str] = field(default_factory=dict)  # port file -> why the upstream change was not applied
    kept_edits: list[str] = field(default_factory=list)  # merged files where hand edits were kept
    warnings: list[str] = field(default_factory=list)
    fix_loop: dict = field(default_factory=dict)
    backup_dir: str = ""

    @property
    def written(self) -> list[str]:
        return sorted({*self.merged, *self.added, *self.renamed.values(), *self.conflicts})

    @property
    def ok(self) -> bool:
        return not self.conflicts and self.fix_loop.get("ok") is not False

    def as_dict(self) -> dict:
        return {"from": self.from_commit, "to": self.to_commit, "merged": self.merged, "kept_edits": self.kept_edits,
                "conflicts": self.conflicts, "added": self.added, "renamed": self.renamed,
                "deleted_upstream": self.deleted_upstream, "removed": self.removed, "skipped": self.skipped,
                "warnings": self.warnings, "fix_loop": self.fix_loop, "backup_dir": self.backup_dir,
                "porter_version": __version__}


def _manifest(port: Path) -> dict:
    path = port / STATE_DIR / "manifest.json"
    try:
        data = json.loads(path.read_text("utf-8"))
        files = data["files"]
        if not isinstance(files, list):
            raise TypeError("files is not a list")
    except FileNotFoundError:
        raise SyncError(f"{port} is not a porter port (no {STATE_DIR}/manifest.json): convert it first") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SyncError(f"unreadable manifest {path}: {exc}") from None
    if data.get("in_place"):
        raise SyncError(f"{port} was ported in place: sync needs the port in its own directory beside the CUDA code")
    return data


def _source_scope(request: SyncRequest, manifest: dict) -> Scope:
    revision = manifest.get("source_revision") or {}
    if request.source is not None:
        where = request.source
    elif revision.get("repo") is not None:
        where = Path(revision["repo"]) / revision.get("path", "")
    else:
        where = Path(manifest.get("source_root", ""))
    if where.is_file():
        raise SyncError(f"the port was made from one file ({where}): porter sync works on ports of a tree")
    if not where.is_dir():
        raise SyncError(f"the CUDA source {where} is not a directory (give it with --source)")
    return scope_of(where)


def _config(manifest: dict, base: PortConfig | None) -> tuple[PortConfig, bool, list[str]]:
    """The conversion options the port was made with (the manifest's), over the fix loop's settings."""
    config = base or PortConfig()
    options = manifest.get("options")
    warnings = []
    if not isinstance(options, dict):
        warnings.append("the manifest records no conversion options (a port from an older porter): converting "
                        f"with target {config.target} and the default options")
        return config, False, warnings
    rocm = RocmVersion.parse(options["rocm"]) if options.get("rocm") else config.rocm
    config = replace(config, target=options.get("target") or config.target, rocm=rocm,
                     launch_syntax=LaunchSyntax(options.get("launch_syntax") or config.launch_syntax.value),
                     full_parse=bool(options.get("full_parse", config.full_parse)))
    return config, bool(options.get("rename", False)), warnings


def _version_warnings(manifest: dict) -> list[str]:
    from porter.convert import mapping_version

    made_with = (manifest.get("porter_version"), manifest.get("mapping_version"))
    now = (__version__, mapping_version())
    if made_with == now:
        return []
    return [f"the port was made by porter {made_with[0]} (mapping {made_with[1] or 'unknown'}) and its base is "
            f"converted again by porter {now[0]} (mapping {now[1]}): where they translate differently, the port's "
            "text is kept as if it were a hand edit"]


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None


@dataclass
class _Sync:
    port: Path
    base: ConvertedTree
    theirs: ConvertedTree
    outcome: SyncOutcome
    backup: Path
    labels: tuple[str, str, str]
    entries: dict[str, dict]  # port output -> manifest entry (updated as files move)

    def keep_before(self, out: str) -> Path:
        """The port's file as it was before the sync (first copy wins): what a review compares with."""
        dest = self.backup / "before" / out
        data = _read(self.port / out)
        if data is not None and not dest.exists():
            atomic_write(dest, data, mode_from=self.port / out)
        return dest

    def keep_deleted_original(self, out: str, source: str) -> None:
        """A file deleted upstream keeps its review original: the upstream file as it was at the base."""
        entry = self.entries[out]
        original = Path(entry.get("original", ""))
        if original.is_file() and original.is_relative_to(self.port / STATE_DIR):
            return  # a copy porter keeps (an earlier sync's, or --in-place's backup)
        data = _read(self.base.source_root / source)
        if data is not None:
            snapshot = self.backup / "upstream" / source
            atomic_write(snapshot, data)
            entry["original"] = str(snapshot)

    def write(self, out: str, data: bytes, mode_from: Path | None = None) -> None:
        atomic_write(self.port / out, data, mode_from=mode_from)

    def merge(self, ours_out: str, dest_out: str, source: str, base_data: bytes, theirs_data: bytes,
              mode_from: Path) -> None:
        """Merge one file; the result goes to `dest_out` (another name when upstream renamed it)."""
        ours = _read(self.port / ours_out)
        moved = dest_out != ours_out
        if ours is None:
            if base_data != theirs_data or moved:
                self.outcome.skipped[ours_out] = "removed from the port; its upstream file changed (not restored)"
            return
        if (self.port / dest_out).exists() and moved:
            self.outcome.skipped[ours_out] = f"upstream renamed it to {dest_out}, which the port already has"
            return
        result = merge_three(ours, base_data, theirs_data, self.labels)
        if result.data == ours and not moved:
            return  # nothing upstream changed here, or only what the port already has
        original = self.keep_before(ours_out)
        if result.binary:
            self.outcome.conflicts[dest_out] = 1
            self.outcome.skipped[ours_out] = "binary file changed both upstream and in the port; the port's kept"
            return
        self.write(dest_out, result.data, mode_from=mode_from)
        if moved:
            (self.port / ours_out).unlink()
            self.outcome.renamed[ours_out] = dest_out
            self.entries.pop(ours_out, None)
        if result.conflicts:
            self.outcome.conflicts[dest_out] = result.conflicts
        elif result.data != ours:
            self.outcome.merged.append(dest_out)
            if ours != base_data:
                self.outcome.kept_edits.append(dest_out)
        self.entries[dest_out] = {"output": dest_out, "source": source, "original": str(original),
                                  "status": "translated"}

    def add(self, source: str, out: str) -> None:
        """A new upstream file: porter's conversion of it (merged with a file of that name the port may have)."""
        theirs_data = _read(self.theirs.root / out)
        if theirs_data is None:
            return
        ours = _read(self.port / out)
        upstream = self.backup / "upstream" / source
        atomic_write(upstream, (self.theirs.source_root / source).read_bytes())
        status = self.theirs.statuses.get(source, "translated")
        if ours is not None:
            if ours == theirs_data:
                return
            result = merge_three(ours, b"", theirs_data, self.labels)
            self.keep_before(out)
            if result.binary:
                self.outcome.skipped[out] = "a new upstream file has this name; the port's (binary) file kept"
                return
            self.write(out, result.data)
            if result.conflicts:
                self.outcome.conflicts[out] = result.conflicts
            else:
                self.outcome.added.append(out)
        else:
            self.write(out, theirs_data, mode_from=self.theirs.source_root / source)
            self.outcome.added.append(out)
        self.entries[out] = {"output": out, "source": source, "original": str(upstream),
                             "status": "copied" if self.theirs.kinds.get(source) in ("other", "symlink") else status}


def _port_outputs(manifest: dict) -> dict[str, str]:
    return {f["source"]: f["output"] for f in manifest["files"] if "source" in f and "output" in f}


def sync_port(request: SyncRequest, status: Callable[[str], None] = lambda _: None,
              console: Console | None = None) -> SyncOutcome:
    """Merge upstream's changes from commit A to B into the port; see the module docstring."""
    port = request.port.resolve()
    manifest = _manifest(port)
    try:
        scope = _source_scope(request, manifest)
        recorded = (manifest.get("source_revision") or {}).get("commit")
        if request.from_ref is None and not recorded:
            raise SyncError("the manifest records no source commit (the port was not converted from a git work "
                            "tree, or by an older porter): give the commit it was converted from with --from")
        a = commit_of(scope.top, request.from_ref or recorded)
        b = commit_of(scope.top, request.to_ref or "HEAD")
    except GitError as exc:
        raise SyncError(str(exc)) from None
    config, rename, warnings = _config(manifest, request.config)
    outcome = SyncOutcome(a, b, warnings=warnings + _version_warnings(manifest))
    if (manifest.get("source_revision") or {}).get("dirty") and request.from_ref is None:
        outcome.warnings.append(f"the port was converted from uncommitted changes on top of {a[:12]}: those show "
                                "up as hand edits")
    if a == b:
        outcome.warnings.append(f"nothing to sync: the port is already at {b[:12]}")
        return outcome
    backup = port / STATE_DIR / "sync" / b[:12]
    outcome.backup_dir = str(backup)
    with tempfile.TemporaryDirectory(prefix="porter-sync-") as tmp:
        status(f"converting upstream {a[:12]} (the port's base) and {b[:12]}")
        trees = []
        for name, commit in (("a", a), ("b", b)):
            src = export_commit(scope, commit, Path(tmp) / name / "source")
            trees.append(convert_tree(src, Path(tmp) / name / "port", config, rename=rename, jobs=request.jobs))
        base, theirs = trees
        labels = (f"port ({port.name})", f"porter's conversion of {a[:12]}", f"porter's conversion of {b[:12]}")
        entries = {f["output"]: dict(f) for f in manifest["files"] if "output" in f}
        work = _Sync(port, base, theirs, outcome, backup, labels, entries)
        _merge_files(work, scope, a, b, _port_outputs(manifest), request.prune)
        _merge_shims(work)
        _write_manifest(port, manifest, scope, b, work.entries, outcome)
    status(f"merged {len(outcome.merged)} file(s), {len(outcome.conflicts)} with conflicts, "
           f"{len(outcome.added)} new, {len(outcome.renamed)} renamed")
    if config.build:
        _fix(port, config, outcome, console)
    atomic_write(backup / "report.json", json.dumps(outcome.as_dict(), indent=2).encode() + b"\n")
    return outcome


def _merge_files(work: _Sync, scope: Scope, a: str, b: str, port_outputs: dict[str, str], prune: bool) -> None:
    changes = changes_between(scope, a, b)
    renames = {c.old: c.new for c in changes if c.status == "R" and c.old and c.new}
    base, theirs, outcome = work.base, work.theirs, work.outcome
    paired: set[str] = set()
    for source, base_out in sorted(base.outputs.items()):
        target = renames.get(source, source)
        ours_out = port_outputs.get(source, base_out)
        if target not in theirs.outputs:
            if (work.port / ours_out).exists():
                outcome.deleted_upstream.append(ours_out)
                if prune and _read(work.port / ours_out) == _read(base.root / base_out):
                    work.keep_before(ours_out)
                    (work.port / ours_out).unlink()
                    work.entries.pop(ours_out, None)
                    outcome.removed.append(ours_out)
                elif ours_out in work.entries:
                    work.entries[ours_out]["upstream"] = "deleted"
                    work.keep_deleted_original(ours_out, source)
            continue
        paired.add(target)
        if base.kinds.get(source) == "symlink" or theirs.kinds.get(target) == "symlink":
            continue  # links are recreated by convert; a sync leaves the port's alone
        base_data, theirs_data = _read(base.root / base_out), _read(theirs.root / theirs.outputs[target])
        if base_data is None or theirs_data is None:
            continue
        dest_out = theirs.outputs[target] if target != source else ours_out
        if base_data == theirs_data and dest_out == ours_out:
            continue
        work.merge(ours_out, dest_out, target, base_data, theirs_data, theirs.source_root / target)
    for source, out in sorted(theirs.outputs.items()):
        if source not in paired and theirs.kinds.get(source) != "symlink":
            work.add(source, out)


def _merge_shims(work: _Sync) -> None:
    """Shims porter copies in: porter's own files, updated like any other (the port may have edited them)."""
    folder = work.theirs.root / SHIM_DIR
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        out = f"{SHIM_DIR}/{path.name}"
        theirs_data = path.read_bytes()
        ours = _read(work.port / out)
        base_data = _read(work.base.root / out)
        if ours is None:
            work.write(out, theirs_data)
            continue
        if ours == theirs_data:
            continue
        result = merge_three(ours, base_data if base_data is not None else ours, theirs_data, work.labels)
        if result.data != ours and not result.binary:
            work.keep_before(out)
            work.write(out, result.data)
            if result.conflicts:
                work.outcome.conflicts[out] = result.conflicts


def _write_manifest(port: Path, manifest: dict, scope: Scope, b: str, entries: dict[str, dict],
                    outcome: SyncOutcome) -> None:
    from porter.convert import mapping_version

    updated = dict(manifest)
    updated["files"] = [entries[k] for k in sorted(entries)]
    updated["source_revision"] = {"repo": str(scope.top), "path": scope.path, "commit": b, "dirty": False}
    updated["porter_version"], updated["mapping_version"] = __version__, mapping_version()
    history = list(manifest.get("syncs") or [])
    history.append({"from": outcome.from_commit, "to": b, "merged": len(outcome.merged),
                    "conflicts": sorted(outcome.conflicts), "added": outcome.added, "renamed": outcome.renamed,
                    "deleted_upstream": outcome.deleted_upstream, "backup": outcome.backup_dir})
    updated["syncs"] = history
    atomic_write(port / STATE_DIR / "manifest.json", json.dumps(updated, indent=2).encode() + b"\n")


def _fix(port: Path, config: PortConfig, outcome: SyncOutcome, console: Console | None) -> None:
    """The fix loop on what the sync changed: the written units, and the units that read a written header."""
    from porter.build import BuildCache
    from porter.fix import LoopStatus, run_fix_loop

    clean = [f for f in outcome.written if f not in outcome.conflicts and (port / f).is_file()]
    if not clean:
        outcome.fix_loop = {"status": "skipped", "message": "nothing merged cleanly to build"}
        return
    readers = BuildCache.for_tree(port).units_reading(clean)
    files = sorted({*clean, *readers})
    report: dict = {}
    result = run_fix_loop(port, config, report, files=[port / f for f in files],
                          console=console or Console(stderr=True))
    # no hipcc is a warning, as in convert: the merge happened
    ok = result.status in (LoopStatus.OK, LoopStatus.SKIPPED, LoopStatus.NO_TOOLCHAIN)
    outcome.fix_loop = {"status": str(result.status), "message": result.message, "ok": ok,
                        "files": files, "remaining_errors": report.get("remaining_errors", []),
                        "build": report.get("build")}


def describe(outcome: SyncOutcome) -> list[str]:
    """The summary, one line each, for the terminal."""
    lines = [f"sync {outcome.from_commit[:12]} -> {outcome.to_commit[:12]}: {len(outcome.merged)} merged "
             f"({len(outcome.kept_edits)} with hand edits kept), {len(outcome.added)} new, {len(outcome.renamed)} "
             f"renamed, {len(outcome.conflicts)} with conflicts, {len(outcome.deleted_upstream)} deleted upstream"]
    lines += [f"conflict: {path} ({n} hunk(s) with <<<<<<< markers)" for path, n in sorted(outcome.conflicts.items())]
    lines += [f"renamed: {old} -> {new}" for old, new in sorted(outcome.renamed.items())]
    lines += [f"new: {path}" for path in outcome.added]
    for path in outcome.deleted_upstream:
        fate = "removed (no hand edits; --prune)" if path in outcome.removed else "kept in the port"
        lines.append(f"deleted upstream: {path} ({fate})")
    lines += [f"not applied: {path}: {why}" for path, why in sorted(outcome.skipped.items())]
    lines += [f"warning: {w}" for w in outcome.warnings]
    if outcome.fix_loop:
        lines.append(f"fix loop: {outcome.fix_loop.get('message', outcome.fix_loop.get('status'))}")
    if outcome.backup_dir:
        shown = os.path.relpath(outcome.backup_dir)
        shown = shown if len(shown) < len(outcome.backup_dir) else outcome.backup_dir
        lines.append(f"the port's files as they were: {shown}/before/ (`porter review` walks the changes)")
    return lines
