"""The analytical launch-configuration model: occupancy, its limiter, wave quantization, better block sizes.

Pure arithmetic over machine facts (data: `[<arch>.occupancy]` in porter/data/targets.toml, `[nvidia.<arch>]` in
porter/data/tune.toml) and a kernel's resource usage as the real compiler reports it (porter/tune/usage.py).
Nothing here runs a kernel or needs a GPU.

AMD CDNA (gfx90a, gfx942, gfx950; gfx908 where noted)
-----------------------------------------------------
A compute unit (CU) has `simds_per_cu` = 4 SIMDs, each with `max_waves_per_simd` wave slots (8 on gfx90a, gfx942
and gfx950; 10 on gfx908) and a vector register file of `vgprs_per_simd` = 512 registers per lane. On gfx90a and
later that file is unified: a wave's AGPRs are allocated after its VGPRs, from a multiple of 4 (gfx908 has separate
256-entry VGPR and AGPR files). For a block of B threads and a kernel using V VGPRs, A AGPRs, S SGPRs and L bytes of
LDS (static, from the compiler, plus the launch's dynamic size)::

    waves_per_block  = ceil(B / 64)
    vgprs_per_wave   = round_up(round_up(V, 4) + A, granule)  if A else round_up(V, granule)   (unified file)
                     = round_up(max(V, A), granule)                                            (gfx908)
    waves_by_vgprs   = min(max_waves_per_simd, 512 // vgprs_per_wave)        per SIMD
    waves_by_sgprs   = first row of `sgpr_waves` with S <= limit             per SIMD (80/88/100: 10/9/8, else 7)
    blocks_by_slots  = simds*max_waves // waves_per_block, at most 16 (barriers) unless the block is one wave
    blocks_by_lds    = lds_per_cu // round_up(L, lds_granule)                (L = 0: no limit)

The compiler's view (`Convention.COMPILER`, what `-Rpass-analysis=kernel-resource-usage` prints as "Occupancy
[waves/SIMD]") takes the per-SIMD minimum of the three limits, with the workgroup limits spread evenly over the SIMDs::

    occupancy = min(waves_by_vgprs, waves_by_sgprs,
                    min(max_waves, ceil(min(blocks_by_slots, lds_per_cu // L) * waves_per_block / simds)))

The hardware view (`Convention.HARDWARE`, the default for reports) differs in two ways, both documented:
  1. A workgroup is dispatched whole or not at all ("if there are not enough free registers to accommodate all
     warps of a block, the block can not be scheduled", HIP hardware implementation guide), so the register limit
     is counted in whole blocks: `blocks_by_regs = simds * min(waves_by_vgprs, waves_by_sgprs) // waves_per_block`.
     The compiler reports the per-SIMD register limit even when no whole extra block fits (e.g. 8-wave blocks at
     3 waves/SIMD: the compiler says 3, one block of 8 waves gives 2).
  2. LDS is allocated in granules (COMPUTE_PGM_RSRC2.LDS_SIZE: 128 dwords = 512 bytes on GFX7-GFX11 incl. gfx90a and
     gfx942; 320 dwords = 1280 bytes on gfx950, per LLVM's AMDGPUUsage), which the compiler's occupancy ignores
     (LLVM: "FIXME: We should take into account the LDS allocation granularity"). 13,100 bytes per block fit 5
     times in 64 KiB by bytes but 4 times by granules.
  Waves per CU = blocks * waves_per_block; waves per SIMD = waves per CU / simds (a fraction when a block's waves
  do not spread evenly); occupancy % = waves per CU / (simds * max_waves).

The compiler's own formula changed between LLVM versions, so the compiler convention has three flavours
(`compiler_convention(clang_major)`), each checked against that compiler's remark on the corpus (tests/data/tune):
  - `LLVM15` (clang 15, ROCm 5.x): 40 workgroups per CU (10 waves x 4 SIMDs, whatever the chip), and the LDS term
    is `min(max_waves, groups * waves_per_block)`: waves per CU clamped to the per-SIMD maximum without dividing by
    the SIMD count, so LDS and workgroup limits seldom show. 528 of 528 corpus instantiations agree on gfx90a.
  - `LLVM20` (clang 20+; Debian's ROCm 6.4 is clang 21): AMDGPUSubtarget::getOccupancyWithWorkGroupSizes over the
    flat workgroup sizes [1, B] that HIP's `__launch_bounds__(B)` declares, its larger result: the best any block
    size up to B reaches (448 threads: 4 blocks of 7 waves = 7 per SIMD launched, 8 reported). All corpus
    instantiations agree on gfx942 and gfx950.
  - `LLVM16` (clang 16-19, e.g. ROCm's own amdclang 6.x): the per-SIMD formula above for the one block size B;
    written from LLVM's history, not checked against such a compiler here.
Where the hardware view differs from a remark it is for one of those conventions, waves that do not spread evenly
over the SIMDs (the remark rounds up: 7 blocks of 3 waves are 5.25 waves per SIMD, reported as 6), whole
workgroups or LDS granules; bench/tune_agreement.py counts each.

NVIDIA (sm_80, sm_90) — the CUDA occupancy calculator's model (cuda_occupancy.h, shipped with the CUDA toolkit)::

    warps_per_block  = ceil(B / 32)
    regs_per_warp    = round_up(R * 32, 256)
    blocks_by_regs   = (regs_per_sm / 4 // regs_per_warp) * 4 // warps_per_block   (four sub-partitions)
    smem_per_block   = round_up(static + dynamic + 1024 reserved, 128)
    blocks_by_smem   = smem_per_sm // smem_per_block                 (the default carve-out: all 228 KiB)
    blocks_by_warps  = 64 // warps_per_block;  at most 32 blocks per SM
    blocks           = min(all of these), 0 when R > 255 or smem_per_block exceeds the 227 KiB opt-in limit

Wave quantization: with `r` resident blocks per CU (SM) and `n` CUs, a grid of G blocks runs in ceil(G / (r*n))
waves; the last one holds G mod (r*n) blocks (or a full wave) and keeps min(that, n) CUs busy.

Facts and where they were checked (2026-11):
  - CU counts, wavefront 64, LDS 64 KiB (gfx90a, gfx942) and 160 KiB (gfx950) per CU, VGPR file 512 KiB per CU
    (= 4 SIMDs x 512 registers x 64 lanes x 4 bytes), SGPR file 12.5 KiB per CU (= 4 x 800 SGPRs x 4 bytes), 256 VGPR
    + 256 AccVGPR on MI100: ROCm "GPU hardware specifications" (docs/reference/gpu-specs.rst, ROCm/rocm-docs):
    MI355X/MI350X 256 CUs, MI325X/MI300X 304, MI300A 228, MI250X 220 (110 per GCD), MI250 208 (104 per GCD),
    MI210 104, MI100 120.
  - LDS allocation granularity: LLVM AMDGPUUsage, COMPUTE_PGM_RSRC2 LDS_SIZE ("GFX7-GFX11: roundup(lds-size /
    (128 * 4)); GFX950: roundup(lds-size / (320 * 4))").
  - Wave slots (8 per SIMD on gfx90a and later, 10 before), 4 SIMDs per CU, 16 workgroups per CU for barrier
    resources (none for one-wave workgroups), the unified 512-entry VGPR/AGPR file with granule 8 (gfx908: 256,
    granule 4), the SGPR table, workgroups of at most 1024 threads: LLVM AMDGPUBaseInfo (getMaxWavesPerEU,
    getEUsPerCU, getMaxWorkGroupsPerCU, getTotalNumVGPRs, getVGPRAllocGranule, getMaxFlatWorkGroupSize) and
    GCNSubtarget::getOccupancyWithNumSGPRs; the same numbers the compiler's occupancy remark uses, which the corpus
    test compares against on gfx90a (ROCm 5.2), gfx942 and gfx950 (ROCm 6.4).
  - NVIDIA sm_90 (H100/H200): 132 SMs, 64K 32-bit registers per SM, 255 per thread, 64 warps and 32 blocks per SM,
    228 KiB shared memory per SM with carve-outs of 0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KiB, 227 KiB per
    block: NVIDIA Hopper Tuning Guide (docs.nvidia.com/cuda/hopper-tuning-guide) and the CUDA Programming Guide's
    compute-capability table; allocation units (256 registers per warp, 128 bytes of shared memory), four register
    sub-partitions and the 1 KiB per-block reservation: cuda_occupancy.h. The H200 run recorded in
    tests/data/tune/h200_occupancy.json checks the model against cudaOccupancyMaxActiveBlocksPerMultiprocessor.
"""

