// porter shim: CUDA warp-synchronous intrinsics for HIP: HIP's own where it has them, else porter's.
//
// Provides __shfl_sync, __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync, __ballot_sync, __any_sync,
// __all_sync, __activemask, __match_any_sync and __match_all_sync. porter includes this header BEFORE the file's first HIP include, because:
// - ROCm 6.2 to 6.4 ship these builtins but declare them only when HIP_ENABLE_WARP_SYNC_BUILTINS is defined before
//   the first HIP header (hip/amd_detail/amd_warp_sync_functions.h, amd_warp_functions.h for __activemask). This
//   header defines it when no HIP header came first, so HIP's own builtins are used.
// - ROCm 7.0 and newer declare them by default (HIP_DISABLE_WARP_SYNC_BUILTINS turns them off).
// - Before ROCm 6.2, or where a HIP header was included before this one on 6.2-6.4 (too late to enable HIP's),
//   porter's versions below stand in, on top of HIP's mask-less __shfl*/__ballot/__any/__all.
//
// How this differs from CUDA:
// - An AMD wavefront has 64 lanes on CDNA (gfx9), 32 on RDNA by default. Masks are 64-bit.
// - HIP's builtins (6.2+) static_assert a 64-bit integer mask: a 32-bit CUDA mask (0xffffffff, `unsigned mask`)
//   does not compile; porter rewrites full-warp literals to 0xffffffffffffffffull and its warp-mask-64bit rule
//   casts the others. HIP's builtins honour the mask (the lanes named must all call with the same mask).
// - porter's stand-ins do NOT use the mask to synchronise or to select lanes: AMD wavefronts execute in
//   lock-step, so the shuffles read from whichever lanes are active. Code that relies on a partial mask to
//   exclude lanes (divergent shuffles) must be reviewed by hand. A 32-bit mask of all ones (CUDA's FULL_MASK)
//   means "the whole wavefront", so __ballot_sync(0xffffffff, p) returns all 64 lanes' bits; any other mask is
//   zero-extended and ANDed into the __ballot_sync result only. __any_sync/__all_sync ignore the mask.
// - __ballot_sync and __activemask return 64 bits: storing the result in a 32-bit unsigned drops lanes 32-63.
#ifndef PORTER_WARP_SYNC_H
#define PORTER_WARP_SYNC_H

// amd_warp_functions.h's guard: once it is defined, HIP has already decided whether to declare the builtins
#if !defined(HIP_ENABLE_WARP_SYNC_BUILTINS) && !defined(HIP_INCLUDE_HIP_AMD_DETAIL_WARP_FUNCTIONS_H)
#define HIP_ENABLE_WARP_SYNC_BUILTINS 1
#endif

#include <hip/hip_runtime.h>

#if !defined(HIP_VERSION) || HIP_VERSION < 60200000 || \
    (HIP_VERSION < 70000000 && !defined(HIP_ENABLE_WARP_SYNC_BUILTINS)) || \
    (HIP_VERSION >= 70000000 && defined(HIP_DISABLE_WARP_SYNC_BUILTINS))

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

// __match_any_sync/__match_all_sync: each lane of the mask compares its value with every other lane's (one shuffle
// per lane of the wavefront; HIP's own are builtins from 6.2)
template <typename MaskT, typename T>
__device__ inline unsigned long long __match_any_sync(MaskT mask, T value) {
    const unsigned long long lanes = porter_widen_mask(mask);
    unsigned long long same = 0;
    for (int lane = 0; lane < warpSize; ++lane) {
        const T other = __shfl(value, lane);
        if (((lanes >> lane) & 1ull) && other == value) same |= 1ull << lane;
    }
    return same;
}

template <typename MaskT, typename T>
__device__ inline unsigned long long __match_all_sync(MaskT mask, T value, int* pred) {
    const unsigned long long lanes = porter_widen_mask(mask);
    const bool all = (__match_any_sync(mask, value) & lanes) == (lanes & __ballot(1));
    *pred = all;
    return all ? lanes : 0ull;
}

#define PORTER_WARP_SYNC_STAND_INS 1  // porter's versions are in use (tests and reviewers can tell)
#endif  // no HIP warp-sync builtins
#endif  // PORTER_WARP_SYNC_H
