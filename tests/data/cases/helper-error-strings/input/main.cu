#include <cuda_runtime.h>
#include <cufft.h>
#include <curand.h>
#include "check.h"

int main() {
  cufftHandle plan;
  check(cufftPlan1d(&plan, 256, CUFFT_C2C, 1), "cufftPlan1d");
  curandGenerator_t gen;
  check(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT), "curandCreateGenerator");
  check(cufftDestroy(plan), "cufftDestroy");
  return 0;
}
