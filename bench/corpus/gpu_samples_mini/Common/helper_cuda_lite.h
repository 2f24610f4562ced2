// helper_cuda_lite.h - error checking and device selection shared by the samples.
//
// The error-name overloads are only compiled for the APIs a sample includes before this header
// (each library's include guard tells us which).
#ifndef COMMON_HELPER_CUDA_LITE_H_
#define COMMON_HELPER_CUDA_LITE_H_

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

static const char *_cudaGetErrorEnum(cudaError_t error) { return cudaGetErrorName(error); }

#ifdef __cuda_cuda_h__
// CUDA driver API errors
static const char *_cudaGetErrorEnum(CUresult error) {
  static char unknown[] = "<unknown>";
  const char *ret = NULL;
  cuGetErrorName(error, &ret);
  return ret ? ret : unknown;
}
#endif

#ifdef CUBLAS_API_H_
static const char *_cudaGetErrorEnum(cublasStatus_t error) {
  switch (error) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    default: return "<unknown>";
  }
}
#endif

#ifdef CURAND_H_
static const char *_cudaGetErrorEnum(curandStatus_t error) {
  switch (error) {
    case CURAND_STATUS_SUCCESS: return "CURAND_STATUS_SUCCESS";
    case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
    case CURAND_STATUS_ALLOCATION_FAILED: return "CURAND_STATUS_ALLOCATION_FAILED";
    default: return "<unknown>";
  }
}
#endif

template <typename T>
void check(T result, char const *const func, const char *const file, int const line) {
  if (result) {
    fprintf(stderr, "%s:%d: '%s' failed with %s (%u)\n", file, line, func, _cudaGetErrorEnum(result),
            static_cast<unsigned int>(result));
    exit(EXIT_FAILURE);
  }
}

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)
inline void __getLastCudaError(const char *errorMessage, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess != err) {
    fprintf(stderr, "%s:%d: %s: %s (%d)\n", file, line, errorMessage, cudaGetErrorString(err),
            static_cast<int>(err));
    exit(EXIT_FAILURE);
  }
}

// "-device=N" on the command line, else device 0.
inline int findCudaDevice(int argc, const char **argv) {
  int dev = 0;
  for (int i = 1; i < argc; ++i)
    if (!strncmp(argv[i], "-device=", 8)) dev = atoi(argv[i] + 8);
  int count = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  if (dev < 0 || dev >= count) {
    fprintf(stderr, "invalid device %d (%d present)\n", dev, count);
    exit(EXIT_FAILURE);
  }
  checkCudaErrors(cudaSetDevice(dev));
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  printf("using device %d (%s, sm_%d%d)\n", dev, prop.name, prop.major, prop.minor);
  return dev;
}

#endif  // COMMON_HELPER_CUDA_LITE_H_
