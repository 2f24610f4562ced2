#include <hip/hip_runtime.h>
#include <ctime>
__global__ void timed(long long* out) {
  long long start = wall_clock64();
  clock_t c = wall_clock64();
  out[0] = wall_clock64() - start + (wall_clock64() - c);
}
long long host_clock() { return clock(); }
