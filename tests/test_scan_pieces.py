"""The open-findings scan of `porter convert` parses only the pieces the hazard rules need (porter.scan.scan_pieces).

These tests hold it to the whole-file scan (porter.scan.scan_source): the same findings for every file below, as
CUDA and as porter's HIP output, for several targets and ROCm versions, and for hand-made files where what a
detector consults sits in another piece than what it flags. scripts/compare_scan_modes.py does the same for any
tree (CUDA's own headers, /usr/include/hip, rocPRIM).
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from porter.scan import scan_pieces, scan_source, scan_translated
from porter.syntax import Layout, map_layout
from porter.targets import resolve_target
from porter.translate import RocmVersion, TranslateOptions, load_api_map, translate

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = {".cu", ".cuh", ".cpp", ".h", ".hpp", ".cc", ".c", ".inl", ".hip"}
TARGETS = [resolve_target(t) for t in ("gfx942", "gfx950", "gfx1100")]
VERSIONS = [None, RocmVersion.parse("5.2"), RocmVersion.parse("6.4")]


def _sources() -> list[Path]:
    roots = [ROOT / "examples", ROOT / "tests" / "data" / "cases", ROOT / "shims", ROOT / "bench" / "fix_cases"]
    return sorted(p for r in roots for p in r.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def assert_same(source: bytes, label: str = "") -> None:
    for target in TARGETS:
        for rocm in VERSIONS:
            whole = scan_source(source, "f.cu", target, rocm)
            assert scan_pieces(source, "f.cu", target, rocm) == whole, (label, target.arch, rocm)


def test_examples_goldens_shims_and_fix_cases_scan_the_same_both_ways() -> None:
    files = _sources()
    assert len(files) > 20
    found = 0
    for path in files:
        source = path.read_bytes()
        assert_same(source, str(path))
        found += len(scan_source(source, "f.cu", TARGETS[0], VERSIONS[1]))
    assert found > 10  # the files do have findings: the comparison is not of empty lists


def test_translated_output_scans_the_same_as_its_whole_parse() -> None:
    """What convert does: the output's layout mapped from the source's, a shim include inserted afterwards."""
    from porter.fix import add_shim_include

    api_map = load_api_map()
    for path in _sources():
        for rocm in VERSIONS[1:]:
            options = TranslateOptions(rocm=rocm)
            result = translate(path.read_bytes(), options, api_map)
            output = result.output
            if b"__shfl" in output:  # the include convert adds for the warp shims of ROCm 5.2
                text = add_shim_include(output.decode("utf-8", "surrogateescape"),
                                        '#include "porter_shims/warp_sync.h"  // porter shim\n', "warp_sync.h")
                output = text.encode("utf-8", "surrogateescape")
            for target in TARGETS:
                whole = scan_source(output, "f.hip", target, rocm)
                assert scan_translated(output, "f.hip", target, rocm, result) == whole, (path, target.arch, rocm)


def test_mapped_layout_is_the_layout_of_the_output() -> None:
    api_map = load_api_map()
    checked = 0
    for path in _sources():
        source = path.read_bytes()
        layout = Layout(source)
        result = translate(source, TranslateOptions(), api_map)
        if result.output_facts.layout is None:
            continue
        mapped, fresh = result.output_facts.layout, Layout(result.output)
        assert mapped.code == fresh.code, path
        assert mapped.pieces == fresh.pieces, path
        checked += 1
        assert map_layout(layout, [], source).pieces == layout.pieces
    assert checked > 10


def test_benchmark_corpus_scans_the_same_both_ways(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("translate_bench", ROOT / "bench" / "translate_bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.generate(tmp_path, 0.3)
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    api_map = load_api_map()
    for path in random.Random(5).sample(files, min(len(files), 10)):
        source = path.read_bytes()
        assert_same(source, str(path))
        result = translate(source, TranslateOptions(rocm=VERSIONS[1]), api_map)
        whole = scan_source(result.output, "f.hip", TARGETS[0], VERSIONS[1])
        assert scan_translated(result.output, "f.hip", TARGETS[0], VERSIONS[1], result) == whole, path


# What one piece flags depends on another piece: each case must find what the whole-file scan finds (and does
# find something, so a case that the scan stopped seeing would fail here).
CROSS_PIECE = {
    "constant declared in another function": (
        "void host() { const unsigned kMask = 0xffffffff; }\n"
        "__global__ void k(int v) { v = __shfl_sync(kMask, v, 0); }\n"),
    "macro defined inside a function": (
        "void host() {\n#define WARP_SZ 32\n}\n__global__ void k(int* p) { p[0] = threadIdx.x % WARP_SZ; }\n"),
    "first declaration in another function": (
        "void a() { unsigned mask = 0; }\n"
        "__global__ void k(int v) { unsigned mask; mask = __ballot_sync(0xffffffffffffffffULL, v); }\n"),
    "dim3 block declared first elsewhere": (
        "void a() { dim3 block(64, 32); }\n__global__ void k() {}\nvoid b(dim3 block) { k<<<1, block>>>(); }\n"),
    "thread-derived variable assigned in another function": (
        "__device__ int tid;\nvoid set() { tid = threadIdx.x; }\n"
        "__global__ void k(int* p) { p[0] = tid % 32; }\n"),
    "thread-derived chain through host code": (
        "__device__ int a, b;\n__device__ void f() { a = threadIdx.x; }\nvoid g() { b = a + 1; }\n"
        "__global__ void k(int* p) { p[0] = b & 31; }\n"),
    "lane variable assigned in another function": (
        "__device__ int lv;\n__device__ void f() { lv = threadIdx.x % warpSize; }\n"
        "__device__ float buf[32];\n__device__ void g(float x) { buf[lv] = x; }\n"),
    "lane-sized array declared at file scope": (
        "__device__ float sums[32];\n__global__ void k(float v) { int lane = threadIdx.x & 31; sums[lane] = v; }\n"),
    "cooperative groups alias in another piece": (
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__global__ void k() { auto t = cg::tiled_partition<64>(cg::this_thread_block()); t.sync(); }\n"),
    "using namespace in another piece": (
        "#include <cooperative_groups.h>\nusing namespace cooperative_groups;\n"
        "__device__ int f(thread_group t, int v) { return reduce(t, v, plus<int>()); }\n"),
    "clock rate read far from wall_clock64": (
        "__global__ void k(long long* t) { t[0] = wall_clock64(); }\n"
        "int rate(hipDeviceProp_t p) { return p.clockRate; }\n"),
    "flagged API used first in a host function": (
        "void a() { cudaProfilerInitialize(0, 0, cudaKeyValuePair); }\nvoid b() { cudaProfilerInitialize(0, 0, 0); }\n"),
    "warp-named variable at file scope": "int warp_id;\nint g = threadIdx.x % 32;\n",
    "texture reference declared apart": (
        "texture<float, 1> tex;\nvoid bind(float* p) { cudaBindTexture(0, tex, p, 16); }\n"
        "__global__ void k(float* o) { o[0] = tex1Dfetch(tex, 0); }\n"),
    "reduction array declared at file scope": (
        "__shared__ float sdata[64];\n__device__ void r(int t) { sdata[t] += sdata[t + 32]; sdata[t] += sdata[t + 16];"
        " sdata[t] += sdata[t + 8]; }\n"),
    "warp size constant at file scope": "constexpr int kWarpSize = 32;\nvoid f() {}\n",
    # `x % name`: a lane idiom when the name is a constant of 32 (or sizeof a 32-byte type), wherever it is defined
    "lane modulo a constant declared in another function": (
        "void h() { const int n = 32; }\n__device__ float buf[32];\n"
        "__global__ void k(float v) { buf[threadIdx.x % n] = v; }\n"),
    "lane modulo a macro defined at file scope": (
        "#define LANES 32\n__device__ float buf[32];\n__global__ void k(float v) { buf[threadIdx.x % LANES] = v; }\n"),
    "lane modulo a macro whose name follows a line continuation": (
        "#define \\\n  LANES 32\n__device__ float buf[32];\n"
        "__global__ void k(float v) { buf[threadIdx.x % LANES] = v; }\n"),
    "lane modulo a constexpr in a for initializer": (
        "void h() { for (constexpr int n = 32; ;) {} }\n__device__ float buf[32];\n"
        "__global__ void k(float v) { buf[threadIdx.x % n] = v; }\n"),
    "lane modulo sizeof": (
        "__device__ float buf[32];\n__global__ void k(float v) { buf[threadIdx.x % sizeof(double4)] = v; }\n"),
    "lane variable from a modulo of a constant": (
        "const int W = 32;\n__device__ float buf[32];\n"
        "__global__ void k(float v) { int l = threadIdx.x % W; buf[l] = v; }\n"),
    # the declaration of an array a lane-indexed subscript names, in another piece: parsed when its size may be 32
    "lane-sized array sized by a constant from another piece": (
        "const int W = 32;\n__device__ float arr[W];\n"
        "__global__ void k(float v) { int lane = threadIdx.x & 31; arr[lane] = v; }\n"),
    "lane-sized array sized by sizeof": (
        "__device__ float arr[sizeof(double4)];\n"
        "__global__ void k(float v) { int lane = threadIdx.x & 31; arr[lane] = v; }\n"),
    "array sized by a name that is no constant": (
        "__device__ float arr[N];\n__global__ void k(float v) { int lane = threadIdx.x & 31; arr[lane] = v; }\n"),
    "lane-sized array in another function sized by a macro": (
        "#define S 32\nvoid h() { float arr[S]; arr[0] = 0; }\n"
        "__global__ void k(float v) { float arr[4]; int lane = threadIdx.x & 31; arr[lane] = v; }\n"),
    "shared memory sized by a constant elsewhere": (
        "void h() { const int kBig = 20000; }\n__global__ void k() { __shared__ float s[kBig]; s[0] = 0; }\n"),
}


@pytest.mark.parametrize("name", sorted(CROSS_PIECE))
def test_cross_piece_facts(name: str) -> None:
    source = CROSS_PIECE[name].encode()
    assert Layout(source).pieces is not None, "the case must be split into pieces"
    assert any(scan_source(source, "f.cu", t, r) for t in TARGETS for r in VERSIONS), "the case finds nothing"
    assert_same(source, name)


def test_a_modulo_of_a_name_that_cannot_be_32_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`i % n` with `n` no constant anywhere (a parameter) is no lane idiom: its piece is not parsed, nor is it
    added for the arrays it subscripts; the same text with `n` a constant elsewhere is parsed."""
    from porter.scan import pieces

    parsed_ranges: list[tuple[int, int]] = []
    parse_ranges = pieces.syntax.parse_ranges

    def spy(source: bytes, ranges: list) -> object:
        parsed_ranges.extend((s, e) for s, e, _, _ in ranges)
        return parse_ranges(source, ranges)

    monkeypatch.setattr(pieces.syntax, "parse_ranges", spy)
    kernel = ("__global__ void k(const float* in, float* out, int n) { out[threadIdx.x] = in[(threadIdx.x + 3) % n]; }\n"
              "__global__ void r(const float* in, float* out) { __shared__ float s[32]; s[threadIdx.x % 32] = in[0]; }\n")
    for prefix, parsed in (("", False), ("void h() { const int n = 32; }\n", True), ("#define n 32\n", True)):
        source = (prefix + kernel).encode()
        at = source.index(b"__global__ void k")
        parsed_ranges.clear()
        assert scan_pieces(source, "f.cu", TARGETS[0]) == scan_source(source, "f.cu", TARGETS[0])
        assert any(s <= at < e for s, e in parsed_ranges) is parsed, prefix
        assert_same(source, prefix)


