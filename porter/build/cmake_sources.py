"""Which sources a tree's CMake build compiles, as far as its CMakeLists.txt files say so plainly.

A CMake project builds the sources its CMakeLists.txt files name (add_executable, add_library, target_sources,
cuda_add_executable..., directly or through set()/list() variables), in the folders add_subdirectory() reaches from
the top one. Real trees also hold sources that build never compiles: an old copy beside the one a target names
(`evice_information.cu` beside `device_information.cu`), a sample folder the top CMakeLists leaves out (one that
needs dynamic parallelism), a stray copy of another folder. Compiling those makes porter report errors the
project's own build never meets. The reading is conservative: a CMakeLists.txt that globs its sources
(file(GLOB...), aux_source_directory) or names sources and subfolders through variables it does not set to
literals counts every source below it as built, and a project whose reading names nothing at all is left as it
was (everything compiled). Sources under a CMakeFiles/ folder (a build directory's compiler probes) are never a
project's units.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

_COMMAND_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(((?:[^()]|\([^()]*\))*)\)")
_COMMENT_RE = re.compile(r"#\[(=*)\[.*?\]\1\]|#[^\n]*", re.S)
_WORD_RE = re.compile(r'"([^"]*)"|([^\s"]+)')
_VARIABLE_RE = re.compile(r"\$\{([A-Za-z_][\w.+-]*)\}")
_GLOBBING = frozenset({"aux_source_directory"})
# commands whose arguments are a target's sources: a word left as `${VAR}` there is sources this reading cannot see
_TARGET_COMMANDS = frozenset({"add_executable", "add_library", "target_sources", "cuda_add_executable",
                              "cuda_add_library", "hip_add_executable", "hip_add_library"})
_PROJECT_RE = re.compile(r"^\s*project\s*\(", re.IGNORECASE | re.M)
_DIR_VARIABLES = ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR")
_SOURCE_SUFFIXES = (".cu", ".hip", ".cpp", ".cc", ".cxx", ".c")


@dataclass
class CMakeReading:
    """What the tree's CMake projects build: `built(path)` is False only for a source the reading is sure of."""

    projects: list[Path] = field(default_factory=list)  # folders of the top CMakeLists.txt files that were read
    named: set[Path] = field(default_factory=set)  # sources a reached CMakeLists names, resolved
    tails: set[str] = field(default_factory=set)  # "/src/a.cu" of `${SOMEWHERE}/src/a.cu`: matched by ending
    open_dirs: list[Path] = field(default_factory=list)  # every source below these counts as built

    def governing(self, path: Path) -> Path | None:
        """The CMake project folder whose build decides on `path`, if the reading covers it."""
        return max((p for p in self.projects if path.is_relative_to(p)), key=lambda p: len(p.parts), default=None)

    def built(self, path: Path) -> bool:
        if self.governing(path) is None or path in self.named:
            return True
        if any(path.is_relative_to(d) for d in self.open_dirs):
            return True
        text = path.as_posix()
        return any(text.endswith(tail) for tail in self.tails)


def in_cmake_build_dir(path: Path) -> bool:
    """A file of a CMake build directory (CMakeFiles/3.9.6/CompilerIdCUDA/CMakeCUDACompilerId.cu)."""
    return "CMakeFiles" in path.parts[:-1]


def read_cmake_sources(files: list[Path]) -> CMakeReading:
    """The CMake reading of a tree (absolute paths of its files)."""
    reading = CMakeReading()
    lists = {p.parent: p for p in files if p.name == "CMakeLists.txt" and not in_cmake_build_dir(p)}
    seen: set[Path] = set()
    tops = sorted(d for d in lists if not any(d != o and d.is_relative_to(o) for o in lists))
    for top in tops:
        _read_project(top, lists, reading, seen)
    # a folder below them with a project() of its own that no add_subdirectory reaches is built on its own
    for folder in sorted(lists):
        if folder not in seen and _PROJECT_RE.search(lists[folder].read_text("utf-8", "replace")):
            _read_project(folder, lists, reading, seen)
    return reading


def _read_project(top: Path, lists: dict[Path, Path], reading: CMakeReading, seen: set[Path]) -> None:
    project = CMakeReading()
    _read_folder(top, lists, project, seen, {})
    if project.named or project.tails or project.open_dirs:  # a reading that names nothing is not understood
        reading.projects.append(top)
        reading.named |= project.named
        reading.tails |= project.tails
        reading.open_dirs += project.open_dirs


def _read_folder(folder: Path, lists: dict[Path, Path], reading: CMakeReading, seen: set[Path],
                 inherited: dict[str, list[str]]) -> None:
    if folder in seen or folder not in lists:
        return
    seen.add(folder)
    text = _COMMENT_RE.sub("", lists[folder].read_text("utf-8", "replace"))
    # a subdirectory sees its parent's variables, as CMake's directory scopes do
    variables: dict[str, list[str]] = {**inherited, **{name: [str(folder)] for name in _DIR_VARIABLES}}
    subdirs: list[Path] = []
    opened = False
    for m in _COMMAND_RE.finditer(text):
        command = m.group(1).lower()
        words = [a or b for a, b in _WORD_RE.findall(m.group(2))]
        if command in _GLOBBING or (command == "file" and words and words[0].upper().startswith("GLOB")):
            opened = True
            continue
        if command == "set" and words:
            variables[words[0]] = [x for w in words[1:] for x in _expand(w, variables)]
        elif command == "list" and len(words) > 2 and words[0].upper() == "APPEND":
            variables.setdefault(words[1], []).extend(x for w in words[2:] for x in _expand(w, variables))
        if command == "add_subdirectory" and words:
            for word in _expand(words[0], variables):
                if "${" in word or "$<" in word:
                    opened = True  # a subfolder named through a variable: what it builds is unknown here
                else:
                    subdirs.append(Path(os.path.normpath(folder / word)))
            continue
        if command == "include" and words and "${" in words[0]:
            opened = True  # a project file of sources, maybe
            continue
        if command in _TARGET_COMMANDS:
            words = words[1:]  # the target's name (often `${PROJECT_NAME}`), not a source
        for word in (x for w in words for x in _expand(w, variables)):
            if not word.lower().endswith(_SOURCE_SUFFIXES):
                opened = opened or (command in _TARGET_COMMANDS and "${" in word)
                continue
            if "$<" in word:
                word = word.rsplit(":", 1)[-1].rstrip(">")
            if "${" in word:
                tail = word[word.rindex("}") + 1:]
                if tail.startswith("/") and len(tail) > 3:
                    reading.tails.add(tail)
                else:
                    opened = True
            else:
                path = Path(word) if Path(word).is_absolute() else folder / word
                reading.named.add(Path(os.path.normpath(path)))
    if opened:
        reading.open_dirs.append(folder)
    for sub in subdirs:
        _read_folder(sub, lists, reading, seen, variables)


def _expand(word: str, variables: dict[str, list[str]]) -> list[str]:
    """`${SRCS}` to the words set() gave it; a variable this folder does not set stays as written."""
    whole = _VARIABLE_RE.fullmatch(word)
    if whole and whole.group(1) in variables:
        return list(variables[whole.group(1)])
    expanded = _VARIABLE_RE.sub(lambda m: variables[m.group(1)][0] if len(variables.get(m.group(1), ())) == 1
                                else m.group(0), word)
    return [x for x in expanded.split(";") if x]
