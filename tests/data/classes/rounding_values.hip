// Host check of porter_rounding.h: every directed-rounding function against the x86 FPU's own directed rounding
// (fesetround; compiled with -frounding-math), bit for bit, on random bit patterns, cancellations, products near
// underflow and overflow, and special values. Prints "<checks> checks, <failures> failures" and the first misses.
#include "porter_rounding.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using porter_rounding::dir;

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
static double any_double() { uint64_t u = next(); double d; std::memcpy(&d, &u, 8); return d; }
static float any_float() { uint32_t u = (uint32_t)(next() >> 32); float f; std::memcpy(&f, &u, 4); return f; }
static double near(double x) { uint64_t u; std::memcpy(&u, &x, 8); u += (int64_t)(next() % 9) - 4; double d; std::memcpy(&d, &u, 8); return d; }
static float nearf(float x) { uint32_t u; std::memcpy(&u, &x, 4); u += (int32_t)(next() % 9) - 4; float f; std::memcpy(&f, &u, 4); return f; }
static double scaled(int lo, int hi) { double m = 1.0 + (double)(next() >> 12) * 0x1p-52; int e = lo + (int)(next() % (uint64_t)(hi - lo + 1)); return ((next() & 1) ? -m : m) * std::ldexp(1.0, e); }
static float scaledf(int lo, int hi) { return (float)scaled(lo, hi); }

static const double kSpecial[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0x1p-1074, -0x1p-1074, 0x1p-1022,
                                  0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 3.0, 0.1, 1e-300, 1e300};
static const float kSpecialF[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 0x1p-149f, -0x1p-149f, 0x1p-126f,
                                  0x1.fffffep127f, -0x1.fffffep127f, 3.0f, 0.1f, 1e-30f, 1e30f};
static const int kModes[] = {FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
static const dir kDirs[] = {dir::down, dir::up, dir::zero};
static const char* kNames[] = {"rd", "ru", "rz"};

static long checks = 0, failures = 0;
template <typename T> static bool same(T a, T b) {
  if (a != a && b != b) return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <typename T> static void report(const char* op, int m, T got, T want, T a, T b, T c) {
  ++checks;
  if (same(got, want)) return;
  if (++failures <= 20)
    std::printf("MISS %s_%s(%a, %a, %a) = %a, want %a\n", op, kNames[m], (double)a, (double)b, (double)c, (double)got, (double)want);
}

// the oracle: the operation in the FPU's rounding mode
template <typename T> static T o_add(T a, T b, int mode) { volatile T x = a, y = b; std::fesetround(mode); volatile T r = x + y; std::fesetround(FE_TONEAREST); return r; }
template <typename T> static T o_mul(T a, T b, int mode) { volatile T x = a, y = b; std::fesetround(mode); volatile T r = x * y; std::fesetround(FE_TONEAREST); return r; }
template <typename T> static T o_div(T a, T b, int mode) { volatile T x = a, y = b; std::fesetround(mode); volatile T r = x / y; std::fesetround(FE_TONEAREST); return r; }
template <typename T> static T o_sqrt(T a, int mode) { volatile T x = a; std::fesetround(mode); volatile T r = std::sqrt((T)x); std::fesetround(FE_TONEAREST); return r; }
template <typename T> static T o_fma(T a, T b, T c, int mode) { volatile T x = a, y = b, z = c; std::fesetround(mode); volatile T r = std::fma((T)x, (T)y, (T)z); std::fesetround(FE_TONEAREST); return r; }

template <typename T> static void check_all(T a, T b, T c) {
  for (int m = 0; m < 3; ++m) {
    dir d = kDirs[m];
    int mode = kModes[m];
    if constexpr (sizeof(T) == 4) {
      report("__fadd", m, porter_rounding::addf(a, b, d), o_add(a, b, mode), a, b, c);
      report("__fsub", m, porter_rounding::addf(a, -b, d), o_add(a, -b, mode), a, b, c);
      report("__fmul", m, porter_rounding::mulf(a, b, d), o_mul(a, b, mode), a, b, c);
      report("__fdiv", m, porter_rounding::divf(a, b, d), o_div(a, b, mode), a, b, c);
      report("__frcp", m, porter_rounding::divf(1.0f, a, d), o_div(1.0f, a, mode), a, b, c);
      report("__fsqrt", m, porter_rounding::sqrtf_(a, d), o_sqrt(a, mode), a, b, c);
      report("__fmaf", m, porter_rounding::fmaf_(a, b, c, d), o_fma(a, b, c, mode), a, b, c);
    } else {
      report("__dadd", m, porter_rounding::add(a, b, d), o_add(a, b, mode), a, b, c);
      report("__dsub", m, porter_rounding::add(a, -b, d), o_add(a, -b, mode), a, b, c);
      report("__dmul", m, porter_rounding::mul(a, b, d), o_mul(a, b, mode), a, b, c);
      report("__ddiv", m, porter_rounding::div(a, b, d), o_div(a, b, mode), a, b, c);
      report("__drcp", m, porter_rounding::div(1.0, a, d), o_div(1.0, a, mode), a, b, c);
      report("__dsqrt", m, porter_rounding::sqrt_(a, d), o_sqrt(a, mode), a, b, c);
      report("__fma", m, porter_rounding::fma_(a, b, c, d), o_fma(a, b, c, mode), a, b, c);
    }
  }
}

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 200000;
  for (double a : kSpecial) for (double b : kSpecial) for (double c : kSpecial) check_all(a, b, c);
  for (float a : kSpecialF) for (float b : kSpecialF) for (float c : kSpecialF) check_all(a, b, c);
  for (long i = 0; i < n; ++i) {
    // random bit patterns
    check_all(any_double(), any_double(), any_double());
    check_all(any_float(), any_float(), any_float());
    // ordinary magnitudes, cancellation in sums and fmas
    double a = scaled(-40, 40), b = scaled(-40, 40);
    check_all(a, near(-a), -near(a * b));
    float af = scaledf(-20, 20), bf = scaledf(-20, 20);
    check_all(af, nearf(-af), -nearf(af * bf));
    // products and quotients near underflow and overflow, subnormal operands
    check_all(scaled(-600, -400), scaled(-700, -500), scaled(-1074, -900));
    check_all(scaled(400, 600), scaled(400, 620), -scaled(900, 1023));
    check_all(scaled(-1074, -1000), scaled(-60, 60), scaled(-1074, -1020));
    check_all(scaledf(-90, -50), scaledf(-90, -60), scaledf(-149, -120));
    check_all(scaledf(50, 80), scaledf(50, 80), -scaledf(100, 127));
    check_all(scaledf(-149, -126), scaledf(-30, 30), scaledf(-149, -125));
  }
  std::printf("%ld checks, %ld failures\n", checks, failures);
  return failures != 0;
}
