"""Validate the CUDA->HIP mapping data (porter/data/apis/*.toml, porter/data/headers.toml).

Loaded with tomllib directly so the checks do not depend on porter.translate.mapping. The checks against real
headers run once per header set: Debian 12's /usr/include (HIP 5.2, hipRAND, hipSPARSE) and each installed
toolchain's root (ROCm 6.4: adds hipBLAS, hipBLASLt, hipFFT, hipSOLVER, hipCUB; rocWMMA is not packaged).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from support.toolchains import detected_toolchains

ROOT = Path(__file__).resolve().parent.parent
APIS = ROOT / "porter" / "data" / "apis"
HEADERS = ROOT / "porter" / "data" / "headers.toml"
INCLUDE = Path("/usr/include")
INSTALLED_HIP = (5, 2)  # the Debian ROCm these checks run against


@dataclass(frozen=True)
class HeaderSet:
    """The headers one toolchain compiles against: its include dir, the compiler's own (clang's HIP math
    headers) and the ROCm version they belong to."""

    id: str
    include: Path
    compiler_includes: tuple[Path, ...]
    version: tuple[int, int]


def _clang_includes(lib: Path) -> tuple[Path, ...]:
    return tuple(sorted(d for d in lib.glob("llvm-*/lib/clang/*/include") if (d / "__clang_hip_math.h").is_file()))


@cache
def header_sets() -> tuple[HeaderSet, ...]:
    sets = [HeaderSet("system-5.2", INCLUDE, _clang_includes(Path("/usr/lib")), INSTALLED_HIP)]
    for t in detected_toolchains():
        root = t.toolchain.root
        if root is not None and t.rocm is not None:
            sets.append(HeaderSet(t.id, t.toolchain.include_dir, _clang_includes(root / "usr" / "lib"),
                                  (t.rocm.major, t.rocm.minor)))
    return tuple(sets)


@pytest.fixture(params=header_sets(), ids=lambda h: h.id)
def headers(request: pytest.FixtureRequest) -> HeaderSet:
    return request.param

FAMILIES = {
    "runtime",
    "driver",
    "device",
    "fp16",
    "fp8",
    "vector",
    "cooperative_groups",
    "cublas",
    "cublaslt",
    "curand",
    "cufft",
    "cusparse",
    "cusolver",
    "cudnn",
    "cub",
    "thrust",
    "nccl",
    "nvrtc",
    "nvtx",
    "profiler",
    "texture",
    "macros",
}
KINDS = {"function", "type", "enum", "macro", "constant", "namespace"}
FIELDS = {"hip", "unsupported", "since", "kind", "note", "deprecated"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*")
SINCE = re.compile(r"\d+\.\d+")


def _family_files() -> list[Path]:
    return sorted(p for p in APIS.glob("*.toml") if not p.name.startswith("_"))


@cache
def _load(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


@cache
def _all_entries() -> dict[str, list[tuple[str, str, dict]]]:
    """family -> [(cuda_name, file name, entry)]: the map porter uses, _curated.toml's entries winning as at run time
    (porter/translate/mapping.py)."""
    curated = {name: e for name, e in _load(APIS / "_curated.toml").get("map", {}).items()}
    out: dict[str, list[tuple[str, str, dict]]] = {}
    for path in _family_files():
        data = _load(path)
        fam = data["meta"]["family"]
        out.setdefault(fam, []).extend((k, path.name, v) for k, v in data["map"].items() if k not in curated)
    for name, e in curated.items():
        out.setdefault(e["family"], []).append((name, "_curated.toml", {k: v for k, v in e.items() if k != "family"}))
    return out


def _since(entry: dict) -> tuple[int, int] | None:
    s = entry.get("since")
    return tuple(int(x) for x in s.split(".")) if s else None  # type: ignore[return-value]


def _require_headers(sub: str, headers: HeaderSet | None = None, optional: bool = False) -> Path:
    root = (headers.include if headers else INCLUDE) / sub
    if not root.is_dir():
        if os.environ.get("CI") == "true" and not optional:
            pytest.fail(f"{root} is missing on CI")
        pytest.skip(f"{root} not installed; cannot check mappings against real headers")
    return root


@cache
def _identifiers(*subs: str, include: Path = INCLUDE, extra: tuple[Path, ...] = ()) -> frozenset[str]:
    ids: set[str] = set()
    for root in [include / sub for sub in subs] + list(extra):
        for path in root.rglob("*"):
            # nvidia_detail / nvcc_detail map HIP onto CUDA: not evidence that AMD HIP has a name.
            if path.suffix in (".h", ".hpp") and not {"nvidia_detail", "nvcc_detail"} & set(path.parts):
                ids.update(re.findall(r"[A-Za-z_]\w*", path.read_text(encoding="utf-8", errors="replace")))
    return frozenset(ids)


def test_every_family_file_present_and_named() -> None:
    names = {p.stem.removesuffix("_derived") for p in _family_files()}
    assert names == FAMILIES
    for path in _family_files():
        meta = _load(path)["meta"]
        assert meta["family"] == path.stem.removesuffix("_derived")
        assert meta["description"]


def test_entry_shape() -> None:
    problems = []
    for entries in _all_entries().values():
        for name, fname, e in entries:
            where = f"{fname}:{name}"
            if not isinstance(e, dict):
                problems.append(f"{where}: not a table")
                continue
            if set(e) - FIELDS:
                problems.append(f"{where}: unknown fields {sorted(set(e) - FIELDS)}")
            if ("hip" in e) == ("unsupported" in e):
                problems.append(f"{where}: needs exactly one of hip/unsupported")
            if "unsupported" in e and not str(e["unsupported"]).strip():
                problems.append(f"{where}: empty unsupported reason")
            if "hip" in e and not IDENT.fullmatch(e["hip"]) and not (e["hip"] == "" and e.get("kind") == "macro"):
                problems.append(f"{where}: hip {e['hip']!r} is not an identifier")  # "": a macro that goes away
            if "unsupported" in e and "since" in e:
                problems.append(f"{where}: since on an unsupported entry")
            if "since" in e and not SINCE.fullmatch(str(e["since"])):
                problems.append(f"{where}: since {e['since']!r} is not major.minor")
            if e.get("kind") not in KINDS:
                problems.append(f"{where}: kind {e.get('kind')!r}")
            if "deprecated" in e and e["deprecated"] is not True:
                problems.append(f"{where}: deprecated must be true when present")
            if not IDENT.fullmatch(name):
                problems.append(f"{where}: key is not an identifier")
    assert not problems, "\n".join(problems[:50])


def test_no_cuda_name_in_two_families() -> None:
    seen: dict[str, str] = {}
    dups = []
    for fam, entries in _all_entries().items():
        for name, _fname, _e in entries:
            if name in seen and seen[name] != fam:
                dups.append(f"{name}: {seen[name]} and {fam}")
            seen[name] = fam
    assert not dups, "\n".join(dups)


def test_breadth() -> None:
    counts = {fam: len(v) for fam, v in _all_entries().items()}
    assert counts["runtime"] >= 500
    assert counts["driver"] >= 500
    assert sum(counts.values()) >= 4000
    assert all(n > 0 for n in counts.values()), counts


@pytest.mark.parametrize(
    ("family", "cuda", "expected"),
    [
        ("runtime", "cudaMalloc", "hipMalloc"),
        ("runtime", "cudaMallocHost", "hipHostMalloc"),
        ("runtime", "cudaStream_t", "hipStream_t"),
        ("runtime", "cudaMemcpyHostToDevice", "hipMemcpyHostToDevice"),
        ("driver", "cuLaunchKernel", "hipModuleLaunchKernel"),
        ("driver", "cuMemAlloc_v2", "hipMalloc"),
        ("device", "atomicAdd", "atomicAdd"),
        ("device", "__syncthreads", "__syncthreads"),
        ("device", "__ldg", "__ldg"),
        ("vector", "make_float4", "make_float4"),
        ("fp16", "__half2float", "__half2float"),
        ("cub", "cub", "hipcub"),
        ("macros", "__CUDACC__", "__HIPCC__"),
        ("macros", "__CUDA_ARCH__", "__HIP_DEVICE_COMPILE__"),
        ("curand", "curand_init", "hiprand_init"),
        ("cusparse", "cusparseCreate", "hipsparseCreate"),
        ("cublas", "cublasSgemm", "hipblasSgemm"),
        ("profiler", "cudaProfilerStart", "hipProfilerStart"),
        ("nvtx", "nvtxRangePushA", "roctxRangePushA"),
        ("nvrtc", "nvrtcGetPTX", "hiprtcGetCode"),
        ("cudnn", "cudnnCreate", "miopenCreate"),
        ("cudnn", "CUDNN_CROSS_CORRELATION", "miopenConvolution"),  # MIOpen convolves by cross-correlation
        ("cudnn", "cudnnBackendExecute", "miopenBackendExecute"),  # MIOpen's graph API, ROCm 6.2
    ],
)
def test_known_mappings(family: str, cuda: str, expected: str) -> None:
    entries = {name: e for name, _f, e in _all_entries()[family]}
    assert entries[cuda].get("hip") == expected


@pytest.mark.parametrize(
    "cuda",
    [
        "cudaGraphConditionalHandleCreate",
        "cudaLaunchKernelExC",
        "cuTensorMapEncodeTiled",
        "cudaProfilerInitialize",
        "CUDNN_CONVOLUTION",  # true convolution flips the filter; HIPIFY's miopenConvolution would not
        "nvrtcGetLTOIR",
    ],
)
def test_known_unsupported(cuda: str) -> None:
    found = [e for entries in _all_entries().values() for name, _f, e in entries if name == cuda]
    assert found and "unsupported" in found[0]


def _missing(families: tuple[str, ...], ids: frozenset[str], only_dated: bool,
             version: tuple[int, int] = INSTALLED_HIP, skip: tuple[str, ...] = ()) -> list[str]:
    missing = []
    for fam in families:
        for name, _fname, e in _all_entries()[fam]:
            since = _since(e)
            if "hip" not in e or (only_dated and (since is None or since > version)) or name.startswith(skip or "\0"):
                continue
            if since is not None and since > version:
                continue
            hip = e["hip"].rsplit("::", 1)[-1]
            if hip not in ids and not {hip, e["hip"]} & _shim_names() and hip:
                missing.append(f"{fam}:{name} -> {e['hip']} (since {e.get('since')})")
    return missing


@cache
def _shim_names() -> frozenset[str]:
    """Names porter's own shims provide: a mapping may point at one (porter_fadd_rn), and the port includes it."""
    index = tomllib.loads((ROOT / "shims" / "index.toml").read_text("utf-8"))
    return frozenset(n for shim in index.values() if isinstance(shim, dict) for n in shim.get("provides", []))


