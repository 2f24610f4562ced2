// porter's WMMA shim (porter/resources/shims/porter_wmma.h) against CUDA's own nvcuda::wmma, on one NVIDIA GPU.
// Both run the same kernel: 4 warps per block, each warp its own tiles (so the shim's 32-lane groups are checked to
// stay apart), every shape and element type the shim provides, every operand layout, the accumulator loaded and
// stored in both memory layouts, scaled element-wise between load and mma_sync. Pass 1 uses small integers (every
// sum exact in every type: the results must be bit-identical), pass 2 random values in [-1, 1] (agreement to the
// accumulator type's rounding), pass 3 the integer satf saturation. Then wmma::__float_to_tf32 on 2^24 bit patterns
// (every exponent, mantissas around the rounding point, infinities and NaNs), which must agree bit for bit.
//   nvcc -std=c++17 -arch=sm_90 -I porter/resources/shims -o cmp scripts/wmma_reference/cmp.cu && ./cmp
#include <mma.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <type_traits>
#include <vector>
#define PORTER_WMMA_NAMESPACE porter_ref
#include "porter_wmma.h"

constexpr int LD = 48, TILE = LD * LD, WARPS = 4;

// float as the operand type stands for precision::tf32 of either namespace
template <typename T, typename Tf32> using operand_t = typename std::conditional<std::is_same<T, float>::value, Tf32, T>::type;

#define DEFINE_KERNEL(NS)                                                                                           \
    template <int M, int N, int K, typename TA, typename TC, typename LA, typename LB>                              \
    __global__ void run_##NS(const TA* a, const TA* b, const TC* c, TC* d, int c_col, int d_col, bool satf) {       \
        using namespace NS;                                                                                         \
        using OP = operand_t<TA, wmma::precision::tf32>;                                                            \
        using LA2 = typename std::conditional<std::is_same<LA, porter_ref::wmma::row_major>::value,                 \
                                              wmma::row_major, wmma::col_major>::type;                              \
        using LB2 = typename std::conditional<std::is_same<LB, porter_ref::wmma::row_major>::value,                 \
                                              wmma::row_major, wmma::col_major>::type;                              \
        const int w = threadIdx.x / 32;                                                                             \
        wmma::fragment<wmma::matrix_a, M, N, K, OP, LA2> fa;                                                        \
        wmma::fragment<wmma::matrix_b, M, N, K, OP, LB2> fb;                                                        \
        wmma::fragment<wmma::accumulator, M, N, K, TC> fc;                                                          \
        wmma::load_matrix_sync(fa, a + w * TILE, LD);                                                               \
        wmma::load_matrix_sync(fb, b + w * TILE, LD);                                                               \
        wmma::load_matrix_sync(fc, c + w * TILE, LD, c_col ? wmma::mem_col_major : wmma::mem_row_major);            \
        for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = fc.x[i] + fc.x[i];                                      \
        if constexpr (std::is_integral<TA>::value) wmma::mma_sync(fc, fa, fb, fc, satf);                            \
        else wmma::mma_sync(fc, fa, fb, fc);                                                                        \
        wmma::store_matrix_sync(d + w * TILE, fc, LD, d_col ? wmma::mem_col_major : wmma::mem_row_major);           \
    }
DEFINE_KERNEL(nvcuda)
DEFINE_KERNEL(porter_ref)

template <typename T> T from_float(float v) { return static_cast<T>(v); }
template <> __half from_float<__half>(float v) { return __float2half(v); }
template <> __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <typename T> double to_double(T v) { return static_cast<double>(v); }
template <> double to_double<__half>(__half v) { return __half2float(v); }

int failures = 0, configurations = 0;

template <int M, int N, int K, typename TA, typename TC, typename LA, typename LB>
void check(const char* name, const char* la, const char* lb) {
    const size_t n = size_t(WARPS) * TILE;
    TA *a, *b;
    TC *c, *d1, *d2;
    cudaMallocManaged(&a, n * sizeof(TA));
    cudaMallocManaged(&b, n * sizeof(TA));
    cudaMallocManaged(&c, n * sizeof(TC));
    cudaMallocManaged(&d1, n * sizeof(TC));
    cudaMallocManaged(&d2, n * sizeof(TC));
    std::mt19937 rng(12345);
    const bool integral = std::is_integral<TA>::value;
    for (int pass = 0; pass < 3; ++pass) {
        if (pass == 2 && !integral) break;
        for (size_t i = 0; i < n; ++i) {
            float va, vb, vc;
            if (pass == 0) {
                va = float(int(rng() % 7) - 3), vb = float(int(rng() % 7) - 3), vc = float(int(rng() % 9) - 4);
                if (std::is_unsigned<TA>::value) va = std::fabs(va), vb = std::fabs(vb);
            } else if (pass == 1) {
                std::uniform_real_distribution<float> u(-1.f, 1.f);
                va = u(rng), vb = u(rng), vc = u(rng);
                if (integral) va = std::floor(va * 127), vb = std::floor(vb * 127), vc = std::floor(vc * 1e6f);
                if (std::is_unsigned<TA>::value) va = std::fabs(va) * 2, vb = std::fabs(vb) * 2;
            } else {  // saturation: C doubled to near INT_MAX (warps 0, 1) or INT_MIN (2, 3), products pushing past it
                const bool low = !std::is_unsigned<TA>::value && i >= n / 2;
                va = std::is_unsigned<TA>::value ? 255 : low ? -127 : 127, vb = va < 0 ? -va : va;
                vc = low ? -1073700000.f : 1073700000.f;
                vb = low ? 127 : vb;
            }
            a[i] = from_float<TA>(va), b[i] = from_float<TA>(vb), c[i] = from_float<TC>(vc);
            d1[i] = d2[i] = from_float<TC>(0);
        }
        for (int layouts = 0; layouts < 4; ++layouts) {
            const int c_col = layouts & 1, d_col = layouts >> 1;
            const bool satf = pass == 2;
            run_nvcuda<M, N, K, TA, TC, LA, LB><<<1, 32 * WARPS>>>(a, b, c, d1, c_col, d_col, satf);
            run_porter_ref<M, N, K, TA, TC, LA, LB><<<1, 32 * WARPS>>>(a, b, c, d2, c_col, d_col, satf);
            if (cudaDeviceSynchronize() != cudaSuccess) {
                std::printf("FAIL %s a=%s b=%s: %s\n", name, la, lb, cudaGetErrorString(cudaGetLastError()));
                std::exit(1);
            }
            int differ = 0, saturated = 0;
            double worst = 0;
            for (size_t i = 0; i < n; ++i) {
                const double x = to_double(d1[i]), y = to_double(d2[i]);
                if (x != y) ++differ;
                saturated += x == 2147483647.0 || x == -2147483648.0;
                worst = std::fmax(worst, std::fabs(x - y) / std::fmax(1.0, std::fabs(x)));
            }
            // exact passes must agree bit for bit; random floats to the accumulator's rounding (half: 2^-10 of
            // a sum of up to 16 products of magnitude <= 1, tf32 and bf16 operands are rounded alike on both sides)
            const double allowed = pass == 1 && !integral ? (std::is_same<TC, __half>::value ? 1e-2 : 1e-5) : 0;
            const bool ok = worst <= allowed;
            ++configurations;
            failures += !ok;
            std::printf("%s %s a=%s b=%s c=%s d=%s pass=%d: %d of %zu differ, worst relative %.3g, %d saturated\n",
                        ok ? "PASS" : "FAIL", name, la, lb, c_col ? "col" : "row", d_col ? "col" : "row", pass, differ,
                        n, worst, saturated);
        }
    }
    cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(d1), cudaFree(d2);
}

