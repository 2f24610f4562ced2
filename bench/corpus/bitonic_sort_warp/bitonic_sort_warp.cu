// Bitonic sort of (key, value) pairs in blocks of 1024, with the first five stages done in
// registers across a warp.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#define FULL_MASK 0xffffffff
#define BLOCK_ELEMS 1024

static void check(cudaError_t e, const char *msg) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", msg, cudaGetErrorString(e));
    exit(EXIT_FAILURE);
  }
}

// Compare-exchange with the partner lane (lane ^ stride). `up` says whether this lane's
// sequence is ascending.
__device__ __forceinline__ void shflCompareSwap(unsigned &key, unsigned &val, int stride, bool up) {
  unsigned otherKey = __shfl_xor_sync(FULL_MASK, key, stride);
  unsigned otherVal = __shfl_xor_sync(FULL_MASK, val, stride);
  int lane = threadIdx.x & 31;
  bool lower = (lane & stride) == 0;
  bool takeMin = (lower == up);
  bool swap = takeMin ? (otherKey < key) : (otherKey > key);
  if (swap) {
    key = otherKey;
    val = otherVal;
  }
}

__device__ void warpBitonicSort(unsigned &key, unsigned &val, bool ascending) {
  int lane = threadIdx.x & 31;
  for (int size = 2; size <= 32; size <<= 1) {
    bool up = ((lane & size) == 0) == ascending;
    if (size == 32) up = ascending;
    for (int stride = size / 2; stride > 0; stride >>= 1) shflCompareSwap(key, val, stride, up);
  }
  __syncwarp();
}

__global__ void bitonicSortBlocks(unsigned *keys, unsigned *vals, int n, bool ascending) {
  __shared__ unsigned sk[BLOCK_ELEMS];
  __shared__ unsigned sv[BLOCK_ELEMS];
  int base = blockIdx.x * BLOCK_ELEMS;
  int t = threadIdx.x;
  unsigned key = base + t < n ? keys[base + t] : (ascending ? 0xffffffffu : 0u);
  unsigned val = base + t < n ? vals[base + t] : 0u;

  // stages 1-5: each warp sorts its 32 elements, alternating direction per warp
  bool warpUp = ((t / 32) % 2 == 0) == ascending;
  warpBitonicSort(key, val, warpUp);
  sk[t] = key;
  sv[t] = val;
  __syncthreads();

  // remaining stages through shared memory
  for (int size = 64; size <= BLOCK_ELEMS; size <<= 1) {
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      int partner = t ^ stride;
      if (partner > t) {
        bool up = ((t & size) == 0) == ascending;
        if (size == BLOCK_ELEMS) up = ascending;
        if ((sk[t] > sk[partner]) == up) {
          unsigned tk = sk[t], tv = sv[t];
          sk[t] = sk[partner];
          sv[t] = sv[partner];
          sk[partner] = tk;
          sv[partner] = tv;
        }
      }
      __syncthreads();
    }
  }
  if (base + t < n) {
    keys[base + t] = sk[t];
    vals[base + t] = sv[t];
  }
}

int main(int argc, char **argv) {
  int log2n = argc > 1 ? atoi(argv[1]) : 20;
  bool descending = argc > 2 && !strcmp(argv[2], "--desc");
  if (log2n < 10 || log2n > 28) {
    fprintf(stderr, "usage: %s [log2 elements, 10..28] [--desc]\n", argv[0]);
    return 2;
  }
  int n = 1 << log2n;
  std::vector<unsigned> keys(n), vals(n);
  std::mt19937 rng(7);
  for (int i = 0; i < n; ++i) {
    keys[i] = rng();
    vals[i] = i;
  }
  unsigned *dk, *dv;
  check(cudaMalloc(&dk, n * sizeof(unsigned)), "cudaMalloc keys");
  check(cudaMalloc(&dv, n * sizeof(unsigned)), "cudaMalloc values");
  check(cudaMemcpy(dk, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice), "copy keys");
  check(cudaMemcpy(dv, vals.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice), "copy values");

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  bitonicSortBlocks<<<n / BLOCK_ELEMS, BLOCK_ELEMS>>>(dk, dv, n, !descending);
  cudaEventRecord(stop);
  check(cudaEventSynchronize(stop), "sort");
  check(cudaGetLastError(), "launch");
  float ms;
  cudaEventElapsedTime(&ms, start, stop);

  std::vector<unsigned> outK(n), outV(n);
  check(cudaMemcpy(outK.data(), dk, n * sizeof(unsigned), cudaMemcpyDeviceToHost), "copy back");
  check(cudaMemcpy(outV.data(), dv, n * sizeof(unsigned), cudaMemcpyDeviceToHost), "copy back");
  int bad = 0;
  for (int b = 0; b < n; b += BLOCK_ELEMS) {
    std::vector<unsigned> ref(keys.begin() + b, keys.begin() + b + BLOCK_ELEMS);
    if (descending) std::sort(ref.begin(), ref.end(), std::greater<unsigned>());
    else std::sort(ref.begin(), ref.end());
    for (int i = 0; i < BLOCK_ELEMS; ++i) {
      if (outK[b + i] != ref[i] || keys[outV[b + i]] != outK[b + i]) ++bad;
    }
  }
  printf("sorted %d blocks of %d in %.3f ms (%.1f Mkeys/s): %s\n", n / BLOCK_ELEMS, BLOCK_ELEMS, ms,
         n / (ms * 1e3), bad ? "FAILED" : "PASSED");
  cudaFree(dk);
  cudaFree(dv);
  return bad ? 1 : 0;
}
