"""Three-way merge of one file: the port as it is (ours), porter's conversion of the old upstream (base) and of the
new upstream (theirs). The text merge is git's (`git merge-file`), conflicts get git's standard markers."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from porter.files import looks_binary


class MergeError(RuntimeError):
    pass


@dataclass(frozen=True)
class Merged:
    data: bytes  # what the file becomes (ours, unchanged, when a binary file conflicts)
    conflicts: int  # conflicting hunks (written with <<<<<<< ======= >>>>>>> markers)
    binary: bool = False  # both sides changed a binary file: nothing merged

    @property
    def clean(self) -> bool:
        return self.conflicts == 0


def merge_three(ours: bytes, base: bytes, theirs: bytes, labels: tuple[str, str, str]) -> Merged:
    """`labels`: what the markers call ours, base and theirs."""
    if ours in (base, theirs):
        return Merged(theirs, 0)
    if theirs == base:
        return Merged(ours, 0)
    if looks_binary(ours) or looks_binary(base) or looks_binary(theirs):
        return Merged(ours, 1, binary=True)
    with tempfile.TemporaryDirectory(prefix="porter-merge-") as tmp:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(tmp) / name
            path.write_bytes(data)
            paths.append(str(path))
        cmd = ["git", "merge-file", "-p", "-L", labels[0], "-L", labels[1], "-L", labels[2], *paths]
        try:
            done = subprocess.run(cmd, capture_output=True, check=False)
        except FileNotFoundError:
            raise MergeError("git is not installed (porter sync merges with `git merge-file`)") from None
    if done.returncode < 0 or done.returncode > 127:
        raise MergeError(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    return Merged(done.stdout, done.returncode)
