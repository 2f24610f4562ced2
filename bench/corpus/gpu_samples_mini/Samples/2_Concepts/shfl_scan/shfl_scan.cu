/* Exclusive prefix sum with warp shuffles: a Kogge-Stone scan inside each warp, one more warp
   scans the warp totals, and a second kernel adds the totals of the preceding blocks. */
#include <stdio.h>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda_lite.h>

#define SCAN_THREADS 512
#define LANES 32

__device__ int warpInclusive(int v, unsigned mask, int width) {
  int lane = threadIdx.x % LANES;
  for (int step = 1; step < width; step <<= 1) {
    int below = __shfl_up_sync(mask, v, step, width);
    if (lane >= step) v += below;
  }
  return v;
}

__global__ void blockScan(const int *in, int *out, int *blockTotals, int n) {
  __shared__ int warpTotals[SCAN_THREADS / LANES];
  int i = blockIdx.x * SCAN_THREADS + threadIdx.x;
  int x = i < n ? in[i] : 0;
  int inc = warpInclusive(x, 0xffffffff, LANES);
  int warp = threadIdx.x / LANES, lane = threadIdx.x % LANES;
  if (lane == LANES - 1) warpTotals[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    const int warps = SCAN_THREADS / LANES;
    unsigned active = __ballot_sync(0xffffffff, lane < warps);
    if (lane < warps) warpTotals[lane] = warpInclusive(warpTotals[lane], active, warps);
  }
  __syncthreads();
  int before = warp > 0 ? warpTotals[warp - 1] : 0;
  if (i < n) out[i] = before + inc - x;  // exclusive
  if (threadIdx.x == SCAN_THREADS - 1) blockTotals[blockIdx.x] = before + inc;
}

__global__ void addPrecedingBlocks(int *out, const int *blockTotals, int n) {
  __shared__ int offset;
  if (threadIdx.x == 0) {
    int s = 0;
    for (int b = 0; b < blockIdx.x; ++b) s += blockTotals[b];
    offset = s;
  }
  __syncthreads();
  int i = blockIdx.x * SCAN_THREADS + threadIdx.x;
  if (i < n) out[i] += offset;
}

int main(int argc, const char **argv) {
  findCudaDevice(argc, argv);
  const int n = 1 << 18;
  std::vector<int> h(n), result(n);
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 11;
  const int blocks = (n + SCAN_THREADS - 1) / SCAN_THREADS;
  int *dIn, *dOut, *dTotals;
  checkCudaErrors(cudaMalloc(&dIn, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dOut, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dTotals, blocks * sizeof(int)));
  checkCudaErrors(cudaMemcpy(dIn, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaEvent_t t0, t1;
  checkCudaErrors(cudaEventCreate(&t0));
  checkCudaErrors(cudaEventCreate(&t1));
  checkCudaErrors(cudaEventRecord(t0));
  blockScan<<<blocks, SCAN_THREADS>>>(dIn, dOut, dTotals, n);
  addPrecedingBlocks<<<blocks, SCAN_THREADS>>>(dOut, dTotals, n);
  checkCudaErrors(cudaEventRecord(t1));
  checkCudaErrors(cudaEventSynchronize(t1));
  getLastCudaError("scan kernels");
  float ms = 0.f;
  checkCudaErrors(cudaEventElapsedTime(&ms, t0, t1));
  checkCudaErrors(cudaMemcpy(result.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost));
  int running = 0, wrong = 0;
  for (int i = 0; i < n; ++i) {
    wrong += result[i] != running;
    running += h[i];
  }
  printf("exclusive scan of %d ints: %.3f ms, %d wrong\n", n, ms, wrong);
  checkCudaErrors(cudaFree(dIn));
  checkCudaErrors(cudaFree(dOut));
  checkCudaErrors(cudaFree(dTotals));
  return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
