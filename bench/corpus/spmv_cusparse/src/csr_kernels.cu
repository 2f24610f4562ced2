#include <cuda_runtime.h>

#include "csr.h"

__global__ void csrScalar(int rows, const int *rowPtr, const int *colInd, const float *val, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.f;
  for (int j = rowPtr[r]; j < rowPtr[r + 1]; ++j) sum += val[j] * __ldg(&x[colInd[j]]);
  y[r] = sum;
}

// One warp per row; lanes stride over the row and combine with shuffles.
__global__ void csrVector(int rows, const int *rowPtr, const int *colInd, const float *val, const float *x, float *y) {
  const int lane = threadIdx.x & 31;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= rows) return;  // whole warps leave together
  float sum = 0.f;
  for (int j = rowPtr[row] + lane; j < rowPtr[row + 1]; j += 32) sum += val[j] * x[colInd[j]];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
  if (lane == 0) y[row] = sum;
}

void spmvScalar(int rows, const int *rowPtr, const int *colInd, const float *val, const float *x, float *y) {
  csrScalar<<<(rows + 255) / 256, 256>>>(rows, rowPtr, colInd, val, x, y);
}

void spmvVector(int rows, const int *rowPtr, const int *colInd, const float *val, const float *x, float *y) {
  long long threads = 32LL * rows;
  csrVector<<<unsigned((threads + 255) / 256), 256>>>(rows, rowPtr, colInd, val, x, y);
}
