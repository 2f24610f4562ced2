"""`make demo`: convert every bundled example and build the result with hipcc when one is installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "demo-out"


def main() -> int:
    console = Console(stderr=True)
    hipcc = shutil.which("hipcc")
    examples = sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir() and p.name != "ci")
    shutil.rmtree(OUT, ignore_errors=True)
    table = Table(title="porter demo" + ("" if hipcc else " (no hipcc found: translation only)"), title_justify="left")
    for column in ("example", "files translated", "converted", "not converted", "build"):
        table.add_column(column)
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    for example in examples:
        out = OUT / example.name
        args = [sys.executable, "-m", "porter", "convert", str(example), "-o", str(out), "--target", "gfx90a"]
        if not hipcc:
            args.append("--no-build")
        console.print(f"[bold]porter convert examples/{example.name}[/]")
        proc = subprocess.run(args, env=env, capture_output=True, text=True)
        report_file = out / ".porter" / "report.json"
        if not report_file.is_file():
            table.add_row(example.name, "-", "-", "-", f"[red]failed: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        report = json.loads(report_file.read_text())
        summary = report["summary"]
        converted = sum(summary["converted_by_family"].values())
        left = sum(summary["not_converted_by_reason"].values())
        loop = report.get("fix_loop") or {}
        if not hipcc:
            build = "skipped"
        elif loop.get("ok"):
            build = "[green]ok"
        else:
            remaining = loop.get("remaining_errors") or []
            first = remaining[0] if remaining else {}
            detail = first.get("message", "") if isinstance(first, dict) else str(first)
            missing = re.search(r"'([^']+)' file not found", detail)
            if missing and missing.group(1).startswith(("hipblas", "hipfft", "hipcub", "hipsolver", "thrust")):
                build = f"[yellow]needs {missing.group(1)}[/] (not installed here)"
            else:
                build = f"[red]{len(remaining)} error(s)[/] {detail[:70]}"
        table.add_row(example.name, str(summary["translated"]), str(converted), str(left), build)
    console.print(table)
    console.print(f"ported trees are in {OUT.relative_to(ROOT)}/; each has .porter/report.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
