"""What to compile in an output tree and with which include paths, defines and language options.

Sources of flags, first found wins for the project part: compile_commands.json, CMakeLists.txt, Makefile. Besides
-I and -D, the options that change what compiles are kept: the language standard, OpenMP and relocatable device
code (`-fgpu-rdc`, what CUDA's separable compilation is in HIP: without it a unit that calls a device function
defined in another unit fails its per-unit device link). Then, so that real trees resolve their includes even when
the build files are beyond this reading: an `#include "lib/x.h"` found nowhere else resolves to the folder above
the tree's `.../lib/x.h`, and the directories of headers in the tree are added so plain `#include "x.h"` resolves.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from porter.build.cmake_sources import in_cmake_build_dir, read_cmake_sources
from porter.build.make_conditions import Branch, conditioned_lines, recipe_options, source_mentions
from porter.build.mpi import mpi_include_dirs

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
    include_dirs: list[str] = field(default_factory=list)  # absolute paths: from build files (-I)
    # every folder of the tree holding headers, which build files not read here may put on the path: searched
    # after the system's (-idirafter), so a project's Windows `unistd.h` or its own `math.h` never shadows the
    # system header an `#include <...>` means, while `#include "util.h"` from anywhere still finds it
    header_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)  # NAME or NAME=VALUE
    source: str = "tree"  # where the project flags came from
    std: str | None = None  # c++17: the first standard the build names
    openmp: bool = False
    rdc: bool = False  # relocatable device code
    # folders holding a build file (Makefile, CMakeLists.txt): in a tree of several projects a unit's own
    # project's include folders come first, so `"reference.h"` finds its project's, not a sibling project's
    project_dirs: list[str] = field(default_factory=list)
    # CMake's language standard per folder of a CMakeLists.txt that sets one: a unit takes its nearest folder's
    # (a tree of samples sets C++11 in one and C++17 in another), else `std`
    project_std: dict[str, str] = field(default_factory=dict)
    # -I/-D a Makefile's recipe gives one unit (`nvcc -DUSE_NVTX ... manual_nvtx.cu`): absolute path -> options
    unit_options: dict[str, list[str]] = field(default_factory=dict)
    unit_std: dict[str, str] = field(default_factory=dict)  # a recipe's -std= for the units it compiles
    # the machine's MPI headers, for a tree that includes mpi.h (porter.build.mpi): searched last
    mpi_dirs: list[str] = field(default_factory=list)

    def add_include(self, path: Path) -> None:
        text = str(path)
        if text not in self.include_dirs:
            self.include_dirs.append(text)

    def add_header_dir(self, path: Path) -> None:
        text = str(path)
        if text not in self.include_dirs and text not in self.header_dirs:
            self.header_dirs.append(text)

    def add_define(self, define: str) -> None:
        if define and define not in self.defines:
            self.defines.append(define)

    def set_std(self, value: str) -> None:
        if self.std is None and _STD_RE.fullmatch(value):
            self.std = value

    def args(self, unit: Path | None = None) -> list[str]:
        c_unit = unit is not None and unit.suffix == ".c"  # a C++ standard and device code mean nothing to C
        std = self.std_for(unit) or NVCC_DEFAULT_STD
        if _OLDER_THAN_14.fullmatch(std) and unit is not None and _uses_rocprim(unit):
            std = std.split("++")[0] + "++14"  # gnu++11 -> gnu++14
        options = [f"-std={std}"] if not c_unit else []
        options += ["-fopenmp"] if self.openmp else []
        options += ["-fgpu-rdc"] if self.rdc and not c_unit else []
        own = self.unit_options.get(str(unit), []) if unit is not None else []
        return ([f"-I{d}" for d in self.include_order(self.include_dirs, unit)]
                + [f"-idirafter{d}" for d in self.include_order(self.header_dirs, unit)]
                + [f"-D{d}" for d in self.defines] + own + options
                + [arg for d in self.mpi_dirs for arg in ("-idirafter", d)])  # two words: a toolchain root binds d

    def std_for(self, unit: Path | None) -> str | None:
        if unit is not None and (std := self.unit_std.get(str(unit))) is not None:
            return std
        if unit is not None and self.project_std:
            here = unit.parent
            for folder in (here, *here.parents):
                if (std := self.project_std.get(str(folder))) is not None:
                    return std
        return self.std

    def include_order(self, dirs: list[str], unit: Path | None) -> list[str]:
        """`dirs` for `unit`: those inside its project (the nearest folder above it with a build file) first, the
        rest in their order."""
        if unit is None or len(self.project_dirs) < 2:
            return dirs
        here = str(unit.parent)
        own = max((d for d in self.project_dirs if here == d or here.startswith(d.rstrip("/") + "/")), key=len,
                  default=None)
        if own is None:
            return dirs
        prefix = own.rstrip("/") + "/"
        return sorted(dirs, key=lambda d: not (d == own or d.startswith(prefix)))


# The standard a unit compiles with when its build names none: nvcc's, which is its host compiler's default (GCC 11
# and later, clang 16 and later: C++17), where ROCm 5.x's hipcc forces -std=c++11 (hipcc.pl), which code written for
# nvcc does not fit (`auto` return types, structured bindings, if constexpr). Spelled c++17: porter tune hands the
# same flags to nvcc, which rejects gnu++17.
NVCC_DEFAULT_STD = "c++17"
# rocThrust, hipCUB and rocPRIM refuse C++11 ("rocPRIM requires at least C++14", rocPRIM's config.hpp; CUDA 11's
# Thrust took it): a unit that includes them compiles with C++14 where its build names C++11. The build file is left
# as written (README: Building).
_OLDER_THAN_14 = re.compile(r"(?:c|gnu)\+\+(?:11|03|98|0x)")
_ROCPRIM_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*<(?:thrust|cub|hipcub|rocprim|rocthrust)/", re.M)


def _uses_rocprim(unit: Path) -> bool:
    try:
        return _ROCPRIM_INCLUDE.search(unit.read_bytes()) is not None
    except OSError:
        return False


_BUILD_FILE_NAMES = frozenset({"CMakeLists.txt", "Makefile", "makefile", "GNUmakefile"})
_STD_RE = re.compile(r"(?:c|gnu)\+\+(?:11|14|17|20|23|2a|2b|1z|1y)")
_RDC_FLAGS = {"-fgpu-rdc", "-rdc=true", "--relocatable-device-code=true", "-dc", "--device-c"}


def _is_makefile(path: Path) -> bool:
    return path.name in ("Makefile", "makefile", "GNUmakefile") or path.suffix == ".mk"


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


# a C source that includes a HIP header (runtime or library) is HIP host code
_GPU_API_C_RE = re.compile(
    r"#\s*include\s*[<\"](?:hip/|hiprand|rocrand|hipsparse|hipblas|hipfft|hipsolver|rocblas|rocsparse|rocfft)")
_QUOTED_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def plan_units(root: Path, files: list[Path] | None = None, *, alone: bool = False) -> UnitPlan:
    """Sources to compile: .hip/.cu always, .cpp/.cc/.cxx only when they hold GPU code. `files` (absolute)
    restricts the plan; a given file that does not exist is a skipped unit, never silently dropped. A source
    that a unit or header of the tree `#include`s ("kernel.cu", as Rodinia and older SDK code do) is compiled as
    part of it, not alone (alone it lacks what the includer defines before it), unless `alone` (a unit asked for
    by name) or a Makefile compiles it itself (llm.c's train_gpt2.cu, which profile_gpt2.cu includes). A source
    that the tree's Makefiles name only where a plain `make` does not read them is not compiled (_make_reading),
    nor one that a CMake project's build leaves out (porter.build.cmake_sources), nor a CMake build folder's."""
    plan = UnitPlan()
    tree = list(walk_files(root)) if files is None else None
    for path in files if files is not None else tree:
        suffix = path.suffix.lower()
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        if not path.is_file():
            plan.skipped[shown] = "no such file"
        elif in_cmake_build_dir(path) and not alone:
            if suffix in SOURCE_SUFFIXES or suffix == ".c":
                plan.skipped[shown] = "a CMake build folder's file (CMakeFiles/): not a project source"
        elif suffix in HEADER_SUFFIXES:
            plan.headers += 1
        elif suffix == ".c":
            # C calling HIP's host API or a HIP library (cuSPARSE's C samples) is compiled, as C, against HIP's
            # headers; other C is the project's host code, which the HIP build does not check
            if _GPU_API_C_RE.search(path.read_text("utf-8", "replace")):
                plan.units.append(path)
            else:
                plan.skipped[shown] = "C source without HIP calls: not compiled by the HIP build"
        elif suffix not in SOURCE_SUFFIXES:
            continue
        elif suffix in (".hip", ".cu") or _GPU_CODE_RE.search(path.read_text("utf-8", "replace")):
            plan.units.append(path)
        else:
            plan.skipped[shown] = "host-only C++: no HIP include, kernel, launch or HIP call"
    if not alone and plan.units:
        tree = tree if tree is not None else list(walk_files(root))  # its Makefiles and its include edges
        # a compile_commands.json says what the build compiles its own way: neither reading below applies
        described = any(p.name == "compile_commands.json" for p in tree)
        make = MakeReading() if described else _make_reading(tree)
        for unit, makefile in make.unread.items():
            if unit in plan.units:
                plan.units.remove(unit)
                plan.skipped[str(unit.relative_to(root))] = (
                    f"{makefile.relative_to(root)} builds it only under a condition a plain `make` does not meet")
        included = _included_sources(tree, set(plan.units))
        for unit, makefile in make.unnamed.items():
            if unit in plan.units and unit not in included:
                plan.units.remove(unit)
                plan.skipped[str(unit.relative_to(root))] = (
                    f"not among the sources {makefile.relative_to(root)} names")
        if not described:
            cmake = read_cmake_sources(tree)
            for unit in [u for u in plan.units if u not in included and not cmake.built(u)]:
                plan.units.remove(unit)
                project = cmake.governing(unit)
                plan.skipped[str(unit.relative_to(root))] = (
                    f"not among the sources the CMake build of {_shown_dir(project, root)} compiles")
        for unit in [u for u in plan.units if u in included and u not in make.compiled]:
            plan.units.remove(unit)
            includer = included[unit]
            plan.skipped[str(unit.relative_to(root))] = (
                f"included by {includer.relative_to(root) if includer.is_relative_to(root) else includer}: "
                "compiled as part of it")
    return plan


def skip_kind(reason: str) -> str:
    """A skip reason as summaries count it: per-file details ("included by bfs/bfs.cu: ...") in one group."""
    if reason.startswith("included by "):
        return "included by another source: compiled as part of it"
    if reason.endswith("builds it only under a condition a plain `make` does not meet"):
        return "built by the Makefile only under a condition a plain `make` does not meet"
    if reason.startswith("not among the sources the CMake build"):
        return "not among the sources the CMake build compiles"
    if reason.startswith("not among the sources "):
        return "not among the sources its folder's Makefile names"
    return reason


def _shown_dir(folder: Path | None, root: Path) -> str:
    if folder is None or not folder.is_relative_to(root):
        return str(folder)
    rel = folder.relative_to(root)
    return "the tree" if rel == Path() else f"{rel}/"


def _outside_cmake_projects(makefiles: list[Path], cmake: list[Path]) -> list[Path]:
    """The Makefiles no CMake project contains (a CMake build dir's or a sample's leftover Makefile is not how it
    builds)."""
    projects = [c.parent for c in cmake]
    return [mk for mk in makefiles if not any(mk.parent.is_relative_to(p) for p in projects)]


@dataclass
class MakeReading:
    """What the tree's Makefiles say of its sources (_make_reading)."""

    unread: dict[Path, Path] = field(default_factory=dict)  # named only where a plain make does not read -> Makefile
    compiled: set[Path] = field(default_factory=set)  # a rule's first prerequisite or a recipe's argument
    unnamed: dict[Path, Path] = field(default_factory=dict)  # beside a Makefile that lists its sources, not listed


# a Makefile that finds its sources rather than naming them
_MAKE_GLOB_RE = re.compile(r"\$[({]wildcard\b|(?<!\$)\*\.(?:cu|cuh|hip|cpp|cc|cxx|c)\b|\$[({]shell\s+(?:find|ls)\b")


def _make_reading(files: list[Path]) -> MakeReading:
    """What the tree's Makefiles say of its sources: those they name only where a plain `make` does not read
    them (a branch not taken, a rule whose target is empty: optional parts such as llm.c's cuDNN attention); those
    they compile themselves (a rule's first prerequisite, a recipe's argument); and the sources beside a Makefile
    that names its sources one by one (no wildcard, no shell) but not those (a license text called LICENSE.gups.cu,
    an old copy of a kernel). Only for Makefiles outside CMake projects (plan_units leaves trees with a
    compile_commands.json out); a source beside no such Makefile is planned as before."""
    reading = MakeReading()
    read: dict[Path, bool] = {}
    where: dict[Path, Path] = {}
    listing: list[Path] = []  # Makefiles that name their own folder's sources one by one
    makefiles = [p for p in files if _is_makefile(p)]
    for makefile in _outside_cmake_projects(makefiles, [p for p in files if p.name == "CMakeLists.txt"]):
        text = makefile.read_text("utf-8", "replace")
        mentions = source_mentions(text)
        for written, mention in mentions.items():
            path = Path(os.path.normpath(makefile.parent / written))
            read[path] = read.get(path, False) or mention.read
            where.setdefault(path, makefile)
            if mention.compiled:
                reading.compiled.add(path)
        if not _MAKE_GLOB_RE.search(text) and any("/" not in w and m.read for w, m in mentions.items()):
            listing.append(makefile)
    reading.unread = {path: where[path] for path, seen in read.items() if not seen}
    for makefile in listing:
        for path in files:
            if path.parent == makefile.parent and path.suffix.lower() in (*SOURCE_SUFFIXES, ".c") \
                    and path not in read:
                reading.unnamed.setdefault(path, makefile)
    return reading


def _included_sources(files: list[Path], units: set[Path]) -> dict[Path, Path]:
    """unit -> the file that `#include "..."`s it (resolved beside the includer), for the units some other unit
    reaches through such includes: those are compiled as part of it. A source included only by a header no unit
    reaches is kept as a unit (left out, it would be compiled nowhere)."""
    edges: dict[Path, list[Path]] = {}
    for path in files:
        if path.suffix.lower() not in SOURCE_SUFFIXES and path.suffix.lower() not in HEADER_SUFFIXES:
            continue
        text = path.read_text("utf-8", "replace")
        if "include" in text:
            edges[path] = [Path(os.path.normpath(path.parent / m.group(1))) for m in _QUOTED_INCLUDE_RE.finditer(text)]
    includer: dict[Path, Path] = {}
    for path, targets in edges.items():
        for target in targets:
            if target in units and target != path:
                includer.setdefault(target, path)
    reached: set[Path] = set()
    stack = [u for u in units if u not in includer]  # the units nothing includes: where the build starts
    while stack:
        for target in edges.get(stack.pop(), ()):
            if target not in reached:
                reached.add(target)
                stack.append(target)
    return {unit: includer[unit] for unit in units if unit in includer and unit in reached}


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


def _unwrap_host_options(args: list[str]) -> list[str]:
    """nvcc's -Xcompiler X / -Xcompiler=X,Y / --compiler-options X name host compiler options: the options."""
    out: list[str] = []
    it = iter(args)
    for arg in it:
        if arg in ("-Xcompiler", "--compiler-options"):
            out += next(it, "").split(",")
        elif arg.startswith(("-Xcompiler=", "--compiler-options=")):
            out += arg.split("=", 1)[1].split(",")
        else:
            out.append(arg)
    return out


def _flags_from_args(args: list[str], base: Path, flags: CompileFlags, source_root: Path | None, out_root: Path) -> None:
    args = _unwrap_host_options(args)
    it = iter(range(len(args)))
    for i in it:
        arg = args[i]
        if arg.startswith(("-std=", "--std=")):
            flags.set_std(arg.split("=", 1)[1])
            continue
        if arg in ("-std", "--std") and i + 1 < len(args):
            flags.set_std(args[i + 1])
            next(it, None)
            continue
        if arg in ("-fopenmp", "-fopenmp=libomp", "-qopenmp"):
            flags.openmp = True
            continue
        if arg in _RDC_FLAGS:
            flags.rdc = True
            continue
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
    r"target_compile_definitions|add_compile_options|target_compile_options)\s*\(([^)]*)\)", re.IGNORECASE)
