"""Class 3 of the real-code issue: user operators on vector types that HIP's vector types already define.

The translator guards a user's definition with `#if !defined(__HIP_PLATFORM_AMD__)` only where it collides with one
of HIP's non-template overloads and its body provably computes what HIP's does; the rest is reported. The data
(porter/data/vector_operators.toml) is checked against each compiler, the guarded code compiled, and the claim that
HIP's operator gives the same results checked on the host, bit for bit.
"""

from __future__ import annotations

import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from support.hip_compile import Compiler, compiler_params, need

from porter.translate import TranslateOptions, translate
from porter.translate.vector_ops import load_vector_data

GUARD = b"#if !defined(__HIP_PLATFORM_AMD__)"
HELPER = Path(__file__).parent / "data" / "classes" / "vector_helpers.cuh"
KERNELS = Path(__file__).parent / "data" / "classes" / "vector_kernels.cu"


def _port(source: bytes) -> tuple[bytes, list, list]:
    result = translate(source, TranslateOptions())
    conversions = [c for c in result.conversions if c.family == "vector-operator"]
    return result.output, conversions, [u for u in result.unconverted if u.family == "vector-operator"]


def _guarded_blocks(text: bytes) -> list[bytes]:
    return re.findall(rb"^#if !defined\(__HIP_PLATFORM_AMD__\)[^\n]*\n(.*?)^#endif[^\n]*\n", text, re.S | re.M)


def test_guards_exactly_the_collisions_whose_bodies_hip_computes_the_same() -> None:
    out, conversions, leftovers = _port(HELPER.read_bytes())
    guarded = sorted(c.cuda for c in conversions)
    assert guarded == sorted([
        "operator*(float2, float2)", "operator*=(float2&, float2)", "operator/(float2, float2)",
        "operator/=(float2&, const float2&)", "operator+=(float2&, float2)",
        "operator+=(float3&, const float3&)", "operator-=(float3&, const float3&)",
        "operator*(const float3&, const float3&)", "operator/(float3, float3)", "operator*=(float3&, float3)",
        "operator*(int2, int2)", "operator*(uint2, uint2)",
        "VEC2_ARITH(...): operator*(short2, short2), operator+=(short2&, short2)",
    ])
    blocks = b"".join(_guarded_blocks(out))
    # what HIP defines as templates (the user's non-template wins), or not at all, is left as it was
    for kept in (b"operator*(float2 a, float s)", b"operator*(float s, float2 a)", b"operator+(float2 a, float2 b)",
                 b"operator+(const float3 &u", b"__device__ inline float4 operator*", b"inline float4 operator/",
                 b"VEC2_WITH_DOT(uint2"):
        assert kept in out and kept not in blocks, kept
    reported = {(u.name, u.line) for u in leftovers}
    lines = HELPER.read_bytes().splitlines()
    expected = {("operator*", _line_of(lines, b"double2 operator*")), ("operator+=", _line_of(lines, b"float4 &a, float4 b")),
                ("operator-=", _line_of(lines, b"int4 &a")), ("VEC2_WITH_DOT", _line_of(lines, b"VEC2_WITH_DOT(uint2"))}
    assert reported == expected
    details = {u.name: u.detail for u in leftovers}
    assert "not a component-wise" in details["operator-="] or "something other" in details["operator-="]
    assert "dot(...)" in details["VEC2_WITH_DOT"] and "splitting the macro" in details["VEC2_WITH_DOT"]


def _line_of(lines: list[bytes], needle: bytes) -> int:
    return next(i for i, line in enumerate(lines, 1) if needle in line and not line.lstrip().startswith(b"//"))


def test_porting_the_port_changes_nothing() -> None:
    out, _, _ = _port(HELPER.read_bytes())
    again, conversions, _ = _port(out)
    assert again == out and conversions == []


def test_crlf_and_shared_lines() -> None:
    source = (b"#include <cuda_runtime.h>\r\n"
              b"static int n; inline __host__ __device__ void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; } int m;\r\n")
    out, conversions, _ = _port(source)
    assert len(conversions) == 1
    assert out == (b"#include <hip/hip_runtime.h>\r\n"
                   b"static int n; \r\n" + GUARD + b"  // porter: HIP's vector types define this operator element-wise (same result)\r\n"
                   b"inline __host__ __device__ void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }\r\n"
                   b"#endif  // !defined(__HIP_PLATFORM_AMD__)\r\n int m;\r\n")