from __future__ import annotations

import enum
import functools
import math
import tomllib
from dataclasses import dataclass, field
from importlib import resources

from porter.targets import TargetProfile, all_targets


class Convention(enum.Enum):
    HARDWARE = "hardware"  # whole workgroups, LDS granules: what the chip runs (reports use this)
    LLVM15 = "llvm15"  # clang 15 (ROCm 5.x): the occupancy remark's formula, see the module docstring
    LLVM16 = "llvm16"  # clang 16-19: per-SIMD, one block size (not checked against a compiler here)
    LLVM20 = "llvm20"  # clang 20+ (ROCm 6.4 on Debian: clang 21): over the block sizes 1..B


def compiler_convention(clang_major: int | None) -> Convention:
    """How the compiler of this clang major version computes its occupancy remark."""
    if clang_major is None or clang_major >= 20:
        return Convention.LLVM20
    return Convention.LLVM15 if clang_major <= 15 else Convention.LLVM16


class NoModelError(ValueError):
    """The target has no occupancy facts (no `[<arch>.occupancy]` table)."""


@dataclass(frozen=True)
class AmdChip:
    arch: str
    wave_size: int
    simds_per_cu: int
    max_waves_per_simd: int
    vgprs_per_simd: int
    vgpr_granule: int
    unified_vgpr_agpr: bool
    sgpr_waves: tuple[tuple[int, int], ...]
    lds_per_cu: int
    lds_per_workgroup: int
    lds_granule: int
    max_workgroups_per_cu: int
    max_threads_per_block: int
    cu_count: int
    device: str = ""  # the product whose CU count this is

    @property
    def max_waves_per_cu(self) -> int:
        return self.simds_per_cu * self.max_waves_per_simd

    @property
    def unit(self) -> str:
        return "CU"


