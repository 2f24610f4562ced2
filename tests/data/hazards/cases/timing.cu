// checks: PK001 PK002
#include <ctime>
__global__ void k(long long* out) {
  long long t0 = clock64();                                              // expect: PK001
  clock_t c0 = clock();                                                  // expect: PK001
  out[0] = clock64() - t0 + (clock() - c0);                              // expect: PK001, PK001
}
int host_time() {
  clock_t start = clock();
  return (int)(clock() - start);
}
