"""What to compile in an output tree and with which include paths / defines.

Sources of flags, first found wins for the project part: compile_commands.json, CMakeLists.txt, Makefile.
The directories of headers in the tree are always added so plain `#include "x.h"` resolves.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

SOURCE_SUFFIXES = {".hip", ".cu", ".cpp", ".cc", ".cxx"}
HEADER_SUFFIXES = {".h", ".hpp", ".hh", ".hxx", ".cuh", ".inl"}
_SKIP_DIRS = {"CMakeFiles", "__pycache__", "node_modules"}
# A C++ file is compiled by the HIP build only when it is GPU code: HIP/CUDA includes, kernels, launches, API calls.
_GPU_CODE_RE = re.compile(
    r"#\s*include\s*[<\"](?:hip/|cuda|hiprand|rocrand|hipsparse|rocprim|hipblas|hipfft|hipcub|thrust/)"
    r"|__global__|__device__|<<<|\bhip[A-Z]\w*\s*\("
)


@dataclass
class CompileFlags:
    include_dirs: list[str] = field(default_factory=list)  # absolute paths
    defines: list[str] = field(default_factory=list)  # NAME or NAME=VALUE
    source: str = "tree"  # where the project flags came from

    def add_include(self, path: Path) -> None:
        text = str(path)
        if text not in self.include_dirs:
            self.include_dirs.append(text)

    def add_define(self, define: str) -> None:
        if define and define not in self.defines:
            self.defines.append(define)

    def args(self) -> list[str]:
        return [f"-I{d}" for d in self.include_dirs] + [f"-D{d}" for d in self.defines]


def walk_files(root: Path):
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") or part in _SKIP_DIRS for part in rel.parts[:-1]):
            continue
        if path.is_file():
            yield path


@dataclass
class UnitPlan:
    """What a build compiles, and what it leaves out and why (the summary and the report show both)."""

    units: list[Path] = field(default_factory=list)  # translation units to compile
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it is not compiled
    headers: int = 0  # headers: compiled through the units that include them


def plan_units(root: Path, files: list[Path] | None = None) -> UnitPlan:
    """Sources to compile: .hip/.cu always, .cpp/.cc/.cxx only when they hold GPU code. `files` (absolute)
    restricts the plan; a given file that does not exist is a skipped unit, never silently dropped."""
    plan = UnitPlan()
    for path in files if files is not None else walk_files(root):
        suffix = path.suffix.lower()
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        if not path.is_file():
            plan.skipped[shown] = "no such file"
        elif suffix in HEADER_SUFFIXES:
            plan.headers += 1
        elif suffix == ".c":
            plan.skipped[shown] = "C source: not compiled by the HIP build"
        elif suffix not in SOURCE_SUFFIXES:
            continue
        elif suffix in (".hip", ".cu") or _GPU_CODE_RE.search(path.read_text("utf-8", "replace")):
            plan.units.append(path)
        else:
            plan.skipped[shown] = "host-only C++: no HIP include, kernel, launch or HIP call"
    return plan


def translation_units(root: Path, files: list[Path] | None = None) -> list[Path]:
    return plan_units(root, files).units


def _remap(path: Path, source_root: Path | None, out_root: Path) -> Path:
    """compile_commands.json usually describes the input tree: point its paths at the output tree."""
    if source_root is not None:
        try:
            return out_root / path.relative_to(source_root)
        except ValueError:
            pass
    return path


def _flags_from_args(args: list[str], base: Path, flags: CompileFlags, source_root: Path | None, out_root: Path) -> None:
    it = iter(range(len(args)))
    for i in it:
        arg = args[i]
        for prefix in ("-I", "-isystem", "-iquote"):
            if arg == prefix and i + 1 < len(args):
                value = args[i + 1]
                next(it, None)
            elif arg.startswith(prefix) and arg != prefix and not (prefix == "-I" and arg.startswith("-isystem")):
                value = arg[len(prefix):]
            else:
                continue
            path = Path(value) if Path(value).is_absolute() else base / value
            flags.add_include(_remap(path.resolve(), source_root, out_root))
            break
        else:
            if arg == "-D" and i + 1 < len(args):
                flags.add_define(args[i + 1])
                next(it, None)
            elif arg.startswith("-D"):
                flags.add_define(arg[2:])


def from_compile_commands(path: Path, out_root: Path, source_root: Path | None) -> CompileFlags:
    flags = CompileFlags(source=str(path.relative_to(out_root)) if path.is_relative_to(out_root) else str(path))
    try:
        entries = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return flags
    for entry in entries if isinstance(entries, list) else []:
        args = entry.get("arguments") or shlex.split(entry.get("command", ""))
        base = Path(entry.get("directory", str(path.parent)))
        _flags_from_args(args, base, flags, source_root, out_root)
    return flags


_CMAKE_CALL_RE = re.compile(
    r"\b(include_directories|target_include_directories|add_definitions|add_compile_definitions|"
    r"target_compile_definitions)\s*\(([^)]*)\)", re.IGNORECASE)
_CMAKE_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"}


def from_cmake(cmake_files: list[Path], flags: CompileFlags) -> None:
    """Simple parsing: literal arguments and the usual source-dir variables; anything else is skipped."""
    for file in cmake_files:
        here = file.parent
        text = re.sub(r"#[^\n]*", "", file.read_text("utf-8", "replace"))
        for m in _CMAKE_CALL_RE.finditer(text):
            command = m.group(1).lower()
            words = shlex.split(m.group(2), posix=True)
            if command.startswith("target_"):
                words = words[1:]  # the target name
            for word in words:
                if word.upper() in _CMAKE_KEYWORDS:
                    continue
                for var in ("${CMAKE_CURRENT_SOURCE_DIR}", "${CMAKE_CURRENT_LIST_DIR}"):
                    word = word.replace(var, str(here))
                for var in ("${PROJECT_SOURCE_DIR}", "${CMAKE_SOURCE_DIR}"):
                    word = word.replace(var, str(cmake_files[0].parent))
                if "${" in word or "$<" in word:
                    continue
                if "include_directories" in command:
                    path = Path(word) if Path(word).is_absolute() else here / word
                    flags.add_include(path.resolve())
                else:
                    flags.add_define(word[2:] if word.startswith("-D") else word if command != "add_definitions" else "")


_MAKE_VAR_RE = re.compile(r"^\s*(?:override\s+)?([A-Za-z_][\w.]*)\s*(?::=|\+=|\?=|=)\s*(.*)$")
_MAKE_FLAG_VARS = re.compile(r"FLAGS|INC|DEF", re.IGNORECASE)


def from_makefile(makefile: Path, flags: CompileFlags) -> None:
    """-I/-D in CFLAGS/NVCCFLAGS/INCLUDES-like variables; tokens that use $(...) are skipped."""
    text = makefile.read_text("utf-8", "replace").replace("\\\n", " ")
    for line in text.splitlines():
        m = _MAKE_VAR_RE.match(line)
        if not m or not _MAKE_FLAG_VARS.search(m.group(1)):
            continue
        try:
            tokens = shlex.split(m.group(2).split("#", 1)[0])
        except ValueError:
            continue
        kept: list[str] = []
        for tok in tokens:
            if "$(" in tok or "${" in tok:
                if kept and kept[-1] in ("-I", "-D", "-isystem", "-iquote"):
                    kept.pop()  # its separate value is a make variable
                continue
            kept.append(tok)
        tokens = kept
        _flags_from_args(tokens, makefile.parent, flags, None, makefile.parent)


def _source_root(out_root: Path) -> Path | None:
    manifest = out_root / ".porter" / "manifest.json"
    try:
        return Path(json.loads(manifest.read_text("utf-8"))["source_root"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def collect_flags(out_root: Path) -> CompileFlags:
    out_root = out_root.resolve()
    ccdb = next((p for p in (out_root / "compile_commands.json", out_root / "build" / "compile_commands.json")
                 if p.is_file()), None)
    all_files = list(walk_files(out_root))
    if ccdb is not None:
        flags = from_compile_commands(ccdb, out_root, _source_root(out_root))
    else:
        flags = CompileFlags()
        cmake = sorted((p for p in all_files if p.name == "CMakeLists.txt"), key=lambda p: len(p.parts))
        makefiles = [p for p in all_files if p.name in ("Makefile", "makefile", "GNUmakefile") or p.suffix == ".mk"]
        if cmake:
            flags.source = "CMakeLists.txt"
            from_cmake(cmake, flags)
        elif makefiles:
            flags.source = "Makefile"
            for mk in makefiles:
                from_makefile(mk, flags)
    for path in all_files:
        if path.suffix.lower() in HEADER_SUFFIXES:
            flags.add_include(path.parent)
    return flags
