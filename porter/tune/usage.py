"""What each kernel uses, from the real compilers: hipcc's resource-usage remarks and nvcc's `ptxas -v`.

hipcc (clang 15 and 21 alike) prints, for `-Rpass-analysis=kernel-resource-usage`, one block of remarks per
function at the function's source position::

    a.hip:3:1: remark: Function Name: _Z1kILi256EEvPf [-Rpass-analysis=kernel-resource-usage]
    a.hip:3:1: remark:     SGPRs: 6 [...]            (clang 21: TotalSGPRs)
    a.hip:3:1: remark:     VGPRs: 4 / AGPRs: 0 / ScratchSize [bytes/lane]: 0 / Occupancy [waves/SIMD]: 8 /
                           SGPRs Spill: 0 / VGPRs Spill: 0 / LDS Size [bytes/block]: 4096

ptxas prints `Compiling entry function '_Z...' for 'sm_90'`, then `Used 32 registers, ... 384 bytes smem`.
Parsing is pure; `compile_amd` and `compile_cuda` run the compilers (device code only, objects in a temp dir).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from porter.build import Toolchain
from porter.tune.model import AmdUsage, NvidiaUsage

REMARK_FLAG = "-Rpass-analysis=kernel-resource-usage"
_REMARK = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): remark: +(?P<key>[^:\n]+?): +(?P<value>\S+) "
                     r"\[-Rpass-analysis=kernel-resource-usage\]\s*$", re.MULTILINE)
_AMD_KEYS = {
    "SGPRs": "sgprs", "TotalSGPRs": "sgprs", "VGPRs": "vgprs", "AGPRs": "agprs",
    "ScratchSize [bytes/lane]": "scratch_bytes", "Occupancy [waves/SIMD]": "compiler_occupancy",
    "SGPRs Spill": "sgpr_spills", "VGPRs Spill": "vgpr_spills", "LDS Size [bytes/block]": "lds_bytes",
}
_PTXAS_ENTRY = re.compile(r"Compiling entry function '(?P<name>[^']+)' for '(?P<arch>sm_\w+)'")
_PTXAS_FUNCTION = re.compile(r"Function properties for (?P<name>\S+)")
_PTXAS_STACK = re.compile(r"(?P<stack>\d+) bytes stack frame, (?P<stores>\d+) bytes spill stores, "
                          r"(?P<loads>\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (?P<regs>\d+) registers(?:.*?, (?P<smem>\d+) bytes smem)?")
COMPILE_TIMEOUT_S = 600


@dataclass(frozen=True)
class AmdKernelUsage:
    """One function's remark block: where it is defined, its mangled name and what it uses."""

    file: str
    line: int
    symbol: str
    usage: AmdUsage


@dataclass(frozen=True)
class CudaKernelUsage:
    symbol: str
    arch: str
    usage: NvidiaUsage


def parse_amd_remarks(text: str) -> list[AmdKernelUsage]:
    """Every function's resource usage in hipcc's output, in order (kernels and non-inlined device functions)."""
    out: list[AmdKernelUsage] = []
    current: dict | None = None

    def flush() -> None:
        if current is not None:
            fields = {k: v for k, v in current.items() if k in AmdUsage.__dataclass_fields__}
            fields.setdefault("vgprs", 0)
            out.append(AmdKernelUsage(current["file"], current["line"], current["symbol"], AmdUsage(**fields)))

    for m in _REMARK.finditer(text):
        key, value = m.group("key").strip(), m.group("value")
        if key == "Function Name":
            flush()
            current = {"file": m.group("file"), "line": int(m.group("line")), "symbol": value}
        elif current is not None and key in _AMD_KEYS and value.isdigit():
            current[_AMD_KEYS[key]] = int(value)
    flush()
    return out


