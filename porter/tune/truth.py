"""The model against ground truth: the compiler's own occupancy remark for a corpus of kernels.

`agreement(toolchain, arch, corpus)` compiles the corpus (tests/data/tune/corpus/corpus.hip: 32 kernels, or 34-35
where the arch's LDS holds the large ones, each instantiated with `__launch_bounds__(B)` for B = 64..1024) and
compares, for every instantiation, the model's waves per SIMD in the compiler's convention with the remark's
"Occupancy [waves/SIMD]", and counts where the hardware view differs (whole workgroups, LDS granules; see
porter/tune/model.py). Used by the ground-truth test and by bench/tune_agreement.py.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from porter.build import Toolchain
from porter.targets import all_targets
from porter.tune.model import Convention, amd_chip, amd_occupancy, compiler_convention
from porter.tune.usage import REMARK_FLAG, clang_major, parse_amd_remarks

_INSTANCE = re.compile(r"^_Z\d+(?P<name>tune_\w+?)ILi(?P<block>\d+)EE")


@dataclass
class Agreement:
    arch: str
    toolchain: str
    convention: Convention
    total: int = 0
    equal: int = 0
    hardware_differs: int = 0
    # why the hardware view differs from the remark: the compiler's convention (clang 21: the best block size up
    # to the bound; clang 15: waves per CU clamped to the per-SIMD maximum), waves that do not spread evenly over
    # the SIMDs (the remark rounds up), or whole workgroups / LDS granules
    differs_by: dict[str, int] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)  # "kernel<B>: model X, compiler Y"
    kernels: int = 0
    error: str | None = None

    @property
    def rate(self) -> float:
        return self.equal / self.total if self.total else 0.0


def corpus_flags(arch: str) -> list[str]:
    """The large-LDS kernels where the arch holds them (64 KiB static LDS: all CDNA; 160 KiB: gfx950)."""
    lds = all_targets()[arch].lds_per_workgroup_kib
    return ["-DTUNE_LDS_64K"] + (["-DTUNE_LDS_160K"] if lds >= 160 else [])


def agreement(toolchain: Toolchain, arch: str, corpus: Path, quick: bool = False,
              workdir: Path | None = None) -> Agreement:
    """Compile `corpus` (corpus.hip and kernels.inc) for `arch` and compare every instantiation."""
    major = clang_major(toolchain)
    convention = compiler_convention(major)
    result = Agreement(arch, toolchain.describe + (f", clang {major}" if major else ""), convention)
    chip = amd_chip(all_targets()[arch])
    with tempfile.TemporaryDirectory(prefix="porter-tune-truth-", dir=workdir) as tmp:
        work = Path(tmp)
        for name in ("corpus.hip", "kernels.inc"):
            (work / name).write_bytes((corpus / name).read_bytes())
        cmd = [str(toolchain.hipcc), f"--offload-arch={arch}", "--cuda-device-only", "-c", REMARK_FLAG,
               *corpus_flags(arch), *(["-DTUNE_QUICK"] if quick else []), "corpus.hip", "-o", os.devnull]
        try:
            proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=1800, check=False,
                                  env=dict(os.environ, HIP_PLATFORM="amd"))
        except (OSError, subprocess.TimeoutExpired) as exc:
            result.error = str(exc)
            return result
    if proc.returncode != 0:
        result.error = (proc.stderr or proc.stdout).strip()[-2000:]
        return result
    names = set()
    for usage in parse_amd_remarks(proc.stdout + proc.stderr):
        m = _INSTANCE.match(usage.symbol)
        if m is None or usage.usage.compiler_occupancy is None:
            continue
        names.add(m.group("name"))
        block = int(m.group("block"))
        predicted = amd_occupancy(chip, usage.usage, block, convention=convention).waves_per_simd
        hardware = amd_occupancy(chip, usage.usage, block).waves_per_simd
        result.total += 1
        if predicted == usage.usage.compiler_occupancy:
            result.equal += 1
        else:
            result.mismatches.append(f"{m.group('name')}<{block}>: model {predicted:g}, compiler "
                                     f"{usage.usage.compiler_occupancy} ({usage.usage})")
        if hardware != usage.usage.compiler_occupancy:
            result.hardware_differs += 1
            flat = amd_occupancy(chip, usage.usage, block, convention=Convention.LLVM16).waves_per_simd
            if flat != usage.usage.compiler_occupancy:
                why = "compiler convention"
            elif hardware != int(hardware) and math.ceil(hardware) == flat:
                why = "uneven spread"
            else:
                why = "whole workgroups or LDS granules"
            result.differs_by[why] = result.differs_by.get(why, 0) + 1
    result.kernels = len(names)
    return result
