// sph: dam-break with smoothed-particle hydrodynamics.
//   sph [particles] [steps]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sph.cuh"

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      fprintf(stderr, "%s failed at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

// Sum of densities, reduced with 64-bit atomics to keep the order irrelevant.
__global__ void densityStats(const float *density, int n, unsigned long long *fixedSum, long long *maxFixed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = static_cast<long long>(density[i] * 1024.f);
  atomicAdd(fixedSum, static_cast<unsigned long long>(v));
  atomicMax(maxFixed, llmax(v, 0LL));
}

template <typename T>
T *devAlloc(size_t n) {
  T *p;
  CK(cudaMalloc(&p, n * sizeof(T)));
  return p;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 32768;
  int steps = argc > 2 ? atoi(argv[2]) : 100;
  if (n <= 0 || steps <= 0) {
    fprintf(stderr, "usage: %s [particles] [steps]\n", argv[0]);
    return 2;
  }
  SphParams p;
  p.h = 0.04f;
  p.mass = 0.02f;
  p.restDensity = 1000.f;
  p.stiffness = 3.f;
  p.viscosity = 3.5f;
  p.dt = 1e-3f;
  p.gravity = make_float3(0.f, -9.81f, 0.f);
  p.grid.origin = make_float3(0.f, 0.f, 0.f);
  p.grid.cellSize = p.h;
  p.grid.dims = make_uint3(32, 32, 32);
  unsigned cells = p.grid.dims.x * p.grid.dims.y * p.grid.dims.z;

  std::vector<float3> pos(n);
  int side = 1;
  while (side * side * side < n) ++side;
  for (int i = 0; i < n; ++i) {
    int x = i % side, y = (i / side) % side, z = i / (side * side);
    pos[i] = make_float3(0.05f + x * 0.5f * p.h, 0.05f + y * 0.5f * p.h, 0.05f + z * 0.5f * p.h);
  }

  Fluid f;
  f.n = n;
  f.pos = devAlloc<float3>(n);
  f.vel = devAlloc<float3>(n);
  f.force = devAlloc<float3>(n);
  f.density = devAlloc<float>(n);
  f.pressure = devAlloc<float>(n);
  f.cell = devAlloc<unsigned>(n);
  f.sortedIndex = devAlloc<unsigned>(n);
  f.cellStart = devAlloc<unsigned>(cells);
  f.cellCount = devAlloc<unsigned>(cells);
  CK(cudaMemcpy(f.pos, pos.data(), n * sizeof(float3), cudaMemcpyHostToDevice));
  CK(cudaMemset(f.vel, 0, n * sizeof(float3)));

  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  CK(cudaEventRecord(t0, s));
  for (int step = 0; step < steps; ++step) {
    buildGrid(f, p, s);
    computeDensity(f, p, s);
    computeForces(f, p, s);
    integrate(f, p, s);
  }
  CK(cudaEventRecord(t1, s));
  CK(cudaEventSynchronize(t1));
  CK(cudaGetLastError());
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, t0, t1));

  unsigned long long *sum = devAlloc<unsigned long long>(1);
  long long *mx = devAlloc<long long>(1);
  CK(cudaMemset(sum, 0, sizeof(*sum)));
  CK(cudaMemset(mx, 0, sizeof(*mx)));
  densityStats<<<(n + 255) / 256, 256>>>(f.density, n, sum, mx);
  unsigned long long hs;
  long long hm;
  CK(cudaMemcpy(&hs, sum, sizeof(hs), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&hm, mx, sizeof(hm), cudaMemcpyDeviceToHost));
  printf("%d particles, %d steps: %.2f ms/step; mean density %.1f, max %.1f\n", n, steps, ms / steps,
         hs / 1024.0 / n, hm / 1024.0);
  return 0;
}
