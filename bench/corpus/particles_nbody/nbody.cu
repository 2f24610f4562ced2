// nbody: O(N^2) gravitational N-body with leapfrog integration.
//   nbody [-n bodies] [-i iterations] [-b block] [--check]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include "nbody_math.h"

#define cudaCheck(ans) gpuAssert((ans), __FILE__, __LINE__)
inline void gpuAssert(cudaError_t code, const char *file, int line) {
  if (code != cudaSuccess) {
    fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
    exit(code);
  }
}

constexpr float kSoftening2 = 1e-3f;

// pos.w holds the mass
__device__ float3 bodyBodyInteraction(float3 ai, const float4 &bi, const float4 &bj) {
  float4 r = bj - bi;
  float distSqr = dot3(r, r) + kSoftening2;
  float invDist = rsqrtf(distSqr);
  float s = bj.w * invDist * invDist * invDist;
  ai += make_float3(r) * s;
  return ai;
}

template <int BLOCK>
__global__ void computeForces(const float4 *__restrict__ pos, float4 *__restrict__ accel, int n) {
  __shared__ float4 tile[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float4 me = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 acc = make_float3(0.f, 0.f, 0.f);
  for (int base = 0; base < n; base += BLOCK) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < BLOCK; ++k) acc = bodyBodyInteraction(acc, me, tile[k]);
    __syncthreads();
  }
  if (i < n) accel[i] = make_float4(acc, 0.f);
}

__global__ void integrate(float4 *pos, float4 *vel, const float4 *accel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = vel[i];
  v += accel[i] * dt;
  float4 p = pos[i];
  float mass = p.w;
  p += v * dt;
  p.w = mass;
  pos[i] = p;
  vel[i] = v;
}

static void randomize(std::vector<float4> &pos, std::vector<float4> &vel) {
  srand(42);
  for (size_t i = 0; i < pos.size(); ++i) {
    float3 p = make_float3(rand() / (float)RAND_MAX - 0.5f, rand() / (float)RAND_MAX - 0.5f,
                           rand() / (float)RAND_MAX - 0.5f);
    pos[i] = make_float4(p * 10.f, 1.0f / pos.size());
    vel[i] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
}

static double energy(const std::vector<float4> &pos, const std::vector<float4> &vel) {
  double e = 0.0;
  for (size_t i = 0; i < pos.size(); ++i) e += 0.5 * pos[i].w * dot3(vel[i], vel[i]);
  return e;
}

int main(int argc, char **argv) {
  int n = 16384, iters = 10;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--check")) check = true;
    else {
      printf("usage: %s [-n bodies] [-i iterations] [--check]\n", argv[0]);
      return 1;
    }
  }
  constexpr int BLOCK = 256;
  n = (n + BLOCK - 1) / BLOCK * BLOCK;

  std::vector<float4> hPos(n), hVel(n);
  randomize(hPos, hVel);
  float4 *dPos, *dVel, *dAcc;
  cudaCheck(cudaMalloc(&dPos, n * sizeof(float4)));
  cudaCheck(cudaMalloc(&dVel, n * sizeof(float4)));
  cudaCheck(cudaMalloc(&dAcc, n * sizeof(float4)));
  cudaCheck(cudaMemcpy(dPos, hPos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  cudaCheck(cudaMemcpy(dVel, hVel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));
  cudaCheck(cudaEventRecord(start));
  for (int it = 0; it < iters; ++it) {
    computeForces<BLOCK><<<n / BLOCK, BLOCK>>>(dPos, dAcc, n);
    integrate<<<n / BLOCK, BLOCK>>>(dPos, dVel, dAcc, n, 0.01f);
  }
  cudaCheck(cudaEventRecord(stop));
  cudaCheck(cudaEventSynchronize(stop));
  cudaCheck(cudaGetLastError());
  float ms;
  cudaCheck(cudaEventElapsedTime(&ms, start, stop));
  double interactions = double(n) * n * iters;
  printf("%d bodies, %d iterations: %.3f ms, %.2f billion interactions/s, %.1f GFLOP/s\n", n, iters, ms,
         interactions / (ms * 1e6), interactions * 20 / (ms * 1e6));

  cudaCheck(cudaMemcpy(hPos.data(), dPos, n * sizeof(float4), cudaMemcpyDeviceToHost));
  cudaCheck(cudaMemcpy(hVel.data(), dVel, n * sizeof(float4), cudaMemcpyDeviceToHost));
  if (check) {
    double e = energy(hPos, hVel);
    printf("kinetic energy %.6e %s\n", e, std::isfinite(e) ? "(finite: OK)" : "(NOT FINITE)");
    if (!std::isfinite(e)) return 1;
  }
  cudaFree(dPos);
  cudaFree(dVel);
  cudaFree(dAcc);
  return 0;
}
