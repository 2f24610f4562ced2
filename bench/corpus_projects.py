"""The CUDA corpus under bench/corpus/: its projects, their metadata, translation units and nvcc checks.

Each project is a directory with a `corpus.toml`:

    description = "..."
    build = "cmake"            # cmake | make | none
    layout = "library"         # sample | sample-collection | library | benchmark | app
    classes = [2, 6]           # failure classes of issue 9, section 3, that the project exercises ([] = control)
    [nvcc]
    flags = ["-rdc=true"]      # extra nvcc flags its build uses
    include_dirs = ["include"] # include paths its build adds that hold no header themselves (relative)
    needs_headers = ["cublas_v2.h"]   # headers outside the CUDA toolkit core; the nvcc check is skipped without them
    unavailable = "why nvcc cannot check this project on a normal x86 machine"   # optional

Used by bench/compile_rate.py and tests/test_corpus.py.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"

# Issue 9, section 3.
CLASSES: dict[int, str] = {
    1: "include order",
    2: "types that collapse onto one HIP type",
    3: "vector operators HIP already defines",
    4: "device functions HIP spells differently or lacks",
    5: "warp-sync builtins",
    6: "device properties HIP lacks",
    7: "signatures that differ",
    8: "cooperative-groups members HIP lacks",
    9: "textures and surfaces on MI300",
    10: "library pieces",
    11: "CUDA-only features",
}
BUILDS = {"cmake", "make", "none"}
LAYOUTS = {"sample", "sample-collection", "library", "benchmark", "app"}
SOURCE_SUFFIXES = {".cu", ".cpp", ".cc", ".cxx"}
HEADER_SUFFIXES = {".h", ".hpp", ".cuh", ".inl"}
# A C++ file is a GPU translation unit when it includes a CUDA header, calls the runtime/driver API or holds
# device code.
_CUDA_CODE_RE = re.compile(
    r'#\s*include\s*[<"](?:cuda|cublas|cufft|curand|cusparse|cooperative_groups|thrust/|cub/|nv|mma\.h)'
    r"|\bcuda[A-Z]\w*\s*\(|\bcu[A-Z]\w*\s*\(|__global__|__device__|<<<")
# Where CUDA library headers (cuBLAS, cuFFT, cuRAND, cuSPARSE) may sit when they are not in the toolkit itself:
# `CUDA_LIB_INCLUDE` (os.pathsep-separated) and the folder bench/corpus/fetch_cuda_lib_headers.sh fills.
DEFAULT_LIB_HEADERS = Path.home() / ".cache" / "porter" / "cuda-lib-headers" / "include"


class CorpusError(ValueError):
    """A project's metadata is missing or malformed."""


@dataclass(frozen=True)
class Project:
    name: str
    root: Path
    description: str
    build: str
    layout: str
    classes: tuple[int, ...]
    nvcc_flags: tuple[str, ...] = ()
    nvcc_include_dirs: tuple[str, ...] = ()
    needs_headers: tuple[str, ...] = ()
    nvcc_unavailable: str | None = None
    extra: dict = field(default_factory=dict, compare=False, repr=False)

    def translation_units(self) -> list[Path]:
        return translation_units(self.root)

    def include_dirs(self) -> list[Path]:
        """Every folder that holds a header, as the project's own build adds them (and porter's build does)."""
        dirs = {self.root} | {(self.root / d).resolve() for d in self.nvcc_include_dirs}
        for path in self.root.rglob("*"):
            if path.is_file() and path.suffix in HEADER_SUFFIXES:
                dirs.add(path.parent)
        return sorted(dirs)


