// Error reporting shared by the runtime-API and driver-API paths of the tool.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda.h>
#include <cuda_runtime.h>

// Readable names for runtime errors.
static inline const char *_errorString(cudaError_t error) {
  return cudaGetErrorName(error);
}

// Readable names for driver errors: the driver keeps its own table.
static inline const char *_errorString(CUresult error) {
  const char *name = nullptr;
  if (cuGetErrorName(error, &name) != CUDA_SUCCESS || name == nullptr) {
    return "<unknown driver error>";
  }
  return name;
}

template <typename T>
void check(T result, char const *const func, const char *const file, int const line) {
  if (result) {
    fprintf(stderr, "%s:%d: %s returned %d (%s)\n", file, line, func,
            static_cast<int>(result), _errorString(result));
    exit(EXIT_FAILURE);
  }
}

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
