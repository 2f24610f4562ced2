// Column-major C = alpha*A*B + beta*C with 32x32 shared-memory tiles (cuBLAS layout).
#include "cuda_helpers.h"

constexpr int TILE = 32;

__global__ void sgemmTiled(int m, int n, int k, float alpha, const float *__restrict__ A,
                           const float *__restrict__ B, float beta, float *__restrict__ C) {
  __shared__ float As[TILE][TILE + 1];
  __shared__ float Bs[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < k; t += TILE) {
    As[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? A[(t + threadIdx.x) * m + row] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? B[col * k + t + threadIdx.y] : 0.f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TILE; ++i) acc = fmaf(As[threadIdx.y][i], Bs[i][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < m && col < n) C[col * m + row] = alpha * acc + beta * C[col * m + row];
}

void tiledSgemm(int m, int n, int k, float alpha, const float *A, const float *B, float beta, float *C,
                cudaStream_t s) {
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  sgemmTiled<<<grid, block, 0, s>>>(m, n, k, alpha, A, B, beta, C);
  CHECK(cudaGetLastError());
}