@pytest.mark.parametrize("body", [
    "{ return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }",  # a complex product
    "{ return make_float2(a.x * b.x, a.y * b.x); }",  # a slip: b.x twice
    "{ return make_float2(a.y * b.y, a.x * b.x); }",  # components swapped
    "{ float2 r; r.x = a.x * b.x; return r; }",  # a component never set
    "{ return make_float2(a.x * b.x + 0.0f, a.y * b.y); }",  # not the same for -0.0
    "{ if (a.x) return a; return make_float2(a.x * b.x, a.y * b.y); }",  # control flow the evaluator does not model
    "{ return make_float2(a.x / b.x, a.y / b.y); }",  # another operator
])
def test_never_guards_what_hip_computes_differently(body: str) -> None:
    source = f"#include <cuda_runtime.h>\ninline __host__ __device__ float2 operator*(float2 a, float2 b) {body}\n"
    out, conversions, leftovers = _port(source.encode())
    assert conversions == [] and GUARD not in out
    assert [u.name for u in leftovers] == ["operator*"]


def test_definitions_already_kept_from_hip_are_left_alone() -> None:
    source = textwrap.dedent("""\
        #include <cuda_runtime.h>
        #ifndef __HIP_PLATFORM_AMD__
        inline __host__ __device__ void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }
        #else
        #endif
        #if defined(__HIPCC__)
        #else
        inline __host__ __device__ void operator-=(float2 &a, float2 b) { a.x -= b.x; a.y -= b.y; }
        #endif
        #if !defined(__CUDACC__)  // a host compiler's: hipcc defines __HIPCC__, which __CUDACC__ becomes
        inline __host__ __device__ void operator*=(float2 &a, float2 b) { a.x *= b.x; a.y *= b.y; }
        #endif
        """).encode()
    out, conversions, leftovers = _port(source)
    assert conversions == [] and leftovers == [] and GUARD not in out


def test_a_header_with_nothing_else_cuda_in_it_is_still_looked_at() -> None:
    source = b"inline __host__ __device__ float3 operator*(float3 a, float3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }\n"
    out, conversions, _ = _port(source)
    assert len(conversions) == 1 and out.startswith(GUARD)


# -- with the real compilers --------------------------------------------------------------------------------------

_DUPLICATES = {
    "assign-v": ("inline __host__ __device__ void operator{op}(float3 &a, float3 b) {{ a.x {op} b.x; a.y {op} b.y; a.z {op} b.z; }}",
                 "__global__ void k(float3* p) {{ float3 c = p[0]; c {op} p[1]; p[0] = c; }}"),
    "vv": ("inline __host__ __device__ float3 operator{op}(float3 a, float3 b) {{ return make_float3(a.x {op} b.x, a.y {op} b.y, a.z {op} b.z); }}",
           "__global__ void k(float3* p) {{ p[0] = p[1] {op} p[2]; }}"),
    "vs": ("inline __host__ __device__ float3 operator{op}(float3 a, float s) {{ return make_float3(a.x {op} s, a.y {op} s, a.z {op} s); }}",
           "__global__ void k(float3* p, float s) {{ p[0] = p[1] {op} s; }}"),
    "sv": ("inline __host__ __device__ float3 operator{op}(float s, float3 a) {{ return make_float3(s {op} a.x, s {op} a.y, s {op} a.z); }}",
           "__global__ void k(float3* p, float s) {{ p[0] = s {op} p[1]; }}"),
    "assign-s": ("inline __host__ __device__ void operator{op}(float3 &a, float s) {{ a.x {op} s; a.y {op} s; a.z {op} s; }}",
                 "__global__ void k(float3* p, float s) {{ float3 c = p[0]; c {op} s; p[0] = c; }}"),
    "unary": ("inline __host__ __device__ float3 operator-(float3 a) {{ return make_float3(-a.x, -a.y, -a.z); }}",
              "__global__ void k(float3* p) {{ p[0] = -p[1]; }}"),
}


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_the_collision_table_matches_each_compiler(compiler: Compiler | None, tmp_path: Path) -> None:
    """A user's duplicate of each operator HIP defines is ambiguous exactly where the data says HIP's is a
    non-template, and compiles where HIP's is a template. One compile: each duplicate in a namespace of its own
    (HIP's operators still come in through argument-dependent lookup)."""
    compiler = need(compiler)
    lines, cases = ["#include <hip/hip_runtime.h>"], []
    for n, ((op, form), spec) in enumerate(load_vector_data().operators.items()):
        definition, use = _DUPLICATES[form]
        first = len(lines) + 1
        lines += [f"namespace case{n} {{", definition.format(op=op), use.format(op=op), "}"]
        cases.append((op, form, spec.collides_from is not None and compiler.rocm >= spec.collides_from,
                      range(first, len(lines) + 1)))
    path = tmp_path / "duplicates.hip"
    path.write_text("\n".join(lines) + "\n")
    proc = compiler.compile(path, "-fsyntax-only", "-ferror-limit=0")
    failing = {int(m[1]) for m in re.finditer(r"duplicates\.hip:(\d+):\d+: error: ", proc.stderr)}
    assert all("is ambiguous" in e for e in proc.stderr.splitlines() if ": error: " in e), proc.stderr[-3000:]
    wrong = [(op, form, "expected a collision" if collides else "unexpected collision")
             for op, form, collides, span in cases if bool(failing & set(span)) != collides]
    assert wrong == []
    assert any(collides for *_, collides, _ in cases)


