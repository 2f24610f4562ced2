"""Finding the HIP compiler, its versions, and which --offload-arch values it accepts."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from porter.translate import RocmVersion

# Probed when asked which arches the compiler accepts (doctor); cheap enough: a failed probe is ~0.2 s.
COMMON_ARCHES = ("gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200")
# Nearest wave64 (CDNA) arch to fall back to, newest first, when the local hipcc does not know the target.
WAVE64_FALLBACKS = ("gfx950", "gfx942", "gfx90a", "gfx908", "gfx906")
_VERSION_RE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def hip_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment every hipcc call runs with: nvcc is often installed too, so pin the AMD platform."""
    env = dict(os.environ if base is None else base)
    env["HIP_PLATFORM"] = "amd"
    return env


@dataclass(frozen=True)
class Toolchain:
    hipcc: Path
    hip_version: str | None  # e.g. "5.2.21153-0"
    rocm: RocmVersion | None

    @property
    def describe(self) -> str:
        return f"{self.hipcc} (HIP {self.hip_version or 'unknown version'})"


def find_hipcc() -> Path | None:
    """hipcc from PATH, else $ROCM_PATH/bin, $HIP_PATH/bin, /opt/rocm/bin."""
    found = shutil.which("hipcc")
    if found:
        return Path(found)
    for var in ("ROCM_PATH", "HIP_PATH"):
        root = os.environ.get(var)
        if root and (Path(root) / "bin" / "hipcc").is_file():
            return Path(root) / "bin" / "hipcc"
    default = Path("/opt/rocm/bin/hipcc")
    return default if default.is_file() else None


def _run(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, env=hip_env(), timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


@functools.cache
def hip_version(hipcc: Path) -> str | None:
    """`hipconfig --version` beside hipcc (clean output), else the `HIP version:` line of `hipcc --version`."""
    hipconfig = hipcc.with_name("hipconfig")
    candidates = [[str(hipconfig), "--version"]] if hipconfig.exists() else []
    candidates.append([str(hipcc), "--version"])
    for cmd in candidates:
        proc = _run(cmd)
        if proc is None:
            continue
        text = proc.stdout + "\n" + proc.stderr
        match = re.search(r"HIP version:\s*(\S+)", text)
        if match:
            return match.group(1)
        first = proc.stdout.strip().splitlines()[:1]
        if proc.returncode == 0 and first and _VERSION_RE.match(first[0].strip()):
            return first[0].strip()
    return None


def _rocm_from_info(hipcc: Path | None) -> RocmVersion | None:
    roots = [os.environ.get("ROCM_PATH"), os.environ.get("HIP_PATH"), "/opt/rocm"]
    if hipcc is not None:
        roots.append(str(hipcc.resolve().parent.parent))
    for root in filter(None, roots):
        info = Path(root) / ".info" / "version"
        if info.is_file():
            match = _VERSION_RE.search(info.read_text("utf-8", "replace"))
            if match:
                return RocmVersion(int(match.group(1)), int(match.group(2)))
    return None


def detect_rocm_version() -> RocmVersion | None:
    """ROCm version of the local install: `<rocm>/.info/version`, else the HIP version (same major.minor)."""
    hipcc = find_hipcc()
    from_info = _rocm_from_info(hipcc)
    if from_info is not None or hipcc is None:
        return from_info
    version = hip_version(hipcc)
    match = _VERSION_RE.match(version or "")
    return RocmVersion(int(match.group(1)), int(match.group(2))) if match else None


def detect_toolchain() -> Toolchain | None:
    hipcc = find_hipcc()
    if hipcc is None:
        return None
    return Toolchain(hipcc=hipcc, hip_version=hip_version(hipcc), rocm=detect_rocm_version())


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "porter"


def _cache_file(toolchain: Toolchain, cache_dir: Path) -> Path:
    key = hashlib.sha256(f"{toolchain.hipcc.resolve()}|{toolchain.hip_version}".encode()).hexdigest()[:16]
    return cache_dir / f"offload-arch-{key}.json"


def _probe_arch(toolchain: Toolchain, arch: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="porter-probe-") as tmp:
        src = Path(tmp) / "probe.hip"
        src.write_text("#include <hip/hip_runtime.h>\n__global__ void porter_probe(int* p) { *p = 1; }\n")
        cmd = [str(toolchain.hipcc), f"--offload-arch={arch}", "-c", str(src), "-o", str(Path(tmp) / "probe.o")]
        proc = _run(cmd, timeout=120)
        return proc is not None and proc.returncode == 0


def accepted_arches(toolchain: Toolchain, candidates: tuple[str, ...] | list[str] = COMMON_ARCHES,
                    cache_dir: Path | None = None) -> dict[str, bool]:
    """arch -> accepted, probing each unknown arch once per hipcc path + version (cached as JSON)."""
    path = _cache_file(toolchain, cache_dir or default_cache_dir())
    try:
        cache: dict[str, bool] = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        cache = {}
    missing = [a for a in candidates if a not in cache]
    for arch in missing:
        cache[arch] = _probe_arch(toolchain, arch)
    if missing:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(cache, indent=1, sort_keys=True), "utf-8")
        except OSError:
            pass  # a read-only home only costs re-probing
    return {a: cache[a] for a in candidates}


@dataclass(frozen=True)
class ArchChoice:
    arch: str  # what hipcc gets
    requested: str  # the target the facts come from
    note: str | None = None  # set when compiling for a stand-in arch

    @property
    def substituted(self) -> bool:
        return self.arch != self.requested


def choose_compile_arch(toolchain: Toolchain, requested: str, cache_dir: Path | None = None) -> ArchChoice:
    """The requested arch if hipcc accepts it, else the nearest older wave64 arch it accepts."""
    base = requested.split(":", 1)[0]
    if accepted_arches(toolchain, [base], cache_dir)[base]:
        return ArchChoice(requested, requested)
    order = list(WAVE64_FALLBACKS)
    start = order.index(base) + 1 if base in order else 0
    for arch in order[start:]:
        if accepted_arches(toolchain, [arch], cache_dir)[arch]:
            note = (f"{toolchain.hipcc} (HIP {toolchain.hip_version}) does not accept --offload-arch={base}; "
                    f"compiling for {arch} instead (target facts stay {base})")
            return ArchChoice(arch, requested, note)
    return ArchChoice(requested, requested, f"{toolchain.hipcc} accepts neither {base} nor a wave64 stand-in")