def parse_ptxas(text: str) -> list[CudaKernelUsage]:
    """Every entry function's usage in `ptxas -v` output (device functions without an entry are skipped)."""
    out: list[CudaKernelUsage] = []
    entry: tuple[str, str] | None = None
    stack: dict[str, int] = {}
    for line in text.splitlines():
        if m := _PTXAS_ENTRY.search(line):
            entry, stack = (m.group("name"), m.group("arch")), {}
        elif m := _PTXAS_FUNCTION.search(line):
            if entry is None or m.group("name") != entry[0]:
                entry = None  # properties of a device function: not a kernel
        elif (m := _PTXAS_STACK.search(line)) and entry is not None:
            stack = {k: int(v) for k, v in m.groupdict().items()}
        elif (m := _PTXAS_USED.search(line)) and entry is not None:
            usage = NvidiaUsage(int(m.group("regs")), int(m.group("smem") or 0), stack.get("stores", 0),
                                stack.get("loads", 0), stack.get("stack", 0))
            out.append(CudaKernelUsage(entry[0], entry[1], usage))
            entry = None
    return out


@dataclass(frozen=True)
class CompileOutcome:
    file: str
    ok: bool
    output: str
    command: list[str]


def amd_command(toolchain: Toolchain, arch: str, source: Path, flags: Iterable[str] = ()) -> list[str]:
    # device code only: the remarks come from the device compile, and the host side would only cost time
    return [str(toolchain.hipcc), f"--offload-arch={arch}", "-x", "hip", "--cuda-device-only", "-c", REMARK_FLAG,
            str(source), "-o", os.devnull, *flags]


def cuda_command(nvcc: Path, arch: str, source: Path, flags: Iterable[str] = ()) -> list[str]:
    # device code only (-cubin): ptxas -v is what is wanted, the host side would only cost time
    return [str(nvcc), f"-arch={arch}", "-x", "cu", "-cubin", "-Xptxas", "-v", str(source), "-o", os.devnull, *flags]


def clang_major(toolchain: Toolchain) -> int | None:
    """The major version of the clang behind hipcc (its occupancy remark's formula depends on it)."""
    try:
        proc = subprocess.run([str(toolchain.hipcc), "--version"], capture_output=True, text=True, timeout=120,
                              check=False, env=dict(os.environ, HIP_PLATFORM="amd"))
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"clang version (\d+)", proc.stdout + proc.stderr)
    return int(m.group(1)) if m else None


def find_nvcc() -> Path | None:
    found = shutil.which("nvcc")
    if found:
        return Path(found)
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and (Path(root) / "bin" / "nvcc").is_file():
            return Path(root) / "bin" / "nvcc"
    return None


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> CompileOutcome:
    try:
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=COMPILE_TIMEOUT_S,
                              check=False)
        return CompileOutcome(str(command[-1]), proc.returncode == 0, proc.stdout + proc.stderr, command)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return CompileOutcome(str(command[-1]), False, f"{command[0]}: {exc}", command)


def compile_amd(toolchain: Toolchain, arch: str, sources: list[Path], cwd: Path, flags: Iterable[str] = (),
                jobs: int = 0) -> list[tuple[Path, CompileOutcome]]:
    env = dict(os.environ, HIP_PLATFORM="amd")
    flags = list(flags)
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        results = pool.map(lambda s: _run(amd_command(toolchain, arch, s, flags), cwd, env), sources)
        return list(zip(sources, results, strict=True))


def compile_cuda(nvcc: Path, arch: str, sources: list[Path], cwd: Path, flags: Iterable[str] = (),
                 jobs: int = 0) -> list[tuple[Path, CompileOutcome]]:
    flags = list(flags)
    with tempfile.TemporaryDirectory(prefix="porter-tune-nvcc-") as tmp, \
            ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        env = dict(os.environ, TMPDIR=tmp)  # nvcc's intermediate files stay out of the user's tree
        results = pool.map(lambda s: _run(cuda_command(nvcc, arch, s, flags), cwd, env), sources)
        return list(zip(sources, results, strict=True))