_CMAKE_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"}
_CMAKE_SET_RE = re.compile(r"\bset\s*\(\s*([A-Za-z_][\w.+-]*)\s+([^)\s][^)]*?)\s*\)", re.IGNORECASE)
_CMAKE_STANDARD_RE = re.compile(r"\b(?:CMAKE_)?(HIP|CUDA|CXX)_STANDARD\s+\"?(\d\d)\b")
_CMAKE_RDC_RE = re.compile(r"\b(?:CMAKE_)?CUDA_SEPARABLE_COMPILATION\s+\"?(?:ON|TRUE|YES|1)\b", re.IGNORECASE)
_CMAKE_OPENMP_RE = re.compile(r"\bfind_package\s*\(\s*OpenMP\b|\bOpenMP::OpenMP_(?:CXX|C)\b", re.IGNORECASE)
# $<BUILD_INTERFACE:x> and $<$<COMPILE_LANGUAGE:CUDA>:x> are x while building; $<INSTALL_INTERFACE:x> is not
_GENEX_KEEP_RE = re.compile(r"\$<(?:BUILD_INTERFACE|\$<COMPILE_LANGUAGE:(?:CUDA|HIP|CXX)>):([^<>]*)>")
_GENEX_DROP_RE = re.compile(r"\$<INSTALL_INTERFACE:[^<>]*>")


