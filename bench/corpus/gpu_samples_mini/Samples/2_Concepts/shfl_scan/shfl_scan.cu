/* Inclusive prefix sum of a large array with warp shuffles: scan in warps, scan the warp sums, add back. */
#include <stdio.h>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda_lite.h>

static const int blockSize = 256;

__global__ void shfl_scan_test(int *data, int width, int *partial_sums = NULL) {
  extern __shared__ int sums[];
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  int lane_id = id % warpSize;
  int warp_id = threadIdx.x / warpSize;
  int value = data[id];
#pragma unroll
  for (int i = 1; i <= width; i *= 2) {
    unsigned int mask = 0xffffffff;
    int n = __shfl_up_sync(mask, value, i, width);
    if (lane_id >= i) value += n;
  }
  if (threadIdx.x % warpSize == warpSize - 1) sums[warp_id] = value;
  __syncthreads();
  if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
    int warp_sum = sums[lane_id];
    int mask = (1 << (blockDim.x / warpSize)) - 1;
    for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
      int n = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));
      if (lane_id >= i) warp_sum += n;
    }
    sums[lane_id] = warp_sum;
  }
  __syncthreads();
  int blockSum = 0;
  if (warp_id > 0) blockSum = sums[warp_id - 1];
  value += blockSum;
  data[id] = value;
  if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) partial_sums[blockIdx.x] = value;
}

__global__ void uniform_add(int *data, int *partial_sums, int len) {
  __shared__ int buf;
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  if (id > len) return;
  if (threadIdx.x == 0) buf = partial_sums[blockIdx.x];
  __syncthreads();
  data[id] += buf;
}

int main(int argc, const char **argv) {
  findCudaDevice(argc, argv);
  int n_elements = 65536;
  int sz = sizeof(int) * n_elements;
  std::vector<int> h_data(n_elements), h_result(n_elements);
  for (int i = 0; i < n_elements; i++) h_data[i] = rand() % 10;
  int gridSize = n_elements / blockSize;
  int nWarps = blockSize / 32;
  int shmem_sz = nWarps * sizeof(int);
  int n_partialSums = n_elements / blockSize;
  int partial_sz = n_partialSums * sizeof(int);

  int *d_data, *d_partial_sums;
  checkCudaErrors(cudaMalloc((void **)&d_data, sz));
  checkCudaErrors(cudaMalloc((void **)&d_partial_sums, partial_sz));
  checkCudaErrors(cudaMemset(d_partial_sums, 0, partial_sz));
  checkCudaErrors(cudaMemcpy(d_data, h_data.data(), sz, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaEventRecord(start, 0));
  shfl_scan_test<<<gridSize, blockSize, shmem_sz>>>(d_data, 32, d_partial_sums);
  shfl_scan_test<<<1, n_partialSums, shmem_sz>>>(d_partial_sums, 32);
  uniform_add<<<gridSize - 1, blockSize>>>(d_data + blockSize, d_partial_sums, n_elements);
  checkCudaErrors(cudaEventRecord(stop, 0));
  checkCudaErrors(cudaEventSynchronize(stop));
  float et = 0;
  checkCudaErrors(cudaEventElapsedTime(&et, start, stop));
  checkCudaErrors(cudaMemcpy(h_result.data(), d_data, sz, cudaMemcpyDeviceToHost));
  long long sum = 0;
  bool ok = true;
  for (int i = 0; i < n_elements; i++) {
    sum += h_data[i];
    ok = ok && h_result[i] == sum;
  }
  printf("scan of %d elements: %.3f ms, %s\n", n_elements, et, ok ? "PASSED" : "FAILED");
  checkCudaErrors(cudaFree(d_data));
  checkCudaErrors(cudaFree(d_partial_sums));
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
