"""The occupancy model against the compiler: for the 32-kernel corpus (tests/data/tune/corpus) compiled with
`__launch_bounds__(B)`, the model's waves per SIMD (in the compiler's convention) must equal hipcc's own
"Occupancy [waves/SIMD]" remark, on every toolchain and arch porter finds: gfx90a with ROCm 5.2 (clang 15), gfx942
and gfx950 with ROCm 6.4 (clang 21) where that toolchain is present (PORTER_HIPCC, or what porter toolchain
installs). Under CI=true a missing hipcc fails; a missing 6.4 toolchain is a skip with its reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import porter.build
from porter.build import Toolchain, accepted_arches
from porter.tune import agreement

CORPUS = Path(__file__).parent / "data" / "tune" / "corpus"
ARCHES = ("gfx90a", "gfx942", "gfx950")


def _toolchains() -> list[Toolchain]:
    return porter.build.find_toolchains()  # PORTER_HIPCC's, the system's, and the installed ones


def _pairs() -> list[tuple[Toolchain, str]]:
    out = []
    for tc in _toolchains():
        accepted = accepted_arches(tc, list(ARCHES))
        out += [(tc, arch) for arch in ARCHES if accepted.get(arch)]
    return out


PAIRS = _pairs()


def _pair_for(arch: str) -> tuple[Toolchain, str]:
    pair = next((p for p in PAIRS if p[1] == arch), None)
    if pair is None:
        if os.environ.get("CI") == "true" and not PAIRS:
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip(f"no hipcc here accepts --offload-arch={arch} (ROCm 6.4 for gfx942/gfx950: set PORTER_HIPCC "
                    "or install it with porter toolchain)")
    return pair


@pytest.mark.hipcc
@pytest.mark.parametrize("arch", ARCHES)
def test_model_equals_the_compilers_occupancy(arch: str, tmp_path: Path) -> None:
    toolchain, arch = _pair_for(arch)
    result = agreement(toolchain, arch, CORPUS, quick=True, workdir=tmp_path)
    assert result.error is None, result.error
    assert result.kernels >= 32 and result.total >= 32 * 7
    assert result.mismatches == [], "\n".join(result.mismatches[:20])