def test_dated_runtime_driver_device_nvrtc_entries_exist_in_installed_hip(headers: HeaderSet) -> None:
    _require_headers("hip", headers)
    # HIP's device math lives in clang's own HIP headers from ROCm 6 on (__clang_hip_math.h)
    ids = _identifiers("hip", include=headers.include, extra=headers.compiler_includes)
    missing = _missing(("runtime", "driver", "device", "fp16", "fp8", "texture", "profiler", "nvrtc"), ids,
                       only_dated=True, version=headers.version)
    assert not missing, f"{len(missing)} HIP names missing from {headers.include}/hip:\n" + "\n".join(missing[:60])


# family -> (include subdirectories, CUDA-name prefixes of a library the toolchain does not have, why)
LIBRARY_HEADERS = {
    "cublas": (("hipblas", "hipblas-common"), (), ""),
    "cublaslt": (("hipblaslt", "hipblas-common"), (), ""),
    "cufft": (("hipfft",), (), ""),
    "cusolver": (("hipsolver",), (), ""),
    "cusparse": (("hipsparse",), ("cusparseLt", "CUSPARSELT", "CUSPARSE_COMPUTE_", "cusparseComputeType"),
                 "hipSPARSELt is not installed"),
    "curand": (("hiprand", "rocrand"), (), ""),
}


