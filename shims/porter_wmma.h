// porter shim: CUDA's warp matrix API (<mma.h>, nvcuda::wmma) on ordinary lanes, for a HIP that has no rocWMMA.
// Every 32 consecutive lanes (a CUDA warp: threads threadIdx / 32 of a block, half of a 64-lane wavefront on CDNA,
// a whole wavefront on RDNA) hold one fragment between them, as CUDA's warp does, so code that gives each warp its
// own tile (warpId = threadIdx.x / 32) keeps its meaning. mma_sync gathers the operands it needs with cross-lane
// shuffles inside those 32 lanes and multiplies on the vector ALUs.
// How it differs from CUDA:
// - No matrix cores: correct but slow (a 16x16x16 mma_sync is 144 shuffles and 128 fused multiply-adds per lane).
//   For speed, port the tiles to rocWMMA or the __builtin_amdgcn_mfma_* builtins (porter's report says where).
// - Products are summed in float (double for double, int for 8-bit integers) in k order and rounded to the
//   accumulator type once per mma_sync; tensor cores round differently, so results agree to rounding only.
//   precision::tf32 operands are truncated to tf32 (10 mantissa bits) as the tensor cores read them.
// - Elements are laid out across the lanes differently from CUDA (which documents no layout either): element-wise
//   work on fragments of one shape and use (an accumulator's x[i] scaled by alpha) is fine, mapping an
//   accumulator's x[i] onto a matrix_a fragment's is not. A matrix_a/matrix_b fragment holds M*K/32 or K*N/32
//   elements per lane (CUDA's half fragments hold 16, with copies).
// - Shapes: m16n16k16, m32n8k16, m8n32k16 (__half, bfloat16, signed/unsigned char), m16n16k8 (precision::tf32),
//   m8n8k4 (double). The sub-byte experimental types (u4, s4, b1; bmma_sync) are not provided.
#pragma once
#include <cstdint>
#include <type_traits>
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#define PORTER_WMMA_LANE() (static_cast<int>(__lane_id()) & 31)
#define PORTER_WMMA_SHFL_32(v, src) __shfl(v, src, 32)
#else  // CUDA: lets porter check the shim against CUDA's own WMMA
#include <cuda_fp16.h>
#define PORTER_WMMA_LANE() (static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31)
#define PORTER_WMMA_SHFL_32(v, src) __shfl_sync(0xffffffffu, v, src, 32)
#endif

#ifndef PORTER_WMMA_NAMESPACE
#define PORTER_WMMA_NAMESPACE nvcuda
#endif

