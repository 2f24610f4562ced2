"""`porter convert --no-build` of a small project, as a user runs it, for tests that then compile the port."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def port_tree(tmp_path: Path, files: dict[str, bytes | str], target: str, *flags: str) -> Path:
    """Write `files` into tmp_path/project, convert it for `target` into tmp_path/port-<target>; the port's root."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    for name, source in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(source.encode() if isinstance(source, str) else source)
    out = tmp_path / f"port-{target}"
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(project), "-o", str(out), "--target", target,
                           "--no-build", *flags], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out
