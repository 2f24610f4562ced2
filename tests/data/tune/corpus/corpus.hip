// hipcc side of the corpus: compile with -Rpass-analysis=kernel-resource-usage (see porter/tune/usage.py).
#include <hip/hip_runtime.h>
#include "kernels.inc"

// hipcc only (the H200 record was made without it): 96 live doubles spill under small register budgets and use
// more than 100 SGPRs, so AGPR use, scratch and the SGPR table all show up in the remarks.
template <int B>
__global__ void __launch_bounds__(B) tune_spill96(TUNE_ARGS) {
  const double* src = (const double*)in;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double acc[96];
#pragma unroll
  for (int r = 0; r < 96; ++r) acc[r] = src[(i * 96 + r) % n];
  double s = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k)
#pragma unroll
    for (int r = 0; r < 96; ++r) acc[r] = acc[r] * acc[(r * 7 + k) % 96] + src[(r + k) % n];
#pragma unroll
  for (int r = 0; r < 96; ++r) s += acc[r] * r;
  if (i < n) out[i] = (float)s;
}

#define TUNE_INSTANTIATE(kernel, B) template __global__ void kernel<B>(TUNE_ARGS);
#define TUNE_ALL_BLOCKS(kernel) TUNE_FOR_EACH_BLOCK(TUNE_INSTANTIATE, kernel)
TUNE_KERNELS_COMMON(TUNE_ALL_BLOCKS)
TUNE_ALL_BLOCKS(tune_spill96)
#ifdef TUNE_LDS_64K
TUNE_ALL_BLOCKS(tune_lds64k)
#endif
#ifdef TUNE_LDS_160K
TUNE_ALL_BLOCKS(tune_lds96k)
TUNE_ALL_BLOCKS(tune_lds160k)
#endif
