"""Compile results reused while nothing a translation unit reads has changed.

Each unit is compiled with hipcc's dependency output (`-MD`; for a unit that fails, where clang writes none, a
separate `-M -MG` run lists what it read). An entry is keyed by the unit, its compile flags, the toolchain (hipcc
and its HIP version) and the arch, and records the content hash of every file of the output tree the unit read. It
is reused while all of them are unchanged. A failed unit may have failed for a header it could not find, so its
entry also records which headers the tree holds: adding one anywhere compiles it again. Files outside the output
tree (HIP's and the system's headers) belong to the toolchain, which is part of the key. Entries live under
`OUT/.porter/build-cache/`, one small JSON file per unit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from porter.files import atomic_write

VERSION = 1  # bump when an entry's meaning changes
_DEP_SPLIT = re.compile(r"(?<!\\)\s+")


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a Makefile-style dependency file (`target: a.h b\\ c.h \\`)."""
    body = text.replace("\\\n", " ")
    _, _, deps = body.partition(": ")
    return [d.replace("\\ ", " ").replace("$$", "$") for d in _DEP_SPLIT.split(deps.strip()) if d]


@dataclass
class CachedUnit:
    ok: bool
    output: str  # hipcc's output, as it was


@dataclass
class BuildCache:
    root: Path  # the output tree
    directory: Path  # where entries go
    headers: str = ""  # a digest of the header paths the tree holds (see the module docstring)
    _hashes: dict[str, str | None] = field(default_factory=dict, repr=False)

    @classmethod
    def for_tree(cls, root: Path) -> BuildCache:
        root = root.resolve()
        return cls(root, root / ".porter" / "build-cache")

    def refresh(self, headers: list[str]) -> None:
        """Before a build: files may have changed since the last one (a fixer round, an agent's edit)."""
        self._hashes.clear()
        self.headers = hashlib.blake2b("\n".join(sorted(headers)).encode(), digest_size=16).hexdigest()

    def _hash(self, rel: str) -> str | None:
        # builds of disjoint units may run in threads at once (the agent's tasks): never read back what another
        # thread's refresh() may have cleared in between
        if rel in (known := self._hashes):
            return known[rel]
        try:
            digest: str | None = hashlib.blake2b((self.root / rel).read_bytes(), digest_size=16).hexdigest()
        except OSError:
            digest = None  # missing (or unreadable): recorded, so creating it invalidates
        self._hashes[rel] = digest
        return digest

    def _entry_path(self, unit: str) -> Path:
        return self.directory / (hashlib.blake2b(unit.encode(), digest_size=12).hexdigest() + ".json")

    @staticmethod
    def key(unit: str, command: list[str], toolchain: str, arch: str) -> str:
        text = json.dumps([VERSION, unit, command, toolchain, arch])
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def lookup(self, unit: str, key: str) -> CachedUnit | None:
        try:
            entry = json.loads(self._entry_path(unit).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if entry.get("key") != key or not isinstance(entry.get("deps"), dict) or entry.get("deps_only"):
            return None
        if not entry["ok"] and entry.get("headers") != self.headers:
            return None
        if any(self._hash(rel) != digest for rel, digest in entry["deps"].items()):
            return None
        return CachedUnit(bool(entry["ok"]), entry.get("output", ""))

    def store(self, unit: str, key: str, deps: list[str], ok: bool, output: str) -> None:
        """Record a result; `deps` are the paths clang reported, relative to the output root or absolute."""
        inside = self._inside_hashes(unit, deps)
        entry = {"key": key, "unit": unit, "ok": ok, "output": output, "deps": inside, "headers": self.headers}
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            atomic_write(self._entry_path(unit), json.dumps(entry).encode())

    def store_dependencies(self, unit: str, key: str, deps: list[str]) -> None:
        """Record what a unit reads without a compile result (from `-M -MG`); `lookup` never returns it."""
        entry = {"key": key, "unit": unit, "deps_only": True, "deps": self._inside_hashes(unit, deps)}
        with contextlib.suppress(OSError):
            atomic_write(self._entry_path(unit), json.dumps(entry).encode())

    def dependencies_of(self, unit: str, key: str) -> list[str] | None:
        """The tree files `unit` reads, when recorded under `key` and none of them changed since (else None)."""
        try:
            entry = json.loads(self._entry_path(unit).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        deps = entry.get("deps")
        if entry.get("key") != key or not isinstance(deps, dict):
            return None
        if any(self._hash(rel) != digest for rel, digest in deps.items()):
            return None
        return sorted(deps)

    def units_reading(self, files: Iterable[str]) -> list[str]:
        """The units whose recorded dependencies include any of `files` (paths relative to the tree)."""
        wanted = set(files)
        return sorted(unit for unit, deps in self.dependencies().items() if wanted.intersection(deps))

    def _inside_hashes(self, unit: str, deps: list[str]) -> dict[str, str | None]:
        inside: dict[str, str | None] = {unit: self._hash(unit)}
        for dep in deps:
            rel = self._inside(dep)
            if rel is not None:
                inside[rel] = self._hash(rel)
        return inside

    def dependencies(self) -> dict[str, list[str]]:
        """Each unit with an entry (and still in the tree), and the files of the tree it read when it was last
        compiled, itself included: which units include a header, for the agent's task planning."""
        out: dict[str, list[str]] = {}
        for path in sorted(self.directory.glob("*.json")):
            try:
                entry = json.loads(path.read_text("utf-8"))
                unit, deps = entry["unit"], entry["deps"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if isinstance(unit, str) and isinstance(deps, dict) and (self.root / unit).is_file():
                out[unit] = sorted(deps)
        return out

    def _inside(self, dep: str) -> str | None:
        path = Path(dep)
        if not path.is_absolute():
            path = self.root / path
        try:
            rel = path.resolve().relative_to(self.root)
        except (ValueError, OSError):
            return None
        return None if rel.parts[:1] == (".porter",) else rel.as_posix()
