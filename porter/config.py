"""Run configuration for `porter convert`: CLI options over `[tool.porter]` over environment defaults."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from porter.translate import LaunchSyntax, RocmVersion


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class PortConfig:
    target: str = "gfx942"
    rocm: RocmVersion | None = None
    launch_syntax: LaunchSyntax = LaunchSyntax.CHEVRON
    full_parse: bool = False  # parse every file whole (default: only the pieces whose meaning needs the grammar)
    # build step (issue 3)
    build: bool = True
    build_cmd: str | None = None  # user's own build command, run in the output root
    test_cmd: str | None = None  # run after a clean build
    offload_arch: str | None = None  # override the arch passed to hipcc
    toolchain: str | None = None  # installed toolchain name, ROCm version, 'system' or hipcc path (else PORTER_HIPCC)
    jobs: int = 0  # parallel workers: translation processes and hipcc jobs (0: all cores)
    # agent (issue 3)
    model: str | None = None
    base_url: str | None = None
    max_iterations: int = 30
    max_tokens: int = 400_000  # token budget over the whole run
    max_seconds: float = 1800.0
    task_iterations: int | None = None  # model turns per repair task (default: a fair share of max_iterations)
    use_cache: bool = True
    cache_dir: Path | None = None
    # where the report / transcript go (default: <out>/.porter/)
    report_path: Path | None = None
    extra: dict = field(default_factory=dict)

    @property
    def api_key(self) -> str | None:
        # read at use time, never stored in reports or transcripts
        return os.environ.get("OPENAI_API_KEY")


_TOML_KEYS = {f.name.replace("_", "-"): f.name for f in fields(PortConfig)} | {f.name: f.name for f in fields(PortConfig)}


def load_project_config(project_root: Path) -> dict:
    """`[tool.porter]` of the project's pyproject.toml, keys normalised to PortConfig field names."""
    path = project_root / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    section = data.get("tool", {}).get("porter", {})
    out = {}
    for key, value in section.items():
        name = _TOML_KEYS.get(key)
        if name is None:
            raise ConfigError(f"{path}: unknown key [tool.porter].{key}")
        out[name] = value
    return out


def build_config(project_root: Path | None, **cli: object) -> PortConfig:
    """Precedence: CLI options (non-None) > [tool.porter] > environment (PORTER_MODEL, OPENAI_BASE_URL) > defaults."""
    values: dict = {}
    if os.environ.get("PORTER_MODEL"):
        values["model"] = os.environ["PORTER_MODEL"]
    if os.environ.get("OPENAI_BASE_URL"):
        values["base_url"] = os.environ["OPENAI_BASE_URL"]
    if project_root is not None:
        values.update(load_project_config(project_root))
    values.update({k: v for k, v in cli.items() if v is not None})
    if isinstance(values.get("rocm"), str):
        values["rocm"] = RocmVersion.parse(values["rocm"])
    if isinstance(values.get("launch_syntax"), str):
        values["launch_syntax"] = LaunchSyntax(values["launch_syntax"])
    for key in ("cache_dir", "report_path"):
        if isinstance(values.get(key), str):
            values[key] = Path(values[key])
    return replace(PortConfig(), **values)
