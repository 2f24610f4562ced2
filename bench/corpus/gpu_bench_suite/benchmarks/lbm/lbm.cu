// lbm: D2Q9 lattice Boltzmann (BGK) for a lid-driven cavity, structure-of-arrays, pull scheme.
#include <cmath>
#include <vector>

#include "bench_common.h"

__constant__ int c_ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int c_ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ int c_opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
__constant__ float c_w[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};

__global__ void collideStream(const float *__restrict__ fIn, float *__restrict__ fOut, int n, float omega,
                              float lidVelocity) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= n) return;
  const size_t plane = size_t(n) * n;
  float f[9], rho = 0.f, ux = 0.f, uy = 0.f;
#pragma unroll
  for (int q = 0; q < 9; ++q) {
    int sx = x - c_ex[q], sy = y - c_ey[q];
    bool wall = sx < 0 || sy < 0 || sx >= n || sy >= n;
    // bounce-back at walls; the lid (top) adds momentum
    f[q] = wall ? fIn[c_opp[q] * plane + size_t(y) * n + x] : fIn[q * plane + size_t(sy) * n + sx];
    if (wall && sy >= n) f[q] -= 6.f * c_w[q] * c_ex[q] * lidVelocity;
    rho += f[q];
    ux += f[q] * c_ex[q];
    uy += f[q] * c_ey[q];
  }
  ux /= rho;
  uy /= rho;
  float usq = 1.5f * (ux * ux + uy * uy);
#pragma unroll
  for (int q = 0; q < 9; ++q) {
    float eu = 3.f * (c_ex[q] * ux + c_ey[q] * uy);
    float feq = c_w[q] * rho * (1.f + eu + 0.5f * eu * eu - usq);
    fOut[q * plane + size_t(y) * n + x] = f[q] - omega * (f[q] - feq);
  }
}

int main(int argc, char **argv) {
  BenchArgs args = parseArgs(argc, argv, 1024, 500);
  const int n = args.size;
  const size_t plane = size_t(n) * n;
  std::vector<float> init(9 * plane);
  float w[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
  for (int q = 0; q < 9; ++q)
    for (size_t i = 0; i < plane; ++i) init[q * plane + i] = w[q];
  float *a, *b;
  BENCH_CHECK(cudaMalloc(&a, init.size() * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&b, init.size() * sizeof(float)));
  BENCH_CHECK(cudaMemcpy(a, init.data(), init.size() * sizeof(float), cudaMemcpyHostToDevice));
  int minGrid = 0, block = 0;
  BENCH_CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, collideStream, 0, 0));
  block = std::min(block, 256);
  reportKernel("collideStream", collideStream, block);
  dim3 grid((n + block - 1) / block, n);
  EventTimer t;
  t.start();
  for (int it = 0; it < args.iterations; ++it) {
    collideStream<<<grid, block>>>(a, b, n, 1.7f, 0.05f);
    std::swap(a, b);
  }
  float ms = t.stop();
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaMemcpy(init.data(), a, init.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double mass = 0;
  for (float v : init) mass += v;
  std::printf("lbm %dx%d, %d steps: %.2f ms, %.1f MLUPS, mass %.4f\n", n, n, args.iterations, ms,
              double(plane) * args.iterations / (ms * 1e3), mass / plane);
  cudaFree(a);
  cudaFree(b);
  return std::isfinite(mass) ? 0 : 1;
}
