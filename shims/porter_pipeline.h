// porter shim: CUDA's asynchronous-copy primitives as ordinary copies, which HIP lacks (up to ROCm 6.4):
// __pipeline_memcpy_async/__pipeline_commit/__pipeline_wait_prior (cuda_pipeline_primitives.h) and
// cooperative_groups::memcpy_async/wait/wait_prior (cooperative_groups/memcpy_async.h).
//
// How this differs from CUDA: the copy happens when it is issued, so there is no overlap of copy and
// compute; results are the same. This is what CUDA itself does on GPUs without cp.async (before sm_80):
// its pipeline_memcpy_async falls back to a synchronous copy there, and __pipeline_wait_prior has nothing
// left to wait for. __pipeline_memcpy_async copies size_and_align - zfill bytes and zero-fills the rest, as
// CUDA's. cooperative_groups::memcpy_async is a group-strided copy and wait/wait_prior end with group.sync(),
// which is what makes the data visible to the whole group (CUDA's wait synchronizes the group too). Not
// here: __pipeline_arrive_on (arrive/wait barriers), cuda::pipeline, cuda::barrier, cuda::memcpy_async and
// cuda::aligned_size_t (libcu++): porter reports those.
#ifndef PORTER_PIPELINE_H
#define PORTER_PIPELINE_H

#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#ifndef PORTER_HIP_HAS_PIPELINE_PRIMITIVES
__device__ inline void __pipeline_memcpy_async(void* __restrict__ dst_shared, const void* __restrict__ src_global,
                                               size_t size_and_align, size_t zfill = 0) {
    if (zfill == 0 && size_and_align == 16) {
        *static_cast<uint4*>(dst_shared) = *static_cast<const uint4*>(src_global);
    } else if (zfill == 0 && size_and_align == 8) {
        *static_cast<uint2*>(dst_shared) = *static_cast<const uint2*>(src_global);
    } else if (zfill == 0 && size_and_align == 4) {
        *static_cast<unsigned int*>(dst_shared) = *static_cast<const unsigned int*>(src_global);
    } else {
        unsigned char* d = static_cast<unsigned char*>(dst_shared);
        const unsigned char* s = static_cast<const unsigned char*>(src_global);
        const size_t copied = zfill < size_and_align ? size_and_align - zfill : 0;
        for (size_t i = 0; i < copied; ++i) d[i] = s[i];
        for (size_t i = copied; i < size_and_align; ++i) d[i] = 0;
    }
}
__device__ inline void __pipeline_commit() {}  // every copy is complete when issued
__device__ inline void __pipeline_wait_prior(size_t) {}
#endif  // PORTER_HIP_HAS_PIPELINE_PRIMITIVES

#ifndef PORTER_HIP_HAS_CG_MEMCPY_ASYNC
// Generic templates in HIP's namespace: a HIP that declares its own overloads gets those called instead.
namespace cooperative_groups {
template <class Group>
__device__ void memcpy_async(const Group& group, void* __restrict__ dst, const void* __restrict__ src, size_t bytes) {
    const unsigned int rank = group.thread_rank(), count = group.size();
    const size_t align = reinterpret_cast<size_t>(dst) | reinterpret_cast<size_t>(src) | bytes;
    if ((align & 3) == 0) {  // whole 32-bit words
        unsigned int* d = static_cast<unsigned int*>(dst);
        const unsigned int* s = static_cast<const unsigned int*>(src);
        for (size_t i = rank; i < bytes / 4; i += count) d[i] = s[i];
    } else {
        unsigned char* d = static_cast<unsigned char*>(dst);
        const unsigned char* s = static_cast<const unsigned char*>(src);
        for (size_t i = rank; i < bytes; i += count) d[i] = s[i];
    }
}
// the element-count form: srcCount elements of src into dst (dstCount elements of room)
template <class Group, class T>
__device__ void memcpy_async(const Group& group, T* __restrict__ dst, size_t dstCount, const T* __restrict__ src,
                             size_t srcCount) {
    const size_t n = srcCount < dstCount ? srcCount : dstCount;
    for (size_t i = group.thread_rank(); i < n; i += group.size()) dst[i] = src[i];
}
template <class Group> __device__ void wait(const Group& group) { group.sync(); }
template <unsigned int Prior, class Group> __device__ void wait_prior(const Group& group) { group.sync(); }
}  // namespace cooperative_groups
#endif  // PORTER_HIP_HAS_CG_MEMCPY_ASYNC

#endif  // PORTER_PIPELINE_H
