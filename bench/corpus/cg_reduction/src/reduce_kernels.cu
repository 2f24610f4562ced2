// Reductions written with cooperative groups.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdio>

#include "reduction.h"

namespace cg = cooperative_groups;

// Classic shared-memory tree, synchronised through the block group.
__global__ void reduceSharedTree(const float *in, size_t n, float *partialSum, float *partialMax) {
  extern __shared__ float smem[];
  cg::thread_block block = cg::this_thread_block();
  float *ssum = smem;
  float *smax = smem + block.num_threads();
  unsigned t = block.thread_rank();
  float s = 0.f, m = -FLT_MAX;
  for (size_t i = blockIdx.x * size_t(block.dim_threads().x) + t; i < n; i += size_t(gridDim.x) * blockDim.x) {
    s += in[i];
    m = fmaxf(m, in[i]);
  }
  ssum[t] = s;
  smax[t] = m;
  block.sync();
  for (unsigned stride = block.num_threads() / 2; stride > 0; stride >>= 1) {
    if (t < stride) {
      ssum[t] += ssum[t + stride];
      smax[t] = fmaxf(smax[t], smax[t + stride]);
    }
    block.sync();
  }
  if (t == 0) {
    partialSum[blockIdx.x] = ssum[0];
    partialMax[blockIdx.x] = smax[0];
  }
}

// One warp-sized tile per 32 threads; tiles reduce with cg::reduce and write their partial at
// meta_group_rank(); tile 0 then reduces the partials.
template <unsigned TILE>
__global__ void reduceTiles(const float *in, size_t n, float *partialSum, float *partialMax) {
  __shared__ float tileSum[1024 / TILE];
  __shared__ float tileMax[1024 / TILE];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(block);
  float s = 0.f, m = -FLT_MAX;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + block.thread_rank(); i < n; i += size_t(gridDim.x) * blockDim.x) {
    s += in[i];
    m = fmaxf(m, in[i]);
  }
  s = cg::reduce(tile, s, cg::plus<float>());
  m = cg::reduce(tile, m, cg::greater<float>());
  if (tile.thread_rank() == 0) {
    tileSum[tile.meta_group_rank()] = s;
    tileMax[tile.meta_group_rank()] = m;
  }
  block.sync();
  if (tile.meta_group_rank() == 0) {
    unsigned tiles = tile.meta_group_size();
    s = 0.f;
    m = -FLT_MAX;
    for (unsigned k = tile.thread_rank(); k < tiles; k += tile.num_threads()) {
      s += tileSum[k];
      m = fmaxf(m, tileMax[k]);
    }
    s = cg::reduce(tile, s, cg::plus<float>());
    m = cg::reduce(tile, m, cg::greater<float>());
    if (tile.thread_rank() == 0) {
      partialSum[blockIdx.x] = s;
      partialMax[blockIdx.x] = m;
    }
  }
}

// Tile size chosen at run time: thread_group rather than thread_block_tile.
__global__ void reduceDynamicTile(const float *in, size_t n, float *partialSum, float *partialMax, unsigned tileSize) {
  extern __shared__ float smem[];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group tile = cg::tiled_partition(block, tileSize);
  float *mine = smem + (block.thread_rank() / tileSize) * tileSize;
  float s = 0.f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + block.thread_rank(); i < n; i += size_t(gridDim.x) * blockDim.x)
    s += in[i];
  mine[tile.thread_rank()] = s;
  tile.sync();
  for (unsigned stride = tile.size() / 2; stride > 0; stride >>= 1) {
    if (tile.thread_rank() < stride) mine[tile.thread_rank()] += mine[tile.thread_rank() + stride];
    tile.sync();
  }
  if (block.thread_rank() == 0) {
    float total = 0.f;
    for (unsigned k = 0; k < block.size() / tileSize; ++k) total += smem[k * tileSize];
    partialSum[blockIdx.x] = total;
    partialMax[blockIdx.x] = 0.f;
  }
}

const char *reduceName(ReduceKind k) {
  switch (k) {
    case kSharedTree: return "shared tree (thread_block)";
    case kTileReduce: return "cg::reduce, tile<32>";
    case kTile16Reduce: return "cg::reduce, tile<16>";
    case kDynamicTile: return "dynamic tiled_partition";
    default: return "?";
  }
}

float runReduce(ReduceKind k, const float *dIn, size_t n, float *sum, float *maxv, int blocks, int threads) {
  float *dSum, *dMax;
  cudaMalloc(&dSum, blocks * sizeof(float));
  cudaMalloc(&dMax, blocks * sizeof(float));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  switch (k) {
    case kSharedTree:
      reduceSharedTree<<<blocks, threads, 2 * threads * sizeof(float)>>>(dIn, n, dSum, dMax);
      break;
    case kTileReduce: reduceTiles<32><<<blocks, threads>>>(dIn, n, dSum, dMax); break;
    case kTile16Reduce: reduceTiles<16><<<blocks, threads>>>(dIn, n, dSum, dMax); break;
    default: reduceDynamicTile<<<blocks, threads, threads * sizeof(float)>>>(dIn, n, dSum, dMax, 64); break;
  }
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  if (cudaGetLastError() != cudaSuccess) fprintf(stderr, "%s: launch failed\n", reduceName(k));

  float *hSum = new float[blocks], *hMax = new float[blocks];
  cudaMemcpy(hSum, dSum, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hMax, dMax, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  *sum = 0.f;
  *maxv = -FLT_MAX;
  for (int i = 0; i < blocks; ++i) {
    *sum += hSum[i];
    *maxv = hMax[i] > *maxv ? hMax[i] : *maxv;
  }
  delete[] hSum;
  delete[] hMax;
  cudaFree(dSum);
  cudaFree(dMax);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms;
}
