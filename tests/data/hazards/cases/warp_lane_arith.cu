// checks: PW001 PW002
#define WARP 32
__global__ void reduce(const float* in, float* out) {
  int lane = threadIdx.x % 32;            // expect: PW001
  int warp = threadIdx.x / 32;            // expect: PW002
  int lane2 = threadIdx.x & 31;           // expect: PW001
  int warp2 = threadIdx.x >> 5;           // expect: PW002
  int nwarps = (blockDim.x + 31) / 32;    // expect: PW002
  float v = in[threadIdx.x];
  v += __shfl_xor_sync(0xffffffffffffffffULL, v, 1);
  if (lane == 0 && lane2 == 0) out[warp + warp2 + nwarps] = v;
}
