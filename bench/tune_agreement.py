"""How often porter tune's occupancy model agrees with the ground truth it can be checked against.

Usage: python bench/tune_agreement.py [--quick] [--arch gfx90a --arch gfx942 ...]

1. The compiler: the corpus (tests/data/tune/corpus, 32 kernels + the large-LDS ones the arch holds, each with
   `__launch_bounds__(B)` for B = 64, 128, ..., 1024) compiled by every hipcc porter finds (the one on PATH, and
   PORTER_HIPCC: ROCm 6.4's for gfx942/gfx950) for each arch it accepts; the model's waves per SIMD in that
   compiler's convention against its "Occupancy [waves/SIMD]" remark, and how often the hardware view differs.
2. The CUDA runtime: the H200 record (tests/data/tune/h200_occupancy.json, from scripts/tune_h200_occupancy.py):
   the sm_90 model from ptxas -v usage against cudaOccupancyMaxActiveBlocksPerMultiprocessor.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

import porter.build
from porter.build import accepted_arches
from porter.tune import NvidiaUsage, agreement, nvidia_chip, nvidia_occupancy

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "tune" / "corpus"
H200 = ROOT / "tests" / "data" / "tune" / "h200_occupancy.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="7 block sizes instead of 16 (what the tests use)")
    parser.add_argument("--arch", action="append", help="only these arches (default gfx90a, gfx942, gfx950)")
    args = parser.parse_args()
    arches = args.arch or ["gfx90a", "gfx942", "gfx950"]
    console = Console()
    table = Table(title="model vs the compiler's occupancy remark", title_justify="left", show_edge=False)
    for column in ("arch", "toolchain", "convention", "kernels", "instantiations", "agree", "rate",
                   "hardware view differs", "seconds"):
        table.add_column(column)
    toolchains = porter.build.find_toolchains()  # PORTER_HIPCC's, the system's, the installed ones
    done: set[str] = set()
    for tc in toolchains:
        accepted = accepted_arches(tc, arches)
        for arch in arches:
            if not accepted.get(arch) or arch in done:
                continue
            done.add(arch)
            start = time.perf_counter()
            result = agreement(tc, arch, CORPUS, quick=args.quick)
            seconds = time.perf_counter() - start
            if result.error:
                console.print(f"{arch}: {result.error}")
                continue
            table.add_row(arch, result.toolchain, result.convention.value, str(result.kernels), str(result.total),
                          str(result.equal), f"{100 * result.rate:.1f}%", str(result.hardware_differs),
                          f"{seconds:.0f}")
            console.print(f"{arch}: hardware view differs from the remark for {result.hardware_differs}: "
                          + ", ".join(f"{n} {why}" for why, n in sorted(result.differs_by.items())))
            for line in result.mismatches[:10]:
                console.print(f"  {arch} mismatch: {line}")
    for arch in arches:
        if arch not in done:
            table.add_row(arch, "none accepts it", "-", "-", "-", "-", "-", "-", "-")
    console.print(table)

    data = json.loads(H200.read_text("utf-8"))
    rows = [dict(zip(data["columns"], r, strict=True)) for r in data["rows"]]
    chip = nvidia_chip("sm_90")
    agree = sum(1 for r in rows if nvidia_occupancy(chip, NvidiaUsage(r["ptxas_registers"], r["ptxas_smem"]),
                                                    r["block"], r["dynamic_smem"]).blocks_per_cu == r["blocks_per_sm"])
    kernels = len({r["kernel"] for r in rows})
    console.print(f"sm_90 model vs cudaOccupancyMaxActiveBlocksPerMultiprocessor on {data['device']['device']} "
                  f"(CUDA runtime {data['device']['cuda_runtime']}): {agree}/{len(rows)} rows agree "
                  f"({100 * agree / len(rows):.1f}%), {kernels} kernels x 16 block sizes x up to 5 dynamic sizes")


if __name__ == "__main__":
    main()
