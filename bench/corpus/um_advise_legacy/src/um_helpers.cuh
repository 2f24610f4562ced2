// Managed-memory helpers that work with CUDA 11/12 and with CUDA 13, where prefetch and advice
// take a cudaMemLocation instead of a device number.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define UM_CHECK(call)                                                                    \
  do {                                                                                    \
    const cudaError_t e = call;                                                           \
    if (e != cudaSuccess) {                                                               \
      printf("Error: %s:%d, code:%d, reason: %s\n", __FILE__, __LINE__, e,                \
             cudaGetErrorString(e));                                                      \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

namespace um {

// device < 0 means "the host" (cudaCpuDeviceId in the old API).
inline cudaError_t prefetch(const void *ptr, size_t bytes, int device, cudaStream_t stream = 0) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc = {};
  loc.type = device < 0 ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  loc.id = device < 0 ? 0 : device;
  return cudaMemPrefetchAsync(ptr, bytes, loc, 0, stream);
#else
  return cudaMemPrefetchAsync(ptr, bytes, device < 0 ? cudaCpuDeviceId : device, stream);
#endif
}

inline cudaError_t advise(const void *ptr, size_t bytes, cudaMemoryAdvise advice, int device) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc = {};
  loc.type = device < 0 ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  loc.id = device < 0 ? 0 : device;
  return cudaMemAdvise(ptr, bytes, advice, loc);
#else
  return cudaMemAdvise(ptr, bytes, advice, device < 0 ? cudaCpuDeviceId : device);
#endif
}

template <typename T>
T *allocManaged(size_t count, unsigned flags = cudaMemAttachGlobal) {
  T *p = nullptr;
  UM_CHECK(cudaMallocManaged(&p, count * sizeof(T), flags));
  return p;
}

}  // namespace um

struct Particles {
  float *x, *y, *vx, *vy;
  int n;
};

void advect(Particles p, const float *field, int fieldN, float dt, int steps, cudaStream_t stream);
