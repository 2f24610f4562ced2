"""Hazard scanner throughput: `hazard_fix_edits` (on the translator's tree) and `scan_source` (on the output).

These are the two scanner calls `porter convert` makes per file: the fixes during translation, the scan of the
translated output. The corpus is bench/translate_bench.generate's (or --tree DIR); translation and the parse the
translator shares are done up front and not timed. Times are CPU seconds (time.process_time), best of --repeat.
--dump FILE writes every finding (targets gfx942, gfx950, gfx1100; source and output), every fix edit, the
apply_hazard_fixes result and the per-file inventory as JSON: the correctness gate for scanner speed-ups.
Usage: python bench/scan_bench.py [--mb 4] [--tree DIR] [--repeat 3] [--dump FILE] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import hashlib
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from translate_bench import generate

from porter import syntax
from porter.scan import scan_file_with_inventory, scan_source, source_files
from porter.scan.fixes import apply_hazard_fixes, hazard_fix_edits
from porter.targets import resolve_target
from porter.translate.core import translate
from porter.translate.options import RocmVersion, TranslateOptions

TARGETS = ("gfx942", "gfx950", "gfx1100")
ROCM = RocmVersion(7, 0)  # what translate_bench converts with


def load(root: Path) -> list[tuple[str, bytes, bytes]]:
    """(relative path, source, translated output) of every source file under root."""
    options = TranslateOptions(rocm=ROCM, target="gfx942")
    out = []
    for path in source_files(root):
        source = path.read_bytes()
        output = translate(source, options).output
        out.append((path.relative_to(root).as_posix(), source, output))
    return out


def timed(files, repeat: int, profile: bool) -> tuple[float, float, float]:
    target = resolve_target("gfx942")
    trees = [syntax.parse(src) for _, src, _ in files]  # the translator's tree: not the scanner's cost
    best_fix = best_scan = float("inf")
    profiler = cProfile.Profile() if profile else None
    for _ in range(repeat):
        if profiler:
            profiler.enable()
        t0 = time.process_time()
        for (_, src, _), tree in zip(files, trees, strict=True):
            hazard_fix_edits(src, tree, target, ROCM)
        t1 = time.process_time()
        for rel, _, out in files:
            scan_source(out, rel, target, ROCM)
        t2 = time.process_time()
        if profiler:
            profiler.disable()
        best_fix, best_scan = min(best_fix, t1 - t0), min(best_scan, t2 - t1)
    t0 = time.process_time()
    for _, src, _ in files:
        syntax.parse(src)
    parse = time.process_time() - t0
    if profiler:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    return best_fix, best_scan, parse


def _edit(edit) -> dict:
    return dataclasses.asdict(edit)


def dump(files, path: Path) -> None:
    data = {}
    for rel, src, out in files:
        entry: dict = {}
        for arch in TARGETS:
            target = resolve_target(arch)
            tree = syntax.parse(src)
            fixed, conversions = apply_hazard_fixes(src, target, ROCM)
            findings, inventory = scan_file_with_inventory(src, rel, target, None)
            entry[arch] = {
                "fix_edits": [_edit(e) for e in hazard_fix_edits(src, tree, target, ROCM)],
                "fix_edits_rocm52": [
                    _edit(e) for e in hazard_fix_edits(src, tree, target, RocmVersion(5, 2))
                ],
                "applied": hashlib.sha256(fixed).hexdigest(),
                "conversions": [dataclasses.asdict(c) for c in conversions],
                "source_findings": [f.as_dict() for f in findings],
                "output_findings": [f.as_dict() for f in scan_source(out, rel, target, ROCM)],
            }
        entry["inventory"] = {
            k: (sorted(map(list, v.items()), key=str) if hasattr(v, "items") else v)
            for k, v in dataclasses.asdict(inventory).items()
        }
        data[rel] = entry
    path.write_text(json.dumps(data, indent=1, sort_keys=True, default=str) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0)
    parser.add_argument(
        "--tree", type=Path, default=None, help="scan this tree instead of a generated corpus"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dump", type=Path, default=None, help="write every finding and fix edit as JSON")
    parser.add_argument("--no-time", action="store_true", help="only --dump")
    parser.add_argument("--profile", action="store_true", help="cProfile the timed passes (to stderr)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="porter-scan-bench-") as tmp:
        root = args.tree or Path(tmp)
        if args.tree is None:
            generate(root, args.mb)
        files = load(root)
    size = sum(len(src) for _, src, _ in files) / 1e6
    out_size = sum(len(out) for _, _, out in files) / 1e6
    print(f"corpus: {size:.1f} MB in {len(files)} source files (output {out_size:.1f} MB)")
    if args.dump:
        dump(files, args.dump)
        print(f"dump: {args.dump}")
    if args.no_time:
        return
    fix, scan, parse = timed(files, args.repeat, args.profile)
    print(f"hazard_fix_edits: {fix:6.2f} s  {size / fix:6.2f} MB/s")
    print(f"scan_source:      {scan:6.2f} s  {out_size / scan:6.2f} MB/s (parse included)")
    print(f"together:         {fix + scan:6.2f} s  {size / (fix + scan):6.2f} MB/s")
    print(f"parse only:       {parse:6.2f} s  {size / parse:6.2f} MB/s")


if __name__ == "__main__":
    main()
