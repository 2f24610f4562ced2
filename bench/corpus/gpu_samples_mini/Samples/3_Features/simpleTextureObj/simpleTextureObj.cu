/* Zoom into an image through a texture object: normalized coordinates, mirror addressing at
   the edges and bilinear filtering do the resampling. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include <helper_cuda_lite.h>

__global__ void zoomKernel(float *out, int outW, int outH, float zoom, float cx, float cy, cudaTextureObject_t tex) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= outW || y >= outH) return;
  float u = cx + ((x + 0.5f) / outW - 0.5f) / zoom;
  float v = cy + ((y + 0.5f) / outH - 0.5f) / zoom;
  out[y * outW + x] = tex2D<float>(tex, u, v);
}

int main(int argc, const char **argv) {
  findCudaDevice(argc, argv);
  const int w = 256, h = 256, outW = 640, outH = 480;
  std::vector<float> img(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[y * w + x] = 0.5f + 0.5f * sinf(x * 0.2f) * cosf(y * 0.15f);

  cudaChannelFormatDesc fmt = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray *array;
  checkCudaErrors(cudaMallocArray(&array, &fmt, w, h));
  checkCudaErrors(cudaMemcpy2DToArray(array, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h,
                                      cudaMemcpyHostToDevice));
  cudaResourceDesc res;
  memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc desc;
  memset(&desc, 0, sizeof(desc));
  desc.normalizedCoords = 1;
  desc.filterMode = cudaFilterModeLinear;
  desc.addressMode[0] = cudaAddressModeMirror;
  desc.addressMode[1] = cudaAddressModeMirror;
  desc.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  checkCudaErrors(cudaCreateTextureObject(&tex, &res, &desc, NULL));

  float *dOut;
  checkCudaErrors(cudaMalloc(&dOut, outW * outH * sizeof(float)));
  dim3 block(16, 16), grid((outW + 15) / 16, (outH + 15) / 16);
  zoomKernel<<<grid, block>>>(dOut, outW, outH, 3.0f, 0.4f, 0.6f, tex);
  getLastCudaError("zoomKernel");
  std::vector<float> out(outW * outH);
  checkCudaErrors(cudaMemcpy(out.data(), dOut, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  float lo = 1.f, hi = 0.f;
  for (float v : out) {
    lo = fminf(lo, v);
    hi = fmaxf(hi, v);
  }
  printf("zoomed %dx%d -> %dx%d, values in [%.3f, %.3f]\n", w, h, outW, outH, lo, hi);
  checkCudaErrors(cudaDestroyTextureObject(tex));
  checkCudaErrors(cudaFreeArray(array));
  checkCudaErrors(cudaFree(dOut));
  return (lo >= 0.f && hi <= 1.f) ? 0 : 1;
}
