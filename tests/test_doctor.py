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
    monkeypatch.setattr(doctor, "detect_toolchain", lambda: None)
    monkeypatch.delenv("PORTER_MODEL", raising=False)
    result = CliRunner().invoke(app, ["doctor"], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 1
    assert "hipcc: not found" in result.output and "no model configured" in result.output


def test_doctor_reports_arches_and_endpoint(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from pathlib import Path

    chain = Toolchain(Path("/x/hipcc"), "5.2.0", RocmVersion(5, 2))
    monkeypatch.setattr(doctor, "detect_toolchain", lambda: chain)
    monkeypatch.setattr(doctor, "accepted_arches", lambda t, arches, cache_dir=None: {a: a == "gfx90a" for a in arches})
    monkeypatch.setattr("porter.build.toolchain.accepted_arches",
                        lambda t, arches, cache_dir=None: {a: a == "gfx90a" for a in arches})
    monkeypatch.setattr(doctor, "_check_model", lambda config: (True, f"{config.model} answers"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["doctor", "--model", "m1", "--target", "MI300X"],
                                env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "accepted: gfx90a" in result.output and "HIP version: 5.2.0" in result.output
    assert "compiling for gfx90a instead" in result.output and "m1 answers" in result.output
