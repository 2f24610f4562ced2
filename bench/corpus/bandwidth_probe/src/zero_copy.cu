// Zero-copy: the kernel reads mapped host memory directly over the bus.
#include "bandwidth.h"

__global__ void sumMapped(const float4 *__restrict__ in, size_t n, float *out) {
  float acc = 0.f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  atomicAdd(out, acc);
}

double measureZeroCopy(size_t bytes, int reps, bool *supported) {
  int device = 0;
  checkCuda(cudaGetDevice(&device));
  cudaDeviceProp prop;
  checkCuda(cudaGetDeviceProperties(&prop, device));
  *supported = prop.canMapHostMemory != 0;
  if (!*supported) return 0.0;

  float *hostIn = nullptr;
  checkCuda(cudaHostAlloc(&hostIn, bytes, cudaHostAllocMapped));
  const size_t n = bytes / sizeof(float);
  for (size_t i = 0; i < n; ++i) hostIn[i] = 1.0f;

  float *devIn = nullptr;
  float *devOut = nullptr;
  if (prop.unifiedAddressing) {
    // with UVA the host pointer is valid on the device as it is
    devIn = hostIn;
  } else {
    checkCuda(cudaHostGetDevicePointer(&devIn, hostIn, 0));
  }
  checkCuda(cudaMalloc(&devOut, sizeof(float)));

  const int threads = 256;
  const int blocks = prop.multiProcessorCount * 8;
  cudaEvent_t start, stop;
  checkCuda(cudaEventCreate(&start));
  checkCuda(cudaEventCreate(&stop));
  checkCuda(cudaEventRecord(start));
  for (int r = 0; r < reps; ++r) {
    checkCuda(cudaMemsetAsync(devOut, 0, sizeof(float)));
    sumMapped<<<blocks, threads>>>(reinterpret_cast<const float4 *>(devIn), n / 4, devOut);
  }
  checkCuda(cudaEventRecord(stop));
  checkCuda(cudaEventSynchronize(stop));
  checkCuda(cudaGetLastError());
  float ms = 0.f;
  checkCuda(cudaEventElapsedTime(&ms, start, stop));

  float sum = 0.f;
  checkCuda(cudaMemcpy(&sum, devOut, sizeof(float), cudaMemcpyDeviceToHost));
  if (sum != float(n)) fprintf(stderr, "zero-copy checksum mismatch: %.0f != %zu\n", sum, n);

  checkCuda(cudaEventDestroy(start));
  checkCuda(cudaEventDestroy(stop));
  checkCuda(cudaFree(devOut));
  checkCuda(cudaFreeHost(hostIn));
  return double(bytes) * reps / (ms * 1e-3) / 1e9;
}