namespace PORTER_WMMA_NAMESPACE {
namespace wmma {

struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
}  // namespace precision

namespace porter_detail {
template <typename C>
__device__ inline C shfl(C v, int src) { return PORTER_WMMA_SHFL_32(v, src); }
// the type a fragment stores (tf32 lives in a float) and the type its products are summed in
template <typename T> struct traits { using storage = T; using compute = float; };
template <> struct traits<precision::tf32> { using storage = float; using compute = float; };
template <> struct traits<double> { using storage = double; using compute = double; };
template <> struct traits<signed char> { using storage = signed char; using compute = int; };
template <> struct traits<unsigned char> { using storage = unsigned char; using compute = int; };
template <> struct traits<int> { using storage = int; using compute = int; };

template <typename C, typename S>
__device__ inline C widen(const S& v) { return static_cast<C>(static_cast<float>(v)); }
template <> __device__ inline float widen<float, float>(const float& v) { return v; }
template <> __device__ inline double widen<double, double>(const double& v) { return v; }
template <> __device__ inline int widen<int, signed char>(const signed char& v) { return v; }
template <> __device__ inline int widen<int, unsigned char>(const unsigned char& v) { return v; }
template <> __device__ inline int widen<int, int>(const int& v) { return v; }
template <> __device__ inline float widen<float, __half>(const __half& v) { return __half2float(v); }

template <typename S, typename C>
__device__ inline S narrow(const C& v) { return static_cast<S>(v); }
template <> __device__ inline __half narrow<__half, float>(const float& v) { return __float2half(v); }

// the tensor cores read a tf32 operand's sign, exponent and top 10 mantissa bits
__device__ inline float tf32_truncate(float v) { return __uint_as_float(__float_as_uint(v) & 0xffffe000u); }

// CUDA's satf for floating-point accumulators: infinities become the largest finite value, NaN becomes 0
template <typename S, typename C>
__device__ inline S saturate_finite(S v, std::true_type /* integral: saturated while summing */) { return v; }
template <typename S, typename C>
__device__ inline S saturate_finite(S v, std::false_type) {
    const C w = widen<C, S>(v);
    if (w != w) return narrow<S, C>(C(0));
    if (w - w != w - w) return narrow<S, C>(w > 0 ? C(std::is_same<S, __half>::value ? 65504.0f : 3.402823466e38f)
                                                  : C(std::is_same<S, __half>::value ? -65504.0f : -3.402823466e38f));
    return v;
}

// elements per lane of each fragment kind, for a shape M x N x K
template <typename Use, int M, int N, int K> struct count;
template <int M, int N, int K> struct count<matrix_a, M, N, K> { static constexpr int value = M * K / 32; };
template <int M, int N, int K> struct count<matrix_b, M, N, K> { static constexpr int value = K * N / 32; };
template <int M, int N, int K> struct count<accumulator, M, N, K> { static constexpr int value = M * N / 32; };
}  // namespace porter_detail

// Lane l holds elements [l*E, (l+1)*E) of: matrix_a's row-major order, matrix_b's column-major order, the
// accumulator's row-major order (E elements per lane; the layout tag says only how memory is read and written).
template <typename Use, int M, int N, int K, typename T, typename Layout = void>
class fragment {
    static_assert(M * N % 32 == 0 && M * K % 32 == 0 && K * N % 32 == 0, "porter_wmma.h: unsupported WMMA shape");

  public:
    using element_type = typename porter_detail::traits<T>::storage;
    using storage_element_type = element_type;
    enum { num_elements = porter_detail::count<Use, M, N, K>::value, num_storage_elements = num_elements };
    element_type x[num_elements];
};

template <typename Use, int M, int N, int K, typename T, typename Layout, typename V>
__device__ inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f, const V& value) {
    using S = typename fragment<Use, M, N, K, T, Layout>::element_type;
    const S v = static_cast<S>(value);
#pragma unroll
    for (int i = 0; i < f.num_elements; ++i) f.x[i] = v;
}

// matrix_a and matrix_b: element idx of a lane lies at (idx / K, idx % K) of A (row, k) or of B (column, k); k runs
// along memory for a row-major A and a column-major B
template <typename Use, int M, int N, int K, typename T, typename Layout, typename P>
__device__ inline typename std::enable_if<!std::is_same<Use, accumulator>::value>::type
load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f, const P* p, unsigned ldm) {
    constexpr bool k_contiguous = std::is_same<Layout, row_major>::value == std::is_same<Use, matrix_a>::value;
    const int lane = PORTER_WMMA_LANE();
#pragma unroll
    for (int s = 0; s < f.num_elements; ++s) {
        const int idx = lane * f.num_elements + s, outer = idx / K, k = idx % K;
        f.x[s] = k_contiguous ? p[outer * ldm + k] : p[k * ldm + outer];
    }
}

template <int M, int N, int K, typename T, typename P>
__device__ inline void load_matrix_sync(fragment<accumulator, M, N, K, T>& f, const P* p, unsigned ldm,
                                        layout_t layout) {
    const int lane = PORTER_WMMA_LANE();
#pragma unroll
    for (int e = 0; e < f.num_elements; ++e) {
        const int idx = lane * f.num_elements + e, r = idx / N, c = idx % N;
        f.x[e] = layout == mem_col_major ? p[c * ldm + r] : p[r * ldm + c];
    }
}

