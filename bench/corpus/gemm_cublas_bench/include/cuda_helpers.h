// cuda_helpers.h: one error-checking entry point for the runtime, the driver and cuBLAS.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

inline const char *getErrorString(cudaError_t e) { return cudaGetErrorString(e); }

inline const char *getErrorString(CUresult e) {
  const char *s = nullptr;
  cuGetErrorString(e, &s);
  return s ? s : "unknown CUresult";
}

inline const char *getErrorString(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "unknown cublasStatus_t";
  }
}

inline bool isSuccess(cudaError_t e) { return e == cudaSuccess; }
inline bool isSuccess(CUresult e) { return e == CUDA_SUCCESS; }
inline bool isSuccess(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS; }

template <typename T>
void checkImpl(T status, const char *expr, const char *file, int line) {
  if (!isSuccess(status)) {
    std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + expr + " -> " + getErrorString(status);
    throw std::runtime_error(msg);
  }
}
#define CHECK(expr) checkImpl((expr), #expr, __FILE__, __LINE__)

struct GpuTimer {
  cudaEvent_t start, stop;
  cudaStream_t stream;
  explicit GpuTimer(cudaStream_t s = 0) : stream(s) {
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
  }
  ~GpuTimer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  void begin() { CHECK(cudaEventRecord(start, stream)); }
  float end() {
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

void tiledSgemm(int m, int n, int k, float alpha, const float *A, const float *B, float beta, float *C,
                cudaStream_t s);
