"""The bundled CUDA examples: each converts with `porter convert`, and the port compiles with the real hipcc.

The examples' expected outputs were recorded on an NVIDIA H200 (scripts/record_example_outputs.sh); no AMD
GPU is needed here, only the HIP compiler. Conversions and compiles of all selected examples start together
in thread pools, so the suite pays for the slowest example rather than the sum of them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = REPO / "examples"
EXAMPLES = sorted(
    d.name
    for d in EXAMPLES_DIR.iterdir()
    if d.is_dir() and d.name != "ci" and (d / "expected_output.txt").exists()
)
ARCH = "gfx90a"  # accepted by every hipcc we run on, ROCm 5.2 included
SOURCE_SUFFIXES = {".cu", ".hip", ".cpp", ".cc", ".cxx"}
TEXT_SUFFIXES = SOURCE_SUFFIXES | {".cuh", ".h", ".hpp", ".hh", ".inl"}
BUILD_FILES = {"Makefile", "makefile", "GNUmakefile", "CMakeLists.txt"}

# HIP library headers a machine may lack (hipBLAS, hipFFT, ...): a port that needs one cannot be compiled
# there, which is a fact about the machine, not a porter bug. Anything else "not found" is a failure.
OPTIONAL_LIBRARY_HEADER = re.compile(
    r"^(hipblas|hipblaslt|hipfft|hipcub|hipsolver|rocblas|rocfft|rocsolver|thrust|rocthrust)\b"
)
MISSING_HEADER = re.compile(r"fatal error: '([^']+)' file not found")
INCLUDE_ROOTS = [Path("/usr/include"), Path("/opt/rocm/include"), Path("/usr/local/include")]
HIP_INCLUDE = re.compile(
    r'^\s*#\s*include\s*[<"](hip/|hipblas|hipfft|hiprand|hipsparse|hipcub|hipsolver|rocrand|rocprim)', re.M
)
LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# Comments, string and character literals: blanked out before looking for leftover CUDA calls.
COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
CUDA_CALL = re.compile(r"\b((?:cuda|cublas|curand|cusparse|cufft)\w*|cu[A-Z]\w*)\s*(?:<[^<>;()]*>\s*)?\(")
CUDA_INCLUDE = re.compile(
    r'^\s*#\s*include\s*[<"]((?:cuda|cublas|curand|cusparse|cufft|cooperative_groups)[^>"]*)[>"]', re.M
)


def find_hipcc() -> str | None:
    found = shutil.which("hipcc")
    if found:
        return found
    fallback = Path("/opt/rocm/bin/hipcc")
    return str(fallback) if fallback.exists() else None


def require_hipcc() -> str:
    hipcc = find_hipcc()
    if hipcc is None:
        message = "hipcc not found (install HIP, or put hipcc on PATH)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return hipcc


@dataclass
class Ported:
    name: str
    out: Path
    returncode: int
    log: str

    def files(self, suffixes: set[str]) -> list[Path]:
        return sorted(
            p
            for p in self.out.rglob("*")
            if p.is_file() and ".porter" not in p.parts and p.suffix in suffixes
        )


@dataclass
class Compiled:
    source: str
    returncode: int
    log: str


@dataclass
class Build:
    ported: Ported
    compiled: list[Compiled] = field(default_factory=list)


def convert(name: str, out: Path) -> Ported:
    cmd = [sys.executable, "-m", "porter", "convert", str(EXAMPLES_DIR / name), "-o", str(out), "--no-build"]
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, cwd=REPO)
    return Ported(name, out, proc.returncode, f"$ {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")


def includes_hip(path: Path, root: Path, seen: set[Path] | None = None) -> bool:
    """True when the file, or a header of the port it includes with "...", includes a HIP header."""
    seen = set() if seen is None else seen
    if path in seen or not path.is_file():
        return False
    seen.add(path)
    text = path.read_text(errors="replace")
    if HIP_INCLUDE.search(text):
        return True
    for name in LOCAL_INCLUDE.findall(text):
        candidates = [path.parent / name, *(d / name for d in header_dirs(root))]
        if any(includes_hip(c.resolve(), root, seen) for c in candidates):
            return True
    return False


def header_dirs(root: Path) -> list[Path]:
    dirs = {
        p.parent
        for p in root.rglob("*")
        if p.suffix in {".cuh", ".h", ".hpp", ".hh"} and ".porter" not in p.parts
    }
    return sorted({root, *dirs})


def compile_one(hipcc: str, source: Path, root: Path, obj_dir: Path) -> Compiled:
    obj = obj_dir / (source.relative_to(root).as_posix().replace("/", "__") + ".o")
    cmd = [hipcc, f"--offload-arch={ARCH}", "-x", "hip", "-c", str(source), "-o", str(obj)]
    cmd += [f"-I{d}" for d in header_dirs(root)]
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    rel = source.relative_to(root).as_posix()
    return Compiled(rel, proc.returncode, f"$ {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")


class Pipeline:
    """Converts (and, with hipcc, compiles) the selected examples in the background, in parallel."""

    def __init__(self, names: list[str], base: Path, hipcc: str | None) -> None:
        workers = os.cpu_count() or 2
        # Two pools: a conversion job waits on its compiles, so they must not share workers.
        self._convert_pool = ThreadPoolExecutor(max_workers=max(1, len(names)))
        self._compile_pool = ThreadPoolExecutor(max_workers=workers)
        self._base = base
        self._hipcc = hipcc
        self._builds: dict[str, Future[Build]] = {
            name: self._convert_pool.submit(self._run, name) for name in names
        }

    def _run(self, name: str) -> Build:
        build = Build(convert(name, self._base / name / "port"))
        if self._hipcc is None or build.ported.returncode != 0:
            return build
        obj_dir = self._base / name / "obj"
        obj_dir.mkdir(parents=True, exist_ok=True)
        root = build.ported.out
        sources = [p for p in build.ported.files(SOURCE_SUFFIXES) if includes_hip(p, root)]
        jobs = [self._compile_pool.submit(compile_one, self._hipcc, src, root, obj_dir) for src in sources]
        build.compiled = [job.result() for job in jobs]
        return build

    def build(self, name: str) -> Build:
        return self._builds[name].result()

    def close(self) -> None:
        self._convert_pool.shutdown(wait=True, cancel_futures=True)
        self._compile_pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def pipeline(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    selected = sorted(
        {
            item.callspec.params["example"]
            for item in request.session.items
            if item.module is request.module
            and hasattr(item, "callspec")
            and "example" in item.callspec.params
        }
    )
    pipe = Pipeline(selected or EXAMPLES, tmp_path_factory.mktemp("examples"), find_hipcc())
    yield pipe
    pipe.close()


def ported_ok(pipeline: Pipeline, example: str) -> Build:
    build = pipeline.build(example)
    if build.ported.returncode != 0:
        pytest.fail(
            f"porter convert exited {build.ported.returncode} for {example}:\n{build.ported.log}",
            pytrace=False,
        )
    return build


def test_examples_are_bundled() -> None:
    assert len(EXAMPLES) >= 10, f"expected at least ten examples under {EXAMPLES_DIR}, found {EXAMPLES}"


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_is_complete(example: str) -> None:
    """Sources, a build file, a README and an output recorded on the GPU that ends in PASS."""
    d = EXAMPLES_DIR / example
    assert any(p.suffix == ".cu" for p in d.rglob("*")), "no .cu source"
    assert any(p.name in BUILD_FILES for p in d.iterdir()), "no Makefile or CMakeLists.txt"
    assert (d / "README.md").read_text().strip(), "empty README.md"
    lines = (d / "expected_output.txt").read_text().splitlines()
    assert lines and lines[-1] == "PASS", f"expected_output.txt must end with PASS, got {lines[-1:]}"
    assert "FAIL" not in lines


@pytest.mark.parametrize("example", EXAMPLES)
def test_port_has_no_cuda_calls(example: str, pipeline: Pipeline) -> None:
    """Outside comments and strings, no cuda*/cublas*/curand*/... call or CUDA header survives the port."""
    build = ported_ok(pipeline, example)
    sources = build.ported.files(TEXT_SUFFIXES)
    assert sources, f"porter wrote no sources for {example} under {build.ported.out}"
    leftovers: list[str] = []
    for path in sources:
        code = COMMENT_OR_LITERAL.sub(
            lambda m: re.sub(r"[^\n]", " ", m.group()), path.read_text(errors="replace")
        )
        rel = path.relative_to(build.ported.out)
        for m in CUDA_CALL.finditer(code):
            leftovers.append(f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: {m.group(1)}(")
        for m in CUDA_INCLUDE.finditer(code):
            leftovers.append(f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: #include {m.group(1)}")
    assert not leftovers, "CUDA left in the port:\n" + "\n".join(leftovers)


def header_installed(header: str) -> bool:
    return any((root / header).exists() for root in INCLUDE_ROOTS)


@pytest.mark.hipcc
@pytest.mark.parametrize("example", EXAMPLES)
def test_port_compiles_with_hipcc(example: str, pipeline: Pipeline) -> None:
    require_hipcc()
    build = ported_ok(pipeline, example)
    assert build.compiled, f"no translated source of {example} includes a HIP header"
    failures = [c for c in build.compiled if c.returncode != 0]
    missing = sorted(
        {
            header
            for c in failures
            for header in MISSING_HEADER.findall(c.log)
            if OPTIONAL_LIBRARY_HEADER.match(header) and not header_installed(header)
        }
    )
    if missing and all(any(h in c.log for h in missing) for c in failures):
        pytest.skip(f"{example} needs {', '.join(missing)}, which is not installed here")
    assert not failures, "\n\n".join(f"hipcc failed on {c.source}:\n{c.log[-4000:]}" for c in failures)


@pytest.mark.parametrize("example", EXAMPLES)
def test_porting_the_port_again_changes_nothing(example: str, pipeline: Pipeline) -> None:
    build = ported_ok(pipeline, example)
    cmd = [sys.executable, "-m", "porter", "convert", str(build.ported.out), "--check"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, timeout=300)
    assert proc.returncode == 0, f"a second port of {example} would change files:\n{proc.stderr}"