def _write_port(tmp_path: Path) -> Path:
    (tmp_path / "vector_helpers.cuh").write_bytes(_port(HELPER.read_bytes())[0])
    out = translate(KERNELS.read_bytes(), TranslateOptions()).output
    (tmp_path / "kernels.hip").write_bytes(out)
    return tmp_path / "kernels.hip"


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_the_guarded_helpers_compile_and_only_the_reported_ones_fail(compiler: Compiler | None, tmp_path: Path) -> None:
    compiler = need(compiler)
    kernels = _write_port(tmp_path)
    proc = compiler.compile(kernels)
    assert proc.returncode == 0, proc.stderr[-4000:]
    # the definitions porter reported, used: the ambiguities they cause are the only errors
    proc = compiler.compile(kernels, "-DUSE_REPORTED")
    errors = [line for line in proc.stderr.splitlines() if ": error:" in line]
    ambiguous = {re.search(r"operator '(\S+)'", e)[1] + " " + re.search(r"operand types '(\w+)'", e)[1] for e in errors}
    expected = {"-= uint2", "+= float4", "-= int4"} | ({"* double2"} if compiler.rocm.major >= 6 else set())
    assert ambiguous == expected and all("is ambiguous" in e for e in errors), proc.stderr[-4000:]
    # the header as it was, without porter's guards: the collisions are real on this compiler
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "vector_helpers.cuh").write_bytes(translate(HELPER.read_bytes(), TranslateOptions()).output
                                             .replace(GUARD, b"#if 1"))
    (raw / "kernels.hip").write_bytes(kernels.read_bytes())
    assert compiler.compile(raw / "kernels.hip").returncode != 0


