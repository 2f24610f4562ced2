"""Shards: a port split over machines (`porter convert --shard K/N`) and joined again (`porter report merge`).

Every shard translates the whole tree (the units it builds include the others' headers) but builds and fixes only
its share of the translation units (`ShardSpec.owns`, by path). Joining takes each file's record and findings
from the shard that owns it, adds up the build counts, and recomputes what follows from them, so the merged report
reads like the report of one unsharded run. A merged tree takes each file from its owner, or from the shard whose
fix loop edited it; two shards that edited one file differently are a conflict, never a silent pick.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from porter.files import STATE_DIR, PorterInputError, ShardSpec, atomic_write
from porter.report import summary_of


class MergeError(PorterInputError):
    pass


def load_reports(paths: list[Path]) -> list[tuple[Path, dict]]:
    """(output root, report) of each shard, in shard order; every share of one split must be there once."""
    loaded = []
    for path in paths:
        try:
            report = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise MergeError(f"{path}: not a porter report ({exc})") from None
        if not isinstance(report, dict) or not isinstance(report.get("shard"), dict):
            raise MergeError(f"{path}: not the report of a `porter convert --shard K/N` run")
        root = path.parent.parent if path.parent.name == STATE_DIR else Path(report.get("output_root") or path.parent)
        loaded.append((root, report))
    counts = {r["shard"]["count"] for _, r in loaded}
    if len(counts) != 1:
        raise MergeError(f"the reports come from different splits (shard counts {sorted(counts)})")
    count = counts.pop()
    indexes = sorted(r["shard"]["index"] for _, r in loaded)
    if indexes != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(indexes))
        extra = sorted(i for i, n in Counter(indexes).items() if n > 1)
        raise MergeError(f"a split in {count} needs shards 1..{count} once each"
                         + (f"; missing {missing}" if missing else "") + (f"; repeated {extra}" if extra else ""))
    for key in ("target", "rocm", "mode", "porter_version"):
        values = {r.get(key) for _, r in loaded}
        if len(values) > 1:
            raise MergeError(f"the shards disagree on {key}: {sorted(map(str, values))}")
    return sorted(loaded, key=lambda x: x[1]["shard"]["index"])


def _owner(rel: str, count: int) -> int:
    return next(k for k in range(1, count + 1) if ShardSpec(k, count).owns(rel))


def merge_reports(shards: list[tuple[Path, dict]]) -> dict:
    reports = [r for _, r in shards]
    count = len(reports)
    first = reports[0]
    by_index = {r["shard"]["index"]: r for r in reports}
    # every shard translated every file the same way: each record is taken from the file's owner
    owned = {f["output"]: f for r in reports for f in r["files"] if _owner(f["output"], count) == r["shard"]["index"]}
    files = [owned.get(f["output"], f) for f in first["files"]]
    findings = []
    for f in files:
        owner = by_index[_owner(f["output"], count)]
        findings.extend(x for x in owner.get("findings", []) if x.get("file") == f["output"])
    merged = {key: first.get(key) for key in ("porter_version", "source_root", "output_root", "written_to")}
    merged["shard"] = None
    merged.update({key: first.get(key) for key in ("mode", "target", "rocm")})
    merged["summary"] = summary_of(files, any(r["summary"].get("interrupted") for r in reports))
    merged["files"] = files
    merged["warnings"] = list(dict.fromkeys(w for r in reports for w in r.get("warnings", [])))
    merged["fix_loop"] = _merge_fix_loops([r.get("fix_loop") or {} for r in reports])
    merged["findings"] = findings
    # porter tune's launch facts: each shard's for the files it owns
    tuning = [t for f in files for t in by_index[_owner(f["output"], count)].get("tuning", [])
              if t.get("file") == f["output"]]
    merged["tuning"] = sorted(tuning, key=lambda t: (t["file"], t["line"]))
    return merged


def _merge_units(parts: list[dict | None]) -> dict | None:
    units = [u for u in parts if u is not None]
    if not units:
        return None
    return {"units": sum(u["units"] for u in units), "ok": sum(u["ok"] for u in units),
            "failed": sorted(f for u in units for f in u["failed"]),
            "compiled": sum(u["compiled"] for u in units), "cached": sum(u["cached"] for u in units),
            "skipped": dict(sorted(kv for u in units for kv in u["skipped"].items())),
            "headers": max(u["headers"] for u in units)}


def _merge_fix_loops(loops: list[dict]) -> dict:
    from porter.fix import errors_remain

    built = [fl for fl in loops if fl.get("build") and not fl["build"].get("skipped")]
    if not built:
        return loops[0]
    out = dict(built[0])
    build = dict(built[0]["build"])
    # an error in a header that units of two shards include is one error: count the distinct ones
    build["initial_errors"] = sorted({e for fl in built for e in fl["build"].get("initial_errors", [])})
    build["errors_initial"] = len(build["initial_errors"])
    build["units_initial"] = _merge_units([fl["build"].get("units_initial") for fl in built])
    build["units"] = _merge_units([fl["build"].get("units") for fl in built])
    build["ok"] = all(fl["build"].get("ok") for fl in built)
    out["build"] = build
    fixers = [fl.get("fixers") or {} for fl in built]
    # a header fixed by two shards was fixed once, the same way: one record (assemble_tree checks the bytes)
    applied = list({(a["rule"], a["file"], a["line"], a["message"]): a for f in fixers for a in f.get("applied", [])}.values())
    left = sorted({e for f in fixers for e in f.get("errors_left", [])})
    out["fixers"] = {"rounds": max(f.get("rounds", 0) for f in fixers),
                     "applied": sorted(applied, key=lambda r: (r["file"], r["line"], 0, r["rule"], r["message"])),
                     "counts": dict(Counter(a["rule"] for a in applied)),
                     "errors_after": len(left), "errors_left": left}
    agents = [fl["agent"] for fl in built if fl.get("agent") is not None]  # None: that shard needed no agent
    out["agent"] = None if not agents else agents[0] if all(a == agents[0] for a in agents) else {"shards": agents}
    distinct = {(e["file"], e["line"], e["column"], e["severity"], e["message"]): e
                for fl in built for e in fl.get("remaining_errors", [])}
    remaining = sorted(distinct.values(), key=lambda e: (e["file"], e["line"], e["column"], "", e["message"]))
    out["remaining_errors"] = remaining
    explained: dict[str, dict] = {}  # the known limits the merged errors hit (fixers.toml [[explain]])
    for e in remaining:
        if why := e.get("explanation"):
            explained.setdefault(why["id"], {"id": why["id"], "message": why["message"], "errors": 0})["errors"] += 1
    out["explained"] = list(explained.values())
    out["edited"] = sorted({rel for fl in built for rel in fl.get("edited", [])})
    out["ok"] = all(fl.get("ok") for fl in loops)
    statuses = {fl.get("status") for fl in built}
    if statuses == {"ok"}:
        out["status"] = "ok"
        out["message"] = f"build ok: {build['units']['units']} translation unit(s) compile" if build["units"] else "build ok"
    else:
        out["status"] = "limits_hit" if "limits_hit" in statuses else "errors_remain"
        message = errors_remain(len(remaining), len({e["file"] for e in remaining})) if remaining else \
            "build failed (see the build output in the report)"
        # what each failing shard said after its counts (how to let the agent fix them): the same words
        tails = {fl["message"].partition("; ")[2] for fl in built if fl.get("status") != "ok"}
        tail = tails.pop() if len(tails) == 1 else ""
        out["message"] = message + (f"; {tail}" if tail else "")
    return out


def assemble_tree(shards: list[tuple[Path, dict]], dest: Path) -> list[str]:
    """Write the merged port to `dest`: each file from its owner, or from the shard whose fix loop edited it.
    Returns the files written; raises MergeError (writing nothing) when two shards edited a file differently."""
    count = len(shards)
    roots = {r["shard"]["index"]: root for root, r in shards}
    edited: dict[str, list[int]] = {}
    for _, r in shards:
        for rel in (r.get("fix_loop") or {}).get("edited", []):
            edited.setdefault(rel, []).append(r["shard"]["index"])
    for rel, indexes in edited.items():
        versions = {(roots[i] / rel).read_bytes() for i in indexes}
        if len(versions) > 1:
            raise MergeError(f"{rel}: shards {indexes} fixed it differently; merge it by hand or run unsharded")
    first_root = shards[0][0]
    written = []
    for dirpath, dirnames, filenames in os.walk(first_root):
        dirnames[:] = sorted(d for d in dirnames if d != STATE_DIR)
        for name in sorted(filenames) + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            rel = (Path(dirpath) / name).relative_to(first_root).as_posix()
            source_index = edited[rel][0] if rel in edited else _owner(rel, count)
            src = roots[source_index] / rel
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            if src.is_symlink():
                if out.is_symlink() or out.exists():
                    out.unlink()
                out.symlink_to(os.readlink(src))
            elif src.is_file():
                atomic_write(out, src.read_bytes(), mode_from=src)
            written.append(rel)
    manifest = first_root / STATE_DIR / "manifest.json"
    if manifest.is_file():
        data = json.loads(manifest.read_text("utf-8"))
        data["output_root"] = str(dest.resolve())
        atomic_write(dest / STATE_DIR / "manifest.json", json.dumps(data, indent=2).encode() + b"\n")
    return written


def to_sarif(merged: dict) -> dict:
    """The merged findings as SARIF, the way `porter scan --format sarif` writes them."""
    from porter.scan import Finding, ScanResult, to_sarif_dict
    from porter.targets import resolve_target

    result = ScanResult(Path(merged.get("output_root") or "."), resolve_target(merged["target"]),
                        findings=[Finding(**f) for f in merged.get("findings", [])])
    return to_sarif_dict(result)
