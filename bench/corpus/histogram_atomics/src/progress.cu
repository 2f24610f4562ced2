// A long histogram run split into chunks taken from a ring-buffer queue; the host watches a
// counter in mapped pinned memory that the GPU bumps with system-scope atomics.
#include <chrono>
#include <thread>

#include "hist.cuh"

struct Progress {
  unsigned done;       // chunks finished (wraps at `ring`)
  unsigned inFlight;   // chunks being worked on
  unsigned maxChunk;   // largest chunk index seen
  unsigned lastBlock;  // block that finished last
};

__global__ void chunkedHistogram(const uint8_t *img, size_t n, int chunks, unsigned *bins, unsigned *queueHead,
                                 Progress *progress, unsigned ring) {
  __shared__ unsigned chunk;
  while (true) {
    if (threadIdx.x == 0) {
      chunk = atomicInc(queueHead, 0xffffffffu);
      if (chunk < unsigned(chunks)) atomicAdd_system(&progress->inFlight, 1u);
    }
    __syncthreads();
    if (chunk >= unsigned(chunks)) break;
    size_t per = (n + chunks - 1) / chunks;
    size_t begin = chunk * per, end = begin + per < n ? begin + per : n;
    for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x) atomicAdd(&bins[img[i]], 1u);
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      atomicInc_system(&progress->done, ring - 1);
      atomicDec_system(&progress->inFlight, 0xffffffffu);
      atomicMax_system(&progress->maxChunk, chunk);
      atomicExch_system(&progress->lastBlock, blockIdx.x);
    }
    __syncthreads();
  }
}

void runWithProgress(const uint8_t *dImage, size_t n, unsigned *dBins, int chunks) {
  Progress *hProgress = nullptr, *dProgress = nullptr;
  HIST_CHECK(cudaHostAlloc(&hProgress, sizeof(Progress), cudaHostAllocMapped));
  HIST_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&dProgress), hProgress, 0));
  *hProgress = Progress{0, 0, 0, 0};
  unsigned *dHead;
  HIST_CHECK(cudaMalloc(&dHead, sizeof(unsigned)));
  HIST_CHECK(cudaMemset(dHead, 0, sizeof(unsigned)));
  HIST_CHECK(cudaMemset(dBins, 0, kBins * sizeof(unsigned)));

  const unsigned ring = 1u << 20;
  chunkedHistogram<<<64, 256>>>(dImage, n, chunks, dBins, dHead, dProgress, ring);
  volatile Progress *watch = hProgress;
  while (cudaStreamQuery(0) == cudaErrorNotReady) {
    printf("\r  chunks done: %u/%d, in flight: %u", watch->done, chunks, watch->inFlight);
    fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  HIST_CHECK(cudaDeviceSynchronize());
  printf("\r  chunks done: %u/%d, largest chunk %u, last block %u\n", watch->done, chunks, watch->maxChunk,
         watch->lastBlock);
  HIST_CHECK(cudaFree(dHead));
  HIST_CHECK(cudaFreeHost(hProgress));
}
