// checks: PL001 PL002 PL003 PL004
#define FULL 0xffffffffu
__global__ void k(const int* in, int* out) {
  int v = in[threadIdx.x];
  unsigned mask = __ballot_sync(0xffffffff, v > 0);              // expect: PL001, PL002
  unsigned long long m64 = __ballot_sync(0xffffffffffffffffULL, v > 0);
  int all = __all_sync(FULL, v);                                   // expect: PL001
  int n = __popc(mask);                                            // expect: PL003
  int n2 = __popc(__ballot_sync(0xffffffffffffffffULL, v < 0));    // expect: PL003
  int n3 = __popcll(m64);
  unsigned active = __activemask();                                // expect: PL002
  int lane = threadIdx.x % warpSize;
  unsigned below = (1u << lane) - 1;                               // expect: PL004
  unsigned long long below64 = (1ull << lane) - 1;
  int bits = 1 << v;
  out[threadIdx.x] = n + n2 + n3 + all + (int)(active & below) + (int)below64 + bits;
}