def _cmake_variables(text: str) -> dict[str, str]:
    """set(NAME value) with a literal value: enough for the include folders and definitions real projects name."""
    values: dict[str, str] = {}
    for m in _CMAKE_SET_RE.finditer(text):
        value = m.group(2).strip()
        if not value.upper().endswith(("CACHE", "PARENT_SCOPE")) and " CACHE " not in value:
            values.setdefault(m.group(1), value.strip('"'))
    return values


def _expand(word: str, variables: dict[str, str]) -> str:
    for _ in range(4):  # nested ${A}/${B}: a few rounds, no recursion
        expanded = re.sub(r"\$\{([A-Za-z_][\w.+-]*)\}", lambda m: variables.get(m.group(1), m.group(0)), word)
        if expanded == word:
            break
        word = expanded
    word = _GENEX_DROP_RE.sub("", word)
    return _GENEX_KEEP_RE.sub(lambda m: m.group(1), word)


def from_cmake(cmake_files: list[Path], flags: CompileFlags) -> None:
    """Literal arguments, set() variables and the usual source-dir variables; anything else is skipped."""
    top = cmake_files[0].parent
    texts = {file: re.sub(r"#[^\n]*", "", file.read_text("utf-8", "replace")) for file in cmake_files}
    variables: dict[str, str] = {"PROJECT_SOURCE_DIR": str(top), "CMAKE_SOURCE_DIR": str(top)}
    for text in texts.values():
        for name, value in _cmake_variables(text).items():
            variables.setdefault(name, value)
    for m in re.finditer(r"\bproject\s*\(\s*([A-Za-z_][\w-]*)", texts[cmake_files[0]], re.IGNORECASE):
        variables.setdefault(f"{m.group(1)}_SOURCE_DIR", str(top))
        variables.setdefault("PROJECT_NAME", m.group(1))
    for file, text in texts.items():
        here = file.parent
        local = {**variables, "CMAKE_CURRENT_SOURCE_DIR": str(here), "CMAKE_CURRENT_LIST_DIR": str(here)}
        standards: dict[str, str] = {}
        for m in _CMAKE_STANDARD_RE.finditer(text):
            standards.setdefault(m.group(1).upper(), m.group(2))
        # the language standard of this file's project (its folder and those below that set none themselves)
        if (std := next((standards[lang] for lang in ("HIP", "CUDA", "CXX") if lang in standards), None)):
            flags.project_std.setdefault(str(here), f"c++{std}")
            if file == cmake_files[0] and all(f.parent.is_relative_to(here) for f in cmake_files):
                flags.set_std(f"c++{std}")  # the top project's: every unit's unless its own project says another
        flags.rdc = flags.rdc or bool(_CMAKE_RDC_RE.search(text))
        flags.openmp = flags.openmp or bool(_CMAKE_OPENMP_RE.search(text))
        for m in _CMAKE_CALL_RE.finditer(text):
            command = m.group(1).lower()
            try:
                words = shlex.split(m.group(2), posix=True)
            except ValueError:
                continue
            if command.startswith("target_"):
                words = words[1:]  # the target name
            words = [x for w in words for x in re.split(r"[;\s]+", _expand(w, local))  # a variable may be a list
                     if x and x.upper() not in _CMAKE_KEYWORDS]
            if command.endswith("compile_options"):
                _flags_from_args([w for w in words if "${" not in w and "$<" not in w], here, flags, None, here)
                continue
            for word in words:
                if "${" in word or "$<" in word:
                    continue
                if "include_directories" in command:
                    path = Path(word) if Path(word).is_absolute() else here / word
                    flags.add_include(path.resolve())
                elif command == "add_definitions":
                    if word.startswith("-D"):
                        flags.add_define(word[2:])
                else:
                    flags.add_define(word[2:] if word.startswith("-D") else word)


