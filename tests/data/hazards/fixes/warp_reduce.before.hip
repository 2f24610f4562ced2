#include <hip/hip_runtime.h>
__global__ void block_sum(const float* in, float* out) {
  __shared__ float partial[64];
  int tid = threadIdx.x;
  int lane = threadIdx.x % 32;
  int warp = tid / 32;
  int warp2 = threadIdx.x >> 5;
  int lane2 = threadIdx.x & 31;
  float v = in[blockIdx.x * blockDim.x + tid];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  for (int d = 1; d < 32; d <<= 1)
    v += __shfl_up_sync(0xFFFFFFFFu, v, d);
  if (lane == 0 && lane2 == 0) partial[warp + warp2] = v;
}
