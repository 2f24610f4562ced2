"""How many post-translation build failures the shims + rule fixers repair, and how many are left for the model.

Usage: python bench/fix_rates.py [--target gfx942] [--cases bench/fix_cases] [--keep DIR]

Each CUDA snippet in bench/fix_cases/ is translated with porter.translate, written as <name>.hip into its own
output tree, and run through porter's fix loop without a model. Needs the local hipcc.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from porter.build.environment import HipccEnvironment
from porter.build.toolchain import choose_compile_arch, detect_toolchain
from porter.config import PortConfig
from porter.fix.loop import LoopStatus, run_fix_loop
from porter.translate.options import LaunchSyntax, TranslateOptions

HERE = Path(__file__).resolve().parent


def translate_case(source: bytes, options: TranslateOptions) -> tuple[bytes, str]:
    try:
        from porter.translate.core import translate
    except ImportError:
        return source, "untranslated (porter.translate missing)"
    return translate(source, options).output, "porter.translate"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="gfx942")
    parser.add_argument("--cases", type=Path, default=HERE / "fix_cases")
    parser.add_argument("--keep", type=Path, help="keep the output trees here")
    args = parser.parse_args()
    out = Console(stderr=True)
    toolchain = detect_toolchain()
    if toolchain is None:
        out.print("hipcc not found: nothing to measure")
        return 2
    options = TranslateOptions(launch_syntax=LaunchSyntax.HIP, rocm=toolchain.rocm, target=args.target)
    config = PortConfig(target=args.target, rocm=toolchain.rocm)
    arch = choose_compile_arch(toolchain, args.target).arch
    work = Path(tempfile.mkdtemp(prefix="porter-fix-rates-")) if args.keep is None else args.keep
    table = Table(title=f"fix rates (hipcc HIP {toolchain.hip_version}, target {args.target})")
    for col in ("case", "errors after translation", "after shims+rules", "rules / shims", "result", "seconds"):
        table.add_column(col)
    totals = {"builds after translation": 0, "fixed by shims/rules": 0, "left for the model": 0}
    quiet = Console(file=open("/dev/null", "w"), no_color=True)  # noqa: SIM115
    for case in sorted(args.cases.glob("*.cu")):
        root = work / case.stem
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        output, how = translate_case(case.read_bytes(), options)
        (root / f"{case.stem}.hip").write_bytes(output)
        start = time.perf_counter()
        initial = len(HipccEnvironment(root, toolchain, arch=arch).build().errors)  # translation alone
        report: dict = {}
        outcome = run_fix_loop(root, config, report, console=quiet)
        seconds = time.perf_counter() - start
        shims = sorted({s for names in report["build"]["shims"].values() for s in names})
        rules = sorted(report["fixers"]["counts"])
        if initial == 0:
            result = "builds after translation"
        elif outcome.status == LoopStatus.OK:
            result = "fixed by shims/rules"
        else:
            result = "left for the model"
        totals[result] += 1
        table.add_row(case.stem, str(initial), str(len(outcome.remaining_errors)), ", ".join(rules + shims) or "-",
                      result, f"{seconds:.1f}")
    Console().print(table)
    failing = totals["fixed by shims/rules"] + totals["left for the model"]
    print(f"{failing} case(s) fail to build after translation alone: {totals['fixed by shims/rules']} fixed by "
          f"shims/rules, {totals['left for the model']} left for the model; "
          f"{totals['builds after translation']} built as translated ({how})")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
