#include <cuda_fp16.h>

#include "dla_common.h"

__global__ void preprocess(const uint8_t *rgb, int w, int h, __half *chw) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdv[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) {
    float v = rgb[(y * w + x) * 3 + c] / 255.f;
    chw[(c * h + y) * w + x] = __float2half((v - mean[c]) / stdv[c]);
  }
}

__global__ void argmax(const __half *logits, int n, int *best) {
  __shared__ float bestVal[256];
  __shared__ int bestIdx[256];
  float v = -1e30f;
  int idx = -1;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float f = __half2float(logits[i]);
    if (f > v) {
      v = f;
      idx = i;
    }
  }
  bestVal[threadIdx.x] = v;
  bestIdx[threadIdx.x] = idx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && bestVal[threadIdx.x + s] > bestVal[threadIdx.x]) {
      bestVal[threadIdx.x] = bestVal[threadIdx.x + s];
      bestIdx[threadIdx.x] = bestIdx[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *best = bestIdx[0];
}

void launchPreprocess(const uint8_t *rgb, int width, int height, void *chwHalf, cudaStream_t s) {
  preprocess<<<dim3((width + 15) / 16, (height + 15) / 16), dim3(16, 16), 0, s>>>(rgb, width, height,
                                                                                 static_cast<__half *>(chwHalf));
}

void launchArgmax(const void *logitsHalf, int classes, int *best, cudaStream_t s) {
  argmax<<<1, 256, 0, s>>>(static_cast<const __half *>(logitsHalf), classes, best);
}