_MAKE_VAR_RE = re.compile(r"^\s*(?:override\s+)?([A-Za-z_][\w.]*)\s*(?::=|\+=|\?=|=)\s*(.*)$")
_MAKE_FLAG_VARS = re.compile(r"FLAGS|INC|DEF", re.IGNORECASE)


def from_makefile(makefile: Path, flags: CompileFlags) -> None:
    """-I/-D in CFLAGS/NVCCFLAGS/INCLUDES-like variables; tokens that use $(...) are skipped. Conditionals are
    followed as `make` with no variables on its command line would (porter/build/make_conditions.py): a branch
    that is not taken adds nothing, and one whose condition porter cannot evaluate (`$(shell dpkg -l | grep nccl)`)
    adds its include folders but not its defines (optional features: -DMULTI_GPU, -DENABLE_CUDNN)."""
    text = makefile.read_text("utf-8", "replace").replace("\\\n", " ")
    tree_std, flags.std = flags.std, None  # a Makefile's -std= is its project's (the units below its folder)
    for line, state in conditioned_lines(text):
        if state is Branch.NOT_TAKEN:
            continue
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
        if state is Branch.UNKNOWN:
            kept = _without_defines(kept)
        _flags_from_args(kept, makefile.parent, flags, None, makefile.parent)
    if flags.std is not None:
        flags.project_std.setdefault(str(makefile.parent.resolve()), flags.std)
    flags.std = tree_std
    for source, words in recipe_options(text).items():
        own = CompileFlags()
        _flags_from_args(words, makefile.parent, own, None, makefile.parent)
        unit = str((makefile.parent / source).resolve())
        extra = [f"-I{d}" for d in own.include_dirs] + [f"-D{d}" for d in own.defines if d not in flags.defines]
        if own.std is not None:
            flags.unit_std.setdefault(unit, own.std)  # `nvcc ... -std=c++11` in the recipe: that unit's
        if extra:
            flags.unit_options.setdefault(unit, [])
            flags.unit_options[unit] += [x for x in extra if x not in flags.unit_options[unit]]


