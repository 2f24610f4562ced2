"""Finding HIP compilers, their versions, and which --offload-arch values they accept.

A `Toolchain` is one hipcc porter can run: the system's (PATH, $ROCM_PATH), one named by `PORTER_HIPCC`, or one
`porter toolchain install` provisioned (a Debian root with a newer ROCm; its `bin/hipcc` is a wrapper script that
runs the root's hipcc in a private mount namespace, so paths mean the same inside and out). Everything else in
porter runs `toolchain.command(...)` and never needs to know which kind it has.
"""

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

from porter.files import atomic_write
from porter.translate import RocmVersion

# Probed when asked which arches the compiler accepts (doctor); cheap enough: a failed probe is ~0.2 s.
COMMON_ARCHES = ("gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200")
# Nearest wave64 (CDNA) arch to fall back to, newest first, when the local hipcc does not know the target.
WAVE64_FALLBACKS = ("gfx950", "gfx942", "gfx90a", "gfx908", "gfx906")
RUNNER = "porter-in-root"  # beside an installed toolchain's bin/hipcc: what runs the root's tools
HOST_INCLUDE = "/run/porter-host-include"  # the host's /usr/include inside an installed toolchain's root
METADATA = "toolchain.json"  # in an installed toolchain's directory
_VERSION_RE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


class ToolchainError(ValueError):
    """A toolchain named by --toolchain, [tool.porter] toolchain or PORTER_HIPCC that does not exist."""


def hip_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment every hipcc call runs with: nvcc is often installed too, so pin the AMD platform."""
    env = dict(os.environ if base is None else base)
    env["HIP_PLATFORM"] = "amd"
    return env


@dataclass(frozen=True)
class Toolchain:
    hipcc: Path  # what porter runs; for an installed toolchain, the wrapper that enters its root
    hip_version: str | None  # e.g. "5.2.21153-0"
    rocm: RocmVersion | None
    name: str = "system"  # "system", an installed toolchain's name ("rocm-6.4"), or the path it was given as
    root: Path | None = None  # an installed toolchain's Debian root (hipcc runs chrooted into it)
    origin: str = "PATH"  # how porter found it: PATH, ROCM_PATH, PORTER_HIPCC, installed, or the option naming it

    @property
    def describe(self) -> str:
        return f"{self.hipcc} (HIP {self.hip_version or 'unknown version'})"

    @property
    def hipconfig(self) -> Path:
        return self.hipcc.with_name("hipconfig")

    @property
    def include_dir(self) -> Path:
        """Where this toolchain's HIP and library headers are, as seen from the host."""
        if self.root is not None:
            return self.root / "usr" / "include"
        return self.hipcc.resolve().parent.parent / "include"

    @property
    def host_include(self) -> str | None:
        """Where an installed toolchain's runner shows the host's /usr/include (searched after the root's own
        headers, for the user's libraries the root lacks); None for a host toolchain or an older runner."""
        if self.root is None:
            return None
        return HOST_INCLUDE if _runner_shows_host_headers(self.hipcc.with_name(RUNNER)) else None

    def command(self, *args: str) -> list[str]:
        """The argv that runs hipcc with `args`; paths in it mean the same for every kind of toolchain."""
        return [str(self.hipcc), *args]


@functools.lru_cache(maxsize=8)
def _runner_shows_host_headers(runner: Path) -> bool:
    try:
        return HOST_INCLUDE in runner.read_text("utf-8", "replace") and Path("/usr/include").is_dir()
    except OSError:
        return False


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


def _rocm_from_info(roots: list[Path]) -> RocmVersion | None:
    for root in roots:
        info = root / ".info" / "version"
        if info.is_file():
            match = _VERSION_RE.search(info.read_text("utf-8", "replace"))
            if match:
                return RocmVersion(int(match.group(1)), int(match.group(2)))
    return None


def _rocm_from_hip(version: str | None) -> RocmVersion | None:
    match = _VERSION_RE.match(version or "")
    return RocmVersion(int(match.group(1)), int(match.group(2))) if match else None


def _system_roots(hipcc: Path | None) -> list[Path]:
    roots = [os.environ.get("ROCM_PATH"), os.environ.get("HIP_PATH"), "/opt/rocm"]
    found = [Path(r) for r in roots if r]
    return found + ([hipcc.resolve().parent.parent] if hipcc is not None else [])


def detect_rocm_version() -> RocmVersion | None:
    """ROCm version of the default toolchain (`PORTER_HIPCC`, else hipcc on PATH or under ROCM_PATH)."""
    try:
        toolchain = resolve_toolchain(None)
    except ToolchainError:
        return None
    return toolchain.rocm if toolchain is not None else None


