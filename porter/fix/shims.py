"""Compatibility headers (repo `shims/`, listed in `shims/index.toml`) copied into ports that need them."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from porter.build import HEADER_SUFFIXES
from porter.files import atomic_write
from porter.resources import resource_dir
from porter.syntax import first_char_alternation
from porter.translate import RocmVersion

SHIMS_DIR = resource_dir("shims")  # shims/ at the repository root, reached through porter/resources
OUT_DIRNAME = "porter_shims"
_HIP_RUNTIME_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]hip/hip_runtime(?:_api)?\.h[>"][^\n]*\n?', re.M)
_ANY_HIP_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]hip/[^>"]+[>"][^\n]*\n?', re.M)
# any HIP or ROCm library header (hip/, hipblas/, hipcub/, rocprim/, ...): what a before-hip shim must precede
_ANY_ROCM_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:hip|roc)\w*/[^>"]+[>"][^\n]*\n?', re.M)
_ANY_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include\b[^\n]*\n?', re.M)
_PRAGMA_ONCE_RE = re.compile(r'^[ \t]*#[ \t]*pragma[ \t]+once[^\n]*\n?', re.M)
_CG_ALIAS_RE = re.compile(r"\bnamespace\s+(\w+)\s*=\s*(?:::)?cooperative_groups\s*;")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class Shim:
    name: str
    file: str
    provides: tuple[str, ...]
    needed_before: RocmVersion | None
    before_hip: bool = False  # included before the file's first HIP include (it acts before HIP's headers)
    included_with: tuple[str, ...] = ()  # HIP headers whose include alone makes the shim needed (it configures them)
    # the shim stands for the included_with headers themselves (cuda-samples' helpers, which no ROCm has): their
    # includes become the shim's, unless the project has its own copy
    replaces_include: bool = False

    def needed_for(self, rocm: RocmVersion | None) -> bool:
        # unknown ROCm: include it; every version-limited shim is guarded by HIP_VERSION itself
        return self.needed_before is None or rocm is None or rocm < self.needed_before


@functools.cache
def all_shims() -> dict[str, Shim]:
    raw = tomllib.loads((SHIMS_DIR / "index.toml").read_text("utf-8"))
    return {
        name: Shim(name, row["file"], tuple(row["provides"]),
                   RocmVersion.parse(row["needed_before"]) if row.get("needed_before") else None,
                   row.get("place") == "before-hip", tuple(row.get("included_with", ())),
                   bool(row.get("replaces_include", False)))
        for name, row in raw.items()
    }


@functools.cache
def _replaced_headers() -> dict[str, tuple[str, ...]]:
    return {shim.file: shim.included_with for shim in all_shims().values() if shim.replaces_include}


@functools.cache
def _before_hip_files() -> frozenset[str]:
    return frozenset(shim.file for shim in all_shims().values() if shim.before_hip)


@functools.cache
def _namespaces() -> frozenset[str]:
    """The namespaces of the `ns::name` identifiers shims provide (cooperative_groups, cg)."""
    return frozenset(ident.split("::", 1)[0] for shim in all_shims().values() for ident in shim.provides if "::" in ident)


@functools.cache
def _provided_names(shims: tuple[str, ...]) -> frozenset[str]:
    """Every identifier the given shims provide (plain names; `ns::name` ones by their last part)."""
    return frozenset(ident.rsplit("::", 1)[-1] for name in shims for ident in all_shims()[name].provides)


@functools.cache
def _present_re(shims: tuple[str, ...]) -> re.Pattern[str]:
    """Any name the given shims provide, as a name of its own (not `obj.name`)."""
    return re.compile(first_char_alternation(list(_provided_names(shims)), lookbehind=r"[\w.]") + r"\b")


def _uses(code: str, ident: str, cg_aliases: set[str], present: set[str]) -> bool:
    if "::" in ident:
        ns, name = ident.rsplit("::", 1)
        # cooperative_groups is usually reached through an alias (cg::reduce); other namespaces as written
        spellings = cg_aliases if ns == "cooperative_groups" else {ns}
        return name in present and any(re.search(rf"\b{re.escape(n)}::{re.escape(name)}\b", code) for n in spellings)
    return ident in present


def needed_shims(text: str, rocm: RocmVersion | None, local_headers: frozenset[str] = frozenset()) -> set[str]:
    """Names of shims (index.toml keys) whose identifiers `text` uses, for the given ROCm (None: unknown).
    `local_headers`: base names of the headers the project has itself; a shim that stands for headers
    (replaces_include) is not needed where the project has one of them."""
    # shims for a namespace's names (cg::reduce) matter only where the namespace is named
    named = {ns for ns in _namespaces() if ns in text}
    by_include = {name for name, shim in all_shims().items() if shim.included_with and shim.needed_for(rocm)
                  and any(_includes(text, header) for header in shim.included_with)
                  # a project with its own copy of any of those headers (cuda-samples' Common/) keeps its own
                  and not (shim.replaces_include and local_headers.intersection(shim.included_with))}
    return by_include | _needed_by_names(text, rocm, named)


def project_headers(root: Path) -> frozenset[str]:
    """Base names of the headers under `root` outside porter's shims (what a quoted or angled include may mean)."""
    return frozenset(p.name for p in root.rglob("*") if p.suffix.lower() in HEADER_SUFFIXES
                     and OUT_DIRNAME not in p.relative_to(root).parts and p.is_file())


