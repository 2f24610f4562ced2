#include <cstring>
#include <memory>

#include "bandwidth.h"

namespace {

struct HostBuffer {
  HostMemory kind;
  void *ptr = nullptr;
  HostBuffer(HostMemory k, size_t bytes) : kind(k) {
    switch (kind) {
      case HostMemory::Pageable: ptr = std::malloc(bytes); break;
      case HostMemory::Pinned: checkCuda(cudaMallocHost(&ptr, bytes)); break;
      case HostMemory::WriteCombined: checkCuda(cudaHostAlloc(&ptr, bytes, cudaHostAllocWriteCombined)); break;
    }
    if (!ptr) {
      fprintf(stderr, "host allocation of %zu bytes failed\n", bytes);
      std::exit(1);
    }
    std::memset(ptr, 0x5a, bytes);
  }
  ~HostBuffer() {
    if (kind == HostMemory::Pageable) std::free(ptr);
    else cudaFreeHost(ptr);
  }
};

const char *label(HostMemory kind) {
  switch (kind) {
    case HostMemory::Pageable: return "pageable";
    case HostMemory::Pinned: return "pinned";
    case HostMemory::WriteCombined: return "write-combined";
  }
  return "?";
}

double timeCopies(void *dst, const void *src, size_t bytes, int reps, cudaMemcpyKind dir, cudaStream_t s) {
  cudaEvent_t start, stop;
  checkCuda(cudaEventCreate(&start));
  checkCuda(cudaEventCreate(&stop));
  checkCuda(cudaMemcpyAsync(dst, src, bytes, dir, s));  // warm-up
  checkCuda(cudaEventRecord(start, s));
  for (int i = 0; i < reps; ++i) checkCuda(cudaMemcpyAsync(dst, src, bytes, dir, s));
  checkCuda(cudaEventRecord(stop, s));
  checkCuda(cudaEventSynchronize(stop));
  float ms = 0.f;
  checkCuda(cudaEventElapsedTime(&ms, start, stop));
  checkCuda(cudaEventDestroy(start));
  checkCuda(cudaEventDestroy(stop));
  return double(bytes) * reps / (ms * 1e-3) / 1e9;
}

}  // namespace

TransferResult measureCopies(HostMemory kind, size_t bytes, int reps) {
  HostBuffer host(kind, bytes);
  void *dev = nullptr;
  checkCuda(cudaMalloc(&dev, bytes));
  cudaStream_t s;
  checkCuda(cudaStreamCreate(&s));
  TransferResult r{label(kind), 0.0, 0.0};
  r.h2d_gbps = timeCopies(dev, host.ptr, bytes, reps, cudaMemcpyHostToDevice, s);
  r.d2h_gbps = timeCopies(host.ptr, dev, bytes, reps, cudaMemcpyDeviceToHost, s);
  checkCuda(cudaStreamDestroy(s));
  checkCuda(cudaFree(dev));
  return r;
}

void printDeviceSummary(int device) {
  cudaDeviceProp prop;
  checkCuda(cudaGetDeviceProperties(&prop, device));
  printf("Device %d: %s (sm_%d%d)\n", device, prop.name, prop.major, prop.minor);
  printf("  copy engines: %d, can map host memory: %s, unified addressing: %s\n", prop.asyncEngineCount,
         prop.canMapHostMemory ? "yes" : "no", prop.unifiedAddressing ? "yes" : "no");
  printf("  pageable memory access: %s, uses host page tables: %s\n", prop.pageableMemoryAccess ? "yes" : "no",
         prop.pageableMemoryAccessUsesHostPageTables ? "yes" : "no");
}
