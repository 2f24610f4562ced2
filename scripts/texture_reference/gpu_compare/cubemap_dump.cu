// Dumps CUDA's cubemap samples so porter's face selection can be checked offline: an 8x8 float cubemap whose
// texel (x, y) of face f in layer l holds l*1000 + f*100 + y*10 + x, sampled along the 17^3 grid over [-1, 1]^3
// (exact ties between axes) and 4096 pseudo-random directions, in every filter, address and coordinate mode,
// plain and layered (2 layers). Writes cubemap_dump.bin: per configuration a header of 5 ints
// (layered, norm, filter, address, n) then n float4 (x, y, z, value); a refused configuration has n = -1.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(c) do { cudaError_t e = (c); if (e) { printf("FAIL %s: %s\n", #c, cudaGetErrorString(e)); return 1; } } while (0)
__global__ void sample(cudaTextureObject_t t, const float4* d, float* o, int n, int layered) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float4 v = d[i];
  o[i] = layered ? texCubemapLayered<float>(t, v.x, v.y, v.z, (int)v.w) : texCubemap<float>(t, v.x, v.y, v.z);
}
int main() {
  const int W = 8, F = 6, L = 2;
  std::vector<float> h(W * W * F * L);
  for (int l = 0; l < L; ++l) for (int f = 0; f < F; ++f) for (int y = 0; y < W; ++y) for (int x = 0; x < W; ++x)
    h[((l * F + f) * W + y) * W + x] = l * 1000 + f * 100 + y * 10 + x;
  std::vector<float4> dirs;
  for (int i = 0; i < 4913; ++i) {
    int a = i % 17, b = (i / 17) % 17, c = i / 289;
    if (a == 8 && b == 8 && c == 8) continue;
    dirs.push_back(make_float4(-1.f + a * 0.125f, -1.f + b * 0.125f, -1.f + c * 0.125f, 0));
  }
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (s >> 8) * (1.0f / 16777216.0f) * 2.f - 1.f; };
  for (int i = 0; i < 4096; ++i) { float x = rnd() * 3, y = rnd() * 3, z = rnd() * 3; dirs.push_back(make_float4(x, y, z, 0)); }
  size_t n1 = dirs.size();
  for (size_t i = 0; i < n1; ++i) { float4 v = dirs[i]; v.w = 1; dirs.push_back(v); }  // layer 1 for layered
  int n = dirs.size();
  float4* dd; float* o; CK(cudaMalloc(&dd, n * 16)); CK(cudaMalloc(&o, n * 4));
  CK(cudaMemcpy(dd, dirs.data(), n * 16, cudaMemcpyHostToDevice));
  std::vector<float> ho(n);
  FILE* out = fopen(getenv("F") ? getenv("F") : "cubemap_dump.bin", "wb");
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  for (int layered = 0; layered < 2; ++layered) {
    cudaExtent ext = make_cudaExtent(W, W, F * (layered ? L : 1));
    cudaArray_t ca; CK(cudaMalloc3DArray(&ca, &cf, ext, cudaArrayCubemap | (layered ? cudaArrayLayered : 0)));
    cudaMemcpy3DParms m = {}; m.srcPtr = make_cudaPitchedPtr(h.data(), W * 4, W, W); m.extent = ext;
    m.kind = cudaMemcpyHostToDevice; m.dstArray = ca; CK(cudaMemcpy3D(&m));
    for (int norm = 0; norm < 2; ++norm) for (int filt = 0; filt < 2; ++filt) for (int am = 0; am < 4; ++am) {
      cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = ca;
      cudaTextureDesc t = {}; for (int c = 0; c < 3; ++c) t.addressMode[c] = (cudaTextureAddressMode)am;
      t.filterMode = (cudaTextureFilterMode)filt; t.normalizedCoords = norm; t.readMode = cudaReadModeElementType;
      int cnt = layered ? n : (int)n1;
      int hdr[5] = {layered, norm, filt, am, cnt};
      cudaTextureObject_t ta;
      if (cudaCreateTextureObject(&ta, &r, &t, nullptr) != cudaSuccess) {
        cudaGetLastError(); hdr[4] = -1; fwrite(hdr, 4, 5, out); printf("refused %d %d %d %d\n", layered, norm, filt, am); continue;
      }
      sample<<<(cnt + 127) / 128, 128>>>(ta, dd, o, cnt, layered);
      CK(cudaGetLastError()); CK(cudaMemcpy(ho.data(), o, cnt * 4, cudaMemcpyDeviceToHost));
      fwrite(hdr, 4, 5, out);
      for (int i = 0; i < cnt; ++i) { float4 v = dirs[i]; v.w = ho[i]; if (layered) v.w += 0; fwrite(&v, 16, 1, out); }
      // the layer of sample i is i >= n1 (for layered); kept implicit
      printf("config layered=%d norm=%d filter=%d address=%d: %d samples\n", layered, norm, filt, am, cnt);
      cudaDestroyTextureObject(ta);
    }
    cudaFreeArray(ca);
  }
  fclose(out);
  return 0;
}