template <int M, int N, int K, typename T, typename P>
__device__ inline void store_matrix_sync(P* p, const fragment<accumulator, M, N, K, T>& f, unsigned ldm,
                                         layout_t layout) {
    const int lane = PORTER_WMMA_LANE();
#pragma unroll
    for (int e = 0; e < f.num_elements; ++e) {
        const int idx = lane * f.num_elements + e, r = idx / N, c = idx % N;
        (layout == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]) = f.x[e];
    }
}

template <int M, int N, int K, typename TA, typename LA, typename TB, typename LB, typename TC>
__device__ inline void mma_sync(fragment<accumulator, M, N, K, TC>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
                                const fragment<matrix_b, M, N, K, TB, LB>& b,
                                const fragment<accumulator, M, N, K, TC>& c, bool satf = false) {
    using C = typename porter_detail::traits<TA>::compute;
    using SA = typename fragment<matrix_a, M, N, K, TA, LA>::element_type;
    using SB = typename fragment<matrix_b, M, N, K, TB, LB>::element_type;
    using SC = typename fragment<accumulator, M, N, K, TC>::element_type;
    constexpr int EA = fragment<matrix_a, M, N, K, TA, LA>::num_elements;
    constexpr int EB = fragment<matrix_b, M, N, K, TB, LB>::num_elements;
    constexpr int EC = fragment<accumulator, M, N, K, TC>::num_elements;
    // a lane's accumulator elements lie in one row, and its operand slots repeat along k: every shuffle below
    // reads the same slot in all lanes
    static_assert(K % EA == 0 && K % EB == 0 && N % EC == 0, "porter_wmma.h: unsupported WMMA shape");
    constexpr bool tf32 = std::is_same<TA, precision::tf32>::value;
    const int lane = PORTER_WMMA_LANE();
    const int r = lane * EC / N, c0 = lane * EC % N;
    C sum[EC];
#pragma unroll
    for (int e = 0; e < EC; ++e) sum[e] = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        C av = porter_detail::shfl(porter_detail::widen<C, SA>(a.x[k % EA]), (r * K + k) / EA);
        if (tf32) av = porter_detail::tf32_truncate(av);
        const C bk = porter_detail::widen<C, SB>(b.x[k % EB]);
#pragma unroll
        for (int e = 0; e < EC; ++e) {
            C bv = porter_detail::shfl(bk, ((c0 + e) * K + k) / EB);
            if (tf32) bv = porter_detail::tf32_truncate(bv);
            sum[e] += av * bv;
        }
    }
#pragma unroll
    for (int e = 0; e < EC; ++e) {
        if (std::is_integral<C>::value && satf) {  // integer products: saturate the 32-bit sum, as CUDA's satf does
            const long long wide = static_cast<long long>(sum[e]) + static_cast<long long>(c.x[e]);
            d.x[e] = static_cast<SC>(wide > 2147483647LL ? 2147483647LL : wide < -2147483648LL ? -2147483648LL : wide);
        } else {
            d.x[e] = porter_detail::narrow<SC, C>(sum[e] + porter_detail::widen<C, SC>(c.x[e]));
            if (satf) d.x[e] = porter_detail::saturate_finite<SC, C>(d.x[e], std::is_integral<C>{});
        }
    }
}

// CUDA's wmma::__float_to_tf32: round to nearest (ties away from zero) at 10 mantissa bits, kept in a float;
// infinities and NaNs are cut to 10 mantissa bits (on an H200 a NaN whose payload lies below them becomes infinity)
__device__ inline float __float_to_tf32(float v) {
    const unsigned bits = __float_as_uint(v);
    return __uint_as_float(((bits & 0x7f800000u) == 0x7f800000u ? bits : bits + 0x1000u) & 0xffffe000u);
}

}  // namespace wmma
}  // namespace PORTER_WMMA_NAMESPACE
