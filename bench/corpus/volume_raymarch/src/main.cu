// raymarch: render a procedural cloud volume to a PPM.
//   raymarch [-n volume_size] [-w width] [-h height] [-d density] [-o out.ppm]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "volume.h"

#define CUDA_OK(x)                                                                            \
  do {                                                                                        \
    cudaError_t status = (x);                                                                 \
    if (status != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(status)); \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

VolumeTextures createVolume(int n, cudaArray_t *volumeArray, cudaArray_t *transferArray) {
  std::vector<float> data(size_t(n) * n * n);
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        float fx = 2.f * x / n - 1.f, fy = 2.f * y / n - 1.f, fz = 2.f * z / n - 1.f;
        float r = sqrtf(fx * fx + fy * fy + fz * fz);
        float noise = 0.5f + 0.5f * sinf(9.f * fx) * sinf(7.f * fy) * sinf(8.f * fz);
        data[(size_t(z) * n + y) * n + x] = fmaxf(0.f, 1.f - r) * noise;
      }
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaExtent extent = make_cudaExtent(n, n, n);
  CUDA_OK(cudaMalloc3DArray(volumeArray, &desc, extent));
  cudaMemcpy3DParms copy = {0};
  copy.srcPtr = make_cudaPitchedPtr(data.data(), n * sizeof(float), n, n);
  copy.dstArray = *volumeArray;
  copy.extent = extent;
  copy.kind = cudaMemcpyHostToDevice;
  CUDA_OK(cudaMemcpy3D(&copy));

  float4 transfer[] = {
      {0.0f, 0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 1.0f}, {1.0f, 0.5f, 0.0f, 1.0f}, {1.0f, 1.0f, 0.0f, 1.0f},
      {0.0f, 1.0f, 0.0f, 1.0f}, {0.0f, 1.0f, 1.0f, 1.0f}, {0.0f, 0.0f, 1.0f, 1.0f}, {1.0f, 0.0f, 1.0f, 1.0f},
  };
  cudaChannelFormatDesc desc4 = cudaCreateChannelDesc<float4>();
  CUDA_OK(cudaMallocArray(transferArray, &desc4, sizeof(transfer) / sizeof(float4), 1));
  CUDA_OK(cudaMemcpy2DToArray(*transferArray, 0, 0, transfer, sizeof(transfer), sizeof(transfer), 1,
                              cudaMemcpyHostToDevice));

  VolumeTextures t;
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = *volumeArray;
  cudaTextureDesc td = {};
  td.normalizedCoords = true;
  td.filterMode = cudaFilterModeLinear;
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.readMode = cudaReadModeElementType;
  CUDA_OK(cudaCreateTextureObject(&t.volume, &rd, &td, nullptr));
  rd.res.array.array = *transferArray;
  CUDA_OK(cudaCreateTextureObject(&t.transfer, &rd, &td, nullptr));
  return t;
}

int main(int argc, char **argv) {
  int n = 128, w = 640, h = 480;
  float density = 0.05f;
  const char *outPath = "volume.ppm";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n")) n = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-w")) w = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-h")) h = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-d")) density = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "-o")) outPath = argv[i + 1];
  }
  cudaArray_t volArr, tfArr;
  VolumeTextures tex = createVolume(n, &volArr, &tfArr);
  RenderParams p;
  p.width = w;
  p.height = h;
  p.density = density;
  p.brightness = 1.5f;
  p.tStep = 0.01f;
  p.maxSteps = 500;
  p.invView.m[0] = make_float4(1.f, 0.f, 0.f, 0.f);
  p.invView.m[1] = make_float4(0.f, 1.f, 0.f, 0.f);
  p.invView.m[2] = make_float4(make_float3(0.f, 0.f, 1.f), 4.f);

  uchar4 *dImg;
  CUDA_OK(cudaMalloc(&dImg, sizeof(uchar4) * w * h));
  reportKernelResources();
  float ms = renderVolume(tex, p, dImg);
  CUDA_OK(cudaGetLastError());
  std::vector<uchar4> img(size_t(w) * h);
  CUDA_OK(cudaMemcpy(img.data(), dImg, img.size() * sizeof(uchar4), cudaMemcpyDeviceToHost));
  FILE *f = fopen(outPath, "wb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", outPath);
    return 1;
  }
  fprintf(f, "P6\n%d %d\n255\n", w, h);
  for (const uchar4 &px : img) fwrite(&px, 1, 3, f);
  fclose(f);
  printf("%dx%d from a %d^3 volume in %.2f ms -> %s\n", w, h, n, ms, outPath);
  cudaDestroyTextureObject(tex.volume);
  cudaDestroyTextureObject(tex.transfer);
  cudaFreeArray(volArr);
  cudaFreeArray(tfArr);
  cudaFree(dImg);
  return 0;
}
