#include <hip/hip_runtime.h>
#define FULL_MASK 0xffffffff  // all lanes
#define OTHER_MASK 0xffffffff
__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}
__device__ unsigned other(float v) {
  unsigned long long b = __ballot_sync(OTHER_MASK, v > 0);
  return OTHER_MASK & (unsigned)b;
}
