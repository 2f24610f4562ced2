"""The CUDA→HIP API map, loaded from the data files under porter/data/ (data, not code)."""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from porter.translate.options import RocmVersion

# Identifiers that look like CUDA but are not in the map are reported as "not yet mapped".
CUDA_LOOKING = re.compile(
    r"^(?:cuda[A-Z_]|cu[A-Z]|CU_|CU[A-Z]+_|CUDA_|CUDART_|cublas|CUBLAS_|curand|CURAND_|cufft|CUFFT_|cusparse|CUSPARSE_"
    r"|cusolver|CUSOLVER_|cudnn|CUDNN_|nvrtc|NVRTC_|nvtx|NVTX_|nccl|NCCL_|__nv_|__cuda)"
)
# a type a source defines itself: `struct cuComplex {`, `class X : base {`, `} cuComplex;` (a typedef of a struct
# body); a CUDA type name defined so is the project's own, not CUDA's (CUDA by Example's cuComplex)
USER_TYPE = re.compile(rb"\b(?:struct|class|union)[ \t]+([A-Za-z_]\w*)[ \t\r\n]*(?::[^;{]*)?\{|\}[ \t]*([A-Za-z_]\w*)[ \t]*;")


def defined_types(source: bytes) -> frozenset[str]:
    """The names of the types `source` defines (USER_TYPE)."""
    return frozenset((m.group(1) or m.group(2)).decode("ascii") for m in USER_TYPE.finditer(source))


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
    since: RocmVersion | None = None  # first ROCm with `hip`; older ones get `older` (a porter shim fills in)
    older: str | None = None

    def hip_for(self, rocm: RocmVersion | None) -> str | None:
        if self.since is not None and rocm is not None and rocm < self.since and self.older:
            return self.older
        return self.hip


@dataclass(frozen=True, slots=True)
class CgMember:
    """A cooperative-groups member HIP lacks (before `since`, or without the `opt_in` macro): rewritten as a call of
    the porter_cg function of the same name (rewrites.toml [cg_members])."""

    name: str
    args: int
    since: RocmVersion | None = None
    opt_in: str | None = None

    def missing_in(self, rocm: RocmVersion | None) -> bool:
        """Whether HIP may lack it: no release has it, it needs a macro, or the ROCm known predates it."""
        return self.since is None or self.opt_in is not None or (rocm is not None and rocm < self.since)


