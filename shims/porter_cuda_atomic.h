// porter shim: the part of libcu++'s <cuda/atomic> device code uses most, cuda::atomic_ref and cuda::atomic with a
// thread scope, on clang's scoped HIP atomics (__hip_atomic_*). libcu++ (CCCL) is not part of ROCm up to 6.4.
// Scopes: thread_scope_system -> system, thread_scope_device -> agent, thread_scope_block -> workgroup,
// thread_scope_thread -> wavefront (the narrowest HIP scope). cuda::std::memory_order is std::memory_order, whose
// values are the __ATOMIC_* constants the builtins take (libstdc++ and libc++ both define them so).
// cuda::std::atomic<T> is cuda::atomic<T> at system scope, as in libcu++. The operations are host and device code,
// as libcu++'s (the builtins are host atomics in host code), and work on volatile objects too (a status word in
// mapped pinned memory that the host polls while a kernel stores to it, as the NVIDIA blog's printf alternative).
// How it differs from CUDA: only atomic_ref/atomic with load, store, exchange, compare_exchange_*, fetch_add/sub/
// and/or/xor/min/max and their operators; no wait/notify, no atomic_flag. Compiled for gfx90a (ROCm 5.2) and
// gfx942/gfx950 (ROCm 6.4); the host side ran on the host with ROCm 5.2, the device side never on an AMD GPU here.
#pragma once
#include <atomic>
#include <hip/hip_runtime.h>

#ifndef PORTER_CUDA_THREAD_SCOPE  // shared with porter_cuda_atomic.h / porter_cuda_pipeline.h
#define PORTER_CUDA_THREAD_SCOPE
namespace cuda {
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };
}  // namespace cuda
#endif