@dataclass(frozen=True)
class NvidiaChip:
    arch: str
    names: tuple[str, ...]
    warp_size: int
    sm_count: int
    regs_per_sm: int
    regs_per_block: int
    max_regs_per_thread: int
    reg_alloc_unit: int
    sub_partitions: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    max_threads_per_block: int
    smem_per_sm: int
    smem_per_block: int
    smem_per_block_optin: int
    smem_reserved_per_block: int
    smem_granule: int
    smem_carveouts_kib: tuple[int, ...]

    @property
    def cu_count(self) -> int:
        return self.sm_count

    @property
    def unit(self) -> str:
        return "SM"


@dataclass(frozen=True)
class AmdUsage:
    """What hipcc reports for one kernel on one arch."""

    vgprs: int
    agprs: int = 0
    sgprs: int = 0
    lds_bytes: int = 0  # static LDS per block
    scratch_bytes: int = 0  # per lane
    vgpr_spills: int = 0
    sgpr_spills: int = 0
    compiler_occupancy: int | None = None  # the remark's waves per SIMD


@dataclass(frozen=True)
class NvidiaUsage:
    """What ptxas -v reports for one kernel."""

    registers: int
    smem_bytes: int = 0  # static shared memory per block
    spill_stores: int = 0
    spill_loads: int = 0
    stack_bytes: int = 0


