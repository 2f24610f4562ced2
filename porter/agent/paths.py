"""Resolve model-supplied paths strictly inside the output tree."""

from __future__ import annotations

from pathlib import Path

# porter's own state (manifest, cache, transcript) is not the model's to edit
_PRIVATE = (".porter", ".git")


class PathRefused(ValueError):
    pass


def resolve_inside(root: Path, path: str) -> Path:
    """The real path of `path` (relative to root, or absolute) if it stays inside root; else PathRefused.

    Symlinks are followed before the check, so a link pointing out of the tree is refused too.
    """
    if not isinstance(path, str) or not path.strip():
        raise PathRefused("path is empty")
    if "\x00" in path:
        raise PathRefused("path contains a NUL byte")
    real_root = root.resolve()
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = real_root / candidate
    resolved = candidate.resolve()  # follows symlinks, collapses `..`
    if not resolved.is_relative_to(real_root):
        raise PathRefused(f"{path!r} is outside the ported tree; only files under its root can be used")
    relative = resolved.relative_to(real_root)
    if relative.parts and relative.parts[0] in _PRIVATE:
        raise PathRefused(f"{path!r} is porter's internal state, not part of the port")
    return resolved


def display_path(root: Path, resolved: Path) -> str:
    return resolved.relative_to(root.resolve()).as_posix()
