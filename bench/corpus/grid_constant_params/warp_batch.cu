// warp_batch: apply a different affine warp to each image of a batch.
//
// The per-image matrices and the colour-correction polynomial travel as one kernel argument of
// a few KB. Marking it __grid_constant__ lets kernels take its address without the compiler
// making a per-thread copy in local memory.
//
//   warp_batch [images] [width] [height]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                                         \
  if ((call) != cudaSuccess) {                                                                   \
    cudaError_t err = cudaGetLastError();                                                        \
    fprintf(stderr, "CUDA error calling \"" #call "\", code is %d: %s\n", err, cudaGetErrorString(err)); \
    exit(1);                                                                                     \
  }

constexpr int kMaxBatch = 64;
constexpr int kPolyDegree = 7;

struct Affine {
  float m[6];  // [a b tx; c d ty]
};

struct WarpParams {
  Affine transform[kMaxBatch];
  float poly[3][kPolyDegree + 1];  // per-channel colour polynomial
  int width, height, batch;
  float border;
};

__device__ float evalPoly(const float *c, float x) {
  float r = c[kPolyDegree];
  for (int k = kPolyDegree - 1; k >= 0; --k) r = fmaf(r, x, c[k]);
  return r;
}

__device__ float sampleBilinear(const float *img, int w, int h, float x, float y, float border) {
  if (x < 0.f || y < 0.f || x > w - 1 || y > h - 1) return border;
  int x0 = int(x), y0 = int(y);
  int x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1);
  float fx = x - x0, fy = y - y0;
  float a = img[y0 * w + x0], b = img[y0 * w + x1], c = img[y1 * w + x0], d = img[y1 * w + x1];
  return (1 - fy) * ((1 - fx) * a + fx * b) + fy * ((1 - fx) * c + fx * d);
}

__device__ const Affine &transformFor(const WarpParams *p, int image) { return p->transform[image]; }

__global__ void warpBatch(const __grid_constant__ WarpParams p, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int image = blockIdx.z;
  if (x >= p.width || y >= p.height || image >= p.batch) return;
  const Affine &t = transformFor(&p, image);  // the address of a grid constant
  float sx = t.m[0] * x + t.m[1] * y + t.m[2];
  float sy = t.m[3] * x + t.m[4] * y + t.m[5];
  size_t plane = size_t(p.width) * p.height;
  out[image * plane + y * p.width + x] = sampleBilinear(in + image * plane, p.width, p.height, sx, sy, p.border);
}

__global__ void colourCorrect(const __grid_constant__ WarpParams p, float *rgb, size_t pixels) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= pixels) return;
  const float(*poly)[kPolyDegree + 1] = p.poly;
  for (int c = 0; c < 3; ++c) rgb[3 * i + c] = evalPoly(poly[c], rgb[3 * i + c]);
}

static Affine rotation(float degrees, float cx, float cy) {
  float r = degrees * 3.14159265f / 180.f, c = cosf(r), s = sinf(r);
  return Affine{{c, -s, cx - c * cx + s * cy, s, c, cy - s * cx - c * cy}};
}

int main(int argc, char **argv) {
  int batch = argc > 1 ? atoi(argv[1]) : 16;
  int w = argc > 2 ? atoi(argv[2]) : 512;
  int h = argc > 3 ? atoi(argv[3]) : 512;
  if (batch < 1 || batch > kMaxBatch || w < 2 || h < 2) {
    fprintf(stderr, "usage: %s [images 1..%d] [width] [height]\n", argv[0], kMaxBatch);
    return 2;
  }
  static_assert(sizeof(WarpParams) < 4096, "kernel parameters are limited to 4 KB on older drivers");

  WarpParams p{};
  p.width = w;
  p.height = h;
  p.batch = batch;
  p.border = 0.f;
  for (int i = 0; i < batch; ++i) p.transform[i] = rotation(360.f * i / batch, w / 2.f, h / 2.f);
  for (int c = 0; c < 3; ++c) {
    p.poly[c][1] = 1.0f;  // identity plus a gentle S-curve
    p.poly[c][2] = 0.1f * (c + 1);
    p.poly[c][3] = -0.1f * (c + 1);
  }

  size_t plane = size_t(w) * h;
  std::vector<float> host(plane * batch);
  for (int i = 0; i < batch; ++i)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) host[i * plane + y * w + x] = ((x / 32 + y / 32) % 2) ? 1.f : 0.f;

  float *dIn, *dOut, *dRgb;
  CHECK_CUDA(cudaMalloc(&dIn, host.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dOut, host.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dRgb, 3 * plane * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dIn, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dRgb, 0, 3 * plane * sizeof(float)));

  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8, batch);
  CHECK_CUDA(cudaEventRecord(e0));
  warpBatch<<<grid, block>>>(p, dIn, dOut);
  colourCorrect<<<(plane + 255) / 256, 256>>>(p, dRgb, plane);
  CHECK_CUDA(cudaEventRecord(e1));
  CHECK_CUDA(cudaEventSynchronize(e1));
  CHECK_CUDA(cudaGetLastError());
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));

  CHECK_CUDA(cudaMemcpy(host.data(), dOut, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double sum0 = 0;
  for (size_t i = 0; i < plane; ++i) sum0 += host[i];
  printf("%d warps of %dx%d in %.3f ms; image 0 mean %.4f (expect ~0.5)\n", batch, w, h, ms, sum0 / plane);
  CHECK_CUDA(cudaFree(dIn));
  CHECK_CUDA(cudaFree(dOut));
  CHECK_CUDA(cudaFree(dRgb));
  return std::fabs(sum0 / plane - 0.5) < 0.05 ? 0 : 1;
}
