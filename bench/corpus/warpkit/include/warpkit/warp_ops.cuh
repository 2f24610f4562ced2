// warpkit: warp-synchronous building blocks.
#pragma once

#include <cuda_runtime.h>

namespace warpkit {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpSize = 32;

__device__ __forceinline__ int laneId() { return threadIdx.x & (kWarpSize - 1); }
__device__ __forceinline__ int warpId() { return threadIdx.x / kWarpSize; }

template <typename T>
__device__ __forceinline__ T warpReduceSum(T v, unsigned mask = kFullMask) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(mask, v, offset);
  return v;
}

template <typename T>
__device__ __forceinline__ T warpAllReduceMax(T v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, mask));
  return v;
}

template <typename T>
__device__ __forceinline__ T warpInclusiveScan(T v) {
  const int lane = laneId();
#pragma unroll
  for (int d = 1; d < kWarpSize; d <<= 1) {
    T up = __shfl_up_sync(kFullMask, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

template <typename T>
__device__ __forceinline__ T warpExclusiveScan(T v) {
  T inc = warpInclusiveScan(v);
  T exc = __shfl_up_sync(kFullMask, inc, 1);
  return laneId() == 0 ? T(0) : exc;
}

template <typename T>
__device__ __forceinline__ T warpBroadcast(T v, int srcLane) {
  return __shfl_sync(kFullMask, v, srcLane);
}

// Integer sum using the sm_80 reduction instruction where available.
__device__ __forceinline__ unsigned warpReduceSumU32(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(kFullMask, v);
#else
  return warpReduceSum(v);
#endif
}

// Lanes whose predicate holds, as a bit mask, and this lane's rank among them.
__device__ __forceinline__ unsigned warpBallot(bool pred) { return __ballot_sync(kFullMask, pred); }
__device__ __forceinline__ int rankInMask(unsigned mask) {
  return __popc(mask & ((1u << laneId()) - 1u));
}

__device__ __forceinline__ bool warpAny(bool p) { return __any_sync(kFullMask, p); }
__device__ __forceinline__ bool warpAll(bool p) { return __all_sync(kFullMask, p); }

// Leader election among the currently active lanes (divergent code).
__device__ __forceinline__ bool isLeader() {
  unsigned active = __activemask();
  return laneId() == __ffs(active) - 1;
}

}  // namespace warpkit

// Host-side entry points.
void wk_reduce(const float *in, float *out, int n, cudaStream_t s = 0);
void wk_scan(const int *in, int *out, int n, cudaStream_t s = 0);
int wk_compact(const float *in, float *out, int n, float threshold, cudaStream_t s = 0);
void wk_count_keys(const int *keys, int n, int *uniqueLeaders, cudaStream_t s = 0);
