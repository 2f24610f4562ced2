#include <cstdio>

#include "volume.h"

struct Ray {
  float3 o, d;
};

__device__ bool intersectBox(Ray r, float3 lo, float3 hi, float *tnear, float *tfar) {
  float3 inv = make_float3(1.0f) / r.d;
  float3 tb = (lo - r.o) * 1.0f;
  tb = make_float3(tb.x * inv.x, tb.y * inv.y, tb.z * inv.z);
  float3 tt = hi - r.o;
  tt = make_float3(tt.x * inv.x, tt.y * inv.y, tt.z * inv.z);
  float3 tmin = fminf(tt, tb), tmax = fmaxf(tt, tb);
  *tnear = fmaxf(fmaxf(tmin.x, tmin.y), tmin.z);
  *tfar = fminf(fminf(tmax.x, tmax.y), tmax.z);
  return *tfar > *tnear;
}

__global__ void raymarch(VolumeTextures tex, RenderParams p, uchar4 *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.width || y >= p.height) return;
  float u = (x / float(p.width)) * 2.f - 1.f;
  float v = (y / float(p.height)) * 2.f - 1.f;
  Ray r;
  r.o = mulPoint(p.invView, make_float3(0.f, 0.f, 0.f));
  r.d = normalize(mul(p.invView, make_float3(u, v, -2.f)));
  float tnear, tfar;
  if (!intersectBox(r, make_float3(-1.f), make_float3(1.f), &tnear, &tfar)) {
    out[y * p.width + x] = make_uchar4(0, 0, 0, 0);
    return;
  }
  tnear = fmaxf(tnear, 0.f);
  float4 sum = make_float4(0.f);
  float t = tnear;
  for (int i = 0; i < p.maxSteps && t < tfar; ++i, t += p.tStep) {
    float3 pos = r.o + r.d * t;
    pos = pos * 0.5f + make_float3(0.5f);  // [-1,1] -> [0,1] texture space
    float s = tex3D<float>(tex.volume, pos.x, pos.y, pos.z);
    float4 col = tex1D<float4>(tex.transfer, s);
    col.w *= p.density;
    col.x *= col.w;
    col.y *= col.w;
    col.z *= col.w;
    sum += col * (1.f - sum.w);
    if (sum.w > 0.95f) break;
  }
  sum = sum * p.brightness;
  out[y * p.width + x] = make_uchar4((unsigned char)(__saturatef(sum.x) * 255), (unsigned char)(__saturatef(sum.y) * 255),
                                     (unsigned char)(__saturatef(sum.z) * 255), (unsigned char)(__saturatef(sum.w) * 255));
}

float renderVolume(const VolumeTextures &tex, const RenderParams &p, uchar4 *dImage) {
  dim3 block(16, 16), grid((p.width + 15) / 16, (p.height + 15) / 16);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  raymarch<<<grid, block>>>(tex, p, dImage);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0.f;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms;
}

void reportKernelResources() {
  cudaFuncAttributes attr;
  if (cudaFuncGetAttributes(&attr, raymarch) == cudaSuccess) {
    printf("raymarch: %d registers, %zu bytes local, max %d threads/block\n", attr.numRegs, attr.localSizeBytes,
           attr.maxThreadsPerBlock);
  }
}
