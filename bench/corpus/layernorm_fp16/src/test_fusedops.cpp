// Host test: fp16 LayerNorm and softmax against float references.
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_fp16.h>

#include "fusedops.h"

static int failures = 0;
#define EXPECT_NEAR(a, b, tol, what)                                                          \
  do {                                                                                        \
    if (std::fabs((a) - (b)) > (tol)) {                                                       \
      std::printf("FAIL %s: %f vs %f\n", what, double(a), double(b));                         \
      ++failures;                                                                             \
    }                                                                                         \
  } while (0)

int main() {
  const int rows = 64, cols = 768;
  std::vector<__half> hx(rows * cols), hg(cols), hb(cols), hy(rows * cols);
  for (int i = 0; i < rows * cols; ++i) hx[i] = __float2half(std::sin(0.01f * i));
  for (int c = 0; c < cols; ++c) {
    hg[c] = __float2half(1.f);
    hb[c] = __float2half(0.f);
  }
  void *x, *g, *b, *y;
  cudaMalloc(&x, hx.size() * 2);
  cudaMalloc(&g, cols * 2);
  cudaMalloc(&b, cols * 2);
  cudaMalloc(&y, hy.size() * 2);
  cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(g, hg.data(), cols * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), cols * 2, cudaMemcpyHostToDevice);

  if (fusedLayerNorm(x, g, b, y, rows, cols, 1e-5f, 0, 0) != cudaSuccess) ++failures;
  cudaMemcpy(hy.data(), y, hy.size() * 2, cudaMemcpyDeviceToHost);
  double mean = 0, var = 0;
  for (int c = 0; c < cols; ++c) mean += __half2float(hy[c]);
  mean /= cols;
  for (int c = 0; c < cols; ++c) var += std::pow(__half2float(hy[c]) - mean, 2);
  var /= cols;
  EXPECT_NEAR(mean, 0.0, 1e-2, "layernorm mean");
  EXPECT_NEAR(var, 1.0, 5e-2, "layernorm variance");

  if (fusedSoftmax(x, y, rows, cols, 1.f, 0, 0) != cudaSuccess) ++failures;
  cudaMemcpy(hy.data(), y, hy.size() * 2, cudaMemcpyDeviceToHost);
  double total = 0;
  for (int c = 0; c < cols; ++c) total += __half2float(hy[c]);
  EXPECT_NEAR(total, 1.0, 2e-2, "softmax row sum");

  cudaFree(x);
  cudaFree(g);
  cudaFree(b);
  cudaFree(y);
  std::printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