template <int M, int N, int K, typename TA, typename TC>
void check_all(const char* name) {
    using R = porter_ref::wmma::row_major;
    using C = porter_ref::wmma::col_major;
    check<M, N, K, TA, TC, R, R>(name, "row", "row");
    check<M, N, K, TA, TC, R, C>(name, "row", "col");
    check<M, N, K, TA, TC, C, R>(name, "col", "row");
    check<M, N, K, TA, TC, C, C>(name, "col", "col");
}

__global__ void tf32_both(const unsigned* in, unsigned* cuda, unsigned* shim, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = __uint_as_float(in[i]);
    cuda[i] = __float_as_uint(nvcuda::wmma::__float_to_tf32(v));
    shim[i] = __float_as_uint(porter_ref::wmma::__float_to_tf32(v));
}

void check_tf32_rounding() {
    const int n = 1 << 24;
    unsigned *in, *cuda, *shim;
    cudaMallocManaged(&in, n * sizeof(unsigned));
    cudaMallocManaged(&cuda, n * sizeof(unsigned));
    cudaMallocManaged(&shim, n * sizeof(unsigned));
    std::mt19937 rng(7);
    for (int i = 0; i < n; ++i) {
        // sign, every exponent (0 and 255 included), low 14 mantissa bits near the rounding point, random high bits
        const unsigned sign = (i & 1u) << 31, exponent = (i >> 1) & 0xffu, low = (i >> 9) & 0x3fffu;
        in[i] = sign | exponent << 23 | ((rng() & 0x1ffu) << 14) | low;
    }
    tf32_both<<<n / 256, 256>>>(in, cuda, shim, n);
    cudaDeviceSynchronize();
    int differ = 0;
    for (int i = 0; i < n; ++i) {
        const bool nan = (cuda[i] & 0x7f800000u) == 0x7f800000u && (cuda[i] & 0x7fffffu) != 0;
        const bool shim_nan = (shim[i] & 0x7f800000u) == 0x7f800000u && (shim[i] & 0x7fffffu) != 0;
        if (nan ? !shim_nan : cuda[i] != shim[i]) {
            if (differ < 5) std::printf("  tf32 %08x: CUDA %08x, shim %08x\n", in[i], cuda[i], shim[i]);
            ++differ;
        }
    }
    ++configurations;
    failures += differ != 0;
    std::printf("%s __float_to_tf32: %d of %d bit patterns differ (NaN as any NaN)\n", differ ? "FAIL" : "PASS", differ, n);
    cudaFree(in), cudaFree(cuda), cudaFree(shim);
}

int main() {
    check_all<16, 16, 16, __half, float>("m16n16k16 half->float");
    check_all<16, 16, 16, __half, __half>("m16n16k16 half->half");
    check_all<32, 8, 16, __half, float>("m32n8k16 half->float");
    check_all<8, 32, 16, __half, __half>("m8n32k16 half->half");
    check_all<16, 16, 16, __nv_bfloat16, float>("m16n16k16 bf16->float");
    check_all<32, 8, 16, __nv_bfloat16, float>("m32n8k16 bf16->float");
    check_all<8, 32, 16, __nv_bfloat16, float>("m8n32k16 bf16->float");
    check_all<16, 16, 16, signed char, int>("m16n16k16 s8->int");
    check_all<32, 8, 16, unsigned char, int>("m32n8k16 u8->int");
    check_all<8, 32, 16, signed char, int>("m8n32k16 s8->int");
    check_all<16, 16, 8, float, float>("m16n16k8 tf32->float");
    check_all<8, 8, 4, double, double>("m8n8k4 double->double");
    check_tf32_rounding();
    std::printf("%s: %d of %d configurations differ\n", failures ? "FAIL" : "PASS", failures, configurations);
    return failures != 0;
}