namespace cuda {
namespace porter_orders {  // std::memory_order and its values, named in cuda::std and (as libcu++ does) in cuda
using ::std::memory_order;
using ::std::memory_order_acq_rel;
using ::std::memory_order_acquire;
using ::std::memory_order_consume;
using ::std::memory_order_relaxed;
using ::std::memory_order_release;
using ::std::memory_order_seq_cst;
}  // namespace porter_orders
namespace std {
using namespace ::cuda::porter_orders;
}  // namespace std
using namespace porter_orders;


namespace porter_detail {
template <thread_scope S>
struct hip_scope;
template <> struct hip_scope<thread_scope_system> { static constexpr int value = __HIP_MEMORY_SCOPE_SYSTEM; };
template <> struct hip_scope<thread_scope_device> { static constexpr int value = __HIP_MEMORY_SCOPE_AGENT; };
template <> struct hip_scope<thread_scope_block> { static constexpr int value = __HIP_MEMORY_SCOPE_WORKGROUP; };
template <> struct hip_scope<thread_scope_thread> { static constexpr int value = __HIP_MEMORY_SCOPE_WAVEFRONT; };

__host__ __device__ constexpr int order(::std::memory_order o) { return static_cast<int>(o); }
// the failure order of a compare-exchange may not be a release order
__host__ __device__ constexpr int failure_order(::std::memory_order o) {
    return o == ::std::memory_order_acq_rel ? __ATOMIC_ACQUIRE : o == ::std::memory_order_release ? __ATOMIC_RELAXED
                                                                                                    : static_cast<int>(o);
}

template <class T, thread_scope S>
struct atomic_ops {
    T* p;
    static constexpr int scope = hip_scope<S>::value;
    __host__ __device__ T load(::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_load(p, order(o), scope);
    }
    __host__ __device__ void store(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        __hip_atomic_store(p, v, order(o), scope);
    }
    __host__ __device__ T exchange(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_exchange(p, v, order(o), scope);
    }
    __host__ __device__ bool compare_exchange_strong(T& expected, T desired,
                                            ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_compare_exchange_strong(p, &expected, desired, order(o), failure_order(o), scope);
    }
    __host__ __device__ bool compare_exchange_weak(T& expected, T desired,
                                          ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_compare_exchange_weak(p, &expected, desired, order(o), failure_order(o), scope);
    }
    __host__ __device__ T fetch_add(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_fetch_add(p, v, order(o), scope);
    }
    __host__ __device__ T fetch_sub(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_fetch_add(p, static_cast<T>(-v), order(o), scope);
    }
    __host__ __device__ T fetch_and(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_fetch_and(p, v, order(o), scope);
    }
    __host__ __device__ T fetch_or(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_fetch_or(p, v, order(o), scope);
    }
    __host__ __device__ T fetch_xor(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_fetch_xor(p, v, order(o), scope);
    }
    __host__ __device__ T fetch_min(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_fetch_min(p, v, order(o), scope);
    }
    __host__ __device__ T fetch_max(T v, ::std::memory_order o = ::std::memory_order_seq_cst) const {
        return __hip_atomic_fetch_max(p, v, order(o), scope);
    }
    __host__ __device__ operator T() const { return load(); }
    __host__ __device__ T operator=(T v) const { store(v); return v; }
    __host__ __device__ T operator+=(T v) const { return fetch_add(v) + v; }
    __host__ __device__ T operator-=(T v) const { return fetch_sub(v) - v; }
    __host__ __device__ T operator&=(T v) const { return fetch_and(v) & v; }
    __host__ __device__ T operator|=(T v) const { return fetch_or(v) | v; }
    __host__ __device__ T operator^=(T v) const { return fetch_xor(v) ^ v; }
    __host__ __device__ T operator++() const { return fetch_add(T(1)) + T(1); }
    __host__ __device__ T operator++(int) const { return fetch_add(T(1)); }
    __host__ __device__ T operator--() const { return fetch_sub(T(1)) - T(1); }
    __host__ __device__ T operator--(int) const { return fetch_sub(T(1)); }
};
}  // namespace porter_detail

template <class T, thread_scope S = thread_scope_system>
struct atomic_ref : porter_detail::atomic_ops<T, S> {
    __host__ __device__ explicit atomic_ref(T& ref) : porter_detail::atomic_ops<T, S>{&ref} {}
    using porter_detail::atomic_ops<T, S>::operator=;
};

template <class T, thread_scope S = thread_scope_system>
struct atomic {
    T value;
    atomic() = default;  // trivial, as libcu++'s, so that a __shared__ atomic needs no initializer
    __host__ __device__ constexpr atomic(T v) : value(v) {}
    atomic(const atomic&) = delete;
    __host__ __device__ porter_detail::atomic_ops<T, S> ops() { return {&value}; }
    // an atomic access needs no volatile: the same operations on a volatile object
    __host__ __device__ porter_detail::atomic_ops<T, S> ops() volatile { return {const_cast<T*>(&value)}; }
    __host__ __device__ T load(::std::memory_order o = ::std::memory_order_seq_cst) volatile { return ops().load(o); }
    __host__ __device__ void store(T v, ::std::memory_order o = ::std::memory_order_seq_cst) volatile { ops().store(v, o); }
    __host__ __device__ T exchange(T v, ::std::memory_order o = ::std::memory_order_seq_cst) volatile {
        return ops().exchange(v, o);
    }
    __host__ __device__ T load(::std::memory_order o = ::std::memory_order_seq_cst) { return ops().load(o); }
    __host__ __device__ void store(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { ops().store(v, o); }
    __host__ __device__ T exchange(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { return ops().exchange(v, o); }
    __host__ __device__ bool compare_exchange_strong(T& e, T d, ::std::memory_order o = ::std::memory_order_seq_cst) {
        return ops().compare_exchange_strong(e, d, o);
    }
    __host__ __device__ bool compare_exchange_weak(T& e, T d, ::std::memory_order o = ::std::memory_order_seq_cst) {
        return ops().compare_exchange_weak(e, d, o);
    }
    __host__ __device__ T fetch_add(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { return ops().fetch_add(v, o); }
    __host__ __device__ T fetch_sub(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { return ops().fetch_sub(v, o); }
    __host__ __device__ T fetch_and(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { return ops().fetch_and(v, o); }
    __host__ __device__ T fetch_or(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { return ops().fetch_or(v, o); }
    __host__ __device__ T fetch_xor(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { return ops().fetch_xor(v, o); }
    __host__ __device__ T fetch_min(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { return ops().fetch_min(v, o); }
    __host__ __device__ T fetch_max(T v, ::std::memory_order o = ::std::memory_order_seq_cst) { return ops().fetch_max(v, o); }
    __host__ __device__ operator T() { return load(); }
    __host__ __device__ T operator=(T v) { store(v); return v; }
    __host__ __device__ T operator+=(T v) { return ops() += v; }
    __host__ __device__ T operator-=(T v) { return ops() -= v; }
    __host__ __device__ T operator++() { return ++ops(); }
    __host__ __device__ T operator++(int) { return ops()++; }
    __host__ __device__ T operator--() { return --ops(); }
    __host__ __device__ T operator--(int) { return ops()--; }
};

namespace std {
template <class T>
using atomic = ::cuda::atomic<T, thread_scope_system>;  // libcu++'s cuda::std::atomic: system scope
}  // namespace std
}  // namespace cuda