@dataclass(frozen=True)
class Occupancy:
    blocks_per_cu: int  # resident blocks per CU (SM)
    waves_per_cu: int  # resident waves (warps) per CU (SM)
    max_waves_per_cu: int
    waves_per_simd: float  # AMD: waves per SIMD; NVIDIA: warps per SM
    limiter: str  # the resource that binds: "VGPRs", "LDS", "wave slots", ...
    limits: dict[str, int] = field(default_factory=dict)  # blocks per CU each resource allows
    error: str | None = None  # the launch cannot run at all (too much LDS, too many threads)

    @property
    def percent(self) -> float:
        return 100.0 * self.waves_per_cu / self.max_waves_per_cu if self.max_waves_per_cu else 0.0


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


@functools.cache
def _tune_data() -> dict:
    return tomllib.loads(resources.files("porter").joinpath("data/tune.toml").read_text("utf-8"))


def amd_chip(target: TargetProfile, device: str | None = None) -> AmdChip:
    """The occupancy facts of an AMD target; `device` (a product name) picks its CU count per HIP device."""
    facts = target.extra.get("occupancy")
    if not facts:
        raise NoModelError(f"no occupancy model for {target.arch} (porter/data/targets.toml has no [{target.arch}.occupancy])")
    devices = {k.replace(" ", "").lower(): (k, v) for k, v in facts.get("devices", {}).items()}
    key = (device or "").replace(" ", "").lower()
    name, cus = devices.get(key) or next(iter(devices.values()), (target.names[0] if target.names else "", target.cu_count))
    return AmdChip(
        arch=target.arch, wave_size=target.wavefront, simds_per_cu=facts["simds_per_cu"],
        max_waves_per_simd=facts["max_waves_per_simd"], vgprs_per_simd=facts["vgprs_per_simd"],
        vgpr_granule=facts["vgpr_granule"], unified_vgpr_agpr=facts["unified_vgpr_agpr"],
        sgpr_waves=tuple((int(a), int(b)) for a, b in facts["sgpr_waves"]), lds_per_cu=target.lds_per_cu_kib * 1024,
        lds_per_workgroup=target.lds_per_workgroup_kib * 1024, lds_granule=facts["lds_granule_bytes"],
        max_workgroups_per_cu=facts["max_workgroups_per_cu"], max_threads_per_block=target.max_threads_per_block,
        cu_count=cus, device=name,
    )


def amd_chips() -> dict[str, AmdChip]:
    """Every AMD target that has an occupancy model, by arch."""
    return {arch: amd_chip(t) for arch, t in all_targets().items() if t.extra.get("occupancy")}


def nvidia_chip(arch: str = "sm_90") -> NvidiaChip:
    table = _tune_data()["nvidia"]
    if arch not in table:
        raise NoModelError(f"no occupancy model for {arch}; known: {', '.join(table)}")
    row = dict(table[arch])
    row["names"] = tuple(row.get("names", ()))
    row["smem_carveouts_kib"] = tuple(row["smem_carveouts_kib"])
    return NvidiaChip(arch=arch, **row)


def sizeof_table() -> dict[str, int]:
    return {k: int(v) for k, v in _tune_data()["sizeof"].items()}


# --- AMD ----------------------------------------------------------------------------------------------------------

def vgprs_per_wave(chip: AmdChip, usage: AmdUsage) -> int:
    """Registers of the (unified) vector file one wave holds, rounded to the allocation granule."""
    if chip.unified_vgpr_agpr and usage.agprs:
        total = _round_up(usage.vgprs, 4) + usage.agprs
    else:
        total = max(usage.vgprs, usage.agprs)
    return _round_up(max(total, 1), chip.vgpr_granule)


