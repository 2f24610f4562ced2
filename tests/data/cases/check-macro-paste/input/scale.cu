#include "include/try.h"

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int run(float* host, int n) {
  cudaError_t err;
  float* dev = 0;
  cudaStream_t stream;
  cudaEvent_t done;
  TIMER(Copy);
  TRY(StreamCreate(&stream));
  TRY(EventCreate(&done, cudaEventDisableTiming));
  TRY(Malloc(&dev, n * sizeof(float)));
  TRY(MemcpyAsync(dev, host, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  scale<<<(n + 255) / 256, 256, 0, stream>>>(dev, 2.0f, n);
  TRY(EventRecord(done, stream));
  TRY(EventSynchronize(done));
  TRY(Memcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost));
  TRY(Free(dev));
  return 0;
fail:
  return 1;
}
