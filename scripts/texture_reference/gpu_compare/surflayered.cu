// porter_texture.h's layered and cubemap surfaces against CUDA's, on one NVIDIA GPU: a 1D layered (9 texels x 3
// layers), a 2D layered (5x4 x 3), a cubemap (4x4 x 6 faces) and a layered cubemap (4x4 x 12) float2 array, each
// written through surf*write (every texel, x in bytes), then written at layers one below and one past the end in
// zero and clamp boundary modes, read back through surf*read at every texel and those layers; the arrays' contents
// (copied back with cudaMemcpy3D) and every read are compared.
#include <hip/hip_runtime.h>
#include "porter_texture.h"
#include <cstdio>
#include <cstring>
#define CK(c) do { cudaError_t e = (c); if (e) { printf("FAIL %s: %s\n", #c, cudaGetErrorString(e)); return 1; } } while (0)

struct shape { int kind, w, h, slices; const char* name; };
__device__ float2 val(int x, int y, int l, int salt) { return make_float2(salt * 1000 + l * 100 + y * 10 + x, -x - y * 0.5f - l); }

template <bool porter, class S>
__device__ void put(int kind, float2 v, S s, int x, int y, int l, cudaSurfaceBoundaryMode m) {
  if constexpr (porter) {
    if (kind == 0) porter_surf1DLayeredwrite(v, s, x * 8, l, m);
    else if (kind == 1) porter_surf2DLayeredwrite(v, s, x * 8, y, l, m);
    else if (kind == 2) porter_surfCubemapwrite(v, s, x * 8, y, l, m);
    else porter_surfCubemapLayeredwrite(v, s, x * 8, y, l, m);
  } else {
    if (kind == 0) surf1DLayeredwrite(v, s, x * 8, l, m);
    else if (kind == 1) surf2DLayeredwrite(v, s, x * 8, y, l, m);
    else if (kind == 2) surfCubemapwrite(v, s, x * 8, y, l, m);
    else surfCubemapLayeredwrite(v, s, x * 8, y, l, m);
  }
}
template <bool porter, class S>
__device__ float2 get(int kind, S s, int x, int y, int l, cudaSurfaceBoundaryMode m) {
  float2 v;
  if constexpr (porter) {
    if (kind == 0) v = porter_surf1DLayeredread<float2>(s, x * 8, l, m);
    else if (kind == 1) porter_surf2DLayeredread(&v, s, x * 8, y, l, m);
    else if (kind == 2) v = porter_surfCubemapread<float2>(s, x * 8, y, l, m);
    else v = porter_surfCubemapLayeredread<float2>(s, x * 8, y, l, m);
  } else {
    if (kind == 0) v = surf1DLayeredread<float2>(s, x * 8, l, m);
    else if (kind == 1) surf2DLayeredread(&v, s, x * 8, y, l, m);
    else if (kind == 2) v = surfCubemapread<float2>(s, x * 8, y, l, m);
    else v = surfCubemapLayeredread<float2>(s, x * 8, y, l, m);
  }
  return v;
}
// every texel of every slice
template <bool porter, class S> __global__ void fill(int kind, S s, int w, int h, int slices) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= w * h * slices) return;
  int x = i % w, y = (i / w) % h, l = i / (w * h);
  put<porter>(kind, val(x, y, l, 1), s, x, y, l, cudaBoundaryModeTrap);
}
// one thread: slices -1 and `slices` at a few texels, mode zero then clamp (salt 2, 3)
template <bool porter, class S> __global__ void outside(int kind, S s, int w, int h, int slices) {
  for (int m = 0; m < 2; ++m)
    for (int l : {-1, slices}) for (int y = 0; y < h; y += h > 1 ? h - 1 : 1) for (int x = 0; x < w; x += w - 1)
      put<porter>(kind, val(x, y, l, 2 + m), s, x, y, l, m ? cudaBoundaryModeClamp : cudaBoundaryModeZero);
}
template <bool porter, class S> __global__ void readback(int kind, S s, int w, int h, int slices, float2* o) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= w * h * (slices + 2) * 2) return;
  int per = w * h * (slices + 2); int m = i / per, j = i % per;
  int x = j % w, y = (j / w) % h, l = j / (w * h) - 1;
  o[i] = get<porter>(kind, s, x, y, l, m ? cudaBoundaryModeClamp : cudaBoundaryModeZero);
}

