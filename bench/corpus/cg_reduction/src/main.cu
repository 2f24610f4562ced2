// cg_reduce: compare reduction strategies built on cooperative groups.
//   cg_reduce [-n elements] [-b blocks] [-t threads]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "reduction.h"

int main(int argc, char **argv) {
  size_t n = 1 << 24;
  int blocks = 0, threads = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n")) n = strtoull(argv[i + 1], nullptr, 10);
    else if (!strcmp(argv[i], "-b")) blocks = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-t")) threads = atoi(argv[i + 1]);
  }
  if (threads < 64 || threads > 1024 || (threads & (threads - 1))) {
    fprintf(stderr, "threads must be a power of two in [64, 1024]\n");
    return 2;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (blocks <= 0) blocks = prop.multiProcessorCount * 4;

  std::vector<float> h(n);
  double refSum = 0;
  float refMax = 0;
  for (size_t i = 0; i < n; ++i) {
    h[i] = float((i * 2654435761u) % 1000) / 1000.f;
    refSum += h[i];
    refMax = h[i] > refMax ? h[i] : refMax;
  }
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  int failures = 0;
  printf("%zu elements, %d blocks x %d threads on %s\n", n, blocks, threads, prop.name);
  for (int k = 0; k < kNumKinds; ++k) {
    float sum, mx;
    float ms = runReduce(ReduceKind(k), d, n, &sum, &mx, blocks, threads);
    bool ok = std::fabs(sum - refSum) / refSum < 1e-3 && (k == kDynamicTile || mx == refMax);
    failures += !ok;
    printf("  %-28s %8.3f ms %7.1f GB/s  sum %.6e  max %.3f  %s\n", reduceName(ReduceKind(k)), ms,
           n * sizeof(float) / (ms * 1e6), sum, mx, ok ? "ok" : "WRONG");
  }
  cudaFree(d);
  return failures ? 1 : 0;
}
