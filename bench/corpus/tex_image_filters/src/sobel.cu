// Sobel edge magnitude on an 8-bit texture read as normalized float (0..1).
#include "filters.h"

__device__ float lum(cudaTextureObject_t t, int x, int y) { return tex2D<float>(t, float(x), float(y)); }

__global__ void sobelKernel(cudaTextureObject_t tex, unsigned char *out, int w, int h, float scale) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float ul = lum(tex, x - 1, y - 1), um = lum(tex, x, y - 1), ur = lum(tex, x + 1, y - 1);
  float ml = lum(tex, x - 1, y), mr = lum(tex, x + 1, y);
  float ll = lum(tex, x - 1, y + 1), lm = lum(tex, x, y + 1), lr = lum(tex, x + 1, y + 1);
  float gx = ur + 2.f * mr + lr - ul - 2.f * ml - ll;
  float gy = ul + 2.f * um + ur - ll - 2.f * lm - lr;
  float mag = scale * sqrtf(gx * gx + gy * gy) * 255.f;
  out[y * w + x] = (unsigned char)fminf(mag, 255.f);
}

float sobelEdges(const GreyImage &in, GreyImage &out, float scale) {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
  cudaArray_t array;
  checkCudaErrors(cudaMallocArray(&array, &desc, in.width, in.height));
  checkCudaErrors(cudaMemcpy2DToArray(array, 0, 0, in.pixels.data(), in.width, in.width, in.height,
                                      cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t tex;
  checkCudaErrors(cudaCreateTextureObject(&tex, &res, &td, nullptr));

  unsigned char *dOut;
  checkCudaErrors(cudaMalloc(&dOut, in.pixels.size()));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  sobelKernel<<<dim3((in.width + 15) / 16, (in.height + 15) / 16), dim3(16, 16)>>>(tex, dOut, in.width, in.height,
                                                                                  scale);
  cudaEventRecord(b);
  checkCudaErrors(cudaEventSynchronize(b));
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  out = in;
  checkCudaErrors(cudaMemcpy(out.pixels.data(), dOut, out.pixels.size(), cudaMemcpyDeviceToHost));
  cudaDestroyTextureObject(tex);
  cudaFreeArray(array);
  cudaFree(dOut);
  return ms;
}
