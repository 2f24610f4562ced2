#!/usr/bin/env python3
"""Regenerate porter's CUDA->HIP API map (porter/data/apis/<family>.toml).

Usage:
    python scripts/import_hipify_mappings.py /path/to/torch/utils/hipify/cuda_to_hip_mappings.py

Three sources are merged, later ones winning for the same CUDA name:

1. PyTorch's hipify table (BSD-3), given as the argument. It is read with ``ast`` (never executed).
   CUDA_TYPE_NAME_MAP, CUDA_IDENTIFIER_MAP and CUDA_SPECIAL_MAP are used; the include map,
   PyTorch/Caffe2/c10 specific maps and entries tagged API_PYTORCH/API_CAFFE2/API_C10 are skipped.
   Values may be plain strings or the older tuples ``(hip_name, CONV_*, API_*[, HIP_UNSUPPORTED])``.
   Entries whose HIP side is not a plain identifier, or whose CUDA name belongs to no family
   (nvml, generic names like MAJOR_VERSION), are dropped. This copy of the table has lost its
   HIP_UNSUPPORTED markers (it maps e.g. cuMemcpy -> hipMemcpy__), so PyTorch-only entries of the
   families in HEADER_CHECKED are kept only when the HIP identifier occurs in the installed HIP
   headers (--hip-include, default /usr/include; ground truth for what ROCm there provides).
   Rerun on a machine with the HIP, hipRAND headers installed to get the same output.
2. Facts extracted from ROCm HIPIFY's docs/tables, stored in ``scripts/hipify_versions/<family>.tsv``:
   ``cuda_name<TAB>hip_name<TAB>added_version<TAB>flags``; trailing columns may be missing.
   An empty hip_name means "no HIP equivalent"; ``=`` means the same name as CUDA.
   flags (comma separated): D deprecated in CUDA, CR removed in CUDA, HD deprecated in HIP,
   HR removed in HIP, E experimental in HIP. ``# @section functions|types`` lines tell which
   table section the following rows came from (used to guess ``kind``).
3. Hand-curated entries in ``porter/data/apis/_curated.toml`` (same entry format as the family
   files, plus a ``family`` field per entry). Curated entries always win, so hand edits survive a
   rerun: never edit the generated family files, edit _curated.toml and rerun this script.
   Its ``[exclude]`` table (``name = "reason"``) removes wrong imported entries.

``kind`` for imported entries is a heuristic (table section + naming conventions).
Output is sorted and deterministic; a summary goes to stderr.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VERSIONS = ROOT / "scripts" / "hipify_versions"
DEFAULT_OUT = ROOT / "porter" / "data" / "apis"

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*")
TORCH_MAPS = ("CUDA_TYPE_NAME_MAP", "CUDA_IDENTIFIER_MAP", "CUDA_SPECIAL_MAP")
TORCH_SKIP_APIS = {"API_PYTORCH", "API_CAFFE2", "API_C10", "API_ROCMSMI", "API_PYT_EXT"}
TORCH_API_FAMILY = {
    "API_DRIVER": "driver",
    "API_RUNTIME": "runtime",
    "API_BLAS": "cublas",
    "API_RAND": "curand",
    "API_FFT": "cufft",
    "API_RTC": "nvrtc",
    "API_ROCTX": "nvtx",
}

# PyTorch-only entries of these families need the HIP name in these include subdirectories.
HEADER_CHECKED = {
    "runtime": ("hip",),
    "driver": ("hip",),
    "texture": ("hip",),
    "profiler": ("hip",),
    "device": ("hip",),
    "fp16": ("hip",),
    "curand": ("hiprand", "rocrand"),
}
# The nvidia_detail / nvcc_detail parts of the HIP headers map HIP onto CUDA: not evidence.
_SKIP_DIRS = {"nvidia_detail", "nvcc_detail"}


def header_identifiers(include: Path, subdirs: tuple[str, ...]) -> set[str]:
    ids: set[str] = set()
    for sub in subdirs:
        root = include / sub
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix in (".h", ".hpp") and not _SKIP_DIRS.intersection(path.parts):
                ids.update(re.findall(r"[A-Za-z_]\w*", path.read_text(encoding="utf-8", errors="replace")))
    return ids


def filter_unverified(torch: dict, hipify: dict, include: Path, stats: Counter) -> None:
    """Drop PyTorch-only entries of HEADER_CHECKED families that the installed headers lack."""
    cache: dict[tuple[str, ...], set[str]] = {}
    for name in list(torch):
        e = torch[name]
        subdirs = HEADER_CHECKED.get(e["family"])
        if subdirs is None or name in hipify or "hip" not in e:
            continue
        ids = cache.setdefault(subdirs, header_identifiers(include, subdirs))
        if e["hip"].rsplit("::", 1)[-1] not in ids:
            del torch[name]
            stats["torch: dropped, not in installed headers"] += 1


FAMILIES = {
    "runtime": "CUDA runtime API (cudart)",
    "driver": "CUDA driver API (cuda.h)",
    "device": "device intrinsics, math, atomics, warp vote/shuffle, timers, sync, math constants",
    "fp16": "cuda_fp16.h / cuda_bf16.h types and intrinsics",
    "fp8": "cuda_fp8.h types and conversions",
    "vector": "vector types, make_* helpers and cuComplex",
    "cooperative_groups": "cooperative groups (keys are qualified: cooperative_groups::name)",
    "cublas": "cuBLAS -> hipBLAS",
    "cublaslt": "cuBLASLt -> hipBLASLt",
    "curand": "cuRAND -> hipRAND",
    "cufft": "cuFFT -> hipFFT",
    "cusparse": "cuSPARSE (and cuSPARSELt) -> hipSPARSE (hipSPARSELt)",
    "cusolver": "cuSOLVER -> hipSOLVER",
    "cudnn": "cuDNN -> MIOpen where a mapping exists (signatures often differ)",
    "cub": "CUB -> hipCUB",
    "thrust": "Thrust -> rocThrust (namespace kept)",
    "nccl": "NCCL -> RCCL (same API names)",
    "nvrtc": "NVRTC -> hipRTC",
    "nvtx": "NVTX -> rocTX",
    "profiler": "cuda_profiler_api.h",
    "texture": "texture/surface objects and legacy references",
    "macros": "compiler / version macros and CUDA keywords",
}

# Name patterns checked in order; first match decides the family.
_TEXTURE = re.compile(
    r"^(cuda(Bind|Unbind)(Texture|Surface)\w*|cudaGet(Texture|Surface)\w*|cuda(Create|Destroy)(Texture|Surface)Object\w*"
    r"|cudaTexture\w*|cudaSurface\w*|cudaResViewFormat\w*|cudaResource(Desc|Type|ViewDesc|ViewFormat)\w*"
    r"|cuda(FilterMode|AddressMode|ReadMode|BoundaryMode)\w*|cudaFormatMode\w*|texture|textureReference|surfaceReference"
    r"|cu(TexRef|TexObject|SurfRef|SurfObject)\w*|CU(texref|texObject|surfObject|surfref)\w*"
    r"|CU_TR_\w+|CU_RES_VIEW_FORMAT_\w+|CU_RESOURCE_TYPE_\w+|CUaddress_mode\w*|CUfilter_mode\w*|CUresourcetype\w*"
    r"|CUresourceViewFormat\w*|CUDA_(RESOURCE_DESC|RESOURCE_VIEW_DESC|TEXTURE_DESC)\w*|CU_TRSF_\w+|CU_TRSA_\w+)$"
)
_PROFILER = re.compile(r"^(cuda|cu)Profiler\w*$|^cudaOutputMode\w*$|^CU_OUT_\w+$")
_FP8 = re.compile(r"^(__nv_fp8\w*|__nv_cvt_\w*|__NV_(E4M3|E5M2|NOSAT|SATFINITE)|nv_fp8\w*)$")
_FP16 = re.compile(
    r"(half|bfloat16)|^__h(?!iloint2double$)\w+$|^h2?(ceil|cos|exp|exp10|exp2|floor|log|log10|log2|rcp|rint|rsqrt|sin|sqrt|trunc)$"
    r"|^__lowhigh2highlow$|^make_bfloat162$"
)
_LIB_PREFIXES: tuple[tuple[str, str], ...] = (
    ("cublasLt", "cublaslt"),
    ("CUBLASLT_", "cublaslt"),
    ("cublas", "cublas"),
    ("CUBLAS_", "cublas"),
    ("curand", "curand"),
    ("CURAND_", "curand"),
    ("cufft", "cufft"),
    ("CUFFT_", "cufft"),
    ("cusparse", "cusparse"),
    ("CUSPARSE", "cusparse"),
    ("cusolver", "cusolver"),
    ("CUSOLVER", "cusolver"),
    ("cudnn", "cudnn"),
    ("CUDNN_", "cudnn"),
    ("nvrtc", "nvrtc"),
    ("NVRTC_", "nvrtc"),
    ("nvtx", "nvtx"),
    ("NVTX", "nvtx"),
    ("nccl", "nccl"),
    ("NCCL_", "nccl"),
    ("cub::", "cub"),
    ("thrust::", "thrust"),
    ("cooperative_groups::", "cooperative_groups"),
)
_COMPLEX = re.compile(
    r"^(cuComplex|cuDoubleComplex|cuFloatComplex|make_cu(Float|Double)?Complex|cuComplex(FloatToDouble|DoubleToFloat)"
    r"|cuC(real|imag|onj|add|sub|mul|div|abs|fma)f?)$"
)


def family_for(name: str, default: str | None = None) -> str | None:
    """Family of a CUDA name, or None when it belongs to none porter handles."""
    for prefix, fam in _LIB_PREFIXES:
        if name.startswith(prefix):
            return fam
    if _COMPLEX.match(name):
        return "vector"
    if _TEXTURE.match(name):
        return "texture"
    if _PROFILER.match(name):
        return "profiler"
    if _FP8.match(name):
        return "fp8"
    if default == "device" or name.startswith("__"):
        return "fp16" if _FP16.search(name) else "device"
    if name.startswith("CUDART_"):
        return "device"  # math_constants.h
    if default:
        return default
    if re.match(r"^(cuda[A-Z_]|CUDA_|make_cuda)", name):
        return "runtime"
    if re.match(r"^(cu[A-Z]|CU[a-z_]|CU[A-Z]+_)", name):
        return "driver"
    return None


_TYPE_SUFFIX = re.compile(
    r"(_t|_st|_enum|_union|Handle|Complex|Real|State|Descriptor|Descr|Desc|Params|Parms|Attributes|Prop"
    r"|PitchedPtr|Extent|Pos|Window|Location|Props|UUID)$"
)


def kind_for(name: str, hip: str | None, section: str | None) -> str:
    """Best-effort kind; the table section is the strongest hint."""
    bare = name.rsplit("::", 1)[-1]
    if section == "functions":
        return "function"
    if "::" in name and re.match(r"[A-Z][a-z]", bare):
        return "type"  # cub::BlockReduce, thrust::device_vector-style class templates
    if re.fullmatch(r"[A-Z0-9_]+", bare):
        return "constant" if bare.startswith("CUDART_") or bare.endswith("_SIZE") else "enum"
    if _TYPE_SUFFIX.search(bare) or (hip and hip.endswith("_t")):
        return "type"
    if section == "types" and bare.startswith(("__", "nv_")):
        return "type"
    if section == "types":
        # camelCase names in a types section are enumerators unless they look like a struct.
        return "type" if re.fullmatch(r"(cuda|CU|nvrtc)[A-Z][a-z]+([A-Z][a-z]+)?", bare) else "enum"
    return "function"


def _since(version: str) -> str | None:
    m = re.match(r"(\d+)\.(\d+)", version.strip())
    return f"{m.group(1)}.{m.group(2)}" if m else None


# --- source 1: PyTorch ----------------------------------------------------------------------


def _node_value(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return node.id
    return None


def read_torch(path: Path, stats: Counter) -> dict[str, dict]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    entries: dict[str, dict] = {}
    for stmt in tree.body:
        if not (
            isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
        ):
            continue
        map_name = stmt.targets[0].id
        if map_name not in TORCH_MAPS or not isinstance(stmt.value, ast.Call) or not stmt.value.args:
            continue
        pairs = stmt.value.args[0]
        if not isinstance(pairs, ast.List):
            continue
        for elt in pairs.elts:
            if not (isinstance(elt, ast.Tuple) and len(elt.elts) == 2):
                continue
            cuda = _node_value(elt.elts[0])
            val = elt.elts[1]
            tags: list[str] = []
            if isinstance(val, ast.Tuple):
                parts = [_node_value(v) for v in val.elts]
                hip, tags = parts[0], [p for p in parts[1:] if p]
            else:
                hip = _node_value(val)
            if not cuda or not hip:
                stats["torch: unreadable"] += 1
                continue
            cuda, hip = cuda.strip(), hip.strip()
            if any(t in TORCH_SKIP_APIS for t in tags):
                stats["torch: pytorch-specific"] += 1
                continue
            if not IDENT.fullmatch(cuda) or not IDENT.fullmatch(hip):
                stats["torch: not an identifier"] += 1
                continue
            if re.match(r"^[a-z]+_[A-Z]", cuda) or hip.endswith("__"):
                # e.g. curand_ORDERING_PSEUDO_BEST (no such CUDA name), hipMemcpy__ (unsupported marker)
                stats["torch: bogus entry"] += 1
                continue
            api_fam = next((TORCH_API_FAMILY[t] for t in tags if t in TORCH_API_FAMILY), None)
            fam = family_for(cuda) or api_fam
            if fam is None:
                stats["torch: no family"] += 1
                continue
            entry: dict = {"family": fam, "kind": "type" if map_name == "CUDA_TYPE_NAME_MAP" else None}
            if "HIP_UNSUPPORTED" in tags:
                entry["unsupported"] = "no HIP equivalent"
            else:
                entry["hip"] = hip
            entries.setdefault(cuda, entry)
            stats["torch: imported"] += 1
    return entries


# --- source 2: HIPIFY tables ----------------------------------------------------------------


def read_versions(directory: Path, stats: Counter) -> dict[str, dict]:
    entries: dict[str, dict] = {}
    for tsv in sorted(directory.glob("*.tsv")):
        default = tsv.stem  # runtime.tsv -> runtime, device.tsv -> device, ...
        section: str | None = None
        for raw in tsv.read_text(encoding="utf-8").splitlines():
            if raw.startswith("# @section"):
                section = raw.split()[-1]
                continue
            if not raw.strip() or raw.startswith("#"):
                continue
            cols = [*raw.split("\t"), "", "", ""][:4]
            cuda, hip, added, flags_s = (c.strip() for c in cols)
            flags = {f for f in flags_s.split(",") if f}
            hip = cuda if hip == "=" else hip
            if hip.startswith("hipblas") and hip.endswith("_v2"):
                # HIPIFY names hipBLAS 2.x's transitional *_v2 (hipComplex) entry points; hipBLAS 3.0 (ROCm 7) made
                # the plain names take hipComplex and dropped the suffix, and 2.x maps the plain names to them
                # under -DHIPBLAS_V2: the plain name is the one that lasts
                hip = hip.removesuffix("_v2")
                stats["hipify: hipblas _v2 suffix dropped"] += 1
            fam = family_for(cuda, default)
            entry: dict = {"family": fam, "kind": kind_for(cuda, hip or None, section)}
            notes = []
            if hip:
                entry["hip"] = hip
                if added and (s := _since(added)):
                    entry["since"] = s
                if "HD" in flags:
                    notes.append("deprecated in HIP")
                if "HR" in flags:
                    notes.append("removed in HIP")
                if "E" in flags:
                    notes.append("experimental in HIP")
            else:
                reason = "no HIP equivalent (per ROCm HIPIFY tables)"
                if "CR" in flags:
                    reason += " (also removed from CUDA 12)"
                entry["unsupported"] = reason
            if "D" in flags or "HD" in flags:
                entry["deprecated"] = True
            if "D" in flags:
                notes.append("deprecated in CUDA")
            if "CR" in flags and hip:
                notes.append("removed in CUDA 12")
            if notes:
                entry["note"] = "; ".join(notes)
            if cuda in entries:
                stats["hipify: duplicate row"] += 1
            entries[cuda] = entry
            stats[f"hipify: {tsv.name}"] += 1
    return entries


# --- source 3: curated ----------------------------------------------------------------------


def read_curated(path: Path) -> tuple[dict[str, dict], dict[str, str]]:
    if not path.exists():
        return {}, {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return dict(data.get("map", {})), dict(data.get("exclude", {}))


# --- output ---------------------------------------------------------------------------------


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else _toml_str(k)


FIELD_ORDER = ("hip", "unsupported", "since", "kind", "deprecated", "note")


def render(family: str, entries: dict[str, dict]) -> str:
    lines = [
        "# GENERATED by scripts/import_hipify_mappings.py -- do not edit; edit porter/data/apis/_curated.toml.",
        "# Sources: PyTorch hipify table (BSD-3), ROCm HIPIFY docs tables (API names/versions), curated entries.",
        "",
        "[meta]",
        f"family = {_toml_str(family)}",
        f"description = {_toml_str(FAMILIES[family])}",
        "",
        "[map]",
    ]
    for name in sorted(entries):
        e = entries[name]
        parts = []
        for field in FIELD_ORDER:
            if field not in e or e[field] is None:
                continue
            v = e[field]
            parts.append(f"{field} = {'true' if v is True else _toml_str(str(v))}")
        lines.append(f"{_toml_key(name)} = {{ {', '.join(parts)} }}")
    return "\n".join(lines) + "\n"


def merge(
    torch: dict, hipify: dict, curated: dict, exclude: dict, stats: Counter
) -> dict[str, dict[str, dict]]:
    merged: dict[str, dict] = {}
    for name, e in torch.items():
        merged[name] = dict(e)
    for name, e in hipify.items():
        old = merged.get(name)
        if old and old.get("hip") and e.get("hip") and old["hip"] != e["hip"]:
            stats["conflict torch/hipify (hipify kept)"] += 1
        if old and old.get("hip") and e.get("unsupported"):
            stats["torch mapped, hipify unsupported (hipify kept)"] += 1
        if old and not e.get("kind"):
            e["kind"] = old.get("kind")
        merged[name] = dict(e)
    for name in exclude:
        if merged.pop(name, None) is not None:
            stats["excluded"] += 1
    for name, e in curated.items():
        old, new = merged.get(name), dict(e)
        if old and "since" not in new and old.get("since") and old.get("hip") == new.get("hip"):
            new["since"] = old["since"]  # HIPIFY's ROCm version of the very mapping the curated entry makes
            stats["curated: since from hipify"] += 1
        merged[name] = new
        stats["curated"] += 1
    by_family: dict[str, dict[str, dict]] = {f: {} for f in FAMILIES}
    for name, e in merged.items():
        fam = e.pop("family", None)
        if fam not in FAMILIES:
            raise SystemExit(f"error: {name}: unknown family {fam!r}")
        if not e.get("kind"):
            e["kind"] = kind_for(name, e.get("hip"), None)
        if e.get("unsupported"):
            e.pop("hip", None)
            e.pop("since", None)
        by_family[fam][name] = e
    return by_family


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("torch_mappings", type=Path, help="path to torch/utils/hipify/cuda_to_hip_mappings.py")
    ap.add_argument("--versions", type=Path, default=DEFAULT_VERSIONS, help="directory of HIPIFY .tsv files")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory for <family>.toml")
    ap.add_argument("--curated", type=Path, default=None, help="curated TOML (default: <out>/_curated.toml)")
    ap.add_argument(
        "--hip-include", type=Path, default=Path("/usr/include"), help="include dir holding hip/, hiprand/"
    )
    args = ap.parse_args(argv)
    if not args.torch_mappings.is_file():
        print(f"error: {args.torch_mappings}: no such file", file=sys.stderr)
        return 2
    stats: Counter = Counter()
    torch = read_torch(args.torch_mappings, stats)
    hipify = read_versions(args.versions, stats)
    if not (args.hip_include / "hip").is_dir():
        print(
            f"warning: {args.hip_include}/hip missing: unverifiable PyTorch entries are dropped",
            file=sys.stderr,
        )
    filter_unverified(torch, hipify, args.hip_include, stats)
    curated, exclude = read_curated(args.curated or args.out / "_curated.toml")
    by_family = merge(torch, hipify, curated, exclude, stats)
    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    for fam, entries in by_family.items():
        (args.out / f"{fam}.toml").write_text(render(fam, entries), encoding="utf-8")
        total += len(entries)
        print(f"{fam:20s} {len(entries):6d}", file=sys.stderr)
    print(f"{'total':20s} {total:6d}", file=sys.stderr)
    for key, n in sorted(stats.items()):
        print(f"  {key}: {n}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
