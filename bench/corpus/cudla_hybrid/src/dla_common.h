#pragma once
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define DPRINTF(...) fprintf(stderr, __VA_ARGS__)

#define CHECK_CUDA(x)                                                                     \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      DPRINTF("%s:%d CUDA error %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));      \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

// Preprocessing: 8-bit HWC image -> normalized half CHW; postprocessing: argmax over classes.
void launchPreprocess(const uint8_t *rgb, int width, int height, void *chwHalf, cudaStream_t s);
void launchArgmax(const void *logitsHalf, int classes, int *best, cudaStream_t s);
