#include <cstdio>

#include "scene.cuh"

__constant__ Scene c_scene;

__device__ float hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return (x & 0xffffff) / float(0x1000000);
}

__device__ float3 shade(Ray r, int depth) {
  float3 color = make_float3(0.f);
  float3 throughput = make_float3(1.f);
  for (int bounce = 0; bounce < depth; ++bounce) {
    Hit h;
    if (!intersectScene(c_scene, r, h)) {
      color += throughput * lerp(make_float3(1.f), c_scene.sky, clampf(r.d.y, 0.f, 1.f));
      break;
    }
    const Sphere &s = c_scene.spheres[h.id];
    Ray shadow{h.p + h.n * 1e-3f, c_scene.lightDir};
    Hit sh;
    float lit = intersectScene(c_scene, shadow, sh) ? 0.15f : fmaxf(dot(h.n, c_scene.lightDir), 0.15f);
    color += throughput * s.albedo * lit * (1.f - s.reflectivity);
    throughput *= s.albedo * s.reflectivity;
    r.o = h.p + h.n * 1e-3f;
    r.d = reflect(r.d, h.n);
  }
  return color;
}

__global__ void renderKernel(Camera cam, int width, int height, int spp, uchar4 *image) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float3 acc = make_float3(0.f);
  for (int s = 0; s < spp; ++s) {
    unsigned seed = (y * width + x) * 9781u + s * 6271u;
    float2 jitter = make_float2(hash(seed), hash(seed + 1)) - make_float2(0.5f);
    float2 uv = make_float2((x + 0.5f + jitter.x) / width, (y + 0.5f + jitter.y) / height) * 2.f - make_float2(1.f);
    float3 dir = normalize(cam.forward + (uv.x * cam.fovScale) * cam.right - (uv.y * cam.fovScale) * cam.up);
    acc += shade(Ray{cam.eye, dir}, 4);
  }
  float3 c = clamp(acc / float(spp), 0.f, 1.f);
  float4 px = make_float4(c, 1.f) * 255.f;
  image[y * width + x] = make_uchar4((unsigned char)px.x, (unsigned char)px.y, (unsigned char)px.z, 255);
}

bool render(const Scene &scene, const Camera &cam, int width, int height, int spp, uchar4 *image) {
  cudaMemcpyToSymbol(c_scene, &scene, sizeof(Scene));
  uchar4 *d_image = nullptr;
  cudaMalloc(&d_image, sizeof(uchar4) * width * height);
  dim3 block(16, 16);
  dim3 grid((width + 15) / 16, (height + 15) / 16);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  renderKernel<<<grid, block>>>(cam, width, height, spp, d_image);
  cudaEventRecord(stop);
  cudaError_t err = cudaEventSynchronize(stop);
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "render failed: %s\n", cudaGetErrorString(err));
    cudaFree(d_image);
    return false;
  }
  float ms = 0.f;
  cudaEventElapsedTime(&ms, start, stop);
  printf("rendered %dx%d at %d spp in %.2f ms\n", width, height, spp, ms);
  cudaMemcpy(image, d_image, sizeof(uchar4) * width * height, cudaMemcpyDeviceToHost);
  cudaFree(d_image);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return true;
}
