"""What porter asks git: commits, merge bases, what changed between two revisions, and a revision's files.

Every call runs the `git` command line in the repository (no library re-implements git's rename detection or
checkout filters); a failure becomes a `GitError` whose message is git's own last line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def porter_own(name: str) -> bool:
    """porter's own state inside a work tree (`.porter/`, `.porter-check-cache/`, a `.porter-toolchain/` that CI
    caches in the project): never part of the code being ported or of a change."""
    return any(part == ".porter" or part.startswith(".porter-") for part in name.split("/"))


class GitError(RuntimeError):
    """git failed, is missing, or the path is not in a work tree: an expected, one-line error."""


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, input_bytes: bytes | None = None) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False, input=input_bytes,
                              env={**os.environ, **(env or {})})
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except NotADirectoryError:
        raise GitError(f"{cwd}: not a directory") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {' '.join(args[:3])}: {message[-1] if message else 'failed'}")
    return done.stdout.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Scope:
    """A folder of a git work tree: the repository's top and the folder's path inside it ('' for the top)."""

    top: Path
    path: str  # posix, relative to top; '' when the scope is the whole repository

    @property
    def root(self) -> Path:
        return self.top / self.path if self.path else self.top

    def inside(self, name: str) -> str | None:
        """A repository-relative name as a scope-relative one (None when it lies outside the scope)."""
        if not self.path:
            return name
        prefix = self.path + "/"
        return name[len(prefix):] if name.startswith(prefix) else None


def scope_of(path: Path) -> Scope:
    """The work tree `path` (a directory) lies in; GitError when it is not in one."""
    path = path.resolve()
    top = Path(git(path, "rev-parse", "--show-toplevel").strip()).resolve()
    rel = path.relative_to(top).as_posix()
    return Scope(top, "" if rel == "." else rel)


def commit_of(top: Path, ref: str) -> str:
    """The full commit id `ref` names; GitError for anything that is not a commit."""
    try:
        return git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    except GitError:
        raise GitError(f"{ref!r} is not a commit in {top}") from None


def merge_base(top: Path, base: str, head: str = "HEAD") -> str:
    """Where the branch left `base`: what a pull request is compared with."""
    commit_of(top, base)
    return git(top, "merge-base", base, head).strip()


def _dirty(top: Path, path: str) -> bool:
    out = git(top, "status", "--porcelain", "-z", "--untracked-files=normal", "--", path or ".")
    return any(len(entry) > 3 and not porter_own(entry[3:]) for entry in out.split("\0"))


def is_dirty(scope: Scope) -> bool:
    """Uncommitted changes (staged, unstaged or untracked files) under the scope, porter's own state aside."""
    return _dirty(scope.top, scope.path)


@dataclass(frozen=True)
class SourceRevision:
    """The commit a work tree's files came from (what `.porter/manifest.json` records at convert time)."""

    repo: str  # the work tree's top, absolute
    path: str  # the converted folder (or file) inside it, posix; '' for the top
    commit: str
    dirty: bool  # uncommitted changes under `path`: the port is of the files as they were, not of `commit`

    def as_dict(self) -> dict:
        return {"repo": self.repo, "path": self.path, "commit": self.commit, "dirty": self.dirty}


def source_revision(path: Path) -> SourceRevision | None:
    """The commit of the work tree holding `path` (a file or directory); None outside git or before a commit."""
    folder = path if path.is_dir() else path.parent
    try:
        scope = scope_of(folder)
        commit = commit_of(scope.top, "HEAD")
        rel = path.resolve().relative_to(scope.top).as_posix()
        rel = "" if rel == "." else rel
        dirty = _dirty(scope.top, rel)
    except (GitError, ValueError, OSError):
        return None
    return SourceRevision(str(scope.top), rel, commit, dirty)


@dataclass(frozen=True)
class Change:
    """One file that differs between two revisions, in scope-relative names."""

    status: str  # A added, M modified, D deleted, R renamed (T type change counts as M)
    old: str | None  # the name at the first revision (None when added)
    new: str | None  # the name at the second revision (None when deleted)


def changes_between(scope: Scope, old: str, new: str) -> list[Change]:
    """What changed under the scope from commit `old` to commit `new`, with git's rename detection."""
    out = git(scope.top, "diff", "--no-ext-diff", "--no-color", "-M", "--name-status", "-z", old, new, "--",
              scope.path or ".")
    fields = out.split("\0")
    changes: list[Change] = []
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i][0]
        if status in "RC":
            a, b = scope.inside(fields[i + 1]), scope.inside(fields[i + 2])
            i += 3
            if status == "C" or a is None:  # a copy, or a rename from outside the scope: the new file is new
                changes.append(Change("A", None, b))
            elif b is None:
                changes.append(Change("D", a, None))
            else:
                changes.append(Change("R", a, b))
            continue
        name = scope.inside(fields[i + 1])
        i += 2
        if name is None:
            continue
        if status == "A":
            changes.append(Change("A", None, name))
        elif status == "D":
            changes.append(Change("D", name, None))
        else:
            changes.append(Change("M", name, name))
    return changes


def changed_since(scope: Scope, base: str) -> set[str]:
    """Scope-relative names changed since commit `base` in the work tree: committed, staged, unstaged, untracked,
    deleted (renames give both names)."""
    names: set[str] = set()
    for change in changes_between(scope, base, "HEAD"):
        names.update(n for n in (change.old, change.new) if n)
    for line in git(scope.top, "diff", "--name-only", "-z", "HEAD", "--", scope.path or ".").split("\0"):
        if line and (name := scope.inside(line)) is not None:
            names.add(name)
    for line in git(scope.top, "ls-files", "--others", "--exclude-standard", "-z", "--", scope.path or ".").split("\0"):
        if line and (name := scope.inside(line)) is not None:
            names.add(name)
    return {n for n in names if not porter_own(n)}


def export_commit(scope: Scope, commit: str, dest: Path) -> Path:
    """Write the scope's files at `commit` under `dest` (created) as a checkout would (filters and line endings
    applied), without touching the work tree, its index or HEAD. Returns `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    tree = f"{commit}:{scope.path}" if scope.path else f"{commit}^{{tree}}"
    with tempfile.TemporaryDirectory(prefix="porter-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(scope.top, "read-tree", tree, env=env)
        prefix = str(dest.resolve()) + os.sep
        # checkout-index writes paths relative to the work tree's top; with a sub-scope those are the scope's
        git(scope.top, "checkout-index", "--all", "--force", f"--prefix={prefix}", env=env)
    return dest


def export_work_tree(scope: Scope, dest: Path) -> Path:
    """Copy the scope's files as the work tree has them (tracked and untracked, not ignored; not porter's own
    state) under `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    listing = git(scope.top, "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", scope.path or ".")
    for name in sorted({n for n in listing.split("\0") if n}):
        rel = scope.inside(name)
        if rel is None or porter_own(rel):
            continue
        src, out = scope.top / name, dest / rel
        if src.is_symlink():
            out.parent.mkdir(parents=True, exist_ok=True)
            out.symlink_to(os.readlink(src))
        elif src.is_file():  # a deleted but still tracked file is gone from the work tree: so from the copy
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, out)
    return dest


def file_at(scope: Scope, commit: str, rel: str) -> bytes | None:
    """A scope-relative file's bytes at `commit` (None when it does not exist there)."""
    name = f"{scope.path}/{rel}" if scope.path else rel
    try:
        return subprocess.run(["git", "show", f"{commit}:{name}"], cwd=scope.top, capture_output=True,
                              check=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