def _without_defines(tokens: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for tok in tokens:
        if skip:
            skip = False
        elif tok == "-D":
            skip = True
        elif not tok.startswith("-D"):
            out.append(tok)
    return out


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
        makefiles = [p for p in all_files if _is_makefile(p)]
        # in a tree of several projects, a Makefile outside every CMake project is read too (the NVIDIA blog's
        # samples: some CMake, most Make)
        makefiles = _outside_cmake_projects(makefiles, cmake)
        if cmake:
            flags.source = "CMakeLists.txt" + (" and Makefile" if makefiles else "")
            from_cmake(cmake, flags)
        elif makefiles:
            flags.source = "Makefile"
        for mk in makefiles:
            from_makefile(mk, flags)
    texts = _code_texts(all_files)  # read once for the include prefixes and for mpi.h
    _add_include_prefixes(all_files, texts, flags)
    if _includes_mpi(texts):
        flags.mpi_dirs = list(mpi_include_dirs())
    flags.project_dirs = sorted({str(p.parent) for p in all_files if p.name in _BUILD_FILE_NAMES or p.suffix == ".mk"})
    for path in all_files:
        if path.suffix.lower() in HEADER_SUFFIXES:
            flags.add_header_dir(path.parent)
    return flags


_INCLUDE_RE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+/[^>\"\n]+)[>\"]", re.MULTILINE)
_MPI_INCLUDE_RE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]mpi\.h[>\"]", re.MULTILINE)


