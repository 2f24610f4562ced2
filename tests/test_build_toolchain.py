"""Toolchain detection: hipcc, HIP/ROCm versions, accepted --offload-arch values and the wave64 stand-in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porter.build import toolchain as tc
from porter.translate.options import RocmVersion


def test_hip_env_pins_amd_platform() -> None:
    assert tc.hip_env({"HIP_PLATFORM": "nvidia", "X": "1"}) == {"HIP_PLATFORM": "amd", "X": "1"}


def test_rocm_version_from_info_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".info").mkdir()
    (tmp_path / ".info" / "version").write_text("6.4.1-120\n")
    monkeypatch.setenv("ROCM_PATH", str(tmp_path))
    assert tc._rocm_from_info(tc._system_roots(None)) == RocmVersion(6, 4)


def test_no_hipcc(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tc.shutil, "which", lambda name: None)
    monkeypatch.setenv("ROCM_PATH", str(tmp_path))
    monkeypatch.setenv("HIP_PATH", str(tmp_path))
    monkeypatch.setattr(tc, "Path", lambda p: tmp_path / "missing" if p == "/opt/rocm/bin/hipcc" else Path(p))
    assert tc.find_hipcc() is None
    assert tc.detect_toolchain() is None


def test_arch_cache_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chain = tc.Toolchain(Path("/fake/hipcc"), "9.9", None)
    calls: list[str] = []
    monkeypatch.setattr(tc, "_probe_arch", lambda t, arch: calls.append(arch) or arch == "gfx90a")
    assert tc.accepted_arches(chain, ["gfx942", "gfx90a"], tmp_path) == {"gfx942": False, "gfx90a": True}
    assert tc.accepted_arches(chain, ["gfx942", "gfx90a"], tmp_path) == {"gfx942": False, "gfx90a": True}
    assert calls == ["gfx942", "gfx90a"]
    (cache,) = tmp_path.iterdir()
    assert json.loads(cache.read_text()) == {"gfx90a": True, "gfx942": False}
    choice = tc.choose_compile_arch(chain, "gfx950", tmp_path)
    assert (choice.arch, choice.requested, choice.substituted) == ("gfx90a", "gfx950", True)
    assert "gfx950" in choice.note and "gfx90a" in choice.note


@pytest.mark.hipcc
def test_real_hipcc(hip_toolchain, tmp_path: Path) -> None:
    chain = hip_toolchain.toolchain
    assert chain.hip_version and chain.hip_version[0].isdigit()
    assert chain.rocm is not None and str(chain.rocm) == ".".join(chain.hip_version.split(".")[:2])
    assert tc.resolve_toolchain(str(chain.hipcc)).rocm == chain.rocm
    probe = [*hip_toolchain.arches, "gfx9999"]
    arches = tc.accepted_arches(chain, probe, tmp_path)
    assert arches == {**dict.fromkeys(hip_toolchain.arches, True), "gfx9999": False}
    assert tc.choose_compile_arch(chain, hip_toolchain.arch, tmp_path).note is None
    assert (chain.include_dir / "hip" / "hip_runtime.h").is_file()