@dataclass(frozen=True, slots=True)
class CudaOnlyFeature:
    """A CUDA feature ROCm lacks altogether (porter/data/cuda_only.toml): reported with the usual way out."""

    id: str
    name: str
    way_out: str

    @property
    def detail(self) -> str:
        return f"{self.name}: not available on ROCm. {self.way_out}"


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
    # targets without image support: CUDA texture names -> porter_texture.h's, and what that shim cannot replace
    no_image: dict[str, ApiEntry] = field(default_factory=dict)
    no_image_agent: dict[str, str] = field(default_factory=dict)
    cuda_only_names: dict[str, CudaOnlyFeature] = field(default_factory=dict)  # exact names and headers
    cuda_only_patterns: tuple[tuple[str, CudaOnlyFeature], ...] = ()  # (whole-identifier regex, feature)
    device_runtime: frozenset[str] = frozenset()  # CUDA's device runtime API (dynamic parallelism in device code)
    cg_members: dict[str, CgMember] = field(default_factory=dict)  # cooperative-groups members HIP lacks: rewritten as porter_cg:: calls
    value_stand_ins: dict[str, str] = field(default_factory=dict)  # defined_only macro -> its value comparisons' stand-in

    @functools.cached_property
    def device_runtime_unlisted(self) -> frozenset[str]:
        """Device-runtime names the translator's candidates would not hold (none today: they look like CUDA)."""
        keys = self.byte_keys
        only = self.cuda_only_bytes_re
        return frozenset(n for n in self.device_runtime if not (CUDA_LOOKING.match(n) or n.encode() in keys
                                                               or (only is not None and only.fullmatch(n.encode()))))

    @functools.cached_property
    def byte_keys(self) -> frozenset[bytes]:
        """The CUDA names the translator acts on, as bytes (matched against raw source). Names HIP spells the
        same way, with no version, caveat or rewrite attached (atomicAdd, __syncthreads), need no work at all."""
        actionable = (
            n for n, e in self.apis.items()
            if e.hip != n or e.unsupported or e.since or n in self.defined_only or n in self.symbol_args
        )
        # qualified keys (cooperative_groups::reduce, thrust::cuda) are found by their last part
        return frozenset(n.rsplit("::", 1)[-1].encode()
                         for n in (*actionable, *self.namespaces, *self.no_image, *self.no_image_agent))

    def lookup(self, name: str) -> ApiEntry | None:
        return self.apis.get(name)

    @functools.cached_property
    def cuda_only_re(self) -> re.Pattern[str] | None:
        """One regex for every CUDA-only identifier pattern (None when there are none)."""
        if not self.cuda_only_patterns:
            return None
        return re.compile("|".join(f"(?:{p})" for p, _ in self.cuda_only_patterns))

    @functools.cached_property
    def cuda_only_bytes_re(self) -> re.Pattern[bytes] | None:
        return re.compile(self.cuda_only_re.pattern.encode()) if self.cuda_only_re is not None else None

    def cuda_only(self, name: str) -> CudaOnlyFeature | None:
        """The CUDA-only feature an identifier or header belongs to, if any."""
        feature = self.cuda_only_names.get(name)
        if feature is not None or self.cuda_only_re is None or not self.cuda_only_re.fullmatch(name):
            return feature
        return next(f for p, f in self.cuda_only_patterns if re.fullmatch(p, name))

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
    files = [*_data_files("apis"), data.joinpath("headers.toml"), data.joinpath("rewrites.toml"),
             data.joinpath("cuda_only.toml")]
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
                since=_version(value.get("since"), f"headers.toml: {path}"), older=value.get("older"),
            )
            if path.endswith("/*"):
                prefixes.append((path[:-1], entry))
            else:
                headers[path] = entry
    rewrites_file = resources.files("porter").joinpath("data", "rewrites.toml")
    rewrites = tomllib.loads(rewrites_file.read_text("utf-8")) if rewrites_file.is_file() else {}
    symbol_args = dict(rewrites.get("symbol_args", {}))
    defined_only = dict(rewrites.get("defined_only", {}))
    value_stand_ins = dict(rewrites.get("value_stand_ins", {}))
    ocp = rewrites.get("ocp_fp8", {})
    ocp_since = _version(ocp.get("since"), "rewrites.toml: ocp_fp8")
    ocp_fp8 = {cuda: ApiEntry(cuda=cuda, hip=hip, family="fp8", kind="type", since=ocp_since,
                              note="OCP encoding, as in CUDA")
               for cuda, hip in ocp.get("names", {}).items()}
    cg_members = {name: CgMember(name, int(row["args"]), _version(row.get("since"), f"rewrites.toml: cg_members.{name}"),
                                 row.get("opt_in"))
                  for name, row in rewrites.get("cg_members", {}).items()}
    no_image_rows = rewrites.get("no_image", {})
    no_image = {cuda: ApiEntry(cuda=cuda, hip=name, family="texture-shim",
                               kind=apis[cuda].kind if cuda in apis else "function",
                               note="shims/porter_texture.h: no image support on this target")
                for cuda, name in no_image_rows.get("names", {}).items()}
    no_image_agent = dict(no_image_rows.get("needs_agent", {}))
    cuda_only_file = resources.files("porter").joinpath("data", "cuda_only.toml")
    cuda_only = tomllib.loads(cuda_only_file.read_text("utf-8")) if cuda_only_file.is_file() else {}
    only_names: dict[str, CudaOnlyFeature] = {}
    only_patterns: list[tuple[str, CudaOnlyFeature]] = []
    device_runtime: set[str] = set()
    for row in cuda_only.get("feature", []):
        feature = CudaOnlyFeature(row["id"], row["name"], row["way_out"])
        for name in (*row.get("names", ()), *row.get("headers", ())):
            only_names[name] = feature
        only_patterns.extend((p, feature) for p in row.get("patterns", ()))
        device_runtime.update(row.get("device_runtime", ()))
    prefixes.sort(key=lambda p: -len(p[0]))  # longest prefix first
    return ApiMap(apis, namespaces, headers, tuple(prefixes), symbol_args, defined_only, ocp_fp8, no_image,
                  no_image_agent, only_names, tuple(only_patterns), frozenset(device_runtime), cg_members,
                  value_stand_ins)


@functools.cache
def _backfilled_names() -> dict[str, RocmVersion]:
    """HIP names porter's version-gap shims supply for older ROCm (shims/index.toml entries with `needed_before`:
    data the fix stage installs from), each with the ROCm from which HIP has it itself. Shims without
    `needed_before` list the names that call for them, which they need not define, so they do not count."""
    from porter.resources import resource_dir

    index = tomllib.loads((resource_dir("shims") / "index.toml").read_text("utf-8"))
    names: dict[str, RocmVersion] = {}
    for shim, row in index.items():
        before = _version(row.get("needed_before"), f"shims/index.toml: {shim}")
        if before is None:
            continue
        for name in row.get("provides", ()):
            names[name] = max(names.get(name, before), before)
    return names


def shim_covers(hip_name: str, rocm: RocmVersion | None) -> bool:
    """Whether a porter shim supplies `hip_name` for a port to `rocm` (then an older ROCm is no leftover)."""
    before = _backfilled_names().get(hip_name)
    return before is not None and (rocm is None or rocm < before)

