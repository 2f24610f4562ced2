// porter shim: atomicAdd on 16-bit floats (__half and __half2; __hip_bfloat16 and __hip_bfloat162 from ROCm 5.7,
// where HIP's hip_bf16.h defines them; porter_bf16.h brings its own before that), which CUDA has (sm_60 on) and HIP
// up to 6.4 does not ("no matching function for call to 'atomicAdd'").
// How they differ from CUDA: each is a compare-and-swap loop on the aligned 32-bit word that holds the value, and the
// sum is rounded as __hadd/__hadd2 round; a __half2/__hip_bfloat162 add is atomic for the whole pair (CUDA only
// promises each half separately). Under contention they are slower than CUDA's hardware atomics.
#pragma once
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION >= 50700000
#include <hip/hip_bf16.h>
#endif

namespace porter_half_atomics {
// replaces the 16 bits at `address` with op(old) inside its 32-bit word; returns the old 16 bits
template <typename Op>
__device__ inline unsigned short update16(void* address, Op op) {
    const uintptr_t at = reinterpret_cast<uintptr_t>(address);
    unsigned int* word = reinterpret_cast<unsigned int*>(at & ~uintptr_t(3));
    const unsigned int shift = (at & 2) ? 16u : 0u;
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        const unsigned short bits = static_cast<unsigned short>((assumed >> shift) & 0xffffu);
        const unsigned int next = (assumed & ~(0xffffu << shift)) | (static_cast<unsigned int>(op(bits)) << shift);
        old = atomicCAS(word, assumed, next);
    } while (old != assumed);
    return static_cast<unsigned short>((old >> shift) & 0xffffu);
}
// replaces the aligned 32 bits at `address` with op(old); returns the old bits
template <typename Op>
__device__ inline unsigned int update32(void* address, Op op) {
    unsigned int* word = static_cast<unsigned int*>(address);
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        old = atomicCAS(word, assumed, op(assumed));
    } while (old != assumed);
    return old;
}
template <typename To, typename From>
__device__ inline To bit_cast(From from) {
    static_assert(sizeof(To) == sizeof(From), "same size");
    To to;
    __builtin_memcpy(&to, &from, sizeof(To));
    return to;
}
}  // namespace porter_half_atomics

__device__ inline __half atomicAdd(__half* address, __half val) {
    using namespace porter_half_atomics;
    return __ushort_as_half(update16(address, [val](unsigned short old) {
        return __half_as_ushort(__hadd(__ushort_as_half(old), val));
    }));
}
__device__ inline __half2 atomicAdd(__half2* address, __half2 val) {
    using namespace porter_half_atomics;
    return bit_cast<__half2>(update32(address, [val](unsigned int old) {
        return bit_cast<unsigned int>(__hadd2(bit_cast<__half2>(old), val));
    }));
}
#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION >= 50700000
__device__ inline __hip_bfloat16 atomicAdd(__hip_bfloat16* address, __hip_bfloat16 val) {
    using namespace porter_half_atomics;
    return __ushort_as_bfloat16(update16(address, [val](unsigned short old) {
        return __bfloat16_as_ushort(__hadd(__ushort_as_bfloat16(old), val));
    }));
}
__device__ inline __hip_bfloat162 atomicAdd(__hip_bfloat162* address, __hip_bfloat162 val) {
    using namespace porter_half_atomics;
    return bit_cast<__hip_bfloat162>(update32(address, [val](unsigned int old) {
        return bit_cast<unsigned int>(__hadd2(bit_cast<__hip_bfloat162>(old), val));
    }));
}
#endif