def waves_by_vgprs(chip: AmdChip, usage: AmdUsage) -> int:
    return max(1, min(chip.max_waves_per_simd, chip.vgprs_per_simd // vgprs_per_wave(chip, usage)))


def waves_by_sgprs(chip: AmdChip, usage: AmdUsage) -> int:
    for limit, waves in chip.sgpr_waves:
        if usage.sgprs <= limit:
            return min(chip.max_waves_per_simd, waves)
    return min(chip.max_waves_per_simd, chip.sgpr_waves[-1][1])


def workgroup_slots(chip: AmdChip, waves_per_block: int) -> int:
    """Blocks per CU the wave slots and barrier resources allow."""
    by_slots = chip.max_waves_per_cu // waves_per_block
    return by_slots if waves_per_block == 1 else min(by_slots, chip.max_workgroups_per_cu)


def max_vgprs_for_block(chip: AmdChip, block_threads: int) -> int:
    """The most vector registers a kernel compiled for blocks of this size may use (LLVM: getMaxNumVGPRs for the
    waves per SIMD one block needs); using more, the compiler spills."""
    waves_per_simd = math.ceil(math.ceil(block_threads / chip.wave_size) / chip.simds_per_cu)
    return (chip.vgprs_per_simd // waves_per_simd) // chip.vgpr_granule * chip.vgpr_granule


def amd_occupancy(chip: AmdChip, usage: AmdUsage, block_threads: int, dynamic_lds: int = 0,
                  convention: Convention = Convention.HARDWARE) -> Occupancy:
    """Occupancy of blocks of `block_threads` threads; `convention` picks the hardware view or a compiler's."""
    max_cu = chip.max_waves_per_cu
    if block_threads < 1 or block_threads > chip.max_threads_per_block:
        return Occupancy(0, 0, max_cu, 0.0, "block size", {},
                         f"{block_threads} threads per block (at most {chip.max_threads_per_block} on {chip.arch})")
    lds = usage.lds_bytes + dynamic_lds
    if lds > chip.lds_per_workgroup:
        return Occupancy(0, 0, max_cu, 0.0, "LDS", {},
                         f"{lds} bytes of LDS per block (at most {chip.lds_per_workgroup} on {chip.arch})")
    waves_per_block = math.ceil(block_threads / chip.wave_size)
    slots = workgroup_slots(chip, waves_per_block)
    hardware = convention is Convention.HARDWARE
    lds_alloc = _round_up(lds, chip.lds_granule) if hardware else lds
    by_lds = chip.lds_per_cu // lds_alloc if lds_alloc else slots
    by_vgpr, by_sgpr = waves_by_vgprs(chip, usage), waves_by_sgprs(chip, usage)
    limits = {"wave slots" if waves_per_block == 1 or slots < chip.max_workgroups_per_cu else "workgroup slots": slots,
              "LDS": by_lds}
    if hardware:
        limits["VGPRs"] = chip.simds_per_cu * by_vgpr // waves_per_block
        limits["SGPRs"] = chip.simds_per_cu * by_sgpr // waves_per_block
        blocks = min(limits.values())
        waves = blocks * waves_per_block
        per_simd = waves / chip.simds_per_cu
        limiter = _limiter(limits, blocks)
        if blocks == 0:
            return Occupancy(0, 0, max_cu, 0.0, limiter, limits,
                             f"one block of {waves_per_block} waves does not fit in the registers of a CU")
        return Occupancy(blocks, waves, max_cu, per_simd, limiter, limits)
    by_lds_bytes = chip.lds_per_cu // lds if lds else None
    group_waves = _compiler_workgroup_waves(chip, convention, block_threads, by_lds_bytes)
    per_simd_limits = {"workgroup/LDS": group_waves, "VGPRs": by_vgpr, "SGPRs": by_sgpr}
    waves_simd = min(per_simd_limits.values())
    blocks = min(slots, by_lds, chip.simds_per_cu * waves_simd // waves_per_block)
    return Occupancy(blocks, waves_simd * chip.simds_per_cu, max_cu, float(waves_simd),
                     _limiter(per_simd_limits, waves_simd), limits | {"VGPRs": by_vgpr, "SGPRs": by_sgpr})


def _compiler_workgroup_waves(chip: AmdChip, convention: Convention, block_threads: int,
                              by_lds: int | None) -> int:
    """The workgroup-and-LDS term of the compiler's occupancy remark, in waves per SIMD."""
    wave, simds, max_waves = chip.wave_size, chip.simds_per_cu, chip.max_waves_per_simd
    waves_per_block = math.ceil(block_threads / wave)
    if convention is Convention.LLVM15:
        # LLVM 15: 40 workgroups (10 waves x 4 SIMDs, whatever the chip), and the waves per CU are clamped to the
        # per-SIMD maximum without dividing by the SIMD count: LDS and workgroup limits seldom show
        slots = 40 if waves_per_block == 1 else min(40 // waves_per_block, chip.max_workgroups_per_cu)
        groups = slots if by_lds is None else min(slots, by_lds)
        return max(1, min(max_waves, groups * waves_per_block))
    if convention is Convention.LLVM16:
        groups = workgroup_slots(chip, waves_per_block)
        groups = groups if by_lds is None else min(groups, by_lds)
        return max(1, min(max_waves, math.ceil(groups * waves_per_block / simds)))
    # LLVM 20+: AMDGPUSubtarget::getOccupancyWithWorkGroupSizes over flat workgroup sizes [1, B] (HIP's
    # __launch_bounds__(B)), the larger of its two results
    lds_groups = by_lds if by_lds is not None else chip.lds_per_cu
    if lds_groups == 0:
        return 1
    min_waves_wg = 1
    max_groups = min(workgroup_slots(chip, 1), lds_groups)
    max_waves_cu = max_groups * min_waves_wg
    max_waves_wg = waves_per_block
    min_waves_cu = max_waves_wg * min(workgroup_slots(chip, max_waves_wg), lds_groups)
    if min_waves_cu >= max_waves_cu:
        max_waves_cu = min_waves_cu
    else:
        leftover_per_wg = (max_waves * simds - max_groups * min_waves_wg) // max_groups
        if leftover_per_wg:
            max_waves_cu += max_groups * min(leftover_per_wg, (block_threads - 1) // wave + 1 - min_waves_wg)
    return max(1, min(max_waves, math.ceil(max_waves_cu / simds)))


def _limiter(limits: dict[str, int], value: int) -> str:
    """The binding resource. On a tie the hardware's own slots come first: a resource limits occupancy only when
    it allows less than the slots do."""
    order = ("wave slots", "workgroup slots", "warp slots", "block slots", "workgroup/LDS", "LDS", "shared memory",
             "VGPRs", "registers", "SGPRs")
    tied = [k for k, v in limits.items() if v == value]
    return min(tied, key=lambda k: order.index(k) if k in order else len(order)) if tied else ""


# --- NVIDIA -------------------------------------------------------------------------------------------------------

def nvidia_occupancy(chip: NvidiaChip, usage: NvidiaUsage, block_threads: int, dynamic_smem: int = 0) -> Occupancy:
    max_sm = chip.max_warps_per_sm
    if block_threads < 1 or block_threads > chip.max_threads_per_block:
        return Occupancy(0, 0, max_sm, 0.0, "block size", {},
                         f"{block_threads} threads per block (at most {chip.max_threads_per_block})")
    warps = math.ceil(block_threads / chip.warp_size)
    limits: dict[str, int] = {"warp slots": chip.max_warps_per_sm // warps, "block slots": chip.max_blocks_per_sm}
    regs_per_warp = _round_up(max(usage.registers, 1) * chip.warp_size, chip.reg_alloc_unit)
    if usage.registers > chip.max_regs_per_thread or \
            regs_per_warp * _round_up(warps, chip.sub_partitions) > chip.regs_per_block:
        return Occupancy(0, 0, max_sm, 0.0, "registers", limits,
                         f"{usage.registers} registers x {block_threads} threads exceed the per-block register limit")
    per_partition = chip.regs_per_sm // chip.sub_partitions // regs_per_warp
    limits["registers"] = per_partition * chip.sub_partitions // warps
    smem = _round_up(usage.smem_bytes + dynamic_smem + chip.smem_reserved_per_block, chip.smem_granule)
    if smem > chip.smem_per_block_optin + chip.smem_reserved_per_block:
        return Occupancy(0, 0, max_sm, 0.0, "shared memory", limits,
                         f"{usage.smem_bytes + dynamic_smem} bytes of shared memory per block (at most {chip.smem_per_block_optin})")
    limits["shared memory"] = chip.smem_per_sm // smem
    blocks = min(limits.values())
    return Occupancy(blocks, blocks * warps, max_sm, float(blocks * warps), _limiter(limits, blocks), limits,
                     None if blocks else "no block fits on an SM")


# --- the grid over the chip ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Quantization:
    blocks: int  # grid size in blocks
    resident_per_cu: int
    units: int  # CUs (SMs)
    waves: int  # ceil(blocks / capacity)
    full_waves: int
    last_wave_blocks: int  # blocks in the last wave (a full wave counts as full)
    last_wave_units_busy: int  # CUs with at least one block in the last wave

    @property
    def capacity(self) -> int:
        return self.resident_per_cu * self.units

    @property
    def last_wave_share(self) -> float:
        """Share of the chip's CUs busy in the last wave."""
        return self.last_wave_units_busy / self.units if self.units else 0.0

    @property
    def efficiency(self) -> float:
        """Share of the block slots of all waves that hold a block."""
        return self.blocks / (self.waves * self.capacity) if self.waves and self.capacity else 0.0


def quantize(grid_blocks: int, resident_per_cu: int, units: int) -> Quantization | None:
    if grid_blocks < 1 or resident_per_cu < 1 or units < 1:
        return None
    capacity = resident_per_cu * units
    waves = math.ceil(grid_blocks / capacity)
    full, rest = divmod(grid_blocks, capacity)
    last = rest or capacity
    return Quantization(grid_blocks, resident_per_cu, units, waves, full, last, min(last, units))


# --- better block sizes --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    block_threads: int
    occupancy: Occupancy
    grid_blocks: int | None
    quantization: Quantization | None


def better_block_sizes(chip: AmdChip, usage: AmdUsage, block_threads: int, dynamic_lds: int = 0,
                       total_threads: int | None = None, max_threads: int | None = None,
                       limit: int = 3) -> list[Candidate]:
    """Block sizes (multiples of the wave size) predicted to do better than `block_threads`: more resident waves,
    or as many and a fuller last wave. `total_threads` (grid x block) keeps the work constant; `max_threads` is a
    `__launch_bounds__` cap. Sizes that would need fewer registers than the kernel uses are left out."""
    current = amd_occupancy(chip, usage, block_threads, dynamic_lds)
    current_q = _candidate_quantization(chip, current, block_threads, total_threads)
    top = min(chip.max_threads_per_block, max_threads or chip.max_threads_per_block)
    used = vgprs_per_wave(chip, usage)
    out = []
    for size in range(chip.wave_size, top + 1, chip.wave_size):
        if size == block_threads or used > max_vgprs_for_block(chip, size):
            continue
        occ = amd_occupancy(chip, usage, size, dynamic_lds)
        if occ.error or occ.waves_per_cu < current.waves_per_cu:
            continue
        q = _candidate_quantization(chip, occ, size, total_threads)
        better_tail = q is not None and current_q is not None and q.efficiency > current_q.efficiency + 0.05
        if occ.waves_per_cu > current.waves_per_cu or better_tail:
            out.append(Candidate(size, occ, q.blocks if q else None, q))
    out.sort(key=lambda c: (-c.occupancy.waves_per_cu, -(c.quantization.efficiency if c.quantization else 0),
                            abs(c.block_threads - block_threads)))
    return out[:limit]


def _candidate_quantization(chip: AmdChip, occ: Occupancy, block_threads: int,
                            total_threads: int | None) -> Quantization | None:
    if total_threads is None or occ.blocks_per_cu < 1:
        return None
    return quantize(math.ceil(total_threads / block_threads), occ.blocks_per_cu, chip.cu_count)
