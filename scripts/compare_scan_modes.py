"""Scan every C/C++/CUDA/HIP file under the given directories twice — parsing only the pieces the hazard rules need
(porter.scan.scan_pieces, what `porter convert` uses for the open findings) and parsing whole files
(porter.scan.scan_source) — for several targets and ROCm versions, and report every file where the findings differ.
Exit 1 when any does.

Usage: python scripts/compare_scan_modes.py [--targets gfx942,gfx950,gfx1100] [--rocm 5.2,6.4,none] DIR [DIR...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from porter.scan import scan_pieces, scan_source
from porter.targets import resolve_target
from porter.translate import RocmVersion

SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".inl", ".hxx", ".cxx", ".hip", ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--targets", default="gfx942,gfx950,gfx1100")
    parser.add_argument("--rocm", default="5.2,6.4,none")
    args = parser.parse_args()
    targets = [resolve_target(t) for t in args.targets.split(",")]
    versions = [None if v == "none" else RocmVersion.parse(v) for v in args.rocm.split(",")]
    files = differ = findings = 0
    seconds = {"pieces": 0.0, "whole": 0.0}
    for root in args.roots:
        for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if not path.is_file() or path.suffix not in SUFFIXES or ".porter" in path.parts:
                continue
            source = path.read_bytes()
            if b"\0" in source[:4096]:
                continue  # binary
            files += 1
            for target in targets:
                for rocm in versions:
                    started = time.perf_counter()
                    whole = scan_source(source, str(path), target, rocm)
                    seconds["whole"] += time.perf_counter() - started
                    started = time.perf_counter()
                    pieces = scan_pieces(source, str(path), target, rocm)
                    seconds["pieces"] += time.perf_counter() - started
                    findings += len(whole)
                    if pieces != whole:
                        differ += 1
                        print(f"DIFFERS: {path} ({target.arch}, ROCm {rocm})")
                        print(f"  only whole:  {[(f.line, f.rule) for f in whole if f not in pieces][:6]}")
                        print(f"  only pieces: {[(f.line, f.rule) for f in pieces if f not in whole][:6]}")
    print(f"{files} files x {len(targets)} targets x {len(versions)} ROCm versions, {findings} findings, {differ} differ; "
          f"pieces {seconds['pieces']:.1f} s, whole {seconds['whole']:.1f} s")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
