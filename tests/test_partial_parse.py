"""The translator parses only the top-level pieces whose meaning needs the grammar; the tokens decide elsewhere.

These tests hold the two ways to the same answer: every file below is translated with the default (pieces) and with
`full_parse=True` (the whole file parsed, every identifier checked against the tree), and output, conversions and
what was left unconverted must be identical. The lexer's own facts are tested at the end.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import random
from pathlib import Path

import pytest

from porter.syntax.lexing import Layout, LineIndex, PieceKind
from porter.translate.core import _Translation, translate
from porter.translate.mapping import load_api_map
from porter.translate.options import LaunchSyntax, TranslateOptions

ROOT = Path(__file__).resolve().parent.parent
SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".h", ".hpp", ".cc", ".c", ".inl"}


def _sources() -> list[Path]:
    roots = [ROOT / "examples", ROOT / "tests" / "data" / "cases", ROOT / "shims"]
    return sorted(p for r in roots for p in r.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())


def _facts(source: bytes, options: TranslateOptions) -> tuple:
    result = translate(source, options, load_api_map())
    return result.output, result.conversions, result.unconverted


def assert_same_both_ways(source: bytes, **options: object) -> None:
    pieces = TranslateOptions(**options)
    whole = dataclasses.replace(pieces, full_parse=True)
    assert _facts(source, pieces) == _facts(source, whole)


@pytest.mark.parametrize("launch_syntax", [LaunchSyntax.CHEVRON, LaunchSyntax.HIP])
def test_examples_goldens_and_shims_translate_the_same_both_ways(launch_syntax: LaunchSyntax) -> None:
    files = _sources()
    assert len(files) > 20
    for path in files:
        pieces = TranslateOptions(launch_syntax=launch_syntax)
        whole = dataclasses.replace(pieces, full_parse=True)
        assert _facts(path.read_bytes(), pieces) == _facts(path.read_bytes(), whole), path


def test_benchmark_corpus_translates_the_same_both_ways(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("translate_bench", ROOT / "bench" / "translate_bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.generate(tmp_path, 0.3)
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    for path in random.Random(3).sample(files, min(len(files), 12)):
        assert_same_both_ways(path.read_bytes())


# Each case is a place where tokens and grammar could disagree; porter must agree with the tree there.
CASES = {
    "member named like an API": "struct Wrapper { cudaStream_t stream; void cudaFree(void* p); };\n"
                                "void f(Wrapper& w) { w.cudaFree(0); cudaFree(0); }\n",
    "constructor initializer": "struct S { S(); int cudaMalloc; };\nS::S() : cudaMalloc(0) { cudaDeviceSynchronize(); }\n",
    "local class": "void f() { struct L { int cudaFree; } l; l.cudaFree = 1; cudaFree(0); }\n",
    "members across lines": "void f(P* p) { p->\n  cudaFree = 1; p .\n cudaMalloc = 2; }\n",
    "designated initializer": "Cfg c = { .cudaStream = 0 };\nvoid f() { cudaStream_t s; }\n",
    "macro names and bodies": "#define cudaCheck(x) cudaGetErrorString(x)\n#define MY cudaMalloc\n"
                              "#ifdef __CUDACC__\nint a;\n#endif\n#if defined(__CUDA_ARCH__)\n#endif\n"
                              "void f() { cudaCheck(cudaMalloc(0, 4)); }\n",
    "directive ends with a dot": "#error stop.\ncudaStream_t s;\n",
    "comments and literals": 'const char* s = "cudaMalloc(p)"; // cudaFree\n/* cudaMemcpy */ char c = \'x\';\n'
                             'auto r = R"raw(cudaFree ")" )raw"; int n = 1\'000\'000 + cudaSuccess;\n',
    "namespaces and extern C": 'namespace a { namespace { extern "C" { void k(cudaStream_t s) { cudaFree(0); } } } }\n'
                               "namespace cg = cooperative_groups;\nvoid g() { cg::thread_block b; }\n",
    "symbol arguments": "__constant__ float c[4];\nvoid f(float* h) { cudaMemcpyToSymbol(c, h, 16); "
                        "cudaMemcpyFromSymbol(h, c, 16); }\n",
    "launches": "template <typename T> __global__ void k(T* p) {}\n"
                "void f(float* p, cudaStream_t s) { k<float><<<1, 32, 0, s>>>(p); k<<<2, 64>>>(p); }\n",
    "launch only in a macro": "#define LAUNCH(k, p) k<<<1, 32>>>(p)\nvoid f(float* p) { cudaFree(p); }\n",
    "hazards": "#define FULL 0xffffffff\n__global__ void r(float* o) { float v = 0; int lane = threadIdx.x % 32;\n"
               "  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(FULL, v, d);\n"
               "  if (lane == 0) o[threadIdx.x / 32] = v; }\n"
               "void host() { int tiles = 100 / 32; cudaDeviceSynchronize(); }\n",
    "mask macro used elsewhere": "#define MASK 0xffffffff\n__global__ void r(float* o) { o[0] = __shfl_sync(MASK, 1.f, 0); }\n"
                                 "unsigned host_bits() { return MASK; }\n",
    "inline asm and grammar keywords": "__global__ void k(const __grid_constant__ int x) { int l;\n"
                                       ' asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); }\n'
                                       "#define K __grid_constant__\n",
    "include inside #if": "#if HAS_FP8()\n#  include <cuda_fp8.h>\n#endif\n#include <cuda_runtime.h>\n",
    "unbalanced braces": "#define BEGIN {\nvoid f() BEGIN cudaFree(0); }\n}\n",
    "namespace macros": "#define NS_BEGIN namespace ns {\n#define NS_END }\nNS_BEGIN\nstruct W { cudaStream_t cudaFree; };\n"
                        "void f() { cudaFree(0); }\nNS_END\nnamespace m {\nvoid g() { cudaMalloc(0, 1); }\nNS_END\n",
    "conditional braces": "void f() {\n#ifdef A\n if (x) {\n#else\n if (y) {\n#endif\n cudaFree(0); } }\n",
    "unparsable": "void f() { cudaFree(p); }}}} )))\n/* cudaFree */ #if\n",
    "qualified names": "void f() { ::cudaFree(0); cub::DeviceReduce::Sum(0); thrust::cuda::par; std::cudaThing x; }\n",
    "template head split by directives": "template <typename T>\n#ifdef X\n__device__\n#endif\n"
                                         "void f(T x) { cudaFree(0); }\nstruct S { int q; } s1, s2;\nenum E { A = 32 };\n",
    "overloads that collapse": "static const char* e(cudaError_t x) { return 0; }\nint keep;\n"
                               "static const char* e(CUresult x) { return 0; }\nstruct S {\n void f(cudaLimit l);\n"
                               " void g(cudaLimit l) {}\n void g(CUlimit l) {}\n};\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tokens_and_tree_agree(name: str) -> None:
    for launch in (LaunchSyntax.CHEVRON, LaunchSyntax.HIP):
        assert_same_both_ways(CASES[name].encode(), launch_syntax=launch)
        assert_same_both_ways(CASES[name].replace("\n", "\r\n").encode(), launch_syntax=launch)


def test_only_the_pieces_that_need_the_grammar_are_parsed() -> None:
    source = (b"#include <cuda_runtime.h>\nvoid host(float* p) { cudaMalloc(&p, 4); cudaFree(p); }\n"
              b"__global__ void r(float* o) { o[threadIdx.x / 32] = __shfl_down_sync(0xffffffff, 1.f, 16); }\n"
              b"void more() { cudaDeviceSynchronize(); }\n")
    translation = _Translation(source, TranslateOptions(), load_api_map())
    result = translation.run()
    parsed = list(zip(translation._parsed_starts, translation._parsed_ends, strict=True))
    covered = b"".join(source[s:e] for s, e in parsed)
    assert b"__global__ void r" in covered  # the hazard fixes need the kernel's tree
    assert b"void host" not in covered and b"void more" not in covered  # plain renames: the tokens decide
    assert b"hipMalloc(&p, 4)" in result.output and b"0xffffffffffffffffULL" in result.output


def test_a_file_that_needs_no_grammar_is_not_parsed() -> None:
    translation = _Translation(b"void f() { cudaFree(0); } // cudaMalloc\n", TranslateOptions(), load_api_map())
    assert translation.run().output == b"void f() { hipFree(0); } // cudaMalloc\n"
    assert translation.tree is None


# -- the lexer ------------------------------------------------------------------------------------------------
def test_pieces_cover_the_file_in_order() -> None:
    source = (b'#include <x.h>\nint g; // {\nnamespace a { namespace b {\ntemplate <typename T>\n#ifdef X\n__device__\n'
              b'#endif\nvoid f(T x) { if (x) { y; } }\nstruct S { int q; } s1, s2;\nenum E { A, B };\n'
              b'extern "C" { void h(); }\n} }\n#define BEGIN {\nint tail;\n')
    pieces = Layout(source).pieces
    assert pieces is not None
    assert b"".join(source[p.start : p.end] for p in pieces) == source
    kinds = [(p.kind, source[p.start : p.end].strip()) for p in pieces if source[p.start : p.end].strip()]
    assert (PieceKind.DIRECTIVE, b"#include <x.h>") in kinds
    assert (PieceKind.DECLARATION, b"int g;") in kinds
    assert any(k is PieceKind.FUNCTION and t.startswith(b"template") and t.endswith(b"} }") for k, t in kinds)
    assert (PieceKind.DATA, b"struct S { int q; } s1, s2;") in kinds
    assert (PieceKind.DATA, b"enum E { A, B };") in kinds
    assert (PieceKind.DIRECTIVE, b"#define BEGIN {") in kinds
    assert sum(k is PieceKind.SCOPE for k, _ in kinds) == 6  # three openers, three closers


@pytest.mark.parametrize("source", [b"void f() { if (x) { }\n", b"#ifdef A\nvoid f() {\n#else\nvoid g() {\n#endif\n}\n"])
def test_a_brace_left_open_means_no_pieces(source: bytes) -> None:
    assert Layout(source).pieces is None


def test_scopes_opened_or_closed_by_macros_are_top_level() -> None:
    source = b"#define BEGIN_NS namespace ns {\n#define END_NS }\nBEGIN_NS\nvoid f() { }\n}\nnamespace m {\nvoid g() { }\nEND_NS\n"
    pieces = Layout(source).pieces
    assert pieces is not None and b"".join(source[p.start : p.end] for p in pieces) == source
    assert [source[p.start : p.end].strip() for p in pieces if p.kind is PieceKind.FUNCTION] == [b"BEGIN_NS\nvoid f() { }",
                                                                                                 b"void g() { }"]


def test_comments_and_literals_are_blanked_to_the_same_length() -> None:
    source = b'a = "x{y"; // }\nb = \'{\'; /* { */ c = 1\'000; R"d(})d";\n'
    layout = Layout(source)
    assert len(layout.code) == len(source)
    assert b"{" not in layout.code and b"}" not in layout.code
    assert b"1'000" in layout.code  # a digit separator is not a character literal
    assert layout.in_comment_or_literal(source.index(b"x{y")) and not layout.in_comment_or_literal(source.index(b"b ="))


def test_line_index_goes_forwards_and_backwards() -> None:
    source = b"a\nbb\r\nccc\n\nd"
    lines = LineIndex(source)
    offsets = [0, 2, 3, 6, 9, 10, 11]
    expected = [(source.count(b"\n", 0, o) + 1, o - (source.rfind(b"\n", 0, o) + 1) + 1) for o in offsets]
    assert [(lines.line(o), lines.column(o)) for o in offsets] == expected
    assert [(lines.line(o), lines.column(o)) for o in reversed(offsets)] == list(reversed(expected))
    assert lines.point(6) == (2, 0)



def test_full_parse_option_reaches_the_translator(tmp_path: Path) -> None:
    from porter.config import build_config
    from porter.convert import ConvertRequest, _plan
    from porter.files import WriteMode

    (tmp_path / "a.cu").write_bytes(b"void f() { cudaFree(0); }\n")
    for flag in (False, True):
        config = build_config(None, build=False, full_parse=True if flag else None)
        jobs = list(_plan(ConvertRequest(tmp_path, None, WriteMode.CHECK, config), []))
        assert [job.options.full_parse for job in jobs] == [flag]



def test_raw_strings_closed_and_never_closed() -> None:
    source = b'a = R"d(x ")" y)d"; b = R"q( cudaFree; c = 1;\nd = "s";\n'
    layout = Layout(source)
    assert layout.in_comment_or_literal(source.index(b"x ")) and layout.in_comment_or_literal(source.index(b" y)d"))
    assert not layout.in_comment_or_literal(source.index(b"b ="))
    # an opener that is never closed is no raw string: its quote starts an ordinary literal, ended by the line
    assert not layout.in_comment_or_literal(source.index(b"q( cudaFree"))  # `"q( ...` has no closing quote
    assert not layout.in_comment_or_literal(source.index(b"d ="))
    assert layout.in_comment_or_literal(source.index(b'"s"') + 1)


def test_crlf_directive_at_the_end_of_a_parsed_range_is_no_parse_error() -> None:
    """A directive's span stops before its \\n: in a CRLF file a parsed range ending on `#include "x"\\r` read as
    an unterminated directive, and every such file warned of a parse error (HeCBench's quicksort)."""
    lf = (b'#include <cuda_runtime.h>\nstatic int host_only(int x) { return x + 1; }\n\n#include "local.h"\n\n'
          b"template <class T>\nT* part(T* a) { return a; }\n"
          b"__global__ void k(int* p) { if (threadIdx.x % 32 == 0) p[0] = __ballot_sync(0xffffffff, 1); }\n"
          b"void run(int* d) { k<<<1, 1>>>(d); }\n")
    crlf = translate(lf.replace(b"\n", b"\r\n"), TranslateOptions())
    plain = translate(lf, TranslateOptions())
    assert crlf.warnings == plain.warnings == []
    assert crlf.output == plain.output.replace(b"\n", b"\r\n")
