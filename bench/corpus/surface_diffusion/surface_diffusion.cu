// surface_diffusion: explicit heat equation in 2D and 3D, reading and writing CUDA arrays
// through surface objects.
//   surface_diffusion [n2d] [n3d] [steps]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

static void fail(cudaError_t e, const char *what, int line) {
  fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(e));
  exit(1);
}
#define CK(x)                                 \
  do {                                        \
    cudaError_t e__ = (x);                    \
    if (e__ != cudaSuccess) fail(e__, #x, __LINE__); \
  } while (0)

__global__ void diffuse2D(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h, float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  // surface x coordinates are in bytes
  float c = surf2Dread<float>(src, x * 4, y);
  float l = surf2Dread<float>(src, (x - 1) * 4, y, cudaBoundaryModeClamp);
  float r = surf2Dread<float>(src, (x + 1) * 4, y, cudaBoundaryModeClamp);
  float u = surf2Dread<float>(src, x * 4, y - 1, cudaBoundaryModeClamp);
  float d = surf2Dread<float>(src, x * 4, y + 1, cudaBoundaryModeClamp);
  surf2Dwrite(c + alpha * (l + r + u + d - 4.f * c), dst, x * 4, y);
}

__global__ void diffuse3D(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int n, float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x >= n || y >= n || z >= n) return;
  const int bx = x * sizeof(float);
  float c = surf3Dread<float>(src, bx, y, z);
  float sum = surf3Dread<float>(src, bx - 4, y, z, cudaBoundaryModeZero) +
              surf3Dread<float>(src, bx + 4, y, z, cudaBoundaryModeZero) +
              surf3Dread<float>(src, bx, y - 1, z, cudaBoundaryModeZero) +
              surf3Dread<float>(src, bx, y + 1, z, cudaBoundaryModeZero) +
              surf3Dread<float>(src, bx, y, z - 1, cudaBoundaryModeZero) +
              surf3Dread<float>(src, bx, y, z + 1, cudaBoundaryModeZero);
  surf3Dwrite(c + alpha * (sum - 6.f * c), dst, bx, y, z);
}

// Total heat through a texture view of the same array (point sampling).
__global__ void totalHeat2D(cudaTextureObject_t tex, int w, int h, float *total) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) atomicAdd(total, tex2D<float>(tex, x + 0.5f, y + 0.5f));
}

static cudaSurfaceObject_t surfaceOf(cudaArray_t a) {
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaSurfaceObject_t s;
  CK(cudaCreateSurfaceObject(&s, &rd));
  return s;
}

static double run2D(int n, int steps) {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t a[2];
  for (auto &arr : a) CK(cudaMallocArray(&arr, &desc, n, n, cudaArraySurfaceLoadStore));
  std::vector<float> init(size_t(n) * n, 0.f);
  init[size_t(n / 2) * n + n / 2] = 1000.f;
  CK(cudaMemcpy2DToArray(a[0], 0, 0, init.data(), n * sizeof(float), n * sizeof(float), n, cudaMemcpyHostToDevice));
  cudaSurfaceObject_t s[2] = {surfaceOf(a[0]), surfaceOf(a[1])};
  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  for (int t = 0; t < steps; ++t) diffuse2D<<<grid, block>>>(s[t % 2], s[(t + 1) % 2], n, n, 0.2f);
  CK(cudaGetLastError());

  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a[steps % 2];
  cudaTextureDesc td = {};
  td.filterMode = cudaFilterModePoint;
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  cudaTextureObject_t tex;
  CK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
  float *dTotal, total = 0.f;
  CK(cudaMalloc(&dTotal, sizeof(float)));
  CK(cudaMemset(dTotal, 0, sizeof(float)));
  totalHeat2D<<<grid, block>>>(tex, n, n, dTotal);
  CK(cudaMemcpy(&total, dTotal, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaDestroyTextureObject(tex));
  for (int i = 0; i < 2; ++i) {
    CK(cudaDestroySurfaceObject(s[i]));
    CK(cudaFreeArray(a[i]));
  }
  CK(cudaFree(dTotal));
  return total;
}

static double run3D(int n, int steps) {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaExtent extent = make_cudaExtent(n, n, n);
  cudaArray_t vol[2];
  for (auto &v : vol) CK(cudaMalloc3DArray(&v, &desc, extent, cudaArraySurfaceLoadStore));

  std::vector<float> init(size_t(n) * n * n, 0.f);
  init[(size_t(n / 2) * n + n / 2) * n + n / 2] = 1000.f;
  cudaMemcpy3DParms copy = {0};
  copy.srcPtr = make_cudaPitchedPtr(init.data(), n * sizeof(float), n, n);
  copy.dstArray = vol[0];
  copy.extent = extent;
  copy.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&copy));

  cudaSurfaceObject_t s[2] = {surfaceOf(vol[0]), surfaceOf(vol[1])};
  dim3 block(8, 8), grid((n + 7) / 8, (n + 7) / 8, n);
  for (int t = 0; t < steps; ++t) diffuse3D<<<grid, block>>>(s[t % 2], s[(t + 1) % 2], n, 0.1f);
  CK(cudaDeviceSynchronize());

  std::vector<float> out(init.size());
  cudaMemcpy3DParms back = {0};
  back.srcArray = vol[steps % 2];
  back.dstPtr = make_cudaPitchedPtr(out.data(), n * sizeof(float), n, n);
  back.extent = extent;
  back.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&back));
  double total = 0;
  for (float v : out) total += v;
  for (int i = 0; i < 2; ++i) {
    CK(cudaDestroySurfaceObject(s[i]));
    CK(cudaFreeArray(vol[i]));
  }
  return total;
}

int main(int argc, char **argv) {
  int n2 = argc > 1 ? atoi(argv[1]) : 1024;
  int n3 = argc > 2 ? atoi(argv[2]) : 128;
  int steps = argc > 3 ? atoi(argv[3]) : 200;
  if (n2 < 4 || n3 < 4 || steps < 1) {
    fprintf(stderr, "usage: %s [n2d>=4] [n3d>=4] [steps>=1]\n", argv[0]);
    return 2;
  }
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  double h2 = run2D(n2, steps);
  double h3 = run3D(n3, steps);
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms;
  CK(cudaEventElapsedTime(&ms, a, b));
  // clamp boundaries conserve heat in 2D; zero boundaries leak a little in 3D
  bool ok = std::fabs(h2 - 1000.0) < 1.0 && h3 <= 1000.0 + 1e-3 && h3 > 0.0;
  printf("2D %dx%d, 3D %d^3, %d steps: %.1f ms; heat 2D %.3f, 3D %.3f: %s\n", n2, n2, n3, steps, ms, h2, h3,
         ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
