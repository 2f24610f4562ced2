// stencil3d: 7-point Laplacian on a pitched 3D allocation, 2D thread blocks marching in z.
#include <cmath>
#include <vector>

#include "bench_common.h"

__global__ void laplace7(cudaPitchedPtr in, cudaPitchedPtr out, int nx, int ny, int nz, float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  const size_t pitch = in.pitch, slice = pitch * ny;
  const char *src = static_cast<const char *>(in.ptr);
  char *dst = static_cast<char *>(out.ptr);
  auto at = [&](int i, int j, int k) { return *reinterpret_cast<const float *>(src + k * slice + j * pitch + i * 4); };
  for (int z = 1; z < nz - 1; ++z) {
    float v = c0 * at(x, y, z) +
              c1 * (at(x - 1, y, z) + at(x + 1, y, z) + at(x, y - 1, z) + at(x, y + 1, z) + at(x, y, z - 1) +
                    at(x, y, z + 1));
    *reinterpret_cast<float *>(dst + z * slice + y * pitch + x * 4) = v;
  }
}

int main(int argc, char **argv) {
  BenchArgs args = parseArgs(argc, argv, 256, 100);
  const int n = args.size;
  cudaExtent extent = make_cudaExtent(n * sizeof(float), n, n);
  cudaPitchedPtr a, b;
  BENCH_CHECK(cudaMalloc3D(&a, extent));
  BENCH_CHECK(cudaMalloc3D(&b, extent));
  std::vector<float> h(size_t(n) * n * n);
  for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 101) * 0.01f;
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(h.data(), n * sizeof(float), n, n);
  p.dstPtr = a;
  p.extent = extent;
  p.kind = cudaMemcpyHostToDevice;
  BENCH_CHECK(cudaMemcpy3D(&p));
  p.dstPtr = b;
  BENCH_CHECK(cudaMemcpy3D(&p));

  dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
  reportKernel("laplace7", laplace7, block.x * block.y);
  EventTimer t;
  t.start();
  for (int it = 0; it < args.iterations; ++it) {
    laplace7<<<grid, block>>>(a, b, n, n, n, 0.4f, 0.1f);
    std::swap(a, b);
  }
  float ms = t.stop();
  BENCH_CHECK(cudaGetLastError());
  cudaMemcpy3DParms back = {};
  back.srcPtr = a;
  back.dstPtr = make_cudaPitchedPtr(h.data(), n * sizeof(float), n, n);
  back.extent = extent;
  back.kind = cudaMemcpyDeviceToHost;
  BENCH_CHECK(cudaMemcpy3D(&back));
  double sum = 0;
  for (float v : h) sum += v;
  double points = double(n - 2) * (n - 2) * (n - 2) * args.iterations;
  std::printf("stencil3d %d^3 (pitch %zu B), %d iterations: %.2f ms, %.1f Gpts/s, checksum %.3e\n", n, a.pitch,
              args.iterations, ms, points / (ms * 1e6), sum);
  cudaFree(a.ptr);
  cudaFree(b.ptr);
  return std::isfinite(sum) ? 0 : 1;
}
