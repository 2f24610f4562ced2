"""porter tune's analytical model: hand-checked cases, the compilers' output formats, and the H200 record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porter.targets import resolve_target
from porter.tune import (
    AmdUsage,
    Convention,
    NvidiaUsage,
    amd_chip,
    amd_occupancy,
    better_block_sizes,
    compiler_convention,
    nvidia_chip,
    nvidia_occupancy,
    parse_amd_remarks,
    parse_ptxas,
    quantize,
)

DATA = Path(__file__).parent / "data" / "tune"
MI300X = amd_chip(resolve_target("MI300X"), "MI300X")
MI355X = amd_chip(resolve_target("MI355X"), "MI355X")


def test_chip_facts_come_from_the_targets_data() -> None:
    assert (MI300X.cu_count, MI300X.lds_per_cu, MI300X.lds_granule, MI300X.max_waves_per_simd) == (304, 65536, 512, 8)
    assert (MI355X.cu_count, MI355X.lds_per_cu, MI355X.lds_granule) == (256, 163840, 1280)
    assert amd_chip(resolve_target("MI300A"), "MI300A").cu_count == 228
    assert amd_chip(resolve_target("MI250X"), "MI250X").cu_count == 110  # one GCD is one HIP device
    assert amd_chip(resolve_target("gfx908")).vgprs_per_simd == 256


@pytest.mark.parametrize(("vgprs", "agprs", "waves"), [
    (24, 0, 8), (64, 0, 8), (65, 0, 7), (72, 0, 7), (128, 0, 4), (129, 0, 3), (256, 0, 2), (10, 100, 4),
    (4, 128, 3),  # 4 VGPRs, then the AGPRs from a multiple of 4: 4 + 128 = 132 -> 136 -> 512 // 136 = 3
])
def test_unified_register_file_limits_waves(vgprs: int, agprs: int, waves: int) -> None:
    occ = amd_occupancy(MI300X, AmdUsage(vgprs=vgprs, agprs=agprs, sgprs=16), 64, convention=Convention.LLVM20)
    assert occ.waves_per_simd == waves


def test_hardware_counts_whole_workgroups_the_compiler_does_not() -> None:
    usage = AmdUsage(vgprs=160, sgprs=20)  # 160 VGPRs: 3 waves per SIMD
    assert amd_occupancy(MI300X, usage, 512, convention=Convention.LLVM16).waves_per_simd == 3
    hw = amd_occupancy(MI300X, usage, 512)  # one 8-wave block fits (12 wave slots), a second does not
    assert (hw.blocks_per_cu, hw.waves_per_simd, hw.limiter) == (1, 2.0, "VGPRs")


def test_lds_granule_costs_a_block_the_compiler_counts() -> None:
    usage = AmdUsage(vgprs=16, sgprs=16, lds_bytes=13100)  # 5 x 13100 <= 65536, but 5 x 13312 > 65536
    assert amd_occupancy(MI300X, usage, 64, convention=Convention.LLVM16).blocks_per_cu == 5
    hw = amd_occupancy(MI300X, usage, 64)
    assert (hw.blocks_per_cu, hw.limiter) == (4, "LDS")
    assert amd_occupancy(MI355X, usage, 64).blocks_per_cu == 11  # 160 KiB in 1280-byte granules: 163840 // 14080


def test_too_much_lds_or_too_many_threads_cannot_launch() -> None:
    assert "LDS" in (amd_occupancy(MI300X, AmdUsage(vgprs=8, lds_bytes=70000), 256).error or "")
    assert amd_occupancy(MI355X, AmdUsage(vgprs=8, lds_bytes=70000), 256).error is None
    assert amd_occupancy(MI300X, AmdUsage(vgprs=8), 2048).error


def test_compiler_conventions_by_clang_version() -> None:
    assert compiler_convention(15) is Convention.LLVM15
    assert compiler_convention(18) is Convention.LLVM16
    assert compiler_convention(21) is Convention.LLVM20
    usage = AmdUsage(vgprs=13, sgprs=18, lds_bytes=65536)
    # one block per CU by LDS: LLVM 15 clamps waves per CU to the per-SIMD maximum, LLVM 20 divides by the SIMDs
    assert amd_occupancy(MI300X, usage, 640, convention=Convention.LLVM15).waves_per_simd == 8
    assert amd_occupancy(MI300X, usage, 640, convention=Convention.LLVM20).waves_per_simd == 3
    # LLVM 20 takes the best block size up to B: 448 threads (7 waves, 4 blocks = 28 waves) is reported as 8
    copy = AmdUsage(vgprs=4, sgprs=11)
    assert amd_occupancy(MI300X, copy, 448, convention=Convention.LLVM20).waves_per_simd == 8
    assert amd_occupancy(MI300X, copy, 448).waves_per_simd == 7


def test_wave_quantization() -> None:
    q = quantize(1000, 2, 304)  # capacity 608 blocks a wave
    assert (q.waves, q.full_waves, q.last_wave_blocks, q.last_wave_units_busy) == (2, 1, 392, 304)
    assert q.efficiency == pytest.approx(1000 / 1216)
    q = quantize(100, 4, 304)
    assert (q.waves, q.last_wave_units_busy) == (1, 100)
    assert q.last_wave_share == pytest.approx(100 / 304)
    assert quantize(0, 4, 304) is None


def test_better_block_sizes_for_an_lds_limited_kernel() -> None:
    usage = AmdUsage(vgprs=8, sgprs=14)
    now = amd_occupancy(MI300X, usage, 64, dynamic_lds=16384)
    assert (now.blocks_per_cu, now.waves_per_simd, now.limiter) == (4, 1.0, "LDS")
    found = better_block_sizes(MI300X, usage, 64, dynamic_lds=16384, total_threads=1 << 20)
    assert found[0].block_threads == 512 and found[0].occupancy.waves_per_simd == 8
    assert all(c.block_threads % 64 == 0 for c in found)


def test_better_block_sizes_respect_the_register_budget() -> None:
    usage = AmdUsage(vgprs=200, sgprs=20)  # blocks of 9+ waves need 3 waves/SIMD: at most 168 VGPRs, it uses 200
    sizes = [c.block_threads for c in better_block_sizes(MI300X, usage, 64, dynamic_lds=16384, limit=20)]
    assert 128 in sizes and max(sizes) == 512


def test_nvidia_model_hand_cases() -> None:
    h200 = nvidia_chip("sm_90")
    assert (h200.sm_count, h200.regs_per_sm, h200.smem_per_sm) == (132, 65536, 233472)
    assert nvidia_occupancy(h200, NvidiaUsage(32), 256).blocks_per_cu == 8  # 64 warps
    occ = nvidia_occupancy(h200, NvidiaUsage(64), 256)  # 2048 regs a warp, 8 warps a partition
    assert (occ.blocks_per_cu, occ.limiter) == (4, "registers")
    occ = nvidia_occupancy(h200, NvidiaUsage(16, smem_bytes=48 * 1024), 128)  # 49152 + 1024 reserved a block
    assert (occ.blocks_per_cu, occ.limiter) == (4, "shared memory")
    assert nvidia_occupancy(h200, NvidiaUsage(80), 1024).error  # 80 x 1024 > 65536


def test_model_reproduces_the_h200_record() -> None:
    """Every row cudaOccupancyMaxActiveBlocksPerMultiprocessor answered on an H200 (scripts/tune_h200_occupancy.py)."""
    table = json.loads((DATA / "h200_occupancy.json").read_text("utf-8"))
    assert table["device"]["device"] == "NVIDIA H200" and table["device"]["sm_count"] == 132
    columns = table["columns"]
    rows = [dict(zip(columns, r, strict=True)) for r in table["rows"]]
    assert len(rows) == 2560
    chip = nvidia_chip("sm_90")
    wrong = [r for r in rows
             if nvidia_occupancy(chip, NvidiaUsage(r["ptxas_registers"], r["ptxas_smem"]), r["block"],
                                 r["dynamic_smem"]).blocks_per_cu != r["blocks_per_sm"]]
    assert wrong == []
    assert {r["blocks_per_sm"] for r in rows} >= {1, 2, 4, 8, 16, 32}  # the record exercises every limit


def test_device_facts_match_the_h200_it_was_recorded_on() -> None:
    device = json.loads((DATA / "h200_occupancy.json").read_text("utf-8"))["device"]
    chip = nvidia_chip("sm_90")
    assert (chip.regs_per_sm, chip.regs_per_block, chip.smem_per_sm, chip.smem_per_block, chip.smem_per_block_optin,
            chip.smem_reserved_per_block, chip.max_blocks_per_sm, chip.max_warps_per_sm * chip.warp_size) == (
        device["regs_per_sm"], device["regs_per_block"], device["smem_per_sm"], device["smem_per_block"],
        device["smem_per_block_optin"], device["smem_reserved_per_block"], device["max_blocks_per_sm"],
        device["max_threads_per_sm"])


def test_ptxas_parser_on_recorded_output() -> None:
    found = parse_ptxas((DATA / "h200_ptxas.txt").read_text("utf-8"))
    assert len(found) == 512 and all(k.arch == "sm_90" for k in found)
    table = json.loads((DATA / "h200_occupancy.json").read_text("utf-8"))
    cols = table["columns"]
    recorded = {(r[cols.index("kernel")], r[cols.index("block")]): r[cols.index("ptxas_registers")] for r in table["rows"]}
    lds = next(k for k in found if k.symbol == "_Z10tune_lds1kILi256EEvPKfPfi")
    assert (lds.usage.registers, lds.usage.smem_bytes) == (recorded[("tune_lds1k", 256)], 1024)


CLANG15 = """\
a.hip:3:1: remark: Function Name: _Z1kILi256EEvPf [-Rpass-analysis=kernel-resource-usage]
__global__ void __launch_bounds__(B) k(float* p) {
^
a.hip:3:1: remark:     SGPRs: 6 [-Rpass-analysis=kernel-resource-usage]
a.hip:3:1: remark:     VGPRs: 4 [-Rpass-analysis=kernel-resource-usage]
a.hip:3:1: remark:     AGPRs: 0 [-Rpass-analysis=kernel-resource-usage]
a.hip:3:1: remark:     ScratchSize [bytes/lane]: 0 [-Rpass-analysis=kernel-resource-usage]
a.hip:3:1: remark:     Occupancy [waves/SIMD]: 8 [-Rpass-analysis=kernel-resource-usage]
a.hip:3:1: remark:     SGPRs Spill: 0 [-Rpass-analysis=kernel-resource-usage]
a.hip:3:1: remark:     VGPRs Spill: 0 [-Rpass-analysis=kernel-resource-usage]
a.hip:3:1: remark:     LDS Size [bytes/block]: 4096 [-Rpass-analysis=kernel-resource-usage]
"""
CLANG21 = """\
/tmp/t/a.hip:11:1: remark: Function Name: _Z5plainPfi [-Rpass-analysis=kernel-resource-usage]
   11 | __global__ void plain(float* p, int n) { if (threadIdx.x < n) p[threadIdx.x] *= 2; }
      | ^
/tmp/t/a.hip:11:1: remark:     TotalSGPRs: 10 [-Rpass-analysis=kernel-resource-usage]
/tmp/t/a.hip:11:1: remark:     VGPRs: 2 [-Rpass-analysis=kernel-resource-usage]
/tmp/t/a.hip:11:1: remark:     AGPRs: 12 [-Rpass-analysis=kernel-resource-usage]
/tmp/t/a.hip:11:1: remark:     ScratchSize [bytes/lane]: 16 [-Rpass-analysis=kernel-resource-usage]
/tmp/t/a.hip:11:1: remark:     Dynamic Stack: False [-Rpass-analysis=kernel-resource-usage]
/tmp/t/a.hip:11:1: remark:     Occupancy [waves/SIMD]: 7 [-Rpass-analysis=kernel-resource-usage]
/tmp/t/a.hip:11:1: remark:     SGPRs Spill: 1 [-Rpass-analysis=kernel-resource-usage]
/tmp/t/a.hip:11:1: remark:     VGPRs Spill: 3 [-Rpass-analysis=kernel-resource-usage]
/tmp/t/a.hip:11:1: remark:     LDS Size [bytes/block]: 0 [-Rpass-analysis=kernel-resource-usage]
"""


def test_remark_parser_reads_both_clang_formats() -> None:
    (a,) = parse_amd_remarks(CLANG15)
    assert (a.file, a.line, a.symbol) == ("a.hip", 3, "_Z1kILi256EEvPf")
    assert a.usage == AmdUsage(vgprs=4, agprs=0, sgprs=6, lds_bytes=4096, compiler_occupancy=8)
    (b,) = parse_amd_remarks(CLANG21)
    assert b.usage == AmdUsage(vgprs=2, agprs=12, sgprs=10, lds_bytes=0, scratch_bytes=16, vgpr_spills=3,
                               sgpr_spills=1, compiler_occupancy=7)
    assert parse_amd_remarks("x.hip:1:2: error: nope\n") == []
