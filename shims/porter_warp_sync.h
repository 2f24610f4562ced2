// porter shim: CUDA warp-synchronous intrinsics for HIP before ROCm 6.2.
//
// Provides __shfl_sync, __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync, __ballot_sync, __any_sync,
// __all_sync and __activemask on top of HIP's mask-less __shfl*/__ballot/__any/__all.
//
// How this differs from CUDA:
// - An AMD wavefront has 64 lanes on CDNA (gfx9), 32 on RDNA by default. Masks here are 64-bit.
// - The mask is NOT used to synchronise or to select participating lanes: AMD wavefronts execute in
//   lock-step, so the shuffles read from whichever lanes are active. Code that relies on a partial mask
//   to exclude lanes (divergent shuffles) must be reviewed by hand.
// - A 32-bit mask of all ones (CUDA's FULL_MASK 0xffffffff) means "the whole wavefront" here, so
//   __ballot_sync(0xffffffff, p) returns all 64 lanes' bits. Any other mask is zero-extended and ANDed into
//   the __ballot_sync result only.
// - __ballot_sync and __activemask return 64 bits: storing the result in a 32-bit unsigned drops lanes 32-63.
// - __any_sync/__all_sync ignore the mask (they vote over the active lanes).
// ROCm 6.2 and newer ship these builtins (with a 64-bit-mask static_assert); this header is then empty.
#ifndef PORTER_WARP_SYNC_H
#define PORTER_WARP_SYNC_H

#include <hip/hip_runtime.h>

#if !defined(HIP_VERSION) || HIP_VERSION < 60200000

template <typename MaskT>
__device__ inline unsigned long long porter_widen_mask(MaskT mask) {
    static_assert(sizeof(MaskT) == 4 || sizeof(MaskT) == 8, "porter_warp_sync.h: mask must be a 32- or 64-bit integer");
    if (sizeof(MaskT) == 4 && static_cast<unsigned int>(mask) == 0xffffffffu) return ~0ull;
    return static_cast<unsigned long long>(mask);
}

template <typename MaskT, typename T>
__device__ inline T __shfl_sync(MaskT mask, T var, int srcLane, int width = warpSize) {
    (void)mask;
    return __shfl(var, srcLane, width);
}

template <typename MaskT, typename T>
__device__ inline T __shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
    (void)mask;
    return __shfl_up(var, delta, width);
}

template <typename MaskT, typename T>
__device__ inline T __shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
    (void)mask;
    return __shfl_down(var, delta, width);
}

template <typename MaskT, typename T>
__device__ inline T __shfl_xor_sync(MaskT mask, T var, int laneMask, int width = warpSize) {
    (void)mask;
    return __shfl_xor(var, laneMask, width);
}

template <typename MaskT>
__device__ inline unsigned long long __ballot_sync(MaskT mask, int predicate) {
    return __ballot(predicate) & porter_widen_mask(mask);
}

template <typename MaskT>
__device__ inline int __any_sync(MaskT mask, int predicate) {
    (void)mask;
    return __any(predicate);
}

template <typename MaskT>
__device__ inline int __all_sync(MaskT mask, int predicate) {
    (void)mask;
    return __all(predicate);
}

__device__ inline unsigned long long __activemask() { return __ballot(1); }

#endif  // HIP_VERSION < 6.2
#endif  // PORTER_WARP_SYNC_H
