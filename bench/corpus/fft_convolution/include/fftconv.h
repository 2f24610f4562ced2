#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <cufft.h>

static const char *cufftErrorString(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "<unknown cufftResult>";
  }
}

#define CUFFT_CALL(x)                                                                          \
  do {                                                                                         \
    cufftResult r_ = (x);                                                                      \
    if (r_ != CUFFT_SUCCESS) {                                                                 \
      fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #x, cufftErrorString(r_)); \
      exit(EXIT_FAILURE);                                                                      \
    }                                                                                          \
  } while (0)

#define CUDA_RT_CALL(x)                                                                        \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(EXIT_FAILURE);                                                                      \
    }                                                                                          \
  } while (0)

void convolveReference(const std::vector<float> &img, int w, int h, const std::vector<float> &kernel, int kw,
                       int kh, std::vector<float> &out);
