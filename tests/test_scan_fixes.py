"""Safe hazard fixes: before/after pairs (tests/data/hazards/fixes/) and bait that must stay byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.scan import scan_source
from porter.scan.fixes import apply_hazard_fixes
from porter.targets import resolve_target
from porter.translate import RocmVersion

FIXES = Path(__file__).parent / "data" / "hazards" / "fixes"
PAIRS = sorted(p.name.removesuffix(".before.hip") for p in FIXES.glob("*.before.hip"))
GFX942 = resolve_target("gfx942")


@pytest.mark.parametrize("name", PAIRS)
def test_before_after(name: str) -> None:
    before = (FIXES / f"{name}.before.hip").read_bytes()
    after = (FIXES / f"{name}.after.hip").read_bytes()
    fixed, conversions = apply_hazard_fixes(before, GFX942)
    assert fixed.decode() == after.decode()
    assert all(c.family == "hazard-fix" for c in conversions)
    assert (len(conversions) == 0) == (before == after)
    # fixing is idempotent: the output has nothing left to fix
    assert apply_hazard_fixes(fixed, GFX942) == (fixed, [])


def test_fixed_rules_no_longer_fire() -> None:
    before = (FIXES / "warp_reduce.before.hip").read_bytes()
    fixed, conversions = apply_hazard_fixes(before, GFX942)
    fixed_rules = {"PL001", "PW001", "PW002", "PW003", "PW007"}
    assert {f.rule for f in scan_source(before, "a.hip", GFX942)} & fixed_rules
    assert not {f.rule for f in scan_source(fixed, "a.hip", GFX942)} & fixed_rules
    shown = {(c.cuda, c.hip) for c in conversions}
    assert ("threadIdx.x % 32", "threadIdx.x % warpSize") in shown
    assert ("offset = 16", "offset = warpSize / 2") in shown
    assert [c.line for c in conversions] == sorted(c.line for c in conversions)


def test_no_warp_arithmetic_fixes_on_wave32() -> None:
    source = b"__global__ void k(int* o) { int lane = threadIdx.x % 32; o[lane] = __shfl_sync(0xffffffff, lane, 0); }"
    fixed, conversions = apply_hazard_fixes(source, resolve_target("gfx1100"))
    # the mask is still widened (HIP's builtins take 64-bit masks on every target); lane math is right on wave32
    assert fixed == source.replace(b"0xffffffff", b"0xffffffffffffffffULL")
    assert len(conversions) == 1


def test_lane_math_without_warp_context_is_left_alone() -> None:
    source = b"__global__ void k(int* o) { o[threadIdx.x] = threadIdx.x % 32; }"
    assert apply_hazard_fixes(source, GFX942) == (source, [])


@pytest.mark.hipcc
def test_fixed_timing_compiles(hip_toolchain, tmp_path: Path) -> None:
    source = tmp_path / "timing.hip"
    source.write_bytes((FIXES / "timing.after.hip").read_bytes())
    # ROCm 5.x declares wall_clock64 for the device compile alone; newer HIP for both passes
    only_device = ("--cuda-device-only",) if hip_toolchain.rocm < RocmVersion(6, 0) else ()
    done = hip_toolchain.compile(source, *only_device)
    assert done.returncode == 0, done.stderr


def test_broken_source_is_left_parseable() -> None:
    source = b"__global__ void k( { int lane = threadIdx.x % 32 <<< ;; __shfl_sync(0xffffffff, \xff\xfe }}}\n#define\n"
    fixed, _ = apply_hazard_fixes(source, GFX942)
    assert isinstance(fixed, bytes)


def test_timing_fix_waits_for_a_rocm_that_declares_wall_clock64() -> None:
    from porter.translate.options import RocmVersion

    source = b"__global__ void k(long long* o) { o[0] = clock64(); }"
    assert apply_hazard_fixes(source, GFX942, RocmVersion(5, 2)) == (source, [])
    fixed, _ = apply_hazard_fixes(source, GFX942, RocmVersion(6, 4))
    assert b"wall_clock64()" in fixed
