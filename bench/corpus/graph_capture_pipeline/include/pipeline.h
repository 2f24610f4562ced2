#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define checkCudaErrors(val) check_cuda((val), #val, __FILE__, __LINE__)
inline void check_cuda(cudaError_t result, const char *func, const char *file, int line) {
  if (result != cudaSuccess) {
    fprintf(stderr, "CUDA error = %d (%s) at %s:%d '%s'\n", static_cast<int>(result), cudaGetErrorName(result), file,
            line, func);
    cudaDeviceReset();
    exit(99);
  }
}

struct Buffers {
  float *input, *windowed, *lowpass, *highpass, *energyLow, *energyHigh;
  const float *taps;
  int n, ntaps;
};

void launchWindow(const Buffers &b, cudaStream_t s);
void launchFir(const float *in, float *out, const float *taps, int n, int ntaps, bool high, cudaStream_t s);
void launchEnergy(const float *in, float *out, int n, cudaStream_t s);
void launchScale(float *data, int n, float factor, cudaStream_t s);
