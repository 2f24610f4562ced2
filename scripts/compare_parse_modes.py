"""Translate every C/C++/CUDA file under the given directories twice — parsing only the pieces that need the grammar
(the default) and parsing whole files (`full_parse`) — and report every file where output, conversions or leftovers
differ. Exit 1 when any does.

Usage: python scripts/compare_parse_modes.py [--hip] DIR [DIR...]
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import sys
import time
from pathlib import Path

from porter.translate.core import translate
from porter.translate.mapping import load_api_map
from porter.translate.options import LaunchSyntax, TranslateOptions

SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".inl", ".hxx", ".cxx", ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--hip", action="store_true", help="rewrite launches to hipLaunchKernelGGL")
    args = parser.parse_args()
    api_map = load_api_map()
    pieces = TranslateOptions(launch_syntax=LaunchSyntax.HIP if args.hip else LaunchSyntax.CHEVRON)
    whole = dataclasses.replace(pieces, full_parse=True)
    files = differ = 0
    seconds = {"pieces": 0.0, "whole": 0.0}
    for root in args.roots:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.suffix not in SUFFIXES:
                continue
            source = path.read_bytes()
            if b"\0" in source[:4096]:
                continue  # binary
            files += 1
            results = {}
            for name, options in (("pieces", pieces), ("whole", whole)):
                started = time.perf_counter()
                results[name] = translate(source, options, api_map)
                seconds[name] += time.perf_counter() - started
            a, b = results["pieces"], results["whole"]
            if (a.output, a.conversions, a.unconverted) == (b.output, b.conversions, b.unconverted):
                continue
            differ += 1
            print(f"DIFFERS: {path}")
            if a.output != b.output:
                lines = difflib.unified_diff(b.output.decode("utf-8", "replace").splitlines(True),
                                             a.output.decode("utf-8", "replace").splitlines(True), "whole", "pieces", n=0)
                sys.stdout.writelines(list(lines)[:20])
            for label, x, y in (("conversions", a.conversions, b.conversions), ("leftovers", a.unconverted, b.unconverted)):
                if x != y:
                    print(f"  {label} only with pieces: {sorted(set(x) - set(y), key=str)[:4]}")
                    print(f"  {label} only whole: {sorted(set(y) - set(x), key=str)[:4]}")
    print(f"{files} files, {differ} differ; pieces {seconds['pieces']:.1f} s, whole {seconds['whole']:.1f} s")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