def _load(meta: Path) -> Project:
    try:
        data = tomllib.loads(meta.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CorpusError(f"{meta}: {exc}") from exc
    root = meta.parent
    missing = [k for k in ("description", "build", "layout", "classes") if k not in data]
    if missing:
        raise CorpusError(f"{meta}: missing {', '.join(missing)}")
    classes = tuple(data["classes"])
    if any(c not in CLASSES for c in classes):  # [] marks a control: plain code that should port as is
        raise CorpusError(f"{meta}: classes must be numbers 1-11, got {list(classes)}")
    if data["build"] not in BUILDS or data["layout"] not in LAYOUTS:
        raise CorpusError(f"{meta}: build must be one of {sorted(BUILDS)}, layout one of {sorted(LAYOUTS)}")
    nvcc = data.get("nvcc", {})
    return Project(
        name=root.name, root=root, description=data["description"], build=data["build"], layout=data["layout"],
        classes=classes, nvcc_flags=tuple(nvcc.get("flags", ())), needs_headers=tuple(nvcc.get("needs_headers", ())),
        nvcc_include_dirs=tuple(nvcc.get("include_dirs", ())),
        nvcc_unavailable=nvcc.get("unavailable"), extra=data,
    )


def load_projects(corpus: Path = CORPUS) -> list[Project]:
    return [_load(meta) for meta in sorted(corpus.glob("*/corpus.toml"))]


_LOCAL_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def _uses_cuda(path: Path, include_dirs: list[Path], seen: set[Path]) -> bool:
    """The file or a project header it includes (transitively) holds CUDA code."""
    if path in seen:
        return False
    seen.add(path)
    text = path.read_text("utf-8", "replace")
    if _CUDA_CODE_RE.search(text):
        return True
    for name in _LOCAL_INCLUDE_RE.findall(text):
        for base in [path.parent, *include_dirs]:
            header = (base / name).resolve()
            if header.is_file():
                if _uses_cuda(header, include_dirs, seen):
                    return True
                break
    return False


def translation_units(root: Path) -> list[Path]:
    """.cu files always; .cpp/.cc/.cxx files that reach CUDA code: a CUDA header, runtime/driver calls or
    kernels, in the file or in a project header it includes."""
    include_dirs = sorted({p.parent for p in root.rglob("*") if p.is_file() and p.suffix in HEADER_SUFFIXES})
    out = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
            continue
        if path.suffix == ".cu" or _uses_cuda(path, include_dirs, set()):
            out.append(path)
    return out


def find_nvcc() -> Path | None:
    found = shutil.which("nvcc")
    if found:
        return Path(found)
    default = Path("/usr/local/cuda/bin/nvcc")
    return default if default.is_file() else None


def header_search_dirs(nvcc: Path) -> list[Path]:
    """The toolkit's include dir, extra library header dirs, and the system's."""
    toolkit = Path(os.environ.get("CUDA_PATH", "/usr/local/cuda")) / "include"
    dirs = [toolkit, nvcc.resolve().parent.parent / "include"]
    dirs += [Path(d) for d in os.environ.get("CUDA_LIB_INCLUDE", "").split(os.pathsep) if d]
    dirs += [DEFAULT_LIB_HEADERS, Path("/usr/include"), Path("/usr/local/include")]
    seen: list[Path] = []
    for d in dirs:
        if d.is_dir() and d.resolve() not in seen:
            seen.append(d.resolve())
    return seen


def missing_headers(project: Project, search: list[Path]) -> list[str]:
    return [h for h in project.needs_headers if not any((d / h).is_file() for d in search)]


_ANY_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)


def included_headers(tu: Path, include_dirs: list[Path]) -> set[str]:
    """Every header name the file includes, following the project's own headers."""
    seen: set[Path] = set()
    names: set[str] = set()
    todo = [tu]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _ANY_INCLUDE_RE.findall(path.read_text("utf-8", "replace")):
            names.add(name)
            for base in [path.parent, *include_dirs]:
                header = (base / name).resolve()
                if header.is_file():
                    todo.append(header)
                    break
    return names


def nvcc_command(nvcc: Path, project: Project, tu: Path, obj: Path, search: list[Path], arch: str = "sm_90") -> list[str]:
    cmd = [str(nvcc), "-c", f"-arch={arch}", "-std=c++17", str(tu), "-o", str(obj)]
    cmd += [f"-I{d}" for d in project.include_dirs()]
    # library headers found outside the toolkit and the system (e.g. a pip wheel's include/) go in as system dirs
    implicit = {nvcc.resolve().parent.parent / "include", Path("/usr/include"), Path("/usr/local/include")}
    cmd += [f"-isystem={d}" for d in search if d not in implicit]
    return cmd + list(project.nvcc_flags)


def run_nvcc(cmd: list[str], cwd: Path, timeout: float = 600) -> tuple[bool, str]:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return False, f"nvcc timed out after {timeout}s"
    return proc.returncode == 0, proc.stdout + proc.stderr


NVCC_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "porter" / "corpus-nvcc"


def nvcc_cache_key(project: Project, unit: Path, cmd: list[str]) -> str:
    """Content hash of everything a unit's nvcc result depends on: the project's files, the command line (its
    output path aside) and the compiler's version. A unit that compiled once under this key compiles again."""
    digest = hashlib.sha256()
    for path in sorted(project.root.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(project.root)).encode() + b"\0" + path.read_bytes() + b"\0")
    stable = [a for a in cmd if not a.endswith(".o")]
    digest.update("\0".join([str(unit.relative_to(project.root)), *stable]).encode())
    digest.update(_nvcc_version(cmd[0]).encode())
    return digest.hexdigest()


def _nvcc_version(nvcc: str) -> str:
    try:
        return subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def compile_unit_cached(project: Project, unit: Path, cmd: list[str], use_cache: bool = True) -> tuple[bool, str]:
    """run_nvcc, remembering successes by content hash (bench/corpus changes rarely; nvcc is slow)."""
    key = nvcc_cache_key(project, unit, cmd)
    marker = NVCC_CACHE / f"{key}.ok"
    if use_cache and marker.is_file():
        return True, "cached"
    ok, output = run_nvcc(cmd, project.root)
    if ok and use_cache:
        try:
            NVCC_CACHE.mkdir(parents=True, exist_ok=True)
            marker.write_text(f"{project.name}/{unit.relative_to(project.root)}\n", "utf-8")
        except OSError:
            pass  # a read-only cache only costs the next run its time
    return ok, output
