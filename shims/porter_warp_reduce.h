// porter shim: CUDA's warp reduce intrinsics (sm_80: __reduce_add_sync, __reduce_min_sync, __reduce_max_sync on
// int and unsigned, __reduce_and_sync, __reduce_or_sync, __reduce_xor_sync on unsigned), which no HIP up to 6.4 has.
// How this differs from CUDA: CUDA has one instruction; here a mask holding every lane of the wavefront (the 64-bit
// all-ones mask porter writes for CUDA's full-warp mask, or 0xffffffff on a 32-lane wavefront) is a butterfly of
// __shfl_xor (log2(wavefront) steps), and any other mask reads each member lane once (up to 64 shuffles). Every
// lane of the mask gets the result, as in CUDA; as in CUDA, every lane of the mask must be active and call it.
#pragma once
#include <hip/hip_runtime.h>

namespace porter_warp_reduce {
struct add { template <typename T> __device__ T operator()(T a, T b) const { return a + b; } };
struct min { template <typename T> __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
struct max { template <typename T> __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
struct bit_and { template <typename T> __device__ T operator()(T a, T b) const { return a & b; } };
struct bit_or { template <typename T> __device__ T operator()(T a, T b) const { return a | b; } };
struct bit_xor { template <typename T> __device__ T operator()(T a, T b) const { return a ^ b; } };

template <typename MaskT, typename T, typename Op>
__device__ inline T reduce(MaskT mask, T value, Op op) {
    const unsigned long long lanes = static_cast<unsigned long long>(mask);
    const unsigned long long whole = warpSize == 64 ? ~0ull : 0xffffffffull;
    if ((lanes & whole) == whole) {
        for (int offset = warpSize / 2; offset > 0; offset /= 2) value = op(value, __shfl_xor(value, offset));
        return value;
    }
    T result = value;
    bool first = true;
    for (unsigned long long rest = lanes & whole; rest != 0; rest &= rest - 1) {
        const T other = __shfl(value, __ffsll(static_cast<long long>(rest)) - 1);
        result = first ? other : op(result, other);
        first = false;
    }
    return result;
}
}  // namespace porter_warp_reduce

template <typename MaskT>
__device__ inline unsigned porter_reduce_add_sync(MaskT m, unsigned v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::add()); }
template <typename MaskT>
__device__ inline int porter_reduce_add_sync(MaskT m, int v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::add()); }
template <typename MaskT>
__device__ inline unsigned porter_reduce_min_sync(MaskT m, unsigned v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::min()); }
template <typename MaskT>
__device__ inline int porter_reduce_min_sync(MaskT m, int v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::min()); }
template <typename MaskT>
__device__ inline unsigned porter_reduce_max_sync(MaskT m, unsigned v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::max()); }
template <typename MaskT>
__device__ inline int porter_reduce_max_sync(MaskT m, int v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::max()); }
template <typename MaskT>
__device__ inline unsigned porter_reduce_and_sync(MaskT m, unsigned v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::bit_and()); }
template <typename MaskT>
__device__ inline unsigned porter_reduce_or_sync(MaskT m, unsigned v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::bit_or()); }
template <typename MaskT>
__device__ inline unsigned porter_reduce_xor_sync(MaskT m, unsigned v) { return porter_warp_reduce::reduce(m, v, porter_warp_reduce::bit_xor()); }
#define __reduce_add_sync porter_reduce_add_sync
#define __reduce_min_sync porter_reduce_min_sync
#define __reduce_max_sync porter_reduce_max_sync
#define __reduce_and_sync porter_reduce_and_sync
#define __reduce_or_sync porter_reduce_or_sync
#define __reduce_xor_sync porter_reduce_xor_sync