_VALUE_MAIN = r"""
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
template <typename T> static bool same(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a) && std::isnan(b)) return true;
  }
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <typename V> static bool same_vec(const V& a, const V& b) {
  constexpr int n = sizeof(V) / sizeof(a.x);
  const auto* pa = &a.x; const auto* pb = &b.x;
  for (int i = 0; i < n; ++i) if (!same(pa[i], pb[i])) return false;
  return true;
}
static uint64_t state = 88172645463325252ull;
static uint64_t next() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
static float pick_float() {
  static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-40f, -1e-40f, 3.4e38f,
                                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN(), 1.1920929e-7f};
  uint64_t r = next();
  if (r % 4 == 0) return special[(r >> 8) % (sizeof(special) / sizeof(special[0]))];
  uint32_t bits = (uint32_t)(r >> 16);
  float f; std::memcpy(&f, &bits, 4); return f;
}
static int pick_int() {
  uint64_t r = next();
  static const int special[] = {0, 1, -1, 2, -2, 2147483647, -2147483647 - 1, 65536};
  return r % 4 == 0 ? special[(r >> 8) % 8] : (int)(uint32_t)(r >> 20);
}
static short pick_short() { return (short)pick_int(); }
template <typename T> static T pick();
template <> float pick<float>() { return pick_float(); }
template <> int pick<int>() { return pick_int(); }
template <> unsigned int pick<unsigned int>() { return (unsigned int)pick_int(); }
template <> short pick<short>() { return pick_short(); }
template <typename V> static V pick_vec() {
  V v; auto* p = &v.x; constexpr int n = sizeof(V) / sizeof(v.x);
  for (int i = 0; i < n; ++i) p[i] = pick<typename std::remove_reference<decltype(v.x)>::type>();
  return v;
}
template <typename V> static bool defined_for(const V& a, const V& b, char op) {
  // integer division by zero and MIN / -1 are undefined in C++ and on HIP alike: not compared
  if (op != '/' || std::is_floating_point<decltype(a.x)>::value) return true;
  constexpr int n = sizeof(V) / sizeof(a.x);
  const auto* pa = &a.x; const auto* pb = &b.x;
  for (int i = 0; i < n; ++i) if (pb[i] == 0 || (pb[i] == -1 && pa[i] == std::numeric_limits<decltype(a.x)>::min())) return false;
  return true;
}
int failures = 0, checks = 0;
#define CHECK_VV(V, OP, FN) for (int i = 0; i < 20000; ++i) { V a = pick_vec<V>(), b = pick_vec<V>(); \
  if (!defined_for(a, b, #OP[0])) continue; ++checks; if (!same_vec(FN(a, b), a OP b)) { ++failures; } }
#define CHECK_ASSIGN(V, OP, FN) for (int i = 0; i < 20000; ++i) { V a = pick_vec<V>(), b = pick_vec<V>(); \
  if (!defined_for(a, b, #OP[0])) continue; ++checks; V x = a, y = a; FN(x, b); y OP b; if (!same_vec(x, y)) { ++failures; } }
"""


def _renamed_user_definitions(port: bytes) -> tuple[str, list[tuple[str, str, str, str]]]:
    """The guarded definitions as named functions (user_1, user_2...), and what to compare each with. (Operators a
    macro generates are not among them: the macro would need renaming too.)"""
    checks: list[tuple[str, str, str, str]] = []

    def rename(m: re.Match) -> str:
        name = f"user_{len(checks) + 1}"
        checks.append((name, m[1], m[2], "CHECK_ASSIGN" if m[1].endswith("=") else "CHECK_VV"))
        return name + "("

    pattern = re.compile(r"operator\s*(\+=|-=|\*=|/=|\*|/)\s*\((?=\s*(?:const\s+)?(\w+))")
    text = "\n".join(pattern.sub(rename, b.decode()) for b in _guarded_blocks(port) if b"operator" in b)
    return text, checks


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params()[:1])
def test_hips_operator_gives_the_users_results_bit_for_bit(compiler: Compiler | None, tmp_path: Path) -> None:
    """Host code: each definition porter hid, renamed into a plain function, against HIP's operator on the same
    inputs (random bit patterns, signed zeros, infinities, NaNs, denormals, INT_MIN). Device code runs the same
    HIP header code, compiled for the GPU; that was not run here (no GPU)."""
    compiler = need(compiler)
    port = _port(HELPER.read_bytes())[0]
    functions, checks = _renamed_user_definitions(port)
    assert len(checks) >= 11
    types = {"vec3": "float3"}
    body = "\n".join(f"  {macro}({types.get(v, v)}, {op.rstrip('=') if macro == 'CHECK_VV' else op}, {name})"
                     for name, op, v, macro in checks)
    program = ("#include <hip/hip_runtime.h>\n#define __CUDACC__\n" + _prelude(port) + _VALUE_MAIN + functions
               + "\nint main() {\n" + body + '\n  std::printf("%d checks, %d failures\\n", checks, failures);\n'
               "  return failures != 0;\n}\n")
    source = tmp_path / "values.hip"
    source.write_text(program)
    exe = tmp_path / "values"
    proc = subprocess.run([compiler.hipcc, f"--offload-arch={compiler.arches[0]}", str(source), "-o", str(exe)],
                          capture_output=True, text=True, check=False, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.match(r"\d+ checks, 0 failures", run.stdout) and int(run.stdout.split()[0]) > 100000


def _prelude(port: bytes) -> str:
    """The header's macros and typedefs (what the renamed definitions need), without its operators."""
    keep = [line for line in port.decode().splitlines() if line.startswith(("#define HD", "#define FHD", "typedef"))]
    return "#define HD __host__ __device__\n" + "\n".join(k for k in keep if not k.startswith("#define HD ")) + "\n"
