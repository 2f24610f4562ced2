#include <hip/hip_runtime.h>
// Nothing here is an unambiguous warp hazard: fixes must leave it byte for byte.
#define TILE 32
#define FULL_MASK 0xffffffff  // also used as a plain 32-bit value below: not only a mask
__global__ void transpose(float* o, const float* in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * 32 + threadIdx.x;
  int col = x % 32;
  int bucket = n % 32;
  int blocks = (n + 31) / 32;
  int c = threadIdx.x % TILE;
  tile[threadIdx.y][threadIdx.x] = in[x];
  __syncthreads();
  for (int i = 16; i > 0; i /= 2) bucket += i;
  o[x] = tile[threadIdx.x][threadIdx.y] + col + bucket + blocks + c;
}
__global__ void reduce(float* o) {
  float v = o[threadIdx.x];
  v += __shfl_xor_sync(FULL_MASK, v, 1);
  v += __shfl_xor_sync(0xffffffffffffffffULL, v, 2);
  unsigned long long all = __ballot_sync(-1, v > 0);
  o[threadIdx.x % 2] = v + (float)all + (float)(FULL_MASK >> 31);
}
