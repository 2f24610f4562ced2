#ifndef CUDA_CHECK_CUH
#define CUDA_CHECK_CUH

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,        \
              cudaGetErrorString(err_));                                          \
      exit(EXIT_FAILURE);                                                         \
    }                                                                             \
  } while (0)

// Errors that are expected on some systems (no P2P between two boards) are only reported.
#define CUDA_WARN(call)                                                           \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      fprintf(stderr, "warning: %s: %s\n", #call, cudaGetErrorString(err_));      \
      (void)cudaGetLastError();                                                   \
    }                                                                             \
  } while (0)

#endif
