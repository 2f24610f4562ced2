// porter shim: the scoped atomics of CUDA that HIP lacks: every atomic*_block (none in HIP 5.2 or 6.4),
// atomicInc_system and atomicDec_system (none in either), and atomicMin/atomicMax on long long, plain and
// _system (ROCm 5.2 lacks them; 6.4 has them).
//
// How this differs from CUDA: in results, not at all: each is a relaxed atomic read-modify-write, as CUDA's are,
// at workgroup scope for _block (a CUDA block is a HIP workgroup) and system scope for _system, through the
// same clang builtins HIP's own atomics use. Two things differ around them: system-scope atomics are coherent with
// the host and other GPUs only on fine-grained memory (hipHostMalloc's default, or managed memory on a system
// that makes it fine-grained); on coarse-grained memory they are only device-coherent, like plain atomics. And
// on gfx941 HIP replaces some atomics by CAS loops for a hardware erratum; this shim does not.
// All are templates constrained to CUDA's exact types: a HIP release that declares one of them itself wins
// overload resolution, so nothing is redefined and HIP's own is used.
#ifndef PORTER_SCOPED_ATOMICS_H
#define PORTER_SCOPED_ATOMICS_H

#include <hip/hip_runtime.h>
#include <type_traits>

namespace porter_atomics {
template <typename T> struct same { using type = T; };
template <typename T, typename... U> struct is_one_of : std::false_type {};
template <typename T, typename U, typename... R> struct is_one_of<T, U, R...>
    : std::integral_constant<bool, std::is_same<T, U>::value || is_one_of<T, R...>::value> {};
template <typename T, typename... U> using one_of = typename std::enable_if<is_one_of<T, U...>::value, int>::type;
}  // namespace porter_atomics

#define PORTER_ATOMIC_RMW(NAME, BUILTIN, SCOPE, ...)                                                         \
    template <typename T, porter_atomics::one_of<T, __VA_ARGS__> = 0>                                       \
    __device__ inline T NAME(T* address, typename porter_atomics::same<T>::type val) {                      \
        return BUILTIN(address, val, __ATOMIC_RELAXED, SCOPE);                                              \
    }

#define PORTER_ATOMIC_SCOPED(SUFFIX, SCOPE)                                                                  \
    PORTER_ATOMIC_RMW(atomicAdd##SUFFIX, __hip_atomic_fetch_add, SCOPE, int, unsigned int,                  \
                      unsigned long long, float, double)                                                    \
    PORTER_ATOMIC_RMW(atomicExch##SUFFIX, __hip_atomic_exchange, SCOPE, int, unsigned int,                  \
                      unsigned long long, float)                                                            \
    PORTER_ATOMIC_RMW(atomicMin##SUFFIX, __hip_atomic_fetch_min, SCOPE, int, unsigned int, long long,       \
                      unsigned long long)                                                                   \
    PORTER_ATOMIC_RMW(atomicMax##SUFFIX, __hip_atomic_fetch_max, SCOPE, int, unsigned int, long long,       \
                      unsigned long long)                                                                   \
    PORTER_ATOMIC_RMW(atomicAnd##SUFFIX, __hip_atomic_fetch_and, SCOPE, int, unsigned int, unsigned long long) \
    PORTER_ATOMIC_RMW(atomicOr##SUFFIX, __hip_atomic_fetch_or, SCOPE, int, unsigned int, unsigned long long) \
    PORTER_ATOMIC_RMW(atomicXor##SUFFIX, __hip_atomic_fetch_xor, SCOPE, int, unsigned int, unsigned long long) \
    template <typename T, porter_atomics::one_of<T, int, unsigned int> = 0>                                 \
    __device__ inline T atomicSub##SUFFIX(T* address, typename porter_atomics::same<T>::type val) {         \
        return __hip_atomic_fetch_add(address, static_cast<T>(0u - static_cast<unsigned int>(val)),         \
                                      __ATOMIC_RELAXED, SCOPE);                                             \
    }                                                                                                       \
    template <typename T, porter_atomics::one_of<T, int, unsigned int, unsigned long long> = 0>            \
    __device__ inline T atomicCAS##SUFFIX(T* address, typename porter_atomics::same<T>::type compare,       \
                                          typename porter_atomics::same<T>::type val) {                     \
        __hip_atomic_compare_exchange_strong(address, &compare, val, __ATOMIC_RELAXED, __ATOMIC_RELAXED,   \
                                             SCOPE);                                                        \
        return compare;                                                                                     \
    }

// CUDA's atomicInc/atomicDec: ((old >= val) ? 0 : old + 1) and ((old == 0 || old > val) ? val : old - 1),
// which is what the AMDGPU atomic inc/dec instructions compute.
#define PORTER_ATOMIC_INC_DEC(SUFFIX, SCOPE_NAME)                                                            \
    template <typename T, porter_atomics::one_of<T, unsigned int> = 0>                                      \
    __device__ inline T atomicInc##SUFFIX(T* address, typename porter_atomics::same<T>::type val) {         \
        return __builtin_amdgcn_atomic_inc32(address, val, __ATOMIC_RELAXED, SCOPE_NAME);                   \
    }                                                                                                       \
    template <typename T, porter_atomics::one_of<T, unsigned int> = 0>                                      \
    __device__ inline T atomicDec##SUFFIX(T* address, typename porter_atomics::same<T>::type val) {         \
        return __builtin_amdgcn_atomic_dec32(address, val, __ATOMIC_RELAXED, SCOPE_NAME);                   \
    }

PORTER_ATOMIC_SCOPED(_block, __HIP_MEMORY_SCOPE_WORKGROUP)
PORTER_ATOMIC_INC_DEC(_block, "workgroup")
PORTER_ATOMIC_INC_DEC(_system, "")
// long long min/max: missing from ROCm 5.2 (HIP's own, where present, wins over these templates)
PORTER_ATOMIC_RMW(atomicMin, __hip_atomic_fetch_min, __HIP_MEMORY_SCOPE_AGENT, long long)
PORTER_ATOMIC_RMW(atomicMax, __hip_atomic_fetch_max, __HIP_MEMORY_SCOPE_AGENT, long long)
PORTER_ATOMIC_RMW(atomicMin_system, __hip_atomic_fetch_min, __HIP_MEMORY_SCOPE_SYSTEM, long long)
PORTER_ATOMIC_RMW(atomicMax_system, __hip_atomic_fetch_max, __HIP_MEMORY_SCOPE_SYSTEM, long long)

#undef PORTER_ATOMIC_RMW
#undef PORTER_ATOMIC_SCOPED
#undef PORTER_ATOMIC_INC_DEC

#endif  // PORTER_SCOPED_ATOMICS_H
