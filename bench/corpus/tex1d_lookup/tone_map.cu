// tone_map: map HDR luminance to 8-bit through lookup tables held in textures.
//
//   tone_map [width] [height] [lut_size]
//
// Three texture flavours: a 1D fetch from linear memory (nearest LUT entry), a filtered 1D array
// (interpolated LUT), and a 2D texture over pitched memory (spatially varying exposure).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CALL(x)                                                                    \
  do {                                                                                  \
    cudaError_t rc = (x);                                                               \
    if (rc != cudaSuccess) {                                                            \
      printf("Error %s at %s:%d\n", cudaGetErrorString(rc), __FILE__, __LINE__);       \
      return EXIT_FAILURE;                                                              \
    }                                                                                   \
  } while (0)

__global__ void toneMapNearest(const float *lum, unsigned char *out, int n, cudaTextureObject_t lut, int lutSize,
                               float maxLum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int idx = min(int(lum[i] / maxLum * (lutSize - 1)), lutSize - 1);
  out[i] = (unsigned char)(255.f * tex1Dfetch<float>(lut, idx));
}

__global__ void toneMapFiltered(const float *lum, unsigned char *out, int n, cudaTextureObject_t lut, int lutSize,
                                float maxLum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float coord = lum[i] / maxLum * (lutSize - 1) + 0.5f;  // texel centres sit at +0.5
  out[i] = (unsigned char)(255.f * tex1D<float>(lut, coord));
}

__global__ void applyExposure(float *lum, int width, int height, cudaTextureObject_t exposure, float gridScale) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float e = tex2D<float>(exposure, x * gridScale + 0.5f, y * gridScale + 0.5f);
  lum[y * width + x] *= exp2f(e);
}

