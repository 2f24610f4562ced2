// mc_options: Monte Carlo option pricing with cuRAND.
//   mc_options [paths] [steps] [seed]
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <curand.h>
#include <curand_kernel.h>
#include <cuda_runtime.h>

#define CURAND_CALL(x)                                                      \
  do {                                                                      \
    if ((x) != CURAND_STATUS_SUCCESS) {                                     \
      printf("cuRAND error at %s:%d\n", __FILE__, __LINE__);                \
      return EXIT_FAILURE;                                                  \
    }                                                                       \
  } while (0)
#define CUDA_CALL(x)                                                        \
  do {                                                                      \
    cudaError_t err__ = (x);                                                \
    if (err__ != cudaSuccess) {                                             \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(err__), __FILE__, __LINE__); \
      return EXIT_FAILURE;                                                  \
    }                                                                       \
  } while (0)

struct Market {
  float spot, strike, rate, vol, years;
};

__global__ void europeanPayoff(const float *z, int paths, Market m, float *sum) {
  __shared__ float part[256];
  float drift = (m.rate - 0.5f * m.vol * m.vol) * m.years;
  float diffusion = m.vol * sqrtf(m.years);
  float acc = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < paths; i += blockDim.x * gridDim.x) {
    float s = m.spot * expf(drift + diffusion * z[i]);
    acc += fmaxf(s - m.strike, 0.f);
  }
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, part[0]);
}

__global__ void setupStates(curandStatePhilox4_32_10_t *states, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) curand_init(seed, i, 0, &states[i]);
}

// Arithmetic-average Asian call; each thread walks several paths, four normals at a time.
__global__ void asianPayoff(curandStatePhilox4_32_10_t *states, int pathsPerThread, int steps, Market m,
                            float *sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t st = states[i];
  float dt = m.years / steps;
  float drift = (m.rate - 0.5f * m.vol * m.vol) * dt, diffusion = m.vol * sqrtf(dt);
  float acc = 0.f;
  for (int p = 0; p < pathsPerThread; ++p) {
    float s = m.spot, avg = 0.f;
    for (int t = 0; t < steps; t += 4) {
      float4 z = curand_normal4(&st);
      float zs[4] = {z.x, z.y, z.z, z.w};
      for (int j = 0; j < 4 && t + j < steps; ++j) {
        s *= expf(drift + diffusion * zs[j]);
        avg += s;
      }
    }
    acc += fmaxf(avg / steps - m.strike, 0.f);
  }
  states[i] = st;
  atomicAdd(sum, acc);
}

static double normCdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

int main(int argc, char **argv) {
  int paths = argc > 1 ? atoi(argv[1]) : 1 << 22;
  int steps = argc > 2 ? atoi(argv[2]) : 64;
  unsigned long long seed = argc > 3 ? strtoull(argv[3], nullptr, 10) : 1234ULL;
  if (paths < 1024 || steps < 1) {
    fprintf(stderr, "usage: %s [paths>=1024] [steps>=1] [seed]\n", argv[0]);
    return 2;
  }
  Market m = {100.f, 105.f, 0.03f, 0.25f, 1.f};

  cudaStream_t stream;
  CUDA_CALL(cudaStreamCreate(&stream));
  float *z, *dSum;
  CUDA_CALL(cudaMalloc(&z, paths * sizeof(float)));
  CUDA_CALL(cudaMalloc(&dSum, 2 * sizeof(float)));
  CUDA_CALL(cudaMemsetAsync(dSum, 0, 2 * sizeof(float), stream));

  curandGenerator_t gen;
  CURAND_CALL(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CALL(curandSetStream(gen, stream));
  CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, seed));
  CURAND_CALL(curandSetGeneratorOffset(gen, 0));
  CURAND_CALL(curandGenerateNormal(gen, z, paths, 0.f, 1.f));

  cudaEvent_t a, b, c;
  CUDA_CALL(cudaEventCreate(&a));
  CUDA_CALL(cudaEventCreate(&b));
  CUDA_CALL(cudaEventCreate(&c));
  CUDA_CALL(cudaEventRecord(a, stream));
  europeanPayoff<<<256, 256, 0, stream>>>(z, paths, m, dSum);
  CUDA_CALL(cudaEventRecord(b, stream));

  const int threads = 256, blocks = 128, states = threads * blocks;
  curandStatePhilox4_32_10_t *dStates;
  CUDA_CALL(cudaMalloc(&dStates, states * sizeof(*dStates)));
  setupStates<<<blocks, threads, 0, stream>>>(dStates, seed, states);
  int perThread = (paths / 16 + states - 1) / states;
  asianPayoff<<<blocks, threads, 0, stream>>>(dStates, perThread, steps, m, dSum + 1);
  CUDA_CALL(cudaEventRecord(c, stream));
  CUDA_CALL(cudaEventSynchronize(c));
  CUDA_CALL(cudaGetLastError());

  float sums[2];
  CUDA_CALL(cudaMemcpy(sums, dSum, sizeof(sums), cudaMemcpyDeviceToHost));
  float tEu, tAs;
  CUDA_CALL(cudaEventElapsedTime(&tEu, a, b));
  CUDA_CALL(cudaEventElapsedTime(&tAs, b, c));
  double disc = exp(-m.rate * m.years);
  double euro = disc * sums[0] / paths;
  double asian = disc * sums[1] / (double(perThread) * states);

  double d1 = (log(m.spot / m.strike) + (m.rate + 0.5 * m.vol * m.vol) * m.years) / (m.vol * sqrt(m.years));
  double d2 = d1 - m.vol * sqrt(m.years);
  double bs = m.spot * normCdf(d1) - m.strike * disc * normCdf(d2);
  printf("European call: MC %.4f vs Black-Scholes %.4f (%.3f ms)\n", euro, bs, tEu);
  printf("Asian call:    MC %.4f (%d steps, %.3f ms incl. state setup)\n", asian, steps, tAs);

  CURAND_CALL(curandDestroyGenerator(gen));
  cudaFree(z);
  cudaFree(dSum);
  cudaFree(dStates);
  cudaStreamDestroy(stream);
  bool ok = fabs(euro - bs) < 0.05 * bs && asian > 0.0 && asian < euro;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
