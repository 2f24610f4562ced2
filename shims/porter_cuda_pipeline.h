// porter shim: libcu++'s cuda::pipeline (<cuda/pipeline>) and cuda::barrier (<cuda/barrier>) with ordinary copies,
// what CUDA itself does on GPUs without asynchronous copies (before sm_80). cuda::memcpy_async copies at once
// (group-strided for a group); for a block-scoped pipeline producer_acquire and consumer_wait are block barriers, so
// that a stage is neither refilled while the block still reads it nor read before every thread's part of the copy
// landed; a thread-scoped pipeline needs no barrier (each thread copies and reads its own data). A cuda::barrier is
// an arrival counter and a phase in the barrier's own memory (HIP's scoped atomics).
// How it differs from CUDA: no copy/compute overlap (the pipeline's purpose); every thread of the block must take
// part in a block-scoped pipeline's acquire and wait (CUDA also allows producer/consumer roles, which deadlock here);
// a barrier's waiters spin, so the threads of one wavefront must arrive before any of them waits (CUDA's
// independent thread scheduling allows lanes of a warp to wait for each other; a 64-lane wavefront cannot); the
// completion function must be a stateless type (libcu++'s default is).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <hip/hip_runtime.h>

#ifndef PORTER_CUDA_THREAD_SCOPE  // shared with porter_cuda_atomic.h / porter_cuda_pipeline.h
#define PORTER_CUDA_THREAD_SCOPE
namespace cuda {
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };
}  // namespace cuda
#endif

namespace cuda {
template <thread_scope Scope, std::uint8_t Stages = 1>
struct pipeline_shared_state {};

template <std::size_t Alignment>
struct aligned_size_t {
    std::size_t value;
    __host__ __device__ constexpr explicit aligned_size_t(std::size_t size) : value(size) {}
    __host__ __device__ constexpr operator std::size_t() const { return value; }
};

template <thread_scope Scope>
class pipeline {
  public:
    __device__ void producer_acquire() { barrier(); }
    __device__ void producer_commit() {}
    __device__ void consumer_wait() { barrier(); }
    template <class Rep, class Period>
    __device__ bool consumer_wait_for(const Rep&, const Period&) { barrier(); return true; }
    __device__ void consumer_release() {}
    __device__ bool quit() { return true; }

  private:
    __device__ static void barrier() {
        if constexpr (Scope != thread_scope_thread) __syncthreads();
    }
};

__device__ inline pipeline<thread_scope_thread> make_pipeline() { return {}; }

template <class Group, thread_scope Scope, std::uint8_t Stages>
__device__ inline pipeline<Scope> make_pipeline(const Group&, pipeline_shared_state<Scope, Stages>*) { return {}; }

template <class Group, thread_scope Scope, std::uint8_t Stages>
__device__ inline pipeline<Scope> make_pipeline(const Group&, pipeline_shared_state<Scope, Stages>*, std::size_t) {
    return {};
}

template <std::uint8_t Prior, thread_scope Scope>
__device__ inline void pipeline_consumer_wait_prior(pipeline<Scope>& pipe) { pipe.consumer_wait(); }

namespace porter_detail {
__device__ inline void copy_bytes(void* dst, const void* src, std::size_t bytes, unsigned rank, unsigned size) {
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
    for (std::size_t i = rank; i < bytes; i += size) d[i] = s[i];
}
}  // namespace porter_detail

// one thread's copy (a thread-scoped pipeline, or a thread copying its own piece)
template <class T, thread_scope Scope>
__device__ inline void memcpy_async(T* dst, const T* src, std::size_t bytes, pipeline<Scope>&) {
    porter_detail::copy_bytes(dst, src, bytes, 0, 1);
}
template <class T, std::size_t Alignment, thread_scope Scope>
__device__ inline void memcpy_async(T* dst, const T* src, aligned_size_t<Alignment> bytes, pipeline<Scope>&) {
    porter_detail::copy_bytes(dst, src, bytes, 0, 1);
}

// a group's collective copy: each thread of the group copies its share of the bytes
template <class Group, class T, thread_scope Scope>
__device__ inline void memcpy_async(const Group& group, T* dst, const T* src, std::size_t bytes, pipeline<Scope>&) {
    porter_detail::copy_bytes(dst, src, bytes, group.thread_rank(), group.size());
}
template <class Group, class T, std::size_t Alignment, thread_scope Scope>
__device__ inline void memcpy_async(const Group& group, T* dst, const T* src, aligned_size_t<Alignment> bytes,
                                    pipeline<Scope>&) {
    porter_detail::copy_bytes(dst, src, bytes, group.thread_rank(), group.size());
}

// ---- cuda::barrier ----------------------------------------------------------------------------------------------
namespace porter_detail {
template <thread_scope S> struct barrier_scope { static constexpr int value = __HIP_MEMORY_SCOPE_AGENT; };
template <> struct barrier_scope<thread_scope_block> { static constexpr int value = __HIP_MEMORY_SCOPE_WORKGROUP; };
template <> struct barrier_scope<thread_scope_system> { static constexpr int value = __HIP_MEMORY_SCOPE_SYSTEM; };
struct empty_completion {
    __host__ __device__ void operator()() const noexcept {}
};
}  // namespace porter_detail

template <thread_scope Scope, class Completion = porter_detail::empty_completion>
class barrier {
    static_assert(std::is_empty<Completion>::value, "porter_cuda_pipeline.h: a barrier's completion must be stateless");
    static constexpr int scope = porter_detail::barrier_scope<Scope>::value;

