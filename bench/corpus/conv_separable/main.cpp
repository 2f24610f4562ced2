// gauss_blur: blur a random image on the GPU and compare with the host.
//   gauss_blur [width] [height] [sigma] [repeats]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "blur.h"

int main(int argc, char **argv) {
  int width = argc > 1 ? atoi(argv[1]) : 2000;
  int height = argc > 2 ? atoi(argv[2]) : 1500;
  float sigma = argc > 3 ? float(atof(argv[3])) : 2.f;
  int repeats = argc > 4 ? atoi(argv[4]) : 10;
  if (width < 1 || height < 1 || sigma <= 0.f || repeats < 1) {
    fprintf(stderr, "usage: %s [width] [height] [sigma>0] [repeats]\n", argv[0]);
    return 2;
  }
  float taps[TAP_COUNT], norm = 0.f;
  for (int k = 0; k < TAP_COUNT; ++k) {
    float d = float(k - TAP_RADIUS);
    taps[k] = std::exp(-d * d / (2.f * sigma * sigma));
    norm += taps[k];
  }
  for (float &t : taps) t /= norm;

  size_t pixels = size_t(width) * height;
  std::vector<float> image(pixels), tmp(pixels), expected(pixels), result(pixels);
  for (size_t i = 0; i < pixels; ++i) image[i] = float((i * 2654435761u) >> 24);

  float *dIn, *dTmp, *dOut;
  cudaMalloc(&dIn, pixels * sizeof(float));
  cudaMalloc(&dTmp, pixels * sizeof(float));
  cudaMalloc(&dOut, pixels * sizeof(float));
  cudaMemcpy(dIn, image.data(), pixels * sizeof(float), cudaMemcpyHostToDevice);
  uploadTaps(taps);

  cudaEvent_t begin, end;
  cudaEventCreate(&begin);
  cudaEventCreate(&end);
  cudaEventRecord(begin);
  for (int r = 0; r < repeats; ++r) {
    blurHorizontal(dTmp, dIn, width, height);
    blurVertical(dOut, dTmp, width, height);
  }
  cudaEventRecord(end);
  cudaError_t err = cudaEventSynchronize(end);
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "blur failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  float ms = 0.f;
  cudaEventElapsedTime(&ms, begin, end);
  cudaMemcpy(result.data(), dOut, pixels * sizeof(float), cudaMemcpyDeviceToHost);

  blurHorizontalHost(tmp.data(), image.data(), taps, width, height);
  blurVerticalHost(expected.data(), tmp.data(), taps, width, height);
  double err2 = 0.0, ref2 = 0.0;
  for (size_t i = 0; i < pixels; ++i) {
    double d = result[i] - expected[i];
    err2 += d * d;
    ref2 += double(expected[i]) * expected[i];
  }
  double rel = std::sqrt(err2 / ref2);
  printf("%dx%d, sigma %.1f: %.3f ms per blur (%.0f Mpix/s), relative L2 error %.2e\n", width, height, sigma,
         ms / repeats, pixels / (ms / repeats * 1e3), rel);
  cudaFree(dIn);
  cudaFree(dTmp);
  cudaFree(dOut);
  return rel < 1e-6 ? 0 : 1;
}
