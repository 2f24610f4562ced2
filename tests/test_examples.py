"""The bundled CUDA examples: each converts with `porter convert`, and the port compiles with the real hipcc.

The examples' expected outputs were recorded on an NVIDIA H200 (scripts/record_example_outputs.sh); no AMD
GPU is needed here, only the HIP compiler. Conversions and compiles of all selected examples start together
in thread pools, so the suite pays for the slowest example rather than the sum of them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support.toolchains import HipToolchain

from porter.build import limits_for
from porter.targets import resolve_target

REPO = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = REPO / "examples"
EXAMPLES = sorted(
    d.name
    for d in EXAMPLES_DIR.iterdir()
    if d.is_dir() and d.name != "ci" and (d / "expected_output.txt").exists()
)
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
# the compiler's verdict where the target has no image support (gfx942, gfx950): targets.toml image_support
NO_IMAGE_SUPPORT = "The image/texture API not supported on the device"
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
    failed_arches: dict[str, str] = field(default_factory=dict)  # arch -> log, where it does not compile


@dataclass
class Build:
    ported: Ported
    compiled: list[Compiled] = field(default_factory=list)


def convert(name: str, out: Path, toolchain: HipToolchain | None = None) -> Ported:
    cmd = [sys.executable, "-m", "porter", "convert", str(EXAMPLES_DIR / name), "-o", str(out), "--no-build"]
    if toolchain is not None:  # port for the ROCm that compiles it (shims, mappings that need a newer ROCm)
        cmd += ["--toolchain", toolchain.hipcc]
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


def compile_one(toolchain: HipToolchain, source: Path, root: Path, obj_dir: Path) -> Compiled:
    """hipcc -c for every test arch of the toolchain at once; where that fails, each arch alone, to say which."""
    rel = source.relative_to(root).as_posix()
    obj = obj_dir / (rel.replace("/", "__") + ".o")
    flags = ["-x", "hip", "-c", str(source), "-o", str(obj), *(f"-I{d}" for d in header_dirs(root))]
    env = {**os.environ, "HIP_PLATFORM": "amd"}

    def run(arches: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        cmd = toolchain.toolchain.command(*toolchain.offload_flags(arches), *flags)
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)

    proc = run(toolchain.arches)
    log = f"$ {' '.join(toolchain.toolchain.command(*toolchain.offload_flags(), *flags))}\n{proc.stdout}{proc.stderr}"
    compiled = Compiled(rel, proc.returncode, log)
    if proc.returncode != 0 and len(toolchain.arches) > 1:
        for arch in toolchain.arches:
            alone = run((arch,))
            if alone.returncode != 0:
                compiled.failed_arches[arch] = alone.stdout + alone.stderr
    elif proc.returncode != 0:
        compiled.failed_arches[toolchain.arch] = proc.stdout + proc.stderr
    return compiled


class Pipeline:
    """Converts (and compiles, once per toolchain) the selected examples in the background, in parallel."""

    def __init__(self, wanted: set[tuple[str, HipToolchain | None]], base: Path) -> None:
        workers = os.cpu_count() or 2
        # Two pools: a conversion job waits on its compiles, so they must not share workers.
        self._convert_pool = ThreadPoolExecutor(max_workers=max(1, len(wanted)))
        self._compile_pool = ThreadPoolExecutor(max_workers=workers)
        self._base = base
        self._builds: dict[tuple[str, str | None], Future[Build]] = {
            (name, tc.id if tc else None): self._convert_pool.submit(self._run, name, tc) for name, tc in sorted(
                wanted, key=lambda w: (w[0], w[1].id if w[1] else ""))
        }

    def _run(self, name: str, toolchain: HipToolchain | None) -> Build:
        where = self._base / (toolchain.id if toolchain else "default") / name
        build = Build(convert(name, where / "port", toolchain))
        if toolchain is None or build.ported.returncode != 0:
            return build
        obj_dir = where / "obj"
        obj_dir.mkdir(parents=True, exist_ok=True)
        root = build.ported.out
        sources = [p for p in build.ported.files(SOURCE_SUFFIXES) if includes_hip(p, root)]
        jobs = [self._compile_pool.submit(compile_one, toolchain, src, root, obj_dir) for src in sources]
        build.compiled = [job.result() for job in jobs]
        return build

    def build(self, name: str, toolchain: HipToolchain | None = None) -> Build:
        return self._builds[(name, toolchain.id if toolchain else None)].result()

    def close(self) -> None:
        self._convert_pool.shutdown(wait=True, cancel_futures=True)
        self._compile_pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def pipeline(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    wanted = {
        (item.callspec.params["example"], item.callspec.params.get("hip_toolchain"))
        for item in request.session.items
        if item.module is request.module and hasattr(item, "callspec") and "example" in item.callspec.params
    }
    # the plain conversion (no toolchain) serves the tests that only read the port
    wanted |= {(name, None) for name, _tc in wanted}
    pipe = Pipeline(wanted or {(name, None) for name in EXAMPLES}, tmp_path_factory.mktemp("examples"))
    yield pipe
    pipe.close()


def ported_ok(pipeline: Pipeline, example: str, toolchain: HipToolchain | None = None) -> Build:
    build = pipeline.build(example, toolchain)
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


def header_installed(header: str, toolchain: HipToolchain) -> bool:
    roots = [toolchain.toolchain.include_dir] + ([] if toolchain.toolchain.root is not None else INCLUDE_ROOTS)
    return any((root / header).exists() for root in roots)


def known_failure(toolchain: HipToolchain, arch: str, log: str) -> str | None:
    """Why `arch` cannot compile this with this toolchain, where porter's data says so; None for a porter bug."""
    errors = [line for line in log.splitlines() if ": error:" in line or "fatal error:" in line]
    if not errors:
        return None
    if not resolve_target(arch).image_support and all(NO_IMAGE_SUPPORT in e for e in errors):
        return (f"{arch} has no image support (targets.toml image_support = false; porter scan PT004): the "
                "texture fetches of this port do not compile there; porter does not rewrite them yet")
    for limit in limits_for(toolchain.toolchain):
        if limit.applies(arch, log):
            return limit.reason
    return None


