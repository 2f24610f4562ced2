// Bilinear resize: normalized coordinates and hardware linear filtering.
#include "filters.h"

__global__ void resizeKernel(cudaTextureObject_t tex, unsigned char *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (x + 0.5f) / w;
  float v = (y + 0.5f) / h;
  float value = tex2D<float>(tex, u, v);
  out[y * w + x] = (unsigned char)__float2int_rn(fminf(value, 255.f));
}

float resizeBilinear(const GreyImage &in, GreyImage &out, int newWidth, int newHeight) {
  cudaArray_t array;
  cudaTextureObject_t tex = makeFloatTexture(in, &array, cudaFilterModeLinear, cudaAddressModeMirror, true);
  unsigned char *dOut;
  size_t bytes = size_t(newWidth) * newHeight;
  checkCudaErrors(cudaMalloc(&dOut, bytes));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  dim3 block(32, 8), grid((newWidth + 31) / 32, (newHeight + 7) / 8);
  cudaEventRecord(a);
  resizeKernel<<<grid, block>>>(tex, dOut, newWidth, newHeight);
  cudaEventRecord(b);
  checkCudaErrors(cudaEventSynchronize(b));
  checkCudaErrors(cudaGetLastError());
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  out.width = newWidth;
  out.height = newHeight;
  out.pixels.resize(bytes);
  checkCudaErrors(cudaMemcpy(out.pixels.data(), dOut, bytes, cudaMemcpyDeviceToHost));
  cudaDestroyTextureObject(tex);
  cudaFreeArray(array);
  cudaFree(dOut);
  return ms;
}
