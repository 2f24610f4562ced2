#include <hip/hip_runtime.h>
#include <hipfft/hipfft.h>
#include <hiprand/hiprand.h>
#include "check.h"

int main() {
  hipfftHandle plan;
  check(hipfftPlan1d(&plan, 256, HIPFFT_C2C, 1), "cufftPlan1d");
  hiprandGenerator_t gen;
  check(hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT), "curandCreateGenerator");
  check(hipfftDestroy(plan), "cufftDestroy");
  return 0;
}