def _includes(text: str, header: str) -> bool:
    return header in text and re.search(rf'^[ \t]*#[ \t]*include[ \t]*[<"]{re.escape(header)}[>"]', text, re.M) is not None


def _needed_by_names(text: str, rocm: RocmVersion | None, named: set[str]) -> set[str]:
    candidates = tuple(name for name, shim in all_shims().items() if shim.needed_for(rocm)
                       and any("::" not in ident or ident.split("::", 1)[0] in named for ident in shim.provides))
    if not candidates:
        return set()
    code = _COMMENT_RE.sub(" ", text) if "/" in text else text
    present = set(_present_re(candidates).findall(code))  # one scan, only for what this ROCm lacks
    if not present:
        return set()
    aliases = {"cooperative_groups", *(_CG_ALIAS_RE.findall(code) if "cooperative_groups" in code else ())}
    return {name for name in candidates if any(_uses(code, ident, aliases, present) for ident in all_shims()[name].provides)}


def include_line(file: Path, out_root: Path, shim: Shim) -> str:
    rel = os.path.relpath(out_root / OUT_DIRNAME / shim.file, file.parent)
    return f'#include "{Path(rel).as_posix()}"  // porter shim\n'


def add_shim_include(text: str, line: str, shim_file: str) -> str:
    """Insert after the HIP runtime include (else after the first HIP include, else after the last include,
    else after #pragma once, else at the top); a `before-hip` shim goes before the first HIP include instead
    (else where the others go); a shim that stands for headers takes the place of their includes. Idempotent."""
    if "\r\n" in text:  # keep the file's line endings
        line = line.replace("\r\n", "\n").replace("\n", "\r\n")
    standing_for = _replaced_headers().get(shim_file)
    if standing_for:
        pattern = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:' + "|".join(map(re.escape, standing_for))
                             + r')[>"][^\n]*\n?', re.M)
        first = [True]

        def replace(m: re.Match) -> str:  # the first include becomes the shim's, the others go
            keep, first[0] = first[0] and f"{OUT_DIRNAME}/{shim_file}" not in text, False
            return line if keep else ""

        replaced = pattern.sub(replace, text)
        if replaced != text:
            return replaced
    if f"{OUT_DIRNAME}/{shim_file}" in text:
        return text
    if shim_file in _before_hip_files():
        first_hip = _ANY_ROCM_RE.search(text)
        if first_hip is not None:
            return text[:first_hip.start()] + line + text[first_hip.start():]
    for pattern in (_HIP_RUNTIME_RE, _ANY_HIP_RE):
        m = pattern.search(text)
        if m:
            break
    else:
        includes = list(_ANY_INCLUDE_RE.finditer(text))
        m = includes[-1] if includes else _PRAGMA_ONCE_RE.search(text)
    if m is None:
        return line + text
    end = m.end()
    prefix = text[:end] if text[:end].endswith("\n") else text[:end] + "\n"
    return prefix + line + text[end:]


def install_shims(out_root: Path, files: list[Path], rocm: RocmVersion | None = None,
                  only: dict[Path, set[str]] | None = None) -> dict[str, list[str]]:
    """Copy the needed shims to `<out_root>/porter_shims/` and include them where used.

    `only` forces the shim set per file (used by the rule fixers); returns {file relative to out_root: [shims added]}.
    """
    out_root = out_root.resolve()
    shims = all_shims()
    added: dict[str, list[str]] = {}
    stood_for = [h for headers in _replaced_headers().values() for h in headers]
    local: frozenset[str] | None = None  # the project's headers: read once, and only if a file includes one of those
    for f in files:
        path = (f if f.is_absolute() else out_root / f).resolve()
        if (out_root / OUT_DIRNAME) in path.parents:
            continue
        try:  # bytes as they are: CRLF and non-UTF-8 bytes survive the inserted include
            text = path.read_bytes().decode("utf-8", "surrogateescape")
        except OSError:
            continue
        if local is None and only is None and any(h in text for h in stood_for):
            local = project_headers(out_root)
        wanted = only.get(f, set()) if only is not None else needed_shims(text, rocm, local or frozenset())
        new, names = text, []
        for name in sorted(wanted):
            shim = shims[name]
            target = out_root / OUT_DIRNAME / shim.file
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(target, (SHIMS_DIR / shim.file).read_bytes())
            updated = add_shim_include(new, include_line(path, out_root, shim), shim.file)
            if updated != new:
                new = updated
                names.append(name)
        if new != text:
            atomic_write(path, new.encode("utf-8", "surrogateescape"), mode_from=path)
            rel = path.relative_to(out_root).as_posix() if path.is_relative_to(out_root) else str(path)
            added[rel] = names
    return added