@pytest.mark.parametrize("family", sorted(LIBRARY_HEADERS))
def test_every_library_mapping_exists_in_installed_headers(family: str, headers: HeaderSet) -> None:
    """Every mapped name of a library the header set has (dated no later than its ROCm, or undated) is declared
    there; on ROCm 5.2 only hipRAND and hipSPARSE are installed, on 6.4 all six."""
    subs, skip, _why = LIBRARY_HEADERS[family]
    _require_headers(subs[0], headers, optional=headers.version < (6, 4))
    ids = _identifiers(*subs, include=headers.include)
    missing = _missing((family,), ids, only_dated=False, version=headers.version, skip=skip)
    if family == "cusparse" and headers.version < (6, 4):
        # hipSPARSE 5.2 predates a few generic-API additions (sampled in the test below)
        return
    assert not missing, f"{len(missing)} {family} names missing from {headers.include}:\n" + "\n".join(missing[:60])


def test_cub_names_exist_in_hipcub(headers: HeaderSet) -> None:
    _require_headers("hipcub", headers, optional=headers.version < (6, 4))
    ids = _identifiers("hipcub", include=headers.include)
    missing = [f"{n} -> {e['hip']}" for n, _f, e in _all_entries()["cub"]
               if "hip" in e and e["hip"].rsplit("::", 1)[-1] not in ids]
    assert not missing, "\n".join(missing)


