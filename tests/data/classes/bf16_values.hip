// Host check of porter_bf16.h's conversions: float -> bfloat16 with round to nearest even (__float2bfloat16),
// toward zero, up and down, against a reference that knows nothing of bit tricks: every one of the 65,536 bfloat16
// values, sorted by value, and a search for the neighbours of x (distances in double, exact here; infinity stands
// at 2^128 for rounding to nearest, as IEEE 754 says). Also bfloat16 -> float for every value, and __hadd/__hmul
// against the reference's rounding of the float result (float's 24 bits make that double rounding harmless, so the
// reference is the correctly rounded sum and product). Prints "<checks> checks, <failures> failures" and the first
// misses.
#include "porter_bf16.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static uint64_t state = 0x243F6A8885A308D3ull;
static uint64_t next() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
static float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint32_t bits_of(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

struct Entry { double value; uint16_t bits; };
static std::vector<Entry> table;  // every non-NaN bfloat16, ascending; -0 before +0

static void build_table() {
    for (uint32_t b = 0; b < 65536; ++b) {
        const float f = from_bits(b << 16);
        if (std::isnan(f)) continue;
        table.push_back({(double)f, (uint16_t)b});
    }
    std::sort(table.begin(), table.end(), [](const Entry& a, const Entry& b) {
        if (a.value != b.value) return a.value < b.value;
        return a.bits > b.bits;  // -0 (0x8000) first
    });
}

// mode: 0 nearest even, 1 toward zero, 2 up, 3 down
static uint16_t reference(float x, int mode) {
    if (std::isnan(x)) return 0x7fff;
    const uint32_t u = bits_of(x);
    if ((u & 0xffffu) == 0) return (uint16_t)(u >> 16);  // representable (zeros and infinities included)
    const double v = x;
    // neighbours: largest entry below v and smallest above (v is not representable, so both differ from it)
    auto hi = std::upper_bound(table.begin(), table.end(), v, [](double a, const Entry& e) { return a < e.value; });
    const Entry below = *(hi - 1), above = *hi;
    const bool negative = (u >> 31) != 0;
    auto zero_sign = [&](const Entry& e) -> uint16_t { return e.value == 0.0 ? (negative ? 0x8000 : 0x0000) : e.bits; };
    switch (mode) {
        case 1: return zero_sign(negative ? above : below);
        case 2: return zero_sign(above);
        case 3: return zero_sign(below);
        default: {
            const double lo = std::isinf(below.value) ? -0x1p128 : below.value;
            const double up = std::isinf(above.value) ? 0x1p128 : above.value;
            const double dl = v - lo, du = up - v;
            if (dl < du) return zero_sign(below);
            if (du < dl) return zero_sign(above);
            return zero_sign((below.bits & 1) == 0 ? below : above);
        }
    }
}

static long checks = 0, failures = 0;
static void expect(const char* what, float x, uint16_t got, uint16_t want) {
    ++checks;
    if (got == want) return;
    if (++failures <= 20) std::printf("MISS %s(%a [0x%08x]) = 0x%04x, want 0x%04x\n", what, x, bits_of(x), got, want);
}

static void check_conversions(float x) {
#if HIP_VERSION >= 50700000
    // HIP's own __float2bfloat16 (5.7 on) keeps a NaN's payload where CUDA returns 0x7fff: only NaN-ness is checked
    if (std::isnan(x)) {
        const uint16_t got = __bfloat16_as_ushort(__float2bfloat16(x));
        expect("rn", x, (got & 0x7fffu) > 0x7f80u ? 0x7fff : got, 0x7fff);
    } else
#endif
    expect("rn", x, __bfloat16_as_ushort(__float2bfloat16(x)), reference(x, 0));
    expect("rz", x, __bfloat16_as_ushort(__float2bfloat16_rz(x)), reference(x, 1));
    expect("ru", x, __bfloat16_as_ushort(__float2bfloat16_ru(x)), reference(x, 2));
    expect("rd", x, __bfloat16_as_ushort(__float2bfloat16_rd(x)), reference(x, 3));
}

int main(int argc, char** argv) {
    long n = 0;  // digits by hand: strtol would tie a binary from ROCm 6.4's root to that root's newer libc
    for (const char* c = argc > 1 ? argv[1] : "100000"; *c >= '0' && *c <= '9'; ++c) n = n * 10 + (*c - '0');
    build_table();
    for (uint32_t b = 0; b < 65536; ++b) {  // bfloat16 -> float, every value, and back
        const float f = __bfloat162float(__ushort_as_bfloat16((unsigned short)b));
        ++checks;
        if (bits_of(f) != (b << 16) && !std::isnan(f)) { ++failures; std::printf("MISS to_float 0x%04x\n", b); }
        if (!std::isnan(f)) check_conversions(f);
    }
    const float special[] = {0x1.fefffep127f, 0x1.ff0000p127f, 0x1.ff0002p127f, 0x1p-149f, -0x1p-149f, 0x1.008p-126f,
                             0x1.018p0f, 0x1.008p0f, 0x1.0080002p0f, -0x1.018p0f, INFINITY, -INFINITY, NAN, 0.0f, -0.0f};
    for (float x : special) check_conversions(x);
    for (long i = 0; i < n; ++i) {
        const uint32_t u = (uint32_t)(next() >> 32);
        check_conversions(from_bits(u));
        check_conversions(from_bits((u & 0xffff0000u) | 0x8000u));  // exact ties
        check_conversions(from_bits((u & 0xffff0000u) | ((u & 1) ? 0x7fffu : 0x8001u)));  // beside a tie
    }
    for (long i = 0; i < n; ++i) {  // arithmetic
        const __hip_bfloat16 a = __ushort_as_bfloat16((unsigned short)(next() >> 48));
        const __hip_bfloat16 b = __ushort_as_bfloat16((unsigned short)(next() >> 48));
        const float fa = __bfloat162float(a), fb = __bfloat162float(b);
        if (std::isnan(fa) || std::isnan(fb)) continue;
        expect("hadd", fa, __bfloat16_as_ushort(__hadd(a, b)), reference(fa + fb, 0));
        expect("hmul", fa, __bfloat16_as_ushort(__hmul(a, b)), reference(fa * fb, 0));
    }
    std::printf("%ld checks, %ld failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
