"""Inventory of a CUDA/HIP tree: APIs by family, kernels, launch sites, what porter can and cannot translate."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from porter.scan.context import SourceContext, arguments, strip_templates, text

# used only when porter.translate.mapping is unavailable: a family guess from the name's prefix
_PREFIX_FAMILIES = (
    (re.compile(r"^cublasLt"), "cublaslt"),
    (re.compile(r"^(cublas|CUBLAS_)"), "cublas"),
    (re.compile(r"^(cufft|CUFFT_)"), "cufft"),
    (re.compile(r"^(curand|CURAND_)"), "curand"),
    (re.compile(r"^(cusparse|CUSPARSE_)"), "cusparse"),
    (re.compile(r"^(cusolver|CUSOLVER_)"), "cusolver"),
    (re.compile(r"^(cudnn|CUDNN_)"), "cudnn"),
    (re.compile(r"^(nccl|NCCL_)"), "nccl"),
    (re.compile(r"^(nvrtc|NVRTC_)"), "nvrtc"),
    (re.compile(r"^(cuda[A-Z]|CUDART_|cudaError)"), "runtime"),
    (re.compile(r"^(cu[A-Z]|CU_|CUDA_)"), "driver"),
    (re.compile(r"^(hip[A-Z]|HIP_)"), "hip"),
)
HIP_LAUNCHERS = (
    "hipLaunchKernelGGL",
    "hipLaunchKernelEx",
    "hipLaunchCooperativeKernel",
    "hipModuleLaunchKernel",
)
CUDA_LAUNCHERS = ("cudaLaunchKernel", "cudaLaunchKernelEx", "cudaLaunchCooperativeKernel", "cuLaunchKernel")


@dataclass
class FileInventory:
    apis: Counter = field(default_factory=Counter)  # (family, name) -> uses
    kernels: list[dict] = field(default_factory=list)
    launches: list[dict] = field(default_factory=list)
    translatable: Counter = field(default_factory=Counter)  # name -> uses (mapped to HIP)
    unsupported: Counter = field(default_factory=Counter)  # name -> uses (no HIP counterpart)
    unknown: Counter = field(default_factory=Counter)  # CUDA-looking names porter does not know
    parse_errors: list[int] = field(default_factory=list)


def _mapping():
    try:
        from porter import translate
    except ImportError:
        return None, None
    try:
        return translate.load_api_map(), getattr(translate, "CUDA_LOOKING", None)
    except Exception:  # an optional dependency here: inventory degrades to prefix guesses
        return None, None


def _guess_family(name: str) -> str | None:
    for pattern, family in _PREFIX_FAMILIES:
        if pattern.match(name):
            return family
    return None


def file_inventory(ctx: SourceContext) -> FileInventory:
    inv = FileInventory()
    api_map, cuda_looking = _mapping()
    for node in ctx.nodes("name"):
        name = text(node)
        entry = api_map.lookup(name) if api_map is not None else None
        if entry is not None:
            inv.apis[(entry.family, name)] += 1
            (inv.unsupported if entry.unsupported else inv.translatable)[name] += 1
            continue
        family = _guess_family(name)
        if family is None:
            continue
        inv.apis[(family, name)] += 1
        if family == "hip":
            continue  # already HIP: nothing to translate
        if api_map is None or (cuda_looking is not None and cuda_looking.match(name)):
            inv.unknown[name] += 1
    for fn in ctx.functions:
        if fn.is_kernel:
            inv.kernels.append({"name": fn.name, "line": fn.node.start_point.row + 1})
    for call, name in ctx.calls:
        line = call.start_point.row + 1
        config = ctx.launch_config(call)
        if config:
            fn = call.child_by_field_name("function")
            inv.launches.append({"kernel": strip_templates(text(fn)), "line": line, "syntax": "chevron"})
            continue
        if name in HIP_LAUNCHERS + CUDA_LAUNCHERS:
            args = arguments(call)
            kernel = strip_templates(text(args[0])) if args else "?"
            inv.launches.append({"kernel": kernel.removeprefix("(void*)"), "line": line, "syntax": name})
    inv.parse_errors = _error_lines(ctx)
    return inv


def _error_lines(ctx: SourceContext) -> list[int]:
    from porter.syntax import error_lines

    return error_lines(ctx.tree)


def merge(per_file: dict[str, FileInventory], mapping_available: bool | None = None) -> dict:
    """The JSON-able inventory of a whole scan (paths as given: relative to the scanned root)."""
    families: dict[str, Counter] = {}
    translatable, unsupported, unknown = Counter(), Counter(), Counter()
    kernels, launches, parse_errors = [], [], {}
    for path, inv in sorted(per_file.items()):
        for (family, name), uses in inv.apis.items():
            families.setdefault(family, Counter())[name] += uses
        translatable.update(inv.translatable)
        unsupported.update(inv.unsupported)
        unknown.update(inv.unknown)
        kernels += [{"file": path, **k} for k in inv.kernels]
        launches += [{"file": path, **site} for site in inv.launches]
        if inv.parse_errors:
            parse_errors[path] = inv.parse_errors
    if mapping_available is None:
        mapping_available = _mapping()[0] is not None
    return {
        "files": len(per_file),
        "apis": {
            family: {"uses": sum(names.values()), "names": dict(sorted(names.items()))}
            for family, names in sorted(families.items())
        },
        "kernels": kernels,
        "launch_sites": launches,
        "translation": {
            "mapping_available": mapping_available,
            "translatable": dict(sorted(translatable.items())),
            "unsupported": dict(sorted(unsupported.items())),
            "unknown": dict(sorted(unknown.items())),
        },
        "parse_errors": parse_errors,
    }
