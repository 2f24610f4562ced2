// Separable Gaussian blur: the taps sit in constant memory, each pass stages a tile plus
// halo in shared memory; edges clamp to the border pixel.
#include <cuda_runtime.h>

#include "blur.h"

__constant__ float c_taps[TAP_COUNT];

void uploadTaps(const float *taps) { cudaMemcpyToSymbol(c_taps, taps, TAP_COUNT * sizeof(float)); }

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

__global__ void horizontalPass(float *out, const float *in, int width, int height) {
  __shared__ float strip[TILE_H][TILE_W + 2 * TAP_RADIUS];
  const int x = blockIdx.x * TILE_W + threadIdx.x;
  const int y = min(int(blockIdx.y * TILE_H + threadIdx.y), height - 1);
  const float *row = in + size_t(y) * width;
  // body plus left/right halos, loaded by the same threads in up to two rounds
  for (int i = threadIdx.x; i < TILE_W + 2 * TAP_RADIUS; i += TILE_W) {
    int gx = clampi(int(blockIdx.x * TILE_W) + i - TAP_RADIUS, 0, width - 1);
    strip[threadIdx.y][i] = row[gx];
  }
  __syncthreads();
  if (x >= width || blockIdx.y * TILE_H + threadIdx.y >= height) return;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < TAP_COUNT; ++k) acc = fmaf(c_taps[k], strip[threadIdx.y][threadIdx.x + k], acc);
  out[size_t(y) * width + x] = acc;
}

__global__ void verticalPass(float *out, const float *in, int width, int height) {
  __shared__ float column[TILE_H + 2 * TAP_RADIUS][TILE_W + 1];
  const int x = min(int(blockIdx.x * TILE_W + threadIdx.x), width - 1);
  const int y = blockIdx.y * TILE_H + threadIdx.y;
  for (int j = threadIdx.y; j < TILE_H + 2 * TAP_RADIUS; j += TILE_H) {
    int gy = clampi(int(blockIdx.y * TILE_H) + j - TAP_RADIUS, 0, height - 1);
    column[j][threadIdx.x] = in[size_t(gy) * width + x];
  }
  __syncthreads();
  if (blockIdx.x * TILE_W + threadIdx.x >= width || y >= height) return;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < TAP_COUNT; ++k) acc = fmaf(c_taps[k], column[threadIdx.y + k][threadIdx.x], acc);
  out[size_t(y) * width + x] = acc;
}

static dim3 gridFor(int width, int height) { return dim3((width + TILE_W - 1) / TILE_W, (height + TILE_H - 1) / TILE_H); }

void blurHorizontal(float *out, const float *in, int width, int height) {
  horizontalPass<<<gridFor(width, height), dim3(TILE_W, TILE_H)>>>(out, in, width, height);
}

void blurVertical(float *out, const float *in, int width, int height) {
  verticalPass<<<gridFor(width, height), dim3(TILE_W, TILE_H)>>>(out, in, width, height);
}