  public:
    using arrival_token = unsigned;
    barrier() = default;  // trivial, as libcu++'s: a __shared__ barrier is made by init()
    barrier(const barrier&) = delete;
    barrier& operator=(const barrier&) = delete;

    friend __device__ void init(barrier* b, std::ptrdiff_t expected, Completion = Completion()) {
        b->expected_ = static_cast<unsigned>(expected);
        b->pending_ = static_cast<unsigned>(expected);
        b->phase_ = 0;
        __threadfence_block();
    }

    __host__ __device__ static constexpr std::ptrdiff_t max() noexcept { return 0x7fffffff; }

    __device__ arrival_token arrive(std::ptrdiff_t update = 1) {
        const unsigned phase = __hip_atomic_load(&phase_, __ATOMIC_ACQUIRE, scope);
        const unsigned before = __hip_atomic_fetch_add(&pending_, 0u - static_cast<unsigned>(update), __ATOMIC_ACQ_REL, scope);
        if (before == static_cast<unsigned>(update)) {  // the last arrival completes the phase
            Completion()();
            __hip_atomic_store(&pending_, __hip_atomic_load(&expected_, __ATOMIC_RELAXED, scope), __ATOMIC_RELAXED, scope);
            __hip_atomic_store(&phase_, phase + 1, __ATOMIC_RELEASE, scope);
        }
        return phase;
    }

    __device__ void wait(arrival_token&& phase) const {
        while (__hip_atomic_load(&phase_, __ATOMIC_ACQUIRE, scope) == phase) __builtin_amdgcn_s_sleep(1);
    }

    // (not __syncthreads() even when the whole block is expected: other threads may arrive and wait apart)
    __device__ void arrive_and_wait() { wait(arrive()); }

    __device__ void arrive_and_drop() {  // this thread leaves: later phases expect one arrival fewer
        __hip_atomic_fetch_add(&expected_, 0xffffffffu, __ATOMIC_RELAXED, scope);
        (void)arrive();
    }

  private:
    unsigned expected_;
    unsigned pending_;
    unsigned phase_;
};

// copies completing on a barrier: done at once, so the barrier's phase has nothing more to wait for
template <class T, thread_scope Scope, class Completion>
__device__ inline void memcpy_async(T* dst, const T* src, std::size_t bytes, barrier<Scope, Completion>&) {
    porter_detail::copy_bytes(dst, src, bytes, 0, 1);
}
template <class T, std::size_t Alignment, thread_scope Scope, class Completion>
__device__ inline void memcpy_async(T* dst, const T* src, aligned_size_t<Alignment> bytes, barrier<Scope, Completion>&) {
    porter_detail::copy_bytes(dst, src, bytes, 0, 1);
}
template <class Group, class T, thread_scope Scope, class Completion>
__device__ inline void memcpy_async(const Group& group, T* dst, const T* src, std::size_t bytes,
                                    barrier<Scope, Completion>&) {
    porter_detail::copy_bytes(dst, src, bytes, group.thread_rank(), group.size());
}
template <class Group, class T, std::size_t Alignment, thread_scope Scope, class Completion>
__device__ inline void memcpy_async(const Group& group, T* dst, const T* src, aligned_size_t<Alignment> bytes,
                                    barrier<Scope, Completion>&) {
    porter_detail::copy_bytes(dst, src, bytes, group.thread_rank(), group.size());
}
}  // namespace cuda