def test_rocwmma_is_reported_absent_where_it_is(headers: HeaderSet) -> None:
    """Debian sid packages no rocWMMA: the toolchain says so (never a fake header)."""
    from porter.build import toolchain_specs

    if headers.version < (6, 4):
        pytest.skip("ROCm 5.2 predates the libraries this checks")
    if (headers.include / "rocwmma").is_dir():
        pytest.skip("rocWMMA is installed here")
    assert "rocwmma" in toolchain_specs()[f"{headers.version[0]}.{headers.version[1]}"].absent


GENERIC_UNSUPPORTED = "no HIP equivalent (per ROCm HIPIFY tables)"
# how CUDA spellings become HIP ones, for "is the natural HIP name declared?" (longest prefix first)
HIP_SPELLING = [("cudaError", "hipError"), ("cublasLt", "hipblasLt"), ("CUBLASLT_", "HIPBLASLT_"), ("cublas", "hipblas"),
                ("CUBLAS_", "HIPBLAS_"), ("cufft", "hipfft"), ("CUFFT_", "HIPFFT_"), ("cusolver", "hipsolver"),
                ("CUSOLVER_", "HIPSOLVER_"), ("cusparse", "hipsparse"), ("CUSPARSE_", "HIPSPARSE_"),
                ("curand", "hiprand"), ("CURAND_", "HIPRAND_"), ("nvrtc", "hiprtc"), ("NVRTC_", "HIPRTC_"),
                ("cuda", "hip"), ("CUDA_", "HIP_"), ("cu", "hip")]


def _natural_hip_name(cuda: str) -> str | None:
    for prefix, hip in HIP_SPELLING:
        if cuda.startswith(prefix):
            return hip + cuda[len(prefix):]
    return None


def test_no_entry_is_called_unsupported_that_the_headers_declare(headers: HeaderSet) -> None:
    """An entry with HIPIFY's generic "no HIP equivalent" whose natural HIP spelling the installed headers declare
    is stale data: map it (with the ROCm version that has it) or say specifically why the HIP name is no
    equivalent (curated, porter/data/apis/_curated.toml)."""
    subs = ("hip", "hipblas", "hipblaslt", "hipblas-common", "hipfft", "hipsolver", "hipsparse", "hiprand", "rocrand")
    ids = _identifiers(*subs, include=headers.include, extra=headers.compiler_includes)
    stale = []
    for fam, entries in _all_entries().items():
        for name, _fname, e in entries:
            hip = _natural_hip_name(name)
            if e.get("unsupported") == GENERIC_UNSUPPORTED and hip is not None and hip in ids:
                stale.append(f"{fam}:{name} ({hip} is declared in {headers.id})")
    assert not stale, f"{len(stale)} entries:\n" + "\n".join(stale)


def test_vector_and_cooperative_groups_exist_in_installed_hip() -> None:
    _require_headers("hip")
    ids = _identifiers("hip")
    # vector make_* helpers are generated by macros; check the type names and the macro invocations.
    missing = []
    for name, _f, e in _all_entries()["vector"]:
        hip = e.get("hip")
        if hip and not (hip in ids or hip.removeprefix("make_") in ids):
            missing.append(f"{name} -> {hip}")
    missing += _missing(("cooperative_groups",), ids, only_dated=False)
    assert not missing, "\n".join(missing)


