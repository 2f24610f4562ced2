"""Run configuration: CLI options over [tool.porter] over environment over defaults; bad config is one clean line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from porter.config import ConfigError, build_config
from porter.translate.options import LaunchSyntax, RocmVersion


def _project(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(body)
    return tmp_path


def test_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORTER_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    root = _project(tmp_path, '[tool.porter]\nmodel = "toml-model"\nmax-iterations = 7\nrocm = "6.4"\n'
                              'launch-syntax = "hip"\ntarget = "gfx950"\n')
    config = build_config(root, target="gfx942")
    assert config.model == "toml-model"  # [tool.porter] beats the environment
    assert config.base_url == "http://127.0.0.1:1/v1"  # the environment fills what the project leaves out
    assert config.target == "gfx942"  # the command line beats [tool.porter]
    assert (config.max_iterations, config.rocm, config.launch_syntax) == (7, RocmVersion(6, 4), LaunchSyntax.HIP)


def test_api_key_is_read_from_the_environment_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    config = build_config(_project(tmp_path, "[tool.porter]\n"))
    assert config.api_key == "sk-x" and "sk-x" not in repr(config)


@pytest.mark.parametrize(("body", "needle"), [
    ('[tool.porter]\nmodle = "x"\n', "unknown key [tool.porter].modle"),
    ("[tool.porter\n", "invalid TOML"),
])
def test_bad_project_config(tmp_path: Path, body: str, needle: str) -> None:
    root = _project(tmp_path, body)
    with pytest.raises(ConfigError, match=needle.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        build_config(root)
    (root / "a.cu").write_text("int main() { return 0; }\n")
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(root), "--check"], capture_output=True,
                          text=True, env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr
