"""One pass of `porter tune` over a tree: compile for resource usage, resolve launches, apply the model.

The tree may be CUDA or HIP. For the AMD side every source is translated to HIP (porter.translate; a HIP file
comes out as it went in) into a temporary copy with the compatibility shims it needs, and each translation unit
that holds kernels is compiled once, device code only, with hipcc's resource-usage remarks. For the NVIDIA side,
CUDA translation units are compiled with nvcc `-Xptxas -v` when nvcc is installed (for a port, the originals named
in its `.porter/manifest.json`). Nothing is run; nothing in the user's tree is written.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from porter.build import (
    HEADER_SUFFIXES,
    SOURCE_SUFFIXES,
    HipccEnvironment,
    Toolchain,
    choose_compile_arch,
    walk_files,
)
from porter.syntax import split_top_level
from porter.targets import TargetProfile
from porter.translate import TranslateOptions, translate
from porter.tune import launches as launch_mod
from porter.tune.launches import (
    Kernel,
    LaunchSite,
    Resolved,
    SourceFacts,
    Symbols,
    Value,
    source_facts,
    symbols_for,
)
from porter.tune.model import (
    AmdChip,
    AmdUsage,
    Convention,
    NoModelError,
    NvidiaChip,
    NvidiaUsage,
    Occupancy,
    Quantization,
    amd_chip,
    amd_occupancy,
    better_block_sizes,
    compiler_convention,
    max_vgprs_for_block,
    nvidia_chip,
    nvidia_occupancy,
    quantize,
    vgprs_per_wave,
)
from porter.tune.safety import bounds_allow, kernel_safety, rewrite_site
from porter.tune.usage import clang_major, compile_amd, compile_cuda, parse_amd_remarks, parse_ptxas

GPU_CODE = re.compile(rb"__global__|<<<|hipLaunchKernelGGL")
_DEMANGLED = re.compile(r"^(?:.*?\s)?(?P<name>[\w:~]+?)(?:<(?P<targs>.*)>)?\((?P<params>.*)\)(?:\s*const)?$")
MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass
class TuneOptions:
    target: TargetProfile
    device: str | None = None  # product name: picks the CU count (MI300A: 228)
    assumptions: dict[str, Value] = field(default_factory=dict)
    toolchain: Toolchain | None = None
    nvcc: Path | None = None
    nvidia_arch: str = "sm_90"
    jobs: int = 0
    compile_arch: str | None = None  # override what hipcc compiles for
    clang_major: int | None = None  # of the hipcc, for the compiler's own occupancy convention


@dataclass
class KernelInstance:
    symbol: str
    template_args: tuple[str, ...]
    amd: AmdUsage | None = None
    nvidia: NvidiaUsage | None = None
    nvidia_symbol: str | None = None


@dataclass
class KernelInfo:
    kernel: Kernel
    instances: list[KernelInstance] = field(default_factory=list)

    def instance(self, template_args: tuple[str, ...]) -> tuple[KernelInstance | None, str | None]:
        """The instantiation a launch uses, and a note when porter had to pick one."""
        with_amd = [i for i in self.instances if i.amd is not None or i.nvidia is not None]
        if not with_amd:
            return None, None
        if template_args:
            wanted = tuple(a.replace(" ", "") for a in template_args)
            for inst in with_amd:
                if tuple(a.replace(" ", "") for a in inst.template_args) == wanted:
                    return inst, None
        if len(with_amd) == 1:
            return with_amd[0], None
        worst = max(with_amd, key=lambda i: (vgprs_sort_key(i.amd), i.nvidia.registers if i.nvidia else 0))
        return worst, f"{len(with_amd)} instantiations; showing the one with the most registers ({worst.symbol})"


def vgprs_sort_key(usage: AmdUsage | None) -> int:
    return (usage.vgprs + usage.agprs) if usage else -1


@dataclass
class Suggestion:
    block: int
    occupancy: Occupancy
    grid_blocks: int | None
    quantization: Quantization | None
    safe: bool
    reasons: tuple[str, ...]
    edits: tuple[tuple[int, int, bytes], ...] = ()


@dataclass
class SiteReport:
    launch: LaunchSite
    kernel: KernelInfo | None
    instance: KernelInstance | None
    occupancy: Occupancy | None
    compiler_occupancy: Occupancy | None  # the model in the compiler's convention (equals its remark)
    nvidia: Occupancy | None
    quantization: Quantization | None
    suggestions: list[Suggestion] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    launch_bounds_edit: tuple[int, int, bytes] | None = None
    launch_bounds_reason: str | None = None

    @property
    def file(self) -> str:
        return self.launch.file

    @property
    def line(self) -> int:
        return self.launch.line


@dataclass
class TuneReport:
    root: str
    target: TargetProfile
    chip: AmdChip
    nvidia_chip: NvidiaChip | None
    toolchain: str | None
    compile_arch: str | None
    compile_note: str | None
    nvcc: str | None
    convention: Convention
    kernels: list[KernelInfo] = field(default_factory=list)
    sites: list[SiteReport] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # files read
    compiled: list[str] = field(default_factory=list)  # translation units compiled for the AMD target
    compile_failures: dict[str, str] = field(default_factory=dict)
    cuda_compiled: list[str] = field(default_factory=list)
    cuda_failures: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    facts: dict[str, SourceFacts] = field(default_factory=dict, repr=False)
    symbols: dict[str, Symbols] = field(default_factory=dict, repr=False)


# --- compiling -------------------------------------------------------------------------------------------------------

def demangle(symbols: list[str]) -> dict[str, str]:
    """Mangled -> demangled names through c++filt (binutils) or llvm-cxxfilt; names it cannot read stay as they are."""
    tool = shutil.which("c++filt") or shutil.which("llvm-cxxfilt")
    if not symbols or tool is None:
        return {s: s for s in symbols}
    try:
        proc = subprocess.run([tool], input="\n".join(symbols) + "\n", capture_output=True, text=True, timeout=60,
                              check=False)
        lines = proc.stdout.splitlines()
    except (OSError, subprocess.TimeoutExpired):
        lines = []
    return {s: (lines[i] if i < len(lines) else s) for i, s in enumerate(symbols)}


def split_demangled(name: str) -> tuple[str, tuple[str, ...]]:
    """`void ns::k<256, 4>(float*)` -> ("k", ("256", "4")); a name that does not parse comes back whole."""
    m = _DEMANGLED.match(name.strip().replace("(anonymous namespace)::", ""))
    if not m:
        return name, ()
    base = m.group("name").rsplit("::", 1)[-1]
    targs = m.group("targs")
    if not targs:
        return base, ()
    out = split_top_level(targs, "<(", ">)")
    # `(unsigned int)256` / `256u` -> 256: launches write the plain number
    return base, tuple(re.sub(r"^\([\w ]+\)|(?<=\d)[uUlL]+$", "", a) for a in out)


def _hip_copy(root: Path, files: list[Path], tmp: Path, options: TuneOptions) -> list[Path]:
    """Translate every source under root into tmp (same relative paths), add the shims they need, link the rest."""
    written = []
    topts = TranslateOptions(target=options.target.arch, rocm=options.toolchain.rocm if options.toolchain else None)
    for path in files:
        rel = path.relative_to(root)
        dest = tmp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix.lower() in SOURCE_SUFFIXES | HEADER_SUFFIXES and path.stat().st_size <= MAX_FILE_BYTES:
            data = path.read_bytes()
            with contextlib.suppress(Exception):  # an untranslatable file is compiled as it is; hipcc says why
                data = translate(data, topts).output
            dest.write_bytes(data)
            written.append(dest)
        else:
            dest.symlink_to(path.resolve())
    try:
        from porter.fix import install_shims

        install_shims(tmp, written, options.toolchain.rocm if options.toolchain else None)
    except ImportError:  # the shim stage is optional; without it code that needs shims fails to compile
        pass
    return written


def _originals(root: Path) -> dict[str, Path]:
    """For a port (a `.porter/manifest.json`): output path -> the CUDA original."""
    manifest = root / ".porter" / "manifest.json"
    try:
        data = json.loads(manifest.read_bytes())
        return {row["output"]: Path(row["original"]) for row in data["files"] if "original" in row}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


# --- the pass --------------------------------------------------------------------------------------------------------

def analyze(root: Path, options: TuneOptions, only: list[Path] | None = None) -> TuneReport:
    """Analyze `root` (a directory or one file); `only` (paths inside root) restricts the launch sites reported
    and the translation units compiled to those files."""
    root = Path(root).resolve()  # compilers run in other directories: every path they get is absolute
    single = root if root.is_file() else None
    base = root.parent if single else root
    chip = amd_chip(options.target, options.device)
    try:
        nchip = nvidia_chip(options.nvidia_arch)
    except NoModelError:
        nchip = None
    toolchain = options.toolchain
    arch, note = options.compile_arch, None
    if toolchain is not None and arch is None:
        choice = choose_compile_arch(toolchain, options.target.arch)
        arch, note = choice.arch, choice.note
    clang = options.clang_major if options.clang_major is not None else (clang_major(toolchain) if toolchain else None)
    report = TuneReport(str(root), options.target, chip, nchip, toolchain.describe if toolchain else None, arch, note,
                        str(options.nvcc) if options.nvcc else None, compiler_convention(clang))
    all_files = _with_headers(single, base) if single else [p for p in walk_files(base) if not p.is_symlink()]
    sources = [p for p in all_files if p.suffix.lower() in SOURCE_SUFFIXES | HEADER_SUFFIXES]
    # `only`: report and compile these files (a shard's share); every file is still read for kernel definitions
    wanted = {p.resolve() for p in only} if only is not None else None
    cache: dict[Path, Symbols] = {}
    gpu_files: list[Path] = []
    for path in sources:
        rel = path.relative_to(base).as_posix()
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                report.warnings.append(f"{rel}: larger than {MAX_FILE_BYTES >> 20} MiB; not read")
                continue
            data = path.read_bytes()
        except OSError as exc:
            report.warnings.append(f"{rel}: {exc.strerror or exc}")
            continue
        report.files.append(rel)
        if not GPU_CODE.search(data):
            continue
        facts = source_facts(path, rel, base, data, options.assumptions, cache)
        report.facts[rel] = facts
        report.symbols[rel] = symbols_for(path, base, facts.tree, data, cache)
        if facts.kernels or facts.launches:
            gpu_files.append(path)
    kernels = {(k.file, k.name, k.line): KernelInfo(k) for f in report.facts.values() for k in f.kernels}
    report.kernels = list(kernels.values())
    units = _translation_units(base, gpu_files, report)
    if wanted is not None:
        units = [u for u in units if u.resolve() in wanted]
    if toolchain is not None and arch and units:
        _amd_usage(base, all_files, units, options, arch, report, kernels)
    nvcc = options.nvcc
    if nvcc is not None and units and nchip is not None:
        _cuda_usage(base, units, options, report, kernels)
    for facts in report.facts.values():
        if wanted is not None and (base / facts.path).resolve() not in wanted:
            continue
        for launch in facts.launches:
            report.sites.append(_site(launch, report, kernels, options))
    return report


def _with_headers(path: Path, base: Path) -> list[Path]:
    """One file and the project headers it includes, transitively (what compiling it alone needs)."""
    out, todo = [], [path.resolve()]
    while todo:
        current = todo.pop()
        if current in out or not current.is_file() or not current.is_relative_to(base.resolve()):
            continue
        out.append(current)
        try:
            todo += launch_mod.local_headers(current.read_bytes(), current, base.resolve())
        except OSError:
            continue
    base_resolved = base.resolve()
    return [base / p.relative_to(base_resolved) for p in out]


def _translation_units(base: Path, gpu_files: list[Path], report: TuneReport) -> list[Path]:
    units = [p for p in gpu_files if p.suffix.lower() in SOURCE_SUFFIXES]
    headers = {p.resolve() for p in gpu_files if p.suffix.lower() in HEADER_SUFFIXES}
    if headers:  # kernels defined in headers are compiled through the sources that include them
        for rel in report.files:
            path = base / rel
            if path.suffix.lower() in SOURCE_SUFFIXES and path not in units:
                try:
                    data = path.read_bytes()
                except OSError:
                    continue
                if set(launch_mod.local_headers(data, path, base)) & headers:
                    units.append(path)
    return units


def _amd_usage(base: Path, all_files: list[Path], units: list[Path], options: TuneOptions, arch: str,
               report: TuneReport, kernels: dict[tuple[str, str, int], KernelInfo]) -> None:
    assert options.toolchain is not None
    with tempfile.TemporaryDirectory(prefix="porter-tune-") as tmp_name:
        # always a translated copy: a port translates to itself, and CUDA files (edited by tune --apply too) need it
        tree = Path(tmp_name)
        _hip_copy(base, all_files, tree, options)
        rels = [u.relative_to(base) for u in units]
        flags = ["-I", str(tree), "-w", *HipccEnvironment(tree, options.toolchain).flags.args()]
        flags += ["-include", "hip/hip_runtime.h"]  # nvcc includes cuda_runtime.h in every .cu; HIP needs this
        results = compile_amd(options.toolchain, arch, [tree / r for r in rels], tree, flags, options.jobs)
        found = []
        for (_src, outcome), rel in zip(results, rels, strict=True):
            if outcome.ok:
                report.compiled.append(rel.as_posix())
            else:
                report.compile_failures[rel.as_posix()] = _first_error(outcome.output)
            for usage in parse_amd_remarks(outcome.output):
                found.append((_relative(usage.file, tree, base), usage))
    names = demangle(sorted({u.symbol for _f, u in found}))
    for file, usage in found:
        name, targs = split_demangled(names.get(usage.symbol, usage.symbol))
        info = _find_kernel(kernels, file, name)
        if info is None:
            continue  # a device function, or a kernel porter did not parse
        inst = next((i for i in info.instances if i.symbol == usage.symbol), None)
        if inst is None:
            inst = KernelInstance(usage.symbol, targs)
            info.instances.append(inst)
        inst.amd = usage.usage


def _cuda_usage(base: Path, units: list[Path], options: TuneOptions, report: TuneReport,
                kernels: dict[tuple[str, str, int], KernelInfo]) -> None:
    assert options.nvcc is not None
    originals = _originals(base)
    sources: list[Path] = []
    for unit in units:
        rel = unit.relative_to(base).as_posix()
        original = originals.get(rel)
        path = original if original is not None and original.is_file() else unit
        if path.suffix.lower() == ".hip" or b"hip_runtime" in path.read_bytes()[:200_000]:
            continue  # HIP code: nothing for nvcc
        sources.append(path)
    if not sources:
        return
    flags = ["-I", str(base), "-w", *HipccEnvironment(base, None).flags.args()]  # the project's -I/-D, as for hipcc
    results = compile_cuda(options.nvcc, options.nvidia_arch, sources, base, flags, options.jobs)
    found = []
    for src, outcome in results:
        label = src.relative_to(base).as_posix() if src.is_relative_to(base) else str(src)
        if outcome.ok:
            report.cuda_compiled.append(label)
        else:
            report.cuda_failures[label] = _first_error(outcome.output)
        found += parse_ptxas(outcome.output)
    names = demangle(sorted({k.symbol for k in found}))
    for k in found:
        name, targs = split_demangled(names.get(k.symbol, k.symbol))
        info = _find_kernel(kernels, None, name)
        if info is None:
            continue
        inst = next((i for i in info.instances if i.template_args == targs), None)
        if inst is None:
            inst = KernelInstance(k.symbol, targs)
            info.instances.append(inst)
        inst.nvidia, inst.nvidia_symbol = k.usage, k.symbol


def _find_kernel(kernels: dict[tuple[str, str, int], KernelInfo], file: str | None, name: str) -> KernelInfo | None:
    same = [k for (f, n, _line), k in kernels.items() if n == name and (file is None or f == file)]
    if not same and file is not None:
        same = [k for (_f, n, _line), k in kernels.items() if n == name]
    return same[0] if same else None


def _relative(path: str, tmp: Path, base: Path) -> str:
    p = Path(path)
    if not p.is_absolute():
        p = tmp / p
    for root in (tmp, tmp.resolve(), base):
        try:
            return p.relative_to(root).as_posix()
        except ValueError:
            continue
    return path


def _first_error(output: str) -> str:
    for line in output.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return (output.strip().splitlines() or ["failed"])[-1][:300]


# --- one launch site -------------------------------------------------------------------------------------------------

def _site(launch: LaunchSite, report: TuneReport, kernels: dict[tuple[str, str, int], KernelInfo],
          options: TuneOptions) -> SiteReport:
    info = _find_kernel(kernels, launch.file, launch.kernel)
    inst, note = info.instance(launch.template_args) if info else (None, None)
    site = SiteReport(launch, info, inst, None, None, None, None)
    if note:
        site.notes.append(note)
    if info is None:
        site.notes.append(f"`{launch.kernel}` is not defined in the files porter read")
    block = launch.block.value
    shmem = launch.shmem.value.total if launch.shmem.value else None
    if block is None:
        site.notes.append(f"block size {launch.block.describe()}: {launch.block.reason}; --assume NAME=VALUE sets it")
        return site
    threads = block.total
    if not launch.shmem.known:
        site.notes.append(f"dynamic LDS {launch.shmem.describe()}: {launch.shmem.reason}; counted as 0")
        shmem = 0
    chip = report.chip
    if inst is not None and inst.amd is not None:
        site.occupancy = amd_occupancy(chip, inst.amd, threads, shmem or 0)
        site.compiler_occupancy = amd_occupancy(chip, inst.amd, threads, shmem or 0, report.convention)
        if site.occupancy.blocks_per_cu and launch.grid.value is not None:
            site.quantization = quantize(launch.grid.value.total, site.occupancy.blocks_per_cu, chip.cu_count)
    else:
        if report.toolchain is None:
            why = "no hipcc"
        elif info is not None and info.kernel.file in report.compile_failures:
            why = f"hipcc could not compile {info.kernel.file}"
        else:
            why = "hipcc reported no usage for this kernel"
        site.notes.append(f"{why}: registers and static LDS unknown (dynamic LDS and workgroup limits only)")
        site.occupancy = amd_occupancy(chip, AmdUsage(vgprs=0, lds_bytes=0), threads, shmem or 0)
    if inst is not None and inst.nvidia is not None and report.nvidia_chip is not None:
        site.nvidia = nvidia_occupancy(report.nvidia_chip, inst.nvidia, threads, shmem or 0)
    if info is not None and inst is not None and inst.amd is not None and site.occupancy and not site.occupancy.error:
        _suggest(site, info, inst.amd, threads, shmem or 0, report)
        _launch_bounds(site, info, inst.amd, report)
    return site


def _suggest(site: SiteReport, info: KernelInfo, usage: AmdUsage, threads: int, shmem: int,
             report: TuneReport) -> None:
    launch = site.launch
    total = launch.grid.value.total * threads if launch.grid.value is not None else None
    cap = info.kernel.launch_bounds
    symbols = report.symbols.get(launch.file, Symbols())
    safety = kernel_safety(info.kernel, launch, symbols)
    for cand in better_block_sizes(report.chip, usage, threads, shmem, total, None):
        reasons = list(safety.reasons)
        bound = bounds_allow(info.kernel, cand.block_threads)
        if bound:
            reasons.append(bound)
        edits: tuple[tuple[int, int, bytes], ...] = ()
        if not reasons:
            rewrite = rewrite_site(launch, info.kernel, cand.block_threads, symbols)
            if rewrite.reason:
                reasons.append(rewrite.reason)
            edits = rewrite.edits
        if cap is not None and cand.block_threads > cap and not bound:
            reasons.append(f"`{info.kernel.launch_bounds_text}` forbids it")
        site.suggestions.append(Suggestion(cand.block_threads, cand.occupancy, cand.grid_blocks, cand.quantization,
                                           not reasons, tuple(reasons), edits if not reasons else ()))


def _launch_bounds(site: SiteReport, info: KernelInfo, usage: AmdUsage, report: TuneReport) -> None:
    """`__launch_bounds__(B)` helps a kernel that has none, spills, and is launched with B threads everywhere:
    without it the compiler assumes 1024-thread blocks and caps the registers at what those allow."""
    kernel = info.kernel
    if kernel.launch_bounds_text is not None or kernel.is_template:
        return
    if not (usage.vgpr_spills or usage.sgpr_spills or usage.scratch_bytes):
        return
    sizes = set()
    for other in [*report.sites, site]:
        if other.kernel is info:
            if other.launch.block.value is None:
                site.launch_bounds_reason = f"a launch at {other.file}:{other.line} has an unknown block size"
                return
            sizes.add(other.launch.block.value.total)
    top = max(sizes) if sizes else None
    if top is None or top >= report.chip.max_threads_per_block:
        return
    budget = max_vgprs_for_block(report.chip, top)
    if budget <= max_vgprs_for_block(report.chip, report.chip.max_threads_per_block):
        return
    site.launch_bounds_reason = (f"spills {usage.vgpr_spills} VGPRs / {usage.scratch_bytes} B scratch at the default "
                                 f"1024-thread bound; every launch uses at most {top} threads, which allow "
                                 f"{budget} VGPRs (it uses {vgprs_per_wave(report.chip, usage)})")
    site.launch_bounds_edit = (kernel.insert_at, kernel.insert_at, f"__launch_bounds__({top}) ".encode())


def site_dict(site: SiteReport, report: TuneReport) -> dict:
    """One launch site as plain data (JSON)."""
    def occ(o: Occupancy | None) -> dict | None:
        if o is None:
            return None
        return {"waves_per_simd": round(o.waves_per_simd, 2), "waves_per_cu": o.waves_per_cu,
                "blocks_per_cu": o.blocks_per_cu, "percent": round(o.percent, 1), "limiter": o.limiter,
                "limits": o.limits, "error": o.error}

    def quant(q: Quantization | None) -> dict | None:
        if q is None:
            return None
        return {"blocks": q.blocks, "resident_per_cu": q.resident_per_cu, "units": q.units, "waves": q.waves,
                "full_waves": q.full_waves, "last_wave_blocks": q.last_wave_blocks,
                "last_wave_units_busy": q.last_wave_units_busy, "last_wave_share": round(q.last_wave_share, 3),
                "efficiency": round(q.efficiency, 3)}

    def resolved(r: Resolved) -> dict:
        return {"expr": r.expr, "value": list(r.value.dims) if r.value else None, "text": r.describe(),
                "reason": r.reason or None, "unknown": list(r.unknown_names)}

    inst = site.instance
    amd = inst.amd if inst else None
    nv = inst.nvidia if inst else None
    return {
        "file": site.file, "line": site.line, "kernel": site.launch.kernel, "syntax": site.launch.syntax,
        "template_args": list(site.launch.template_args),
        "kernel_line": site.kernel.kernel.line if site.kernel else None,
        "launch_bounds": site.kernel.kernel.launch_bounds if site.kernel else None,
        "block": resolved(site.launch.block), "grid": resolved(site.launch.grid),
        "dynamic_lds": resolved(site.launch.shmem),
        "usage": None if amd is None else {**amd.__dict__, "arch": report.compile_arch},
        "nvidia_usage": None if nv is None else {**nv.__dict__, "arch": report.nvidia_chip.arch if report.nvidia_chip else None},
        "occupancy": occ(site.occupancy), "compiler_occupancy": occ(site.compiler_occupancy),
        "compiler_reported": amd.compiler_occupancy if amd else None,
        "nvidia_occupancy": occ(site.nvidia), "quantization": quant(site.quantization),
        "suggestions": [{"block": s.block, "occupancy": occ(s.occupancy), "grid_blocks": s.grid_blocks,
                         "quantization": quant(s.quantization), "safe": s.safe, "reasons": list(s.reasons)}
                        for s in site.suggestions],
        "launch_bounds_suggestion": site.launch_bounds_edit[2].decode().strip() if site.launch_bounds_edit else None,
        "launch_bounds_reason": site.launch_bounds_reason, "notes": site.notes,
    }


def report_dict(report: TuneReport) -> dict:
    return {
        "root": report.root, "target": report.target.arch, "device": report.chip.device, "cu_count": report.chip.cu_count,
        "toolchain": report.toolchain, "compile_arch": report.compile_arch, "compile_note": report.compile_note,
        "nvcc": report.nvcc, "nvidia_arch": report.nvidia_chip.arch if report.nvidia_chip else None,
        "compiler_convention": report.convention.value,
        "summary": {"files": len(report.files), "kernels": len(report.kernels), "launch_sites": len(report.sites),
                    "compiled": len(report.compiled), "compile_failures": len(report.compile_failures),
                    "cuda_compiled": len(report.cuda_compiled), "cuda_failures": len(report.cuda_failures),
                    "safe_suggestions": sum(1 for s in report.sites for x in s.suggestions if x.safe)},
        "kernels": [kernel_dict(k, report) for k in report.kernels],
        "sites": [site_dict(s, report) for s in report.sites],
        "compile_failures": report.compile_failures, "cuda_failures": report.cuda_failures,
        "warnings": report.warnings,
    }


def kernel_dict(info: KernelInfo, report: TuneReport) -> dict:
    """Per-kernel facts: what each instantiation uses on the AMD target and the NVIDIA arch."""
    k = info.kernel
    return {
        "kernel": k.name, "file": k.file, "line": k.line, "launch_bounds": k.launch_bounds,
        "instances": [{"symbol": i.symbol, "template_args": list(i.template_args),
                       "usage": i.amd.__dict__ if i.amd else None, "nvidia_usage": i.nvidia.__dict__ if i.nvidia else None}
                      for i in info.instances],
    }
