// porter_texture.h's cubemaps against CUDA's, on one NVIDIA GPU: a 4x4 float cubemap (6 faces of distinct texels)
// and a layered cubemap (2 layers; layers -1 and 5 read clamped), sampled through a CUDA texture object and through porter's along directions
// that cover every face, the edges and corners between faces (ties of the major axis), in both filters, every
// address mode and both coordinate modes.
#include <hip/hip_runtime.h>
#include "porter_texture.h"
#include <cstdio>
#include <cstdlib>
#include <cmath>
#define CK(c) do { cudaError_t e = (c); if (e) { printf("FAIL %s: %s\n", #c, cudaGetErrorString(e)); return 1; } } while (0)

__device__ float3 direction(int i) {
  // a 17^3 grid over [-1, 1]^3 (exact ties where |x| = |y| or |y| = |z|), skipping the origin
  int a = i % 17, b = (i / 17) % 17, c = (i / 289) % 17;
  // scaled by 1..3.22 (ties stay ties; s / m no longer exact)
  float k = 1.f + (i % 7) * 0.37f;
  return make_float3(k * (-1.f + a * 0.125f), k * (-1.f + b * 0.125f), k * (-1.f + c * 0.125f));
}
__global__ void both(cudaTextureObject_t a, porter_tex_object_t b, float* o, float* q, int n, int layered) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float3 d = direction(i); const int layers[4] = {0, 1, -1, 5}; int layer = layers[(i / 4913) % 4];  // -1, 5: clamped
  if (d.x == 0.f && d.y == 0.f && d.z == 0.f) { o[i] = q[i] = 0.f; return; }
  if (layered) { o[i] = texCubemapLayered<float>(a, d.x, d.y, d.z, layer); q[i] = porter_texCubemapLayered<float>(b, d.x, d.y, d.z, layer); }
  else { o[i] = texCubemap<float>(a, d.x, d.y, d.z); q[i] = porter_texCubemap<float>(b, d.x, d.y, d.z); }
}

int main() {
  const int W = 4, F = 6, L = 2, N = 4913 * 4;
  float h[W * W * F * L];
  for (int i = 0; i < W * W * F * L; ++i) h[i] = (i * 37 % 101) * 0.5f - 20;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  float *o, *q; CK(cudaMalloc(&o, N * 4)); CK(cudaMalloc(&q, N * 4));
  float *ho = new float[N], *hq = new float[N];
  int configs = 0, bad = 0;
  for (int layered = 0; layered < 2; ++layered) {
    unsigned flags = cudaArrayCubemap | (layered ? cudaArrayLayered : 0);
    cudaExtent ext = make_cudaExtent(W, W, F * (layered ? L : 1));
    cudaArray_t ca; porter_tex_array_t pa;
    CK(cudaMalloc3DArray(&ca, &cf, ext, flags)); CK(porter_tex_malloc_3d_array(&pa, &cf, ext, flags));
    cudaMemcpy3DParms m = {}; porter_tex_memcpy3d_parms pm = {};
    m.srcPtr = pm.srcPtr = make_cudaPitchedPtr(h, W * 4, W, W); m.extent = pm.extent = ext;
    m.kind = pm.kind = cudaMemcpyHostToDevice; m.dstArray = ca; pm.dstArray = pa;
    CK(cudaMemcpy3D(&m)); CK(porter_tex_memcpy_3d(&pm));
    for (int norm = 0; norm < 2; ++norm) for (int filt = 0; filt < 2; ++filt) for (int am = 0; am < 4; ++am) {
      cudaResourceDesc r = {}; porter_tex_resource_desc pr = {};
      r.resType = pr.resType = cudaResourceTypeArray; r.res.array.array = ca; pr.res.array.array = pa;
      cudaTextureDesc t = {}; for (int c = 0; c < 3; ++c) t.addressMode[c] = (cudaTextureAddressMode)am;
      t.filterMode = (cudaTextureFilterMode)filt; t.normalizedCoords = norm; t.readMode = cudaReadModeElementType;
      cudaTextureObject_t ta; porter_tex_object_t tb = 0;
      if (cudaCreateTextureObject(&ta, &r, &t, nullptr) != cudaSuccess) { printf("cubemap layered=%d norm=%d filter=%d address=%d: CUDA refuses\n", layered, norm, filt, am); cudaGetLastError(); continue; }
      CK(porter_tex_create_object(&tb, &pr, &t, nullptr));
      int n = layered ? N : 4913;
      both<<<(n + 127) / 128, 128>>>(ta, tb, o, q, n, layered);
      CK(cudaGetLastError()); CK(cudaMemcpy(ho, o, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hq, q, n * 4, cudaMemcpyDeviceToHost));
      float tol = filt ? 0.4f : 0.f, worst = 0; int off = 0;  // linear: CUDA's 8-bit weights on texels spanning 50
      for (int i = 0; i < n; ++i) {
        float d = fabsf(ho[i] - hq[i]); if (d > worst) worst = d;
        if (!(d <= tol) && off++ < 4 && getenv("SHOW")) {
          int a = i % 17, b = (i / 17) % 17, c = (i / 289) % 17;
          printf("  (%g, %g, %g) layer %d: cuda %g porter %g\n", -1 + a * 0.125, -1 + b * 0.125, -1 + c * 0.125, (i / 4913) % 4, ho[i], hq[i]);
        }
      }
      printf("cubemap layered=%d norm=%d filter=%d address=%d max|cuda-porter|=%g (%d differ) %s\n", layered, norm, filt, am, worst, off, off ? "DIFFER" : "ok");
      ++configs; bad += off != 0;
      cudaDestroyTextureObject(ta);
    }
  }
  printf("%s: %d of %d configurations differ beyond tolerance\n", bad ? "FAIL" : "PASS", bad, configs);
  return bad != 0;
}
