#include <cfloat>

#include "fused_common.cuh"
#include "fusedops.h"

using namespace fused;

// One warp per row for rows up to 1024 wide: values stay in registers.
template <typename T, int PER_LANE>
__global__ void warpSoftmax(const T *__restrict__ x, T *__restrict__ y, int rows, int cols, float scale) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float v[PER_LANE];
  float m = -FLT_MAX;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    int c = lane + 32 * i;
    v[i] = c < cols ? toFloat(x[size_t(row) * cols + c]) * scale : -FLT_MAX;
    m = fmaxf(m, v[i]);
  }
  m = warpAllMax(m);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    v[i] = __expf(v[i] - m);
    s += v[i];
  }
  s = warpAllSum(s);
  float inv = 1.f / s;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    int c = lane + 32 * i;
    if (c < cols) y[size_t(row) * cols + c] = fromFloat<T>(v[i] * inv);
  }
}

template <typename T>
static cudaError_t launch(const void *x, void *y, int rows, int cols, float scale, cudaStream_t s) {
  dim3 block(128), grid((rows + 3) / 4);
  const T *in = static_cast<const T *>(x);
  T *out = static_cast<T *>(y);
  if (cols <= 128) warpSoftmax<T, 4><<<grid, block, 0, s>>>(in, out, rows, cols, scale);
  else if (cols <= 512) warpSoftmax<T, 16><<<grid, block, 0, s>>>(in, out, rows, cols, scale);
  else if (cols <= 1024) warpSoftmax<T, 32><<<grid, block, 0, s>>>(in, out, rows, cols, scale);
  else return cudaErrorInvalidValue;
  return cudaGetLastError();
}

cudaError_t fusedSoftmax(const void *x, void *y, int rows, int cols, float scale, int dtype, cudaStream_t stream) {
  return dtype == 0 ? launch<__half>(x, y, rows, cols, scale, stream)
                    : launch<__nv_bfloat16>(x, y, rows, cols, scale, stream);
}
