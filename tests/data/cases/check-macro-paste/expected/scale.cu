#include "include/try.h"

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int run(float* host, int n) {
  hipError_t err;
  float* dev = 0;
  hipStream_t stream;
  hipEvent_t done;
  TIMER(Copy);
  TRY(hipStreamCreate(&stream));
  TRY(hipEventCreateWithFlags(&done, hipEventDisableTiming));
  TRY(hipMalloc(&dev, n * sizeof(float)));
  TRY(hipMemcpyAsync(dev, host, n * sizeof(float), hipMemcpyHostToDevice, stream));
  scale<<<(n + 255) / 256, 256, 0, stream>>>(dev, 2.0f, n);
  TRY(hipEventRecord(done, stream));
  TRY(hipEventSynchronize(done));
  TRY(hipMemcpy(host, dev, n * sizeof(float), hipMemcpyDeviceToHost));
  TRY(hipFree(dev));
  return 0;
fail:
  return 1;
}
