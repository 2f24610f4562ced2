#pragma once
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <cuda_runtime.h>
#include <cuda_egl_interop.h>

#include <cstdio>

#define CUDA_EGL_CHECK(call)                                                                 \
  do {                                                                                       \
    cudaError_t e = (call);                                                                  \
    if (e != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      return false;                                                                          \
    }                                                                                        \
  } while (0)

struct FrameStats {
  unsigned long long sum;
  unsigned minLuma, maxLuma;
  unsigned width, height;
};

// Luma statistics of plane 0 of a frame, which may be pitch-linear or a CUDA array.
bool frameStatistics(const cudaEglFrame &frame, cudaStream_t stream, FrameStats *out);