def _code_texts(files: list[Path]) -> dict[Path, bytes]:
    """The bytes of the tree's sources, headers and C files (MPI hosts are often C)."""
    texts = {}
    for path in files:
        if path.suffix.lower() in HEADER_SUFFIXES | SOURCE_SUFFIXES | {".c"}:
            try:
                texts[path] = path.read_bytes()
            except OSError:
                continue
    return texts


def _includes_mpi(texts: dict[Path, bytes]) -> bool:
    """Whether a file of the tree includes mpi.h (that it is a project's own copy the include path finds first)."""
    return any(b"mpi.h" in text and _MPI_INCLUDE_RE.search(text) for text in texts.values())


def _add_include_prefixes(files: list[Path], texts: dict[Path, bytes], flags: CompileFlags) -> None:
    """`#include "lib/x.h"` that resolves neither beside its file nor on the include path, while the tree holds
    `.../lib/x.h`: add the folder above `lib/` (the include path a build file set up in a way not read here)."""
    by_name: dict[str, list[Path]] = {}
    for path in files:
        if path.suffix.lower() in HEADER_SUFFIXES:
            by_name.setdefault(path.name, []).append(path)
    if not by_name:
        return
    for path, text in texts.items():
        if path.suffix.lower() not in HEADER_SUFFIXES | SOURCE_SUFFIXES:
            continue
        if b"/" not in text or b"include" not in text:
            continue
        for m in _INCLUDE_RE.finditer(text):
            spec = m.group(1).decode("utf-8", "replace").strip()
            parts = Path(spec).parts
            if ".." in parts or Path(spec).is_absolute() or parts[-1] not in by_name:
                continue
            if (path.parent / spec).is_file() or any((Path(d) / spec).is_file() for d in flags.include_dirs):
                continue
            matches = sorted((h for h in by_name[parts[-1]] if h.parts[-len(parts):] == parts),
                             key=lambda h: len(h.parts))
            if matches:
                flags.add_include(Path(*matches[0].parts[: -len(parts)]))
