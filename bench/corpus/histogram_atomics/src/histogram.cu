#include <cuda/atomic>

#include "hist.cuh"

__global__ void histGlobal(const uint8_t *img, size_t n, unsigned *bins) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x)
    atomicAdd(&bins[img[i]], 1u);
}

// Private histogram per block in shared memory: only threads of this block touch it,
// so block-scoped atomics are enough.
__global__ void histShared(const uint8_t *img, size_t n, unsigned *bins) {
  __shared__ unsigned local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x)
    atomicAdd_block(&local[img[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

// One sub-histogram per warp; a block-scoped bitmask records which bins any warp touched.
__global__ void histWarp(const uint8_t *img, size_t n, unsigned *bins) {
  extern __shared__ unsigned warpHist[];  // (blockDim.x / 32) * kBins
  __shared__ unsigned touched[kBins / 32];
  const int warp = threadIdx.x / 32;
  unsigned *mine = warpHist + warp * kBins;
  for (int b = threadIdx.x % 32; b < kBins; b += 32) mine[b] = 0;
  if (threadIdx.x < kBins / 32) touched[threadIdx.x] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x) {
    unsigned v = img[i];
    atomicAdd_block(&mine[v], 1u);
    atomicOr_block(&touched[v / 32], 1u << (v % 32));
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (!(touched[b / 32] & (1u << (b % 32)))) continue;
    unsigned sum = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) sum += warpHist[w * kBins + b];
    atomicAdd(&bins[b], sum);
  }
}

// Largest bin and number of non-empty bins; the first writer of a new maximum claims it with a CAS.
__global__ void binStats(const unsigned *bins, unsigned *maxBin, unsigned *nonEmpty) {
  __shared__ int claimed;
  if (threadIdx.x == 0) claimed = 0;
  __syncthreads();
  unsigned v = bins[threadIdx.x];
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> maxRef(*maxBin);
  maxRef.fetch_max(v, cuda::std::memory_order_relaxed);
  if (v) {
    atomicAdd(nonEmpty, 1u);
    atomicCAS_block(&claimed, 0, 1);
  }
}

HistStats histogram(const uint8_t *dImage, size_t n, unsigned *dBins, Method m) {
  HIST_CHECK(cudaMemset(dBins, 0, kBins * sizeof(unsigned)));
  int device = 0, sms = 0;
  HIST_CHECK(cudaGetDevice(&device));
  HIST_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  cudaEvent_t a, b;
  HIST_CHECK(cudaEventCreate(&a));
  HIST_CHECK(cudaEventCreate(&b));
  HIST_CHECK(cudaEventRecord(a));
  const int threads = 256;
  switch (m) {
    case Method::Global: histGlobal<<<sms * 4, threads>>>(dImage, n, dBins); break;
    case Method::Shared: histShared<<<sms * 4, threads>>>(dImage, n, dBins); break;
    case Method::Warp:
      histWarp<<<sms * 4, threads, (threads / 32) * kBins * sizeof(unsigned)>>>(dImage, n, dBins);
      break;
  }
  HIST_CHECK(cudaEventRecord(b));
  HIST_CHECK(cudaEventSynchronize(b));
  HIST_CHECK(cudaGetLastError());
  HistStats s{};
  HIST_CHECK(cudaEventElapsedTime(&s.ms, a, b));

  unsigned *dStats;
  HIST_CHECK(cudaMalloc(&dStats, 2 * sizeof(unsigned)));
  HIST_CHECK(cudaMemset(dStats, 0, 2 * sizeof(unsigned)));
  binStats<<<1, kBins>>>(dBins, dStats, dStats + 1);
  unsigned h[2];
  HIST_CHECK(cudaMemcpy(h, dStats, sizeof(h), cudaMemcpyDeviceToHost));
  s.maxBin = h[0];
  s.nonEmpty = h[1];
  HIST_CHECK(cudaFree(dStats));
  HIST_CHECK(cudaEventDestroy(a));
  HIST_CHECK(cudaEventDestroy(b));
  return s;
}