int main(int argc, char **argv) {
  int w = argc > 1 ? atoi(argv[1]) : 1920;
  int h = argc > 2 ? atoi(argv[2]) : 1080;
  int lutSize = argc > 3 ? atoi(argv[3]) : 1024;
  if (w <= 0 || h <= 0 || lutSize < 2) {
    fprintf(stderr, "usage: %s [width] [height] [lut_size>=2]\n", argv[0]);
    return 2;
  }
  const int n = w * h;
  const float maxLum = 16.f;

  // Reinhard-style curve with gamma 2.2
  std::vector<float> lut(lutSize);
  for (int i = 0; i < lutSize; ++i) {
    float L = maxLum * i / (lutSize - 1);
    lut[i] = powf(L / (1.f + L), 1.f / 2.2f);
  }
  std::vector<float> lum(n);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) lum[y * w + x] = maxLum * 0.5f * (1.f + sinf(x * 0.01f) * cosf(y * 0.013f));

  float *dLum, *dLut;
  unsigned char *dOut;
  CUDA_CALL(cudaMalloc(&dLum, n * sizeof(float)));
  CUDA_CALL(cudaMalloc(&dLut, lutSize * sizeof(float)));
  CUDA_CALL(cudaMalloc(&dOut, n));
  CUDA_CALL(cudaMemcpy(dLum, lum.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(dLut, lut.data(), lutSize * sizeof(float), cudaMemcpyHostToDevice));

  // 1) linear memory, fetched by integer index
  cudaResourceDesc linRes;
  memset(&linRes, 0, sizeof(linRes));
  linRes.resType = cudaResourceTypeLinear;
  linRes.res.linear.devPtr = dLut;
  linRes.res.linear.desc = cudaCreateChannelDesc<float>();
  linRes.res.linear.sizeInBytes = lutSize * sizeof(float);
  cudaTextureDesc linTex;
  memset(&linTex, 0, sizeof(linTex));
  linTex.readMode = cudaReadModeElementType;
  cudaTextureObject_t lutFetch;
  CUDA_CALL(cudaCreateTextureObject(&lutFetch, &linRes, &linTex, NULL));

  // 2) a 1D array with hardware interpolation
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t lutArray;
  CUDA_CALL(cudaMallocArray(&lutArray, &fdesc, lutSize));
  CUDA_CALL(cudaMemcpyToArray(lutArray, 0, 0, lut.data(), lutSize * sizeof(float), cudaMemcpyHostToDevice));
  cudaResourceDesc arrRes = {};
  arrRes.resType = cudaResourceTypeArray;
  arrRes.res.array.array = lutArray;
  cudaTextureDesc arrTex = {};
  arrTex.addressMode[0] = cudaAddressModeClamp;
  arrTex.filterMode = cudaFilterModeLinear;
  arrTex.readMode = cudaReadModeElementType;
  cudaTextureObject_t lutFiltered;
  CUDA_CALL(cudaCreateTextureObject(&lutFiltered, &arrRes, &arrTex, NULL));

  // 3) an exposure map on a coarse grid in pitched memory
  const int gw = (w + 63) / 64, gh = (h + 63) / 64;
  std::vector<float> grid(gw * gh);
  for (int y = 0; y < gh; ++y)
    for (int x = 0; x < gw; ++x) grid[y * gw + x] = -1.f + 2.f * x / (gw > 1 ? gw - 1 : 1);
  float *dGrid;
  size_t pitch;
  CUDA_CALL(cudaMallocPitch(&dGrid, &pitch, gw * sizeof(float), gh));
  CUDA_CALL(cudaMemcpy2D(dGrid, pitch, grid.data(), gw * sizeof(float), gw * sizeof(float), gh,
                         cudaMemcpyHostToDevice));
  cudaResourceDesc pitchRes = {};
  pitchRes.resType = cudaResourceTypePitch2D;
  pitchRes.res.pitch2D.devPtr = dGrid;
  pitchRes.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  pitchRes.res.pitch2D.width = gw;
  pitchRes.res.pitch2D.height = gh;
  pitchRes.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc pitchTex = {};
  pitchTex.addressMode[0] = pitchTex.addressMode[1] = cudaAddressModeClamp;
  pitchTex.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t exposure;
  CUDA_CALL(cudaCreateTextureObject(&exposure, &pitchRes, &pitchTex, NULL));

  cudaEvent_t e0, e1, e2, e3;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventCreate(&e2);
  cudaEventCreate(&e3);
  cudaEventRecord(e0);
  applyExposure<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(dLum, w, h, exposure, 1.f / 64.f);
  cudaEventRecord(e1);
  toneMapNearest<<<(n + 255) / 256, 256>>>(dLum, dOut, n, lutFetch, lutSize, maxLum);
  cudaEventRecord(e2);
  std::vector<unsigned char> nearest(n), filtered(n);
  CUDA_CALL(cudaMemcpy(nearest.data(), dOut, n, cudaMemcpyDeviceToHost));
  toneMapFiltered<<<(n + 255) / 256, 256>>>(dLum, dOut, n, lutFiltered, lutSize, maxLum);
  cudaEventRecord(e3);
  CUDA_CALL(cudaEventSynchronize(e3));
  CUDA_CALL(cudaGetLastError());
  CUDA_CALL(cudaMemcpy(filtered.data(), dOut, n, cudaMemcpyDeviceToHost));
  float tExp, tNear, tFilt;
  cudaEventElapsedTime(&tExp, e0, e1);
  cudaEventElapsedTime(&tNear, e1, e2);
  cudaEventElapsedTime(&tFilt, e2, e3);

  int maxDiff = 0;
  for (int i = 0; i < n; ++i) maxDiff = std::max(maxDiff, std::abs(int(nearest[i]) - int(filtered[i])));
  printf("exposure %.3f ms, nearest LUT %.3f ms, filtered LUT %.3f ms; max difference %d levels\n", tExp, tNear,
         tFilt, maxDiff);

  cudaDestroyTextureObject(lutFetch);
  cudaDestroyTextureObject(lutFiltered);
  cudaDestroyTextureObject(exposure);
  cudaFreeArray(lutArray);
  cudaFree(dGrid);
  cudaFree(dLum);
  cudaFree(dLut);
  cudaFree(dOut);
  return maxDiff <= 8 ? EXIT_SUCCESS : EXIT_FAILURE;
}