def test_files_without_pieces_and_without_anchors() -> None:
    unbalanced = b"void f() {\n#if X\n{\n#endif\n int lane = threadIdx.x % 32; }\n"
    assert Layout(unbalanced).pieces is None
    assert_same(unbalanced)
    plain = b"namespace util { inline int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; } }\n"
    assert scan_pieces(plain, "f.cpp", TARGETS[0]) == [] == scan_source(plain, "f.cpp", TARGETS[0])


def _with_convert_shims(result, rocm: RocmVersion | None, rel: str = "dir/f.cu") -> bytes:
    """The output as convert writes it: with an #include line for each shim it needs (often more than one)."""
    from types import SimpleNamespace

    from porter.convert import _with_shims

    output, _shims = _with_shims(result, SimpleNamespace(options=TranslateOptions(rocm=rocm), out_rel=rel))
    return output


def test_layout_with_the_shim_includes_is_the_layout_of_the_written_file(tmp_path: Path) -> None:
    """MappedLayout.with_insertion takes the shim lines convert adds, one or several, as a fresh lexing would."""
    spec = importlib.util.spec_from_file_location("translate_bench", ROOT / "bench" / "translate_bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.generate(tmp_path, 0.3)
    corpus = random.Random(7).sample(sorted(p for p in tmp_path.rglob("*.cu")), 6)
    api_map = load_api_map()
    several = 0
    for path in _sources() + corpus:
        for rocm in VERSIONS[1:]:
            result = translate(path.read_bytes(), TranslateOptions(rocm=rocm), api_map)
            mapped = result.output_facts.layout
            if mapped is None:
                continue
            output = _with_convert_shims(result, rocm)
            inserted = mapped.with_insertion(output)
            if inserted is None:
                continue  # e.g. a line inserted into a function's head: the scan lexes the output again
            assert inserted.code == Layout(output).code, path
            several += output.count(b"// porter shim") > 1
            for target in TARGETS[:2]:
                whole = scan_source(output, "f.hip", target, rocm)
                assert scan_translated(output, "f.hip", target, rocm, result) == whole, (path, target.arch, rocm)
    assert several > 5  # files with more than one shim include: what the single-line insertion used to refuse


def test_insertions_that_are_not_directive_lines_are_refused() -> None:
    layout = map_layout(Layout(b"#include <a.h>\nint x;\n"), [], b"#include <a.h>\nint x;\n")
    assert layout.with_insertion(b"#include <a.h>\nint y;\nint x;\n") is None  # not a directive
    assert layout.with_insertion(b"#include <a.h>\nint x;\n#if 0\n") is not None
    assert layout.with_insertion(b"#include <b.h>\nint x;\n") is None  # a change, not an insertion
    continued = map_layout(Layout(b"#define A 1 \\\n+ 2\nint x;\n"), [], b"#define A 1 \\\n+ 2\nint x;\n")
    assert continued.with_insertion(b"#define A 1 \\\n#x\n+ 2\nint x;\n") is None  # inside a directive
