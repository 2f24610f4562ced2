// Self-test: the enclosures must contain the exact results, and bounds must be ordered.
#include <cmath>
#include <cstdio>

#include "interval.cuh"

struct Results {
  intervalf sumF, prodF, quotF, sqrtF;
  intervald sumD, prodD, quotD, sqrtD, sqD;
  float nearRatio, nearSqrt;
  double nearRcp;
};

__global__ void runOps(Results *r) {
  intervalf a(0.1f, 0.2f), b(3.0f, 3.0f);
  r->sumF = a + b;
  r->prodF = a * b;
  r->quotF = intervalf(1.0f) / b;
  r->sqrtF = sqrt(intervalf(2.0f));
  intervald c(0.1, 0.1), d(-2.0, 3.0);
  r->sumD = c + c + c;
  r->prodD = c * d;
  r->quotD = intervald(1.0) / intervald(3.0);
  r->sqrtD = sqrt(intervald(2.0));
  r->sqD = square(d);
  r->nearRatio = nearest_ratio(1.0f, 3.0f);
  r->nearSqrt = nearest_sqrt(2.0f);
  r->nearRcp = nearest_rcp(3.0);
}

static int failures = 0;
#define EXPECT(cond)                                        \
  do {                                                      \
    if (!(cond)) {                                          \
      printf("FAILED: %s (line %d)\n", #cond, __LINE__);   \
      ++failures;                                           \
    }                                                       \
  } while (0)

int main() {
  Results *d;
  cudaMallocManaged(&d, sizeof(Results));
  runOps<<<1, 1>>>(d);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    printf("kernel failed\n");
    return 1;
  }
  const Results &r = *d;
  EXPECT(r.sumF.lo <= 3.1f && r.sumF.hi >= 3.2f);
  EXPECT(r.prodF.lo <= 0.3f && r.prodF.hi >= 0.6f);
  EXPECT(r.quotF.contains(1.0f / 3.0f) || r.quotF.lo < r.quotF.hi);
  EXPECT(r.sqrtF.lo < r.sqrtF.hi && r.sqrtF.lo * r.sqrtF.lo <= 2.0f);
  EXPECT(r.sumD.lo <= 0.3 && r.sumD.hi >= 0.3 && r.sumD.lo < r.sumD.hi);
  EXPECT(r.prodD.lo <= -0.2 && r.prodD.hi >= 0.3);
  EXPECT(r.quotD.lo < r.quotD.hi);
  EXPECT(r.sqrtD.contains(std::sqrt(2.0)));
  EXPECT(r.sqD.lo == 0.0 && r.sqD.hi >= 9.0);
  EXPECT(std::fabs(r.nearRatio - 1.0f / 3.0f) < 1e-7f);
  EXPECT(std::fabs(r.nearSqrt - std::sqrt(2.0f)) < 1e-7f);
  EXPECT(std::fabs(r.nearRcp - 1.0 / 3.0) < 1e-16);
  cudaFree(d);
  printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
