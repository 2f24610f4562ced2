// checks: PW003 PW004 PW007 PW008
__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)      // expect: PW003
    v += __shfl_down_sync(0xffffffff, v, offset);
  for (int mask = 16; mask >= 1; mask >>= 1)          // expect: PW003
    v += __shfl_xor_sync(0xffffffff, v, mask, 32);    // expect: PW004
  for (int d = 1; d < 32; d *= 2) {                   // expect: PW007
    float t = __shfl_up_sync(0xffffffff, v, d);
    v += t;
  }
  v += __shfl_down_sync(0xffffffff, v, 16);           // expect: PW008
  v += __shfl_down_sync(0xffffffff, v, 8);
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffffffffffULL, v, offset);
  return v;
}
