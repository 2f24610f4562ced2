#pragma once
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kBins = 256;

inline void throwOnError(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    throw e;
  }
}
#define HIST_CHECK(x) throwOnError((x), #x)

enum class Method { Global, Shared, Warp };

struct HistStats {
  unsigned maxBin;
  unsigned nonEmpty;
  float ms;
};

HistStats histogram(const uint8_t *dImage, size_t n, unsigned *dBins, Method m);
void runWithProgress(const uint8_t *dImage, size_t n, unsigned *dBins, int chunks);
