"""Golden cases: tests/data/cases/<case>/{input/, expected/, options.toml}. Shared by the test and the regen script."""

from __future__ import annotations

import tomllib
from pathlib import Path

from rich.console import Console

from porter.config import build_config
from porter.convert import ConvertRequest, convert
from porter.files import STATE_DIR, WriteMode

CASES = Path(__file__).parent / "data" / "cases"


def case_dirs() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if (p / "input").is_dir())


def case_options(case: Path) -> dict:
    path = case / "options.toml"
    return tomllib.loads(path.read_text()) if path.is_file() else {}


def convert_case(case: Path, source: Path, out: Path) -> None:
    """Convert `source` (the case's input, or its expected output for the stability check) into `out`."""
    options = case_options(case)
    config = build_config(
        None, build=False, target=options.get("target", "gfx942"), rocm=options.get("rocm", "7.0"),
        launch_syntax=options.get("launch_syntax", "chevron"),
    )
    request = ConvertRequest(source, out, WriteMode.WRITE, config, rename=options.get("rename", False), jobs=1)
    convert(request, Console(stderr=True, quiet=True))


def tree_files(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes (symlinks as their link text), porter's own state dir excluded."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == STATE_DIR or rel.startswith(STATE_DIR + "/"):
            continue
        if path.is_symlink():
            out[rel] = b"-> " + str(path.readlink()).encode()
        elif path.is_file():
            out[rel] = path.read_bytes()
    return out
