"""`porter doctor` and `porter targets`."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from porter import doctor
from porter.build.toolchain import Toolchain
from porter.cli import app
from porter.translate.options import RocmVersion


def test_targets_table_lists_all_profiles() -> None:
    result = CliRunner().invoke(app, ["targets"], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 0
    for needle in ("gfx942", "MI300X", "gfx950", "fnuz", "ocp", "5.3 TB/s"):
        assert needle in result.output


def test_doctor_without_hipcc_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor, "resolve_toolchain", lambda spec=None: None)
    monkeypatch.setattr(doctor, "find_toolchains", lambda: [])
    monkeypatch.delenv("PORTER_MODEL", raising=False)
    result = CliRunner().invoke(app, ["doctor"], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 1
    assert "hipcc: not found" in result.output and "no model configured" in result.output


def test_doctor_reports_arches_and_endpoint(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from pathlib import Path

    chain = Toolchain(Path("/x/hipcc"), "5.2.0", RocmVersion(5, 2))
    newer = Toolchain(Path("/y/rocm-6.4/bin/hipcc"), "6.4.43484-9999", RocmVersion(6, 4), "rocm-6.4",
                      Path("/y/rocm-6.4/root"), "installed")
    monkeypatch.setattr(doctor, "resolve_toolchain", lambda spec=None: newer if spec == "rocm-6.4" else chain)
    monkeypatch.setattr(doctor, "find_toolchains", lambda: [chain, newer])
    monkeypatch.setattr(doctor, "absent_for", lambda t: {"rocwmma": "not packaged"} if t is newer else {})
    def accepts(t, arches, cache_dir=None):
        return {a: a == "gfx90a" or (t is newer and a in ("gfx942", "gfx950")) for a in arches}

    monkeypatch.setattr(doctor, "accepted_arches", accepts)
    monkeypatch.setattr("porter.build.toolchain.accepted_arches", accepts)
    monkeypatch.setattr(doctor, "_check_model", lambda config: (True, f"{config.model} answers"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["doctor", "--model", "m1", "--target", "MI300X"],
                                env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "accepted: gfx90a" in result.output and "HIP version: 5.2.0" in result.output
    assert "compiling for gfx90a instead" in result.output and "m1 answers" in result.output
    # every toolchain is listed, the selected one marked; the other with its own versions and arches
    assert "/x/hipcc (selected)" in result.output and "/y/rocm-6.4/bin/hipcc" in result.output
    assert "HIP version: 6.4.43484-9999" in result.output and "accepted: gfx90a, gfx942, gfx950" in result.output
    assert "absent: rocwmma" in result.output
    picked = CliRunner().invoke(app, ["doctor", "--toolchain", "rocm-6.4", "--target", "MI300X"],
                                env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert "/y/rocm-6.4/bin/hipcc (selected)" in picked.output and "compiling for" not in picked.output


def test_doctor_unknown_toolchain_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["doctor", "--toolchain", "rocm-9.9"], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 2 and "unknown toolchain 'rocm-9.9'" in result.output
