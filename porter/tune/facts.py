"""Per-kernel facts of a written port, for `porter convert`'s report and the agent's prompt.

`port_facts(out_root, target)` runs the tune pass over the port (hipcc's resource-usage remarks for the target,
nvcc's for the CUDA originals the manifest names, when installed) and returns plain data: one record per launch
site with what the kernel uses, its predicted occupancy and limiter on the target and on the NVIDIA arch, the last
wave's CU usage and the best block size with whether it is safe; and one line of facts per site for the agent.
It never raises for a port that does not compile: what could not be measured is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from porter.targets import resolve_target
from porter.tune.analyze import SiteReport, TuneOptions, TuneReport, analyze
from porter.tune.cli import select_toolchain
from porter.tune.formats import hints
from porter.tune.model import NoModelError
from porter.tune.usage import find_nvcc


@dataclass
class PortFacts:
    sites: list[dict] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    warning: str | None = None


def site_facts(site: SiteReport, report: TuneReport) -> dict:
    u = site.instance.amd if site.instance else None
    nv = site.instance.nvidia if site.instance else None
    occ, q = site.occupancy, site.quantization
    best = site.suggestions[0] if site.suggestions else None
    return {
        "file": site.file, "line": site.line, "kernel": site.launch.kernel, "block": site.launch.block.describe(),
        "grid": site.launch.grid.describe(), "dynamic_lds": site.launch.shmem.describe(),
        "compile_arch": report.compile_arch,
        "vgprs": u.vgprs if u else None, "agprs": u.agprs if u else None, "sgprs": u.sgprs if u else None,
        "lds_bytes": u.lds_bytes if u else None, "scratch_bytes": u.scratch_bytes if u else None,
        "vgpr_spills": u.vgpr_spills if u else None, "compiler_occupancy": u.compiler_occupancy if u else None,
        "occupancy_percent": round(occ.percent, 1) if occ and not occ.error else None,
        "waves_per_simd": round(occ.waves_per_simd, 2) if occ and not occ.error else None,
        "limiter": occ.limiter if occ and not occ.error else None, "error": occ.error if occ else None,
        "nvidia_arch": report.nvidia_chip.arch if nv and report.nvidia_chip else None,
        "nvidia_registers": nv.registers if nv else None,
        "nvidia_occupancy_percent": round(site.nvidia.percent, 1) if site.nvidia and not site.nvidia.error else None,
        "last_wave_share": round(q.last_wave_share, 3) if q else None,
        "suggested_block": best.block if best else None, "suggestion_safe": best.safe if best else None,
    }


def port_facts(out_root: Path, target: str | None, files: list[Path] | None = None, jobs: int = 0,
               toolchain: str | None = None) -> PortFacts:
    """`toolchain`: the spec the port is built with (PortConfig.toolchain)."""
    try:
        profile = resolve_target(target)
        options = TuneOptions(profile, target if target and not target.lower().startswith("gfx") else None,
                              toolchain=select_toolchain(toolchain), nvcc=find_nvcc(), jobs=jobs)
        report = analyze(out_root, options, only=files)
    except NoModelError as exc:
        return PortFacts(warning=str(exc))
    except (OSError, ValueError) as exc:  # ToolchainError is a ValueError
        return PortFacts(warning=f"porter tune: {exc}")
    sites = sorted((site_facts(s, report) for s in report.sites), key=lambda t: (t["file"], t["line"]))
    return PortFacts(sites, hints(report))
