// CUDA's texture hardware against porter_texture.h on the same GPU: same data, modes and coordinates
#include <hip/hip_runtime.h>
#include "porter_texture.h"
#include <cstdio>
#include <cmath>
#define CK(c) do { cudaError_t e = (c); if (e) { printf("FAIL %s: %s\n", #c, cudaGetErrorString(e)); return 1; } } while (0)
struct P { float x, y, z; };
template <int D, class T> __global__ void both(cudaTextureObject_t a, porter_tex_object_t b, const P* p, float4* o, float4* q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; P c = p[i];
  T u, v;
  if (D == 1) { u = tex1D<T>(a, c.x); v = porter_tex1D<T>(b, c.x); }
  if (D == 2) { u = tex2D<T>(a, c.x, c.y); v = porter_tex2D<T>(b, c.x, c.y); }
  if (D == 3) { u = tex3D<T>(a, c.x, c.y, c.z); v = porter_tex3D<T>(b, c.x, c.y, c.z); }
  if (D == 0) { u = tex1Dfetch<T>(a, (int)c.x); v = porter_tex1Dfetch<T>(b, (int)c.x); }
  float4 r{0, 0, 0, 0}, s{0, 0, 0, 0}; memcpy(&r, &u, sizeof u); memcpy(&s, &v, sizeof v); o[i] = r; q[i] = s;
}
__global__ void surf(cudaSurfaceObject_t a, porter_surf_object_t b, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x; float v = x * 10.f + y;
  surf2Dwrite(v, a, x * 4, y); porter_surf2Dwrite(v, b, x * 4, y);
  porter_surf2Dwrite(-1.f, b, (w + 3) * 4, y, hipBoundaryModeZero);  // dropped
}
int main() {
  const int W = 5, H = 4, DZ = 3, N = 4096;
  float h[W * H * DZ]; uchar4 hu[W * H];
  for (int i = 0; i < W * H * DZ; ++i) h[i] = (i * 7 % 23) * 1.25f - 6 + (i == 7) * 3;
  for (int i = 0; i < W * H; ++i) hu[i] = make_uchar4(i * 29 % 256, 255 - i * 11, i * i % 256, i * 53 % 256);
  P* hp = new P[N]; for (int i = 0; i < N; ++i) { hp[i] = {-2.3f + (i % 64) * 0.1371f, -2.1f + (i / 64) * 0.1293f, -1.7f + (i % 17) * 0.31f}; }
  P* dp; float4 *o, *q; CK(cudaMalloc(&dp, N * sizeof(P))); CK(cudaMalloc(&o, N * 16)); CK(cudaMalloc(&q, N * 16));
  CK(cudaMemcpy(dp, hp, N * sizeof(P), cudaMemcpyHostToDevice));
  float4 *ho = new float4[N], *hq = new float4[N];
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>(), cu = cudaCreateChannelDesc<uchar4>();
  int total = 0, bad = 0;
  for (int kind = 0; kind < 5; ++kind) {  // 0 float2d array, 1 uchar4 normalized, 2 float3d, 3 float1d array, 4 linear fetch
    cudaArray_t ca; porter_tex_array_t pa = nullptr; float* lin = nullptr;
    cudaChannelFormatDesc& f = kind == 1 ? cu : cf;
    cudaExtent ext = make_cudaExtent(W, kind == 3 ? 0 : H, kind == 2 ? DZ : 0);
    if (kind < 4) {
      CK(cudaMalloc3DArray(&ca, &f, ext)); CK(porter_tex_malloc_3d_array(&pa, &f, ext));
      const void* src = kind == 1 ? (const void*)hu : (const void*)h; size_t es = kind == 1 ? 4 : 4;
      cudaMemcpy3DParms m = {}; m.srcPtr = make_cudaPitchedPtr((void*)src, W * es, W, kind == 3 ? 1 : H); m.dstArray = ca;
      m.extent = make_cudaExtent(W, kind == 3 ? 1 : H, kind == 2 ? DZ : 1); m.kind = cudaMemcpyHostToDevice; CK(cudaMemcpy3D(&m));
      porter_tex_memcpy3d_parms pm = {}; pm.srcPtr = m.srcPtr; pm.dstArray = pa; pm.extent = m.extent; pm.kind = m.kind; CK(porter_tex_memcpy_3d(&pm));
    } else { CK(cudaMalloc(&lin, W * H * 4)); CK(cudaMemcpy(lin, h, W * H * 4, cudaMemcpyHostToDevice)); }
    for (int norm = 0; norm < 2; ++norm) for (int filt = 0; filt < 2; ++filt) for (int am = 0; am < 5; ++am) {
      if (kind == 4 && (norm || filt)) continue;
      cudaResourceDesc r = {}; porter_tex_resource_desc pr = {};
      if (kind < 4) { r.resType = pr.resType = cudaResourceTypeArray; r.res.array.array = ca; pr.res.array.array = pa; }
      else { r.resType = pr.resType = cudaResourceTypeLinear; r.res.linear.devPtr = pr.res.linear.devPtr = lin;
             r.res.linear.desc = pr.res.linear.desc = cf; r.res.linear.sizeInBytes = pr.res.linear.sizeInBytes = W * H * 4; }
      cudaTextureDesc t = {}; for (int k = 0; k < 3; ++k) t.addressMode[k] = (cudaTextureAddressMode)(am < 4 ? am : 3);
      t.filterMode = (cudaTextureFilterMode)filt; t.normalizedCoords = norm; t.readMode = kind == 1 ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
      if (am == 4) for (int k = 0; k < 4; ++k) t.borderColor[k] = 0.3f * k - 0.2f;
      cudaTextureObject_t a; porter_tex_object_t b = 0; CK(cudaCreateTextureObject(&a, &r, &t, nullptr)); CK(porter_tex_create_object(&b, &pr, &t, nullptr));
      int D = kind == 0 || kind == 1 ? 2 : kind == 2 ? 3 : kind == 3 ? 1 : 0;
      if (kind == 1) both<2, float4><<<N / 128, 128>>>(a, b, dp, o, q, N);
      else if (D == 2) both<2, float><<<N / 128, 128>>>(a, b, dp, o, q, N);
      else if (D == 3) both<3, float><<<N / 128, 128>>>(a, b, dp, o, q, N);
      else if (D == 1) both<1, float><<<N / 128, 128>>>(a, b, dp, o, q, N);
      else both<0, float><<<N / 128, 128>>>(a, b, dp, o, q, N);
      CK(cudaGetLastError()); CK(cudaMemcpy(ho, o, N * 16, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hq, q, N * 16, cudaMemcpyDeviceToHost));
      float worst = 0; int wi = 0;
      for (int i = 0; i < N; ++i) { const float* x = &ho[i].x; const float* y = &hq[i].x;
        for (int c = 0; c < 4; ++c) { float d = fabsf(x[c] - y[c]); if (d > worst) { worst = d; wi = i; } } }
      float tol = filt ? (kind == 1 ? 0.01f : 0.2f) : 0.0f;
      bool quirk = kind == 3 && filt && am >= 3;  // the H200's 1D-array border filtering (documented in the shim)
      ++total; if (worst > tol && !quirk) ++bad;
      printf("kind=%d norm=%d filter=%d address=%d max|cuda-porter|=%.6g at (%.4f,%.4f,%.4f) %s\n", kind, norm, filt, am, worst,
             hp[wi].x, hp[wi].y, hp[wi].z, worst > tol ? (quirk ? "(1D border quirk)" : "MISMATCH") : "ok");
      cudaDestroyTextureObject(a); porter_tex_destroy_object(b);
    }
  }
  { // surfaces: the same writes through CUDA's surface and porter's, then compare the arrays
    cudaArray_t ca; porter_tex_array_t pa; CK(cudaMallocArray(&ca, &cf, 32, 8, cudaArraySurfaceLoadStore)); CK(porter_tex_malloc_array(&pa, &cf, 32, 8));
    cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = ca; porter_tex_resource_desc pr = {}; pr.resType = cudaResourceTypeArray; pr.res.array.array = pa;
    cudaSurfaceObject_t a; porter_surf_object_t b; CK(cudaCreateSurfaceObject(&a, &r)); CK(porter_surf_create_object(&b, &pr));
    surf<<<8, 32>>>(a, b, 32, 8); CK(cudaDeviceSynchronize());
    float x[256], y[256]; CK(cudaMemcpy2DFromArray(x, 128, ca, 0, 0, 128, 8, cudaMemcpyDeviceToHost)); CK(porter_tex_memcpy_2d_from_array(y, 128, pa, 0, 0, 128, 8, cudaMemcpyDeviceToHost));
    int diff = 0; for (int i = 0; i < 256; ++i) diff += x[i] != y[i];
    ++total; if (diff) ++bad; printf("surface 32x8 write/read: %d differences\n", diff);
  }
  printf("%s: %d of %d configurations differ beyond tolerance\n", bad ? "FAIL" : "PASS", bad, total);
  return bad != 0;
}