@pytest.mark.hipcc
@pytest.mark.parametrize("example", EXAMPLES)
def test_port_compiles_with_hipcc(example: str, hip_toolchain: HipToolchain, pipeline: Pipeline) -> None:
    """The port compiles (-c) for every test arch of the toolchain: gfx90a on ROCm 5.2, gfx942 and gfx950 on 6.4.

    A failure is accepted only where porter's data names the reason (a target without image support, a library
    the toolchain's ROCm lacks for that arch), and then only for that arch: the test reports it as xfail with
    the reason, and every other arch must compile."""
    build = ported_ok(pipeline, example, hip_toolchain)
    assert build.compiled, f"no translated source of {example} includes a HIP header"
    failures = [c for c in build.compiled if c.returncode != 0]
    missing = sorted(
        {
            header
            for c in failures
            for header in MISSING_HEADER.findall(c.log)
            if OPTIONAL_LIBRARY_HEADER.match(header) and not header_installed(header, hip_toolchain)
        }
    )
    if missing and all(any(h in c.log for h in missing) for c in failures):
        pytest.skip(f"{example} needs {', '.join(missing)}, which {hip_toolchain.id} does not have")
    unexplained, explained = [], set()
    for c in failures:
        for arch in hip_toolchain.arches:
            if arch not in c.failed_arches:
                continue
            reason = known_failure(hip_toolchain, arch, c.failed_arches[arch])
            if reason is None:
                unexplained.append(f"hipcc failed on {c.source} for {arch}:\n{c.failed_arches[arch][-4000:]}")
            else:
                explained.add(f"{c.source} for {arch}: {reason}")
        if not c.failed_arches:
            unexplained.append(f"hipcc failed on {c.source}:\n{c.log[-4000:]}")
    assert not unexplained, "\n\n".join(unexplained)
    if explained:
        pytest.xfail("; ".join(sorted(explained)))


@pytest.mark.parametrize("example", EXAMPLES)
def test_porting_the_port_again_changes_nothing(example: str, pipeline: Pipeline) -> None:
    build = ported_ok(pipeline, example)
    cmd = [sys.executable, "-m", "porter", "convert", str(build.ported.out), "--check"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, timeout=300)
    assert proc.returncode == 0, f"a second port of {example} would change files:\n{proc.stderr}"
