#include <hip/hip_runtime.h>
__global__ void block_sum(const float* in, float* out) {
  __shared__ float partial[64];
  int tid = threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int warp = tid / warpSize;
  int warp2 = (threadIdx.x / warpSize);
  int lane2 = threadIdx.x & (warpSize - 1);
  float v = in[blockIdx.x * blockDim.x + tid];
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffffffffffULL, v, offset);
  for (int d = 1; d < warpSize; d <<= 1)
    v += __shfl_up_sync(0xffffffffffffffffULL, v, d);
  if (lane == 0 && lane2 == 0) partial[warp + warp2] = v;
}
