#pragma once
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

enum class HostMemory { Pageable, Pinned, WriteCombined };

struct TransferResult {
  const char *label;
  double h2d_gbps;
  double d2h_gbps;
};

#define checkCuda(expr)                                                                     \
  do {                                                                                      \
    cudaError_t status__ = (expr);                                                          \
    if (status__ != cudaSuccess) {                                                          \
      fprintf(stderr, "CUDA error %s (%d) at %s:%d\n", cudaGetErrorString(status__),        \
              static_cast<int>(status__), __FILE__, __LINE__);                              \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (false)

TransferResult measureCopies(HostMemory kind, size_t bytes, int reps);
double measureZeroCopy(size_t bytes, int reps, bool *supported);
void printDeviceSummary(int device);
