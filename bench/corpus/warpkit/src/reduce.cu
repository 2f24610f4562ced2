#include "warpkit/warp_ops.cuh"

using namespace warpkit;

__global__ void reduceKernel(const float *__restrict__ in, float *out, int n) {
  __shared__ float warpSums[32];
  float sum = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  sum = warpReduceSum(sum);
  if (laneId() == 0) warpSums[warpId()] = sum;
  __syncthreads();
  if (warpId() == 0) {
    int warps = blockDim.x / kWarpSize;
    sum = laneId() < warps ? warpSums[laneId()] : 0.f;
    // only the first `warps` lanes hold data; the mask says which lanes take part
    unsigned mask = __ballot_sync(kFullMask, laneId() < warps);
    if (laneId() < warps) {
      for (int offset = 16; offset > 0; offset >>= 1) {
        float other = __shfl_down_sync(mask, sum, offset);
        if (laneId() + offset < warps) sum += other;
      }
    }
    if (laneId() == 0) atomicAdd(out, sum);
  }
}

// Count how many lanes of each warp share a key; the lowest lane of each group records the count.
__global__ void keyGroups(const int *keys, int n, int *leaders) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int key = i < n ? keys[i] : -1;
  unsigned same = __match_any_sync(kFullMask, key);
  bool leader = laneId() == __ffs(same) - 1;
  if (i < n && leader) atomicAdd(leaders, 1);
  __syncwarp();
}

void wk_reduce(const float *in, float *out, int n, cudaStream_t s) {
  cudaMemsetAsync(out, 0, sizeof(float), s);
  int blocks = (n + 255) / 256;
  if (blocks > 1024) blocks = 1024;
  reduceKernel<<<blocks, 256, 0, s>>>(in, out, n);
}

void wk_count_keys(const int *keys, int n, int *uniqueLeaders, cudaStream_t s) {
  cudaMemsetAsync(uniqueLeaders, 0, sizeof(int), s);
  keyGroups<<<(n + 255) / 256, 256, 0, s>>>(keys, n, uniqueLeaders);
}
