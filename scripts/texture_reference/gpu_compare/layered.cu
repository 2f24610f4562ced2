// porter_texture.h's layered textures against CUDA's, on one NVIDIA GPU: a 2D layered float array (5x4, 3 layers)
// and a 1D layered uchar4 array read as normalized floats (7 texels, 4 layers), sampled through a CUDA texture
// object and through porter's, every address mode, both filters, both coordinate modes, layer indices -1..layers.
#include <hip/hip_runtime.h>
#include "porter_texture.h"
#include <cstdio>
#include <cmath>
#include <cstdlib>
#define CK(c) do { cudaError_t e = (c); if (e) { printf("FAIL %s: %s\n", #c, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void both2d(cudaTextureObject_t a, porter_tex_object_t b, float* o, float* q, int n, int layers) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float x = -1.7f + (i % 32) * 0.29f, y = -1.3f + ((i / 32) % 16) * 0.37f; int layer = (i / 512) % (layers + 2) - 1;
  o[i] = tex2DLayered<float>(a, x, y, layer); q[i] = porter_tex2DLayered<float>(b, x, y, layer);
}
__global__ void both1d(cudaTextureObject_t a, porter_tex_object_t b, float4* o, float4* q, int n, int layers) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float x = -2.3f + (i % 64) * 0.19f; int layer = (i / 64) % (layers + 2) - 1;
  o[i] = tex1DLayered<float4>(a, x, layer); q[i] = porter_tex1DLayered<float4>(b, x, layer);
}

int main() {
  const int W = 5, H = 4, L = 3, W1 = 7, L1 = 4, N = 4096;
  float h[W * H * L]; uchar4 hu[W1 * L1];
  for (int i = 0; i < W * H * L; ++i) h[i] = (i * 7 % 23) * 1.25f - 6;
  for (int i = 0; i < W1 * L1; ++i) hu[i] = make_uchar4(i * 29 % 256, 255 - i * 11, i * i % 256, i * 53 % 256);
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>(), cu = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a2, a1; porter_tex_array_t p2, p1;
  CK(cudaMalloc3DArray(&a2, &cf, make_cudaExtent(W, H, L), cudaArrayLayered));
  CK(porter_tex_malloc_3d_array(&p2, &cf, make_cudaExtent(W, H, L), cudaArrayLayered));
  CK(cudaMalloc3DArray(&a1, &cu, make_cudaExtent(W1, 0, L1), cudaArrayLayered));
  CK(porter_tex_malloc_3d_array(&p1, &cu, make_cudaExtent(W1, 0, L1), cudaArrayLayered));
  for (int k = 0; k < 2; ++k) {
    cudaMemcpy3DParms m = {}; porter_tex_memcpy3d_parms pm = {};
    m.srcPtr = pm.srcPtr = k == 0 ? make_cudaPitchedPtr(h, W * 4, W, H) : make_cudaPitchedPtr(hu, W1 * 4, W1, 1);
    m.extent = pm.extent = k == 0 ? make_cudaExtent(W, H, L) : make_cudaExtent(W1, 1, L1);
    m.kind = pm.kind = cudaMemcpyHostToDevice; m.dstArray = k == 0 ? a2 : a1; pm.dstArray = k == 0 ? p2 : p1;
    CK(cudaMemcpy3D(&m)); CK(porter_tex_memcpy_3d(&pm));
  }
  float *o, *q; CK(cudaMalloc(&o, N * 16)); CK(cudaMalloc(&q, N * 16));
  float *ho = new float[N * 4], *hq = new float[N * 4];
  int configs = 0, bad = 0;
  for (int k = 0; k < 2; ++k) for (int norm = 0; norm < 2; ++norm) for (int filt = 0; filt < 2; ++filt)
  for (int am = 0; am < 4; ++am) {
    cudaResourceDesc r = {}; porter_tex_resource_desc pr = {};
    r.resType = pr.resType = cudaResourceTypeArray; r.res.array.array = k == 0 ? a2 : a1; pr.res.array.array = k == 0 ? p2 : p1;
    cudaTextureDesc t = {}; for (int c = 0; c < 3; ++c) t.addressMode[c] = (cudaTextureAddressMode)am;
    t.filterMode = (cudaTextureFilterMode)filt; t.normalizedCoords = norm;
    t.readMode = k == 0 ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
    cudaTextureObject_t ta; porter_tex_object_t tb = 0;
    CK(cudaCreateTextureObject(&ta, &r, &t, nullptr)); CK(porter_tex_create_object(&tb, &pr, &t, nullptr));
    int values = k == 0 ? N : N * 4;
    if (k == 0) both2d<<<N / 128, 128>>>(ta, tb, o, q, N, L); else both1d<<<N / 128, 128>>>(ta, tb, (float4*)o, (float4*)q, N, L1);
    CK(cudaGetLastError()); CK(cudaMemcpy(ho, o, values * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hq, q, values * 4, cudaMemcpyDeviceToHost));
    // point sampling exactly; linear filtering within CUDA's 8-bit weights (float texels span 27, uchar4 1)
    float tol = filt ? (k == 0 ? 0.15f : 0.005f) : 0.f, worst = 0; int off = 0;
    for (int i = 0; i < values; ++i) {
      float d = fabsf(ho[i] - hq[i]); if (d > worst) worst = d;
      if (!(d <= tol) && off++ < 3 && getenv("SHOW")) {
        int s = k == 0 ? i : i / 4, layer = k == 0 ? (s / 512) % (L + 2) - 1 : (s / 64) % (L1 + 2) - 1;
        printf("  sample %d (layer %d): cuda %g porter %g\n", s, layer, ho[i], hq[i]);
      }
    }
    printf("%s layered norm=%d filter=%d address=%d max|cuda-porter|=%g %s\n", k == 0 ? "2D float" : "1D uchar4", norm, filt, am, worst, off ? "DIFFER" : "ok");
    ++configs; bad += off != 0;
    cudaDestroyTextureObject(ta);
  }
  printf("%s: %d of %d configurations differ beyond tolerance\n", bad ? "FAIL" : "PASS", bad, configs);
  return bad != 0;
}
