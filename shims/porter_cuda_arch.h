// porter shim: PORTER_CUDA_ARCH, what the port's tests of CUDA's architecture number compare against
// (`#if __CUDA_ARCH__ >= 700` becomes `#if PORTER_CUDA_ARCH >= 700`; `#ifdef __CUDA_ARCH__` becomes a test of
// __HIP_DEVICE_COMPILE__ without it).
// How this differs from CUDA: CUDA sets __CUDA_ARCH__ to the SM version being compiled; here device code compares as
// 800 (Ampere) on every AMD target, the level of the features HIP offers on CDNA (double and 64-bit atomics, warp
// shuffles and votes, bf16, cooperative groups), so the branches written for sm_80 and older are taken. A branch for
// sm_90 or newer (TMA, wgmma, clusters) is not. Host code sees it undefined, as CUDA's host pass sees __CUDA_ARCH__.
// porter reports every such comparison: check that the branch taken suits the target.
#pragma once
#if defined(__HIP_DEVICE_COMPILE__) && !defined(PORTER_CUDA_ARCH)
#define PORTER_CUDA_ARCH 800
#endif