def _installed_root(hipcc: Path) -> Path | None:
    """The Debian root behind an installed toolchain's bin/hipcc wrapper, else None."""
    real = hipcc.resolve()
    root = real.parent.parent / "root"
    return root if (real.parent / RUNNER).is_file() and root.is_dir() else None


def _metadata(toolchain_dir: Path) -> dict:
    try:
        data = json.loads((toolchain_dir / METADATA).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def toolchain_at(hipcc: Path, name: str | None = None, origin: str = "PATH") -> Toolchain:
    """The toolchain whose hipcc is `hipcc` (a system one, a ROCm install, or an installed toolchain's wrapper)."""
    hipcc = hipcc if hipcc.is_absolute() else Path.cwd() / hipcc
    root = _installed_root(hipcc)
    version = hip_version(hipcc)
    if root is not None:
        meta = _metadata(root.parent)
        rocm = _rocm_from_info([root / "opt" / "rocm"]) or _rocm_from_hip(version)
        return Toolchain(hipcc, version, rocm, name or str(meta.get("name") or root.parent.name), root, origin)
    roots = _system_roots(hipcc) if origin in ("PATH", "ROCM_PATH") else [hipcc.resolve().parent.parent]
    rocm = _rocm_from_info(roots) or _rocm_from_hip(version)
    return Toolchain(hipcc, version, rocm, name or ("system" if origin in ("PATH", "ROCM_PATH") else str(hipcc)), None,
                     origin)


def _default_toolchain() -> Toolchain | None:
    hipcc = find_hipcc()
    if hipcc is None:
        return None
    origin = "PATH" if shutil.which("hipcc") else "ROCM_PATH"
    return toolchain_at(hipcc, origin=origin)


def _hipcc_in(path: Path) -> Path | None:
    """hipcc for a path given as a toolchain: the compiler itself, a toolchain directory or a ROCm prefix."""
    if path.is_file():
        return path
    for candidate in (path / "bin" / "hipcc", path / "hipcc"):
        if candidate.is_file():
            return candidate
    return None


def toolchains_dir(cache_dir: Path | None = None) -> Path:
    """Where `porter toolchain install` puts toolchains by default, and keeps the list of installed ones."""
    return (cache_dir or default_cache_dir()) / "toolchains"


def registry_file(cache_dir: Path | None = None) -> Path:
    return toolchains_dir(cache_dir) / "registry.json"


def read_registry(cache_dir: Path | None = None) -> dict[str, Path]:
    """Installed toolchains by name: the registry, plus any toolchain directory in the default location."""
    found: dict[str, Path] = {}
    base = toolchains_dir(cache_dir)
    if base.is_dir():
        for child in sorted(base.iterdir()):
            if (child / METADATA).is_file() and not child.name.endswith(".partial"):
                found[str(_metadata(child).get("name") or child.name)] = child
    try:
        data = json.loads(registry_file(cache_dir).read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    if isinstance(data, dict):
        found.update({str(name): Path(path) for name, path in data.items() if isinstance(path, str)})
    return found


def write_registry(entries: dict[str, Path], cache_dir: Path | None = None) -> None:
    path = registry_file(cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {name: str(p) for name, p in sorted(entries.items())}
    atomic_write(path, (json.dumps(body, indent=1) + "\n").encode("utf-8"))
    path.chmod(0o644)  # other users may read what root installed


def installed_toolchains(cache_dir: Path | None = None) -> list[Toolchain]:
    """Every installed toolchain whose directory still holds a runnable hipcc wrapper."""
    out = []
    for name, directory in read_registry(cache_dir).items():
        hipcc = directory / "bin" / "hipcc"
        if hipcc.is_file() and _installed_root(hipcc) is not None:
            out.append(toolchain_at(hipcc, name=name, origin="installed"))
    return out


def _by_version(spec: str, candidates: list[Toolchain]) -> Toolchain | None:
    try:
        wanted = RocmVersion.parse(spec.removeprefix("rocm-").removeprefix("rocm"))
    except ValueError:
        return None
    return next((t for t in candidates if t.rocm == wanted), None)


def resolve_toolchain(spec: str | None = None, origin: str = "--toolchain",
                      cache_dir: Path | None = None) -> Toolchain | None:
    """The toolchain to build with.

    `spec` (from --toolchain or [tool.porter] toolchain) is an installed toolchain's name (`rocm-6.4`), a ROCm
    version (`6.4`, matched against the installed and system toolchains), `system`, or a path: a hipcc, a
    toolchain directory or a ROCm prefix. Without one, `PORTER_HIPCC` names the hipcc; without that, hipcc on PATH
    or under ROCM_PATH (None when there is none). Raises ToolchainError for a spec that names nothing.
    """
    if spec is None or not spec.strip():
        env = os.environ.get("PORTER_HIPCC", "").strip()
        if not env:
            return _default_toolchain()
        spec, origin = env, "PORTER_HIPCC"
    spec = spec.strip()
    if spec == "system":
        found = _default_toolchain()
        if found is None:
            raise ToolchainError("toolchain 'system': no hipcc on PATH, under $ROCM_PATH or /opt/rocm")
        return found
    installed = {t.name: t for t in installed_toolchains(cache_dir)}
    if spec in installed:
        return installed[spec]
    looks_like_path = "/" in spec or spec.startswith(".") or Path(spec).exists()
    if not looks_like_path:
        system = _default_toolchain()
        match = _by_version(spec, [*installed.values(), *([system] if system else [])])
        if match is not None:
            return match
        names = ", ".join(sorted(installed)) or "none"
        raise ToolchainError(f"unknown toolchain {spec!r} ({origin}): not an installed toolchain (installed: {names}), "
                             "a ROCm version, 'system' or a path to hipcc; see `porter toolchain list`")
    path = Path(spec).expanduser()
    hipcc = _hipcc_in(path)
    if hipcc is None:
        raise ToolchainError(f"{origin} {spec}: no hipcc there (give hipcc itself, a toolchain directory or a ROCm "
                             "prefix with bin/hipcc)")
    if not os.access(hipcc, os.X_OK):
        raise ToolchainError(f"{origin} {spec}: {hipcc} is not executable")
    return toolchain_at(hipcc.absolute(), origin=origin)


def find_toolchains(cache_dir: Path | None = None) -> list[Toolchain]:
    """Every toolchain porter can find: PORTER_HIPCC's, the system's, and the installed ones (each once)."""
    found: list[Toolchain] = []
    env = os.environ.get("PORTER_HIPCC", "").strip()
    if env:
        try:
            chosen = resolve_toolchain(None, cache_dir=cache_dir)
        except ToolchainError:
            chosen = None
        found += [chosen] if chosen else []
    system = _default_toolchain()
    found += [system] if system else []
    found += installed_toolchains(cache_dir)
    seen: set[Path] = set()
    unique = []
    for toolchain in found:
        key = toolchain.hipcc.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(toolchain)
    return unique


def detect_toolchain() -> Toolchain | None:
    """The default toolchain: `PORTER_HIPCC`, else hipcc on PATH or under ROCM_PATH (None when there is none)."""
    try:
        return resolve_toolchain(None)
    except ToolchainError:
        return None


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "porter"


def _cache_file(toolchain: Toolchain, cache_dir: Path) -> Path:
    key = hashlib.sha256(f"{toolchain.hipcc.resolve()}|{toolchain.hip_version}".encode()).hexdigest()[:16]
    return cache_dir / f"offload-arch-{key}.json"


PROBE_SOURCE = "#include <hip/hip_runtime.h>\n__global__ void porter_probe(int* p) { *p = 1; }\n"


def compile_probe(toolchain: Toolchain, arch: str, source: str = PROBE_SOURCE) -> tuple[bool, str]:
    """Compile `source` for `arch` (-c, in a temp dir); returns (ok, compiler output)."""
    with tempfile.TemporaryDirectory(prefix="porter-probe-") as tmp:
        src = Path(tmp) / "probe.hip"
        src.write_text(source)
        cmd = toolchain.command(f"--offload-arch={arch}", "-c", str(src), "-o", str(Path(tmp) / "probe.o"))
        proc = _run(cmd, timeout=300)
        if proc is None:
            return False, f"{cmd[0]} could not be run or timed out"
        return proc.returncode == 0, proc.stdout + proc.stderr


def _probe_arch(toolchain: Toolchain, arch: str) -> bool:
    return compile_probe(toolchain, arch)[0]


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
            atomic_write(path, json.dumps(cache, indent=1, sort_keys=True).encode("utf-8"))
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
                    f"compiling for {arch} instead (target facts stay {base}); a newer ROCm: "
                    "`porter toolchain install`, then --toolchain rocm-6.4")
            return ArchChoice(arch, requested, note)
    return ArchChoice(requested, requested, f"{toolchain.hipcc} accepts neither {base} nor a wave64 stand-in")
