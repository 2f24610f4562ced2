"""Files changed since a git ref (for `porter check`): committed on the branch plus the working tree."""

from __future__ import annotations

import subprocess
from pathlib import Path


class GitError(RuntimeError):
    pass


def _git(cwd: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()
        raise GitError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return done.stdout


def changed_files(path: Path, base: str) -> list[Path]:
    """Existing files under `path` changed in `base...HEAD`, staged, unstaged or untracked (absolute paths)."""
    top = Path(_git(path, "rev-parse", "--show-toplevel").strip())
    _git(top, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
    names: set[str] = set()
    names.update(_git(top, "diff", "--name-only", "-z", f"{base}...HEAD").split("\0"))
    names.update(_git(top, "diff", "--name-only", "-z", "HEAD").split("\0"))
    names.update(_git(top, "ls-files", "--others", "--exclude-standard", "-z").split("\0"))
    scope = path.resolve()
    out = []
    # porter's own state in the work tree (.porter/, a CI-cached .porter-toolchain/) is not the change
    own = {n for n in names if any(p == ".porter" or p.startswith(".porter-") for p in n.split("/"))}
    for name in sorted(n for n in names - own if n):
        file = (top / name).resolve()
        if file.is_file() and (file == scope or scope in file.parents):
            out.append(file)
    return out


def changes_commit(path: Path, base: str) -> str:
    """The commit changes are counted from: where HEAD left `base`."""
    top = Path(_git(path, "rev-parse", "--show-toplevel").strip())
    return _git(top, "merge-base", base, "HEAD").strip()
