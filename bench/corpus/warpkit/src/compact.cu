// Stream compaction with ballots: each warp reserves space once and lanes write at their rank.
#include "warpkit/warp_ops.cuh"

using namespace warpkit;

__global__ void compactKernel(const float *in, float *out, int n, float threshold, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool keep = i < n && in[i] > threshold;
  unsigned mask = warpBallot(keep);
  if (!warpAny(keep)) return;  // the whole warp agrees: nothing to write
  int base = 0;
  if (laneId() == 0) base = atomicAdd(count, __popc(mask));
  base = warpBroadcast(base, 0);
  if (keep) out[base + rankInMask(mask)] = in[i];
}

// Sanity kernel: does every element of a block pass? (used for the fast path)
__global__ void allAbove(const float *in, int n, float threshold, int *blocksAllAbove) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool ok = i >= n || in[i] > threshold;
  bool warpOk = warpAll(ok);
  __shared__ int blockOk;
  if (threadIdx.x == 0) blockOk = 1;
  __syncthreads();
  if (laneId() == 0 && !warpOk) blockOk = 0;
  __syncthreads();
  if (threadIdx.x == 0 && blockOk) {
    if (isLeader()) atomicAdd(blocksAllAbove, 1);
  }
}

int wk_compact(const float *in, float *out, int n, float threshold, cudaStream_t s) {
  int *dCount;
  cudaMalloc(&dCount, 2 * sizeof(int));
  cudaMemsetAsync(dCount, 0, 2 * sizeof(int), s);
  compactKernel<<<(n + 255) / 256, 256, 0, s>>>(in, out, n, threshold, dCount);
  allAbove<<<(n + 255) / 256, 256, 0, s>>>(in, n, threshold, dCount + 1);
  int h[2] = {0, 0};
  cudaMemcpyAsync(h, dCount, sizeof(h), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  cudaFree(dCount);
  return h[0];
}
