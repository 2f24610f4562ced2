#include <cstring>
#include <vector>

#include "filters.h"

cudaTextureObject_t makeFloatTexture(const GreyImage &in, cudaArray_t *array, cudaTextureFilterMode filter,
                                     cudaTextureAddressMode address, bool normalized) {
  std::vector<float> f(in.pixels.begin(), in.pixels.end());
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  checkCudaErrors(cudaMallocArray(array, &desc, in.width, in.height));
  checkCudaErrors(cudaMemcpy2DToArray(*array, 0, 0, f.data(), in.width * sizeof(float), in.width * sizeof(float),
                                      in.height, cudaMemcpyHostToDevice));
  cudaResourceDesc res;
  memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = *array;
  cudaTextureDesc tex;
  memset(&tex, 0, sizeof(tex));
  tex.addressMode[0] = address;
  tex.addressMode[1] = address;
  tex.filterMode = filter;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = normalized ? 1 : 0;
  cudaTextureObject_t obj = 0;
  checkCudaErrors(cudaCreateTextureObject(&obj, &res, &tex, nullptr));
  return obj;
}

// Point-sampled box filter; clamp addressing handles the borders for free.
__global__ void boxKernel(cudaTextureObject_t tex, unsigned char *out, int w, int h, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.f;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) sum += tex2D<float>(tex, x + dx + 0.5f, y + dy + 0.5f);
  float v = sum / float((2 * r + 1) * (2 * r + 1));
  out[y * w + x] = (unsigned char)fminf(fmaxf(v + 0.5f, 0.f), 255.f);
}

float boxFilter(const GreyImage &in, GreyImage &out, int radius) {
  cudaArray_t array;
  cudaTextureObject_t tex = makeFloatTexture(in, &array, cudaFilterModePoint, cudaAddressModeClamp, false);
  unsigned char *dOut;
  checkCudaErrors(cudaMalloc(&dOut, in.pixels.size()));
  cudaEvent_t a, b;
  checkCudaErrors(cudaEventCreate(&a));
  checkCudaErrors(cudaEventCreate(&b));
  dim3 block(16, 16), grid((in.width + 15) / 16, (in.height + 15) / 16);
  checkCudaErrors(cudaEventRecord(a));
  boxKernel<<<grid, block>>>(tex, dOut, in.width, in.height, radius);
  checkCudaErrors(cudaEventRecord(b));
  checkCudaErrors(cudaEventSynchronize(b));
  checkCudaErrors(cudaGetLastError());
  float ms;
  checkCudaErrors(cudaEventElapsedTime(&ms, a, b));
  out.width = in.width;
  out.height = in.height;
  out.pixels.resize(in.pixels.size());
  checkCudaErrors(cudaMemcpy(out.pixels.data(), dOut, out.pixels.size(), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaDestroyTextureObject(tex));
  checkCudaErrors(cudaFreeArray(array));
  checkCudaErrors(cudaFree(dOut));
  return ms;
}