int main() {
  shape shapes[] = {{0, 9, 1, 3, "1D layered"}, {1, 5, 4, 3, "2D layered"}, {2, 4, 4, 6, "cubemap"}, {3, 4, 4, 12, "layered cubemap"}};
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float2>();
  int bad = 0, checked = 0;
  for (shape sh : shapes) {
    unsigned flags = cudaArraySurfaceLoadStore | (sh.kind == 0 || sh.kind == 1 || sh.kind == 3 ? cudaArrayLayered : 0) | (sh.kind >= 2 ? cudaArrayCubemap : 0);
    cudaExtent ext = make_cudaExtent(sh.w, sh.kind == 0 ? 0 : sh.h, sh.slices);
    cudaArray_t ca; porter_tex_array_t pa;
    CK(cudaMalloc3DArray(&ca, &cf, ext, flags)); CK(porter_tex_malloc_3d_array(&pa, &cf, ext, flags));
    cudaResourceDesc r = {}; porter_tex_resource_desc pr = {};
    r.resType = pr.resType = cudaResourceTypeArray; r.res.array.array = ca; pr.res.array.array = pa;
    cudaSurfaceObject_t sa; porter_surf_object_t sb;
    CK(cudaCreateSurfaceObject(&sa, &r)); CK(porter_surf_create_object(&sb, &pr));
    int n = sh.w * sh.h * sh.slices, nr = sh.w * sh.h * (sh.slices + 2) * 2;
    fill<false><<<(n + 63) / 64, 64>>>(sh.kind, sa, sh.w, sh.h, sh.slices); fill<true><<<(n + 63) / 64, 64>>>(sh.kind, sb, sh.w, sh.h, sh.slices);
    outside<false><<<1, 1>>>(sh.kind, sa, sh.w, sh.h, sh.slices); outside<true><<<1, 1>>>(sh.kind, sb, sh.w, sh.h, sh.slices);
    float2 *o, *q; CK(cudaMalloc(&o, nr * 8)); CK(cudaMalloc(&q, nr * 8));
    readback<false><<<(nr + 63) / 64, 64>>>(sh.kind, sa, sh.w, sh.h, sh.slices, o); readback<true><<<(nr + 63) / 64, 64>>>(sh.kind, sb, sh.w, sh.h, sh.slices, q);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    float2 *ho = new float2[nr], *hq = new float2[nr], *ao = new float2[n], *aq = new float2[n];
    CK(cudaMemcpy(ho, o, nr * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hq, q, nr * 8, cudaMemcpyDeviceToHost));
    cudaMemcpy3DParms m = {}; porter_tex_memcpy3d_parms pm = {};
    m.dstPtr = make_cudaPitchedPtr(ao, sh.w * 8, sh.w, sh.h); pm.dstPtr = make_cudaPitchedPtr(aq, sh.w * 8, sh.w, sh.h);
    m.extent = pm.extent = make_cudaExtent(sh.w, sh.h, sh.slices); m.kind = pm.kind = cudaMemcpyDeviceToHost;
    m.srcArray = ca; pm.srcArray = pa; CK(cudaMemcpy3D(&m)); CK(porter_tex_memcpy_3d(&pm));
    int off = 0;
    for (int i = 0; i < n; ++i) if (memcmp(&ao[i], &aq[i], 8)) { if (off++ < 40) printf("  %s texel %d: cuda (%g, %g) porter (%g, %g)\n", sh.name, i, ao[i].x, ao[i].y, aq[i].x, aq[i].y); }
    for (int i = 0; i < nr; ++i) if (memcmp(&ho[i], &hq[i], 8)) { if (off++ < 40) printf("  %s read %d (mode %s, slice %d): cuda (%g, %g) porter (%g, %g)\n", sh.name, i, i >= nr / 2 ? "clamp" : "zero", (i % (nr / 2)) / (sh.w * sh.h) - 1, ho[i].x, ho[i].y, hq[i].x, hq[i].y); }
    printf("%s: %d texels, %d reads, %d differ %s\n", sh.name, n, nr, off, off ? "DIFFER" : "ok");
    bad += off != 0; checked += n + nr;
  }
  printf("%s: %d of 4 surfaces differ (%d values compared)\n", bad ? "FAIL" : "PASS", bad, checked);
  return bad != 0;
}
