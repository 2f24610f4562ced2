#pragma once
// Half and bfloat16 types first: the kernels' signatures use them.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace fused {

namespace cg = cooperative_groups;

template <typename T>
__device__ __forceinline__ T warpAllSum(T v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
  return v;
}

template <typename T>
__device__ __forceinline__ T warpAllMax(T v) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v = fmaxf(v, warp.shfl_xor(v, mask));
  return v;
}

// Block-wide sum through shared memory, for rows wider than a warp.
__device__ __forceinline__ float blockAllSum(float v, float *scratch) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warpAllSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  int warps = (blockDim.x + 31) / 32;
  v = lane < warps ? scratch[lane] : 0.f;
  v = warpAllSum(v);
  __syncthreads();
  return v;
}

template <typename T> __device__ __forceinline__ float toFloat(T v);
template <> __device__ __forceinline__ float toFloat<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float toFloat<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T fromFloat(float v);
template <> __device__ __forceinline__ __half fromFloat<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

}  // namespace fused
