// porter shim: CUDA's cache-hinted loads and stores for every type (__ldca, __ldcg, __ldcs, __ldlu, __ldcv, __stwb,
// __stcg, __stcs, __stwt). CUDA overloads them for the built-in scalar and vector types; HIP has __ldcg/__ldcs
// for __half and __half2 only and none of the stores, so kernels that stream float4 or their own packed structs
// (`__ldcs(reinterpret_cast<const int4*>(p))`) do not build.
// How they differ from CUDA: the hints steer NVIDIA's caches only; here they are the plain accesses, which read and
// write the same values. __ldcv ("fetch again, do not cache") is a relaxed atomic load for scalars of 1 to 8 bytes,
// so that it does not return a stale cached value; for other types it is a plain load. The names go through a
// macro to porter's templates, so a HIP that declares some of them keeps building (its calls land here too).
#pragma once
#include <hip/hip_runtime.h>

#include <type_traits>

namespace porter_cache_hints {
template <typename T>
__device__ inline T load(const T* p) { return *p; }
template <typename T>
__device__ inline void store(T* p, T v) { *p = v; }
template <typename T>
__device__ inline T load_volatile(const T* p, std::true_type) {  // a scalar of 1 to 8 bytes
    T v;
    __atomic_load(p, &v, __ATOMIC_RELAXED);
    return v;
}
template <typename T>
__device__ inline T load_volatile(const T* p, std::false_type) { return *p; }
template <typename T>
__device__ inline T load_volatile(const T* p) {
    return load_volatile(p, std::integral_constant<bool, std::is_scalar<T>::value && sizeof(T) <= 8>());
}
}  // namespace porter_cache_hints

template <typename T> __device__ inline T porter_ldca(const T* p) { return porter_cache_hints::load(p); }
template <typename T> __device__ inline T porter_ldcg(const T* p) { return porter_cache_hints::load(p); }
template <typename T> __device__ inline T porter_ldcs(const T* p) { return porter_cache_hints::load(p); }
template <typename T> __device__ inline T porter_ldlu(const T* p) { return porter_cache_hints::load(p); }
template <typename T> __device__ inline T porter_ldcv(const T* p) { return porter_cache_hints::load_volatile(p); }
template <typename T> __device__ inline void porter_stwb(T* p, T v) { porter_cache_hints::store(p, v); }
template <typename T> __device__ inline void porter_stcg(T* p, T v) { porter_cache_hints::store(p, v); }
template <typename T> __device__ inline void porter_stcs(T* p, T v) { porter_cache_hints::store(p, v); }
template <typename T> __device__ inline void porter_stwt(T* p, T v) { porter_cache_hints::store(p, v); }
#define __ldca porter_ldca
#define __ldcg porter_ldcg
#define __ldcs porter_ldcs
#define __ldlu porter_ldlu
#define __ldcv porter_ldcv
#define __stwb porter_stwb
#define __stcg porter_stcg
#define __stcs porter_stcs
#define __stwt porter_stwt
