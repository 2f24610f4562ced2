// porter shim: libcu++'s cuda::pipeline (<cuda/pipeline>) as ordinary copies, what CUDA itself does on GPUs without
// asynchronous copies (before sm_80). cuda::memcpy_async copies at once (group-strided for a group); for a
// block-scoped pipeline producer_acquire and consumer_wait are block barriers, so that a stage is neither refilled
// while the block still reads it nor read before every thread's part of the copy landed; a thread-scoped pipeline
// needs no barrier (each thread copies and reads its own data).
// How it differs from CUDA: no copy/compute overlap (the pipeline's purpose), and every thread of the block must take
// part in a block-scoped pipeline's acquire and wait (CUDA also allows producer/consumer roles, which deadlock here).
#pragma once
#include <cstddef>
#include <cstdint>
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
}  // namespace cuda
