// porter shim: cooperative_groups::reduce for thread_block_tile, with cooperative_groups::plus, less and
// greater (CUDA's <cooperative_groups/reduce.h>), which HIP's cooperative groups do not provide.
//
// How this differs from CUDA: implemented as a butterfly of tile.shfl_xor over the tile size (power of two,
// at most the wavefront size: 64 on CDNA, so tiles of 64 work here and not in CUDA). Every lane gets the
// result, as in CUDA. A coalesced_group (e.g. from binary_partition or coalesced_threads) is reduced by a
// shfl_down tree over its ranks, then rank 0's value is broadcast (op must be associative, as CUDA asks). Only
// types that HIP's shuffles accept (int, unsigned, long long, float, double...). less/greater are binary functors
// returning the smaller/larger value, which makes reduce a min/max reduction, as in CUDA.
// Define PORTER_HIP_HAS_CG_REDUCE if your HIP provides these, to skip this header. HIP 7.13 is said to add
// cooperative_groups::reduce (its changelog); this header then stands aside (HIP_VERSION >= 7.13).
#ifndef PORTER_CG_REDUCE_H
#define PORTER_CG_REDUCE_H

#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#if !defined(PORTER_HIP_HAS_CG_REDUCE) && defined(HIP_VERSION) && HIP_VERSION >= 71300000
#define PORTER_HIP_HAS_CG_REDUCE 1
#endif
#ifndef PORTER_HIP_HAS_CG_REDUCE
namespace cooperative_groups {

template <typename T>
struct plus {
    __device__ T operator()(const T& a, const T& b) const { return a + b; }
};

template <typename T>
struct less {
    __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

template <typename T>
struct greater {
    __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

template <unsigned int Size, typename ParentT, typename T, typename Op>
__device__ inline T reduce(const thread_block_tile<Size, ParentT>& tile, T value, Op op) {
    static_assert((Size & (Size - 1)) == 0, "porter_cg_reduce.h: tile size must be a power of two");
    for (unsigned int offset = Size / 2; offset > 0; offset /= 2) {
        value = op(value, tile.shfl_xor(value, offset));
    }
    return value;
}

template <typename T, typename Op>
__device__ inline T reduce(const coalesced_group& group, T value, Op op) {
    const unsigned int size = group.size(), rank = group.thread_rank();
    for (unsigned int offset = 1; offset < size; offset *= 2) {
        const T other = group.shfl_down(value, offset);
        if (rank + offset < size) value = op(value, other);
    }
    return group.shfl(value, 0);
}

}  // namespace cooperative_groups
#endif  // PORTER_HIP_HAS_CG_REDUCE
#endif  // PORTER_CG_REDUCE_H
