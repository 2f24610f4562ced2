"""The CUDA→HIP API map, loaded from the data files under porter/data/ (data, not code)."""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from porter.translate.options import RocmVersion

# Identifiers that look like CUDA but are not in the map are reported as "not yet mapped".
CUDA_LOOKING = re.compile(
    r"^(?:cuda[A-Z_]|cu[A-Z]|CU_|CU[A-Z]+_|CUDA_|CUDART_|cublas|CUBLAS_|curand|CURAND_|cufft|CUFFT_|cusparse|CUSPARSE_"
    r"|cusolver|CUSOLVER_|cudnn|CUDNN_|nvrtc|NVRTC_|nvtx|NVTX_|nccl|NCCL_|__nv_|__cuda)"
)


@dataclass(frozen=True, slots=True)
class ApiEntry:
    cuda: str
    hip: str | None
    family: str
    kind: str = "function"
    since: RocmVersion | None = None
    unsupported: str | None = None
    note: str | None = None
    deprecated: bool = False

    def available_in(self, rocm: RocmVersion | None) -> bool:
        return rocm is None or self.since is None or self.since <= rocm


@dataclass(frozen=True, slots=True)
class HeaderEntry:
    cuda: str
    hip: str | None
    family: str
    unsupported: str | None = None
    needs: str | None = None  # a HIP header that must be included before this one (some ROCm versions need it)


class MappingDataError(RuntimeError):
    pass


@dataclass(frozen=True)
class ApiMap:
    apis: dict[str, ApiEntry]
    namespaces: dict[str, ApiEntry]
    headers: dict[str, HeaderEntry]
    header_prefixes: tuple[tuple[str, HeaderEntry], ...]  # "cub/" -> entry for any header under cub/
    symbol_args: dict[str, int]  # API -> index of the argument to wrap in HIP_SYMBOL()
    defined_only: dict[str, str]  # macro -> why only defined()/#ifdef uses are translated
    ocp_fp8: dict[str, ApiEntry]  # FP8 names for targets whose FP8 is OCP (or absent): CUDA's encoding kept

    @functools.cached_property
    def byte_keys(self) -> frozenset[bytes]:
        """The CUDA names the translator acts on, as bytes (matched against raw source). Names HIP spells the
        same way, with no version, caveat or rewrite attached (atomicAdd, __syncthreads), need no work at all."""
        actionable = (
            n for n, e in self.apis.items()
            if e.hip != n or e.unsupported or e.since or n in self.defined_only or n in self.symbol_args
        )
        # qualified keys (cooperative_groups::reduce, thrust::cuda) are found by their last part
        return frozenset(n.rsplit("::", 1)[-1].encode() for n in (*actionable, *self.namespaces))

    def lookup(self, name: str) -> ApiEntry | None:
        return self.apis.get(name)

    def header(self, path: str) -> HeaderEntry | None:
        entry = self.headers.get(path)
        if entry is not None:
            return entry
        for prefix, prefixed in self.header_prefixes:
            if path.startswith(prefix):
                return prefixed
        return None

    @property
    def families(self) -> list[str]:
        return sorted({e.family for e in self.apis.values()})


def _version(value: object, where: str) -> RocmVersion | None:
    if value is None:
        return None
    try:
        return RocmVersion.parse(str(value))
    except ValueError as exc:
        raise MappingDataError(f"{where}: {exc}") from None


def _data_files(folder: str) -> list:
    root = resources.files("porter").joinpath("data", folder)
    if not root.is_dir():
        return []
    return sorted((f for f in root.iterdir() if f.name.endswith(".toml")), key=lambda f: f.name)


def _entry(name: str, value: object, family: str, where: str) -> ApiEntry:
    if isinstance(value, str):
        return ApiEntry(cuda=name, hip=value, family=family)
    if not isinstance(value, dict):
        raise MappingDataError(f"{where}: {name}: expected a string or an inline table")
    hip, unsupported = value.get("hip"), value.get("unsupported")
    if (hip is None) == (unsupported is None):
        raise MappingDataError(f"{where}: {name}: needs exactly one of 'hip' or 'unsupported'")
    return ApiEntry(
        cuda=name,
        hip=hip,
        family=value.get("family", family),
        kind=value.get("kind", "function"),
        since=_version(value.get("since"), f"{where}: {name}"),
        unsupported=unsupported,
        note=value.get("note"),
        deprecated=bool(value.get("deprecated", False)),
    )


def _cache_file(files: list) -> Path | None:
    """A pickle of the parsed map, keyed by the data files' bytes: parsing ~5000 TOML entries costs most of a second,
    which every worker process would otherwise pay."""
    digest = hashlib.sha256(Path(__file__).read_bytes())  # this module's code shapes the pickled objects too
    for file in files:
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "porter"
    return root / f"apimap-{digest.hexdigest()[:24]}.pickle"


@functools.cache
def load_api_map() -> ApiMap:
    data = resources.files("porter").joinpath("data")
    files = [*_data_files("apis"), data.joinpath("headers.toml"), data.joinpath("rewrites.toml")]
    cache = _cache_file([f for f in files if f.is_file()])
    if cache is not None and cache.is_file():
        try:
            with cache.open("rb") as handle:
                cached = pickle.load(handle)
            if isinstance(cached, ApiMap):
                return cached
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            pass
    api_map = _parse_api_map()
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps(api_map, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, cache)
        except OSError:
            pass  # a read-only home: parse every time
    return api_map


def _parse_api_map() -> ApiMap:
    apis: dict[str, ApiEntry] = {}
    curated: dict[str, ApiEntry] = {}
    for file in _data_files("apis"):
        data = tomllib.loads(file.read_text("utf-8"))
        family = data.get("meta", {}).get("family", file.name.removesuffix(".toml").lstrip("_"))
        target = curated if file.name.startswith("_") else apis
        for name, value in data.get("map", {}).items():
            target[name] = _entry(name, value, family, f"apis/{file.name}")
    apis.update(curated)  # hand-curated entries win over imported ones
    namespaces = {n: e for n, e in apis.items() if e.kind == "namespace"}
    for n in namespaces:
        del apis[n]

    headers: dict[str, HeaderEntry] = {}
    prefixes: list[tuple[str, HeaderEntry]] = []
    headers_file = resources.files("porter").joinpath("data", "headers.toml")
    if headers_file.is_file():
        for path, value in tomllib.loads(headers_file.read_text("utf-8")).get("headers", {}).items():
            entry = HeaderEntry(
                cuda=path, hip=value.get("hip"), family=value.get("family", "header"),
                unsupported=value.get("unsupported"), needs=value.get("needs"),
            )
            if path.endswith("/*"):
                prefixes.append((path[:-1], entry))
            else:
                headers[path] = entry
    rewrites_file = resources.files("porter").joinpath("data", "rewrites.toml")
    rewrites = tomllib.loads(rewrites_file.read_text("utf-8")) if rewrites_file.is_file() else {}
    symbol_args = dict(rewrites.get("symbol_args", {}))
    defined_only = dict(rewrites.get("defined_only", {}))
    ocp = rewrites.get("ocp_fp8", {})
    ocp_since = _version(ocp.get("since"), "rewrites.toml: ocp_fp8")
    ocp_fp8 = {cuda: ApiEntry(cuda=cuda, hip=hip, family="fp8", kind="type", since=ocp_since,
                              note="OCP encoding, as in CUDA")
               for cuda, hip in ocp.get("names", {}).items()}
    prefixes.sort(key=lambda p: -len(p[0]))  # longest prefix first
    return ApiMap(apis, namespaces, headers, tuple(prefixes), symbol_args, defined_only, ocp_fp8)
