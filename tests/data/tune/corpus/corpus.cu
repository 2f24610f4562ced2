// nvcc side of the corpus: for every kernel and block size, what the CUDA runtime says about occupancy.
// Built by scripts/tune_h200_occupancy.py (nvcc -arch=sm_90 -Xptxas -v); run on an H200, it prints one JSON object
// per line: first the device's properties, then one row per (kernel, block size, dynamic shared memory).
#include <cstdio>
#include <cuda_runtime.h>
#include "kernels.inc"

typedef void (*tune_kernel)(const float*, float*, int);
struct TuneEntry {
  const char* name;
  int block;
  tune_kernel fn;
};
#define TUNE_ENTRY(kernel, B) {#kernel, B, kernel<B>},
#define TUNE_ENTRIES(kernel) TUNE_FOR_EACH_BLOCK(TUNE_ENTRY, kernel)
static const TuneEntry entries[] = {TUNE_KERNELS_COMMON(TUNE_ENTRIES)};

int main() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  printf("{\"device\": \"%s\", \"cc\": \"%d.%d\", \"sm_count\": %d, \"regs_per_sm\": %d, \"regs_per_block\": %d, "
         "\"smem_per_sm\": %zu, \"smem_per_block\": %zu, \"smem_per_block_optin\": %zu, "
         "\"smem_reserved_per_block\": %zu, \"max_blocks_per_sm\": %d, \"max_threads_per_sm\": %d, "
         "\"warp_size\": %d, \"cuda_runtime\": %d}\n",
         p.name, p.major, p.minor, p.multiProcessorCount, p.regsPerMultiprocessor, p.regsPerBlock,
         p.sharedMemPerMultiprocessor, p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock,
         p.maxBlocksPerMultiProcessor, p.maxThreadsPerMultiProcessor, p.warpSize, CUDART_VERSION);
  const int dynamic[] = {0, 3000, 20000, 60000, 150000};
  for (const TuneEntry& e : entries) {
    cudaFuncAttributes a;
    cudaError_t err = cudaFuncGetAttributes(&a, e.fn);
    if (err != cudaSuccess) {
      printf("{\"kernel\": \"%s\", \"block\": %d, \"error\": \"%s\"}\n", e.name, e.block, cudaGetErrorString(err));
      continue;
    }
    int optin = (int)p.sharedMemPerBlockOptin - (int)a.sharedSizeBytes;
    cudaFuncSetAttribute(e.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
    for (int d : dynamic) {
      if (d > optin) continue;
      int blocks = -1;
      err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, e.fn, e.block, d);
      printf("{\"kernel\": \"%s\", \"block\": %d, \"dynamic_smem\": %d, \"regs\": %d, \"static_smem\": %zu, "
             "\"local_bytes\": %zu, \"max_threads\": %d, \"blocks_per_sm\": %d, \"error\": \"%s\"}\n",
             e.name, e.block, d, a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock, blocks,
             err == cudaSuccess ? "" : cudaGetErrorString(err));
    }
  }
  return 0;
}
