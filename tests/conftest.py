"""The HIP toolchains the compile tests run on: every one porter finds (`hip_toolchain` fixture).

A test that compiles takes the `hip_toolchain` fixture and is marked `hipcc`; it then runs once per toolchain:
Debian 12's ROCm 5.2 (`/usr/bin/hipcc`, compiles for gfx90a) and a ROCm 6.4 from `porter toolchain install`
(compiles for gfx942 and gfx950), plus whatever PORTER_HIPCC names. Under CI=true both must be there (`.ci/run`
provisions 6.4); elsewhere a missing toolchain is skipped with the reason.
"""

from __future__ import annotations

import pytest
from support.toolchains import CI_NEEDS, HipToolchain, detected_toolchains, in_ci, missing_toolchain


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "hip_toolchain" in metafunc.fixturenames:
        found = detected_toolchains()
        params = list(found) or [None]
        metafunc.parametrize("hip_toolchain", params, ids=[p.id if p else "no-hipcc" for p in params],
                             indirect=True)


@pytest.fixture
def hip_toolchain(request: pytest.FixtureRequest) -> HipToolchain:
    chosen = request.param
    if chosen is None:
        missing_toolchain("hipcc not found (install HIP, or `porter toolchain install`)")
    if in_ci() and not any(t.rocm is not None and t.rocm >= CI_NEEDS for t in detected_toolchains()):
        pytest.fail(f"no ROCm {CI_NEEDS} toolchain: CI compiles on it too (`porter toolchain install`, which "
                    ".ci/run does)")
    return chosen