def test_sample_of_hiprand_and_hipsparse_entries_exist() -> None:
    _require_headers("hiprand")
    _require_headers("hipsparse")
    rand_ids = _identifiers("hiprand", "rocrand")
    sparse_ids = _identifiers("hipsparse")
    curand = [e["hip"] for _n, _f, e in _all_entries()["curand"] if "hip" in e]
    assert len(curand) >= 50
    # every hipRAND name not dated after the installed ROCm must be in its headers
    assert not _missing(("curand",), rand_ids, only_dated=False)
    sparse = sorted(
        e["hip"]
        for n, _f, e in _all_entries()["cusparse"]
        if "hip" in e and not n.startswith(("cusparseLt", "CUSPARSELT"))
    )
    sample = sparse[::7]
    missing = [h for h in sample if h not in sparse_ids]
    # hipSPARSE 5.2 predates a few generic-API additions; demand that nearly all are present.
    assert len(missing) <= len(sample) // 10, missing


def test_headers_file() -> None:
    data = _load(HEADERS)
    headers = data["headers"]
    assert len(headers) >= 100
    problems = []
    for name, e in headers.items():
        if set(e) - {"hip", "unsupported", "family", "needs", "since", "older"}:
            problems.append(f"{name}: unknown fields")
        if ("since" in e) != ("older" in e) or ("older" in e and not re.fullmatch(r"hip/[A-Za-z0-9_]+\.h", e["older"])):
            problems.append(f"{name}: `since` and `older` (a HIP header for older ROCm) go together")
        if "needs" in e and ("hip" not in e or not re.fullmatch(r"hip/[A-Za-z0-9_]+\.h", e["needs"])):
            problems.append(f"{name}: `needs` names a HIP header that comes before the translated one")
        if ("hip" in e) == ("unsupported" in e):
            problems.append(f"{name}: needs exactly one of hip/unsupported")
        if not e.get("family"):
            problems.append(f"{name}: no family")
        # a HIP header, or (libcu++'s cuda/std/*) the C++ standard header it stands for
        standard = name.startswith("cuda/std/") and e.get("hip") == name.removeprefix("cuda/std/")
        if "hip" in e and not standard and not re.fullmatch(r"[A-Za-z0-9_./]+\.(h|hpp)", e["hip"]):
            problems.append(f"{name}: odd hip header {e['hip']!r}")
        if not re.fullmatch(r"[A-Za-z0-9_./]+", name):
            problems.append(f"{name}: odd header name")
    assert not problems, "\n".join(problems)
    for required in (
        "cuda.h",
        "cuda_runtime.h",
        "cuda_runtime_api.h",
        "device_launch_parameters.h",
        "cuda_fp16.h",
        "cuda_bf16.h",
        "cuda_fp8.h",
        "cooperative_groups.h",
        "curand.h",
        "curand_kernel.h",
        "cublas_v2.h",
        "cublasLt.h",
        "cufft.h",
        "cusparse.h",
        "cusolverDn.h",
        "cudnn.h",
        "cub/cub.cuh",
        "nccl.h",
        "nvrtc.h",
        "nvToolsExt.h",
        "cuda_profiler_api.h",
        "helper_cuda.h",
        "vector_types.h",
        "math_constants.h",
        "mma.h",
        "cooperative_groups/reduce.h",
    ):
        assert required in headers, required
    # cg::reduce comes from porter's shim (porter_cg_reduce.h), beside HIP's cooperative groups header
    assert headers["cooperative_groups/reduce.h"]["hip"] == "hip/hip_cooperative_groups.h"
    assert headers["cudnn.h"]["hip"] == "miopen/miopen.h"


def test_hip_headers_for_installed_libraries_exist() -> None:
    _require_headers("hip")
    # hip_math_constants.h, hip_bf16.h, hip_fp8.h, hip_gl_interop.h are newer than the installed HIP 5.2.
    newer = {"hip/hip_math_constants.h", "hip/hip_bf16.h", "hip/hip_fp8.h", "hip/hip_gl_interop.h"}
    missing = []
    for name, e in _load(HEADERS)["headers"].items():
        hip = e.get("hip")
        installed = hip and hip.split("/")[0] in {"hip", "hiprand", "hipsparse"} and hip not in newer
        if installed and not (INCLUDE / hip).is_file():
            missing.append(f"{name} -> {hip}")
    assert not missing, "\n".join(missing)
