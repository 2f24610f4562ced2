#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda_runtime.h>

#define BENCH_CHECK(call)                                                                        \
  do {                                                                                           \
    cudaError_t err_ = (call);                                                                   \
    if (err_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "[%s:%d] %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(EXIT_FAILURE);                                                                   \
    }                                                                                            \
  } while (0)

struct BenchArgs {
  int size = 0;
  int iterations = 0;
  bool verbose = false;
};

inline BenchArgs parseArgs(int argc, char **argv, int defSize, int defIter) {
  BenchArgs a;
  a.size = defSize;
  a.iterations = defIter;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if ((s == "-s" || s == "--size") && i + 1 < argc) a.size = std::atoi(argv[++i]);
    else if ((s == "-i" || s == "--iterations") && i + 1 < argc) a.iterations = std::atoi(argv[++i]);
    else if (s == "-v") a.verbose = true;
    else {
      std::printf("usage: %s [-s size] [-i iterations] [-v]\n", argv[0]);
      std::exit(s == "--help" ? 0 : 2);
    }
  }
  if (a.size <= 0 || a.iterations <= 0) {
    std::fprintf(stderr, "size and iterations must be positive\n");
    std::exit(2);
  }
  return a;
}

class EventTimer {
 public:
  EventTimer() {
    BENCH_CHECK(cudaEventCreate(&a_));
    BENCH_CHECK(cudaEventCreate(&b_));
  }
  ~EventTimer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  void start(cudaStream_t s = 0) { BENCH_CHECK(cudaEventRecord(a_, s)); }
  float stop(cudaStream_t s = 0) {
    BENCH_CHECK(cudaEventRecord(b_, s));
    BENCH_CHECK(cudaEventSynchronize(b_));
    float ms;
    BENCH_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    return ms;
  }

 private:
  cudaEvent_t a_, b_;
};

// Registers, spills and theoretical occupancy of a kernel, printed once per benchmark.
template <typename Kernel>
void reportKernel(const char *name, Kernel kernel, int blockSize, size_t dynamicSmem = 0) {
  cudaFuncAttributes attr;
  BENCH_CHECK(cudaFuncGetAttributes(&attr, kernel));
  int device;
  BENCH_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  BENCH_CHECK(cudaGetDeviceProperties(&prop, device));
  int blocksPerSm = 0;
  BENCH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, kernel, blockSize, dynamicSmem));
  float occupancy = float(blocksPerSm * blockSize) / prop.maxThreadsPerMultiProcessor;
  std::printf("%s: %d regs, %zu B local, %zu B static smem, PTX %d, %d blocks/SM (limit %d), occupancy %.0f%%\n",
              name, attr.numRegs, attr.localSizeBytes, attr.sharedSizeBytes, attr.ptxVersion, blocksPerSm,
              prop.maxBlocksPerMultiProcessor, 100.f * occupancy);
  if (attr.numRegs * blockSize > prop.regsPerMultiprocessor)
    std::printf("  warning: one block needs more registers than an SM has\n");
  if (dynamicSmem + attr.sharedSizeBytes > prop.sharedMemPerBlockOptin - prop.reservedSharedMemPerBlock)
    std::printf("  warning: shared memory exceeds the opt-in limit\n");
}
