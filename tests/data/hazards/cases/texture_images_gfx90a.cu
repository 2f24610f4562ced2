// target: gfx90a
// checks: PT004
texture<float, 1, cudaReadModeElementType> texRef;
struct Sampler { __device__ float tex2D(float, float) const { return 0.f; } };
__global__ void k(float* out, cudaTextureObject_t obj, cudaSurfaceObject_t surf, Sampler s) {
  out[0] = tex1Dfetch(texRef, threadIdx.x);
  out[1] = tex1Dfetch<float>(obj, threadIdx.x);
  out[2] = tex2D<float>(obj, 0.5f, 0.5f);
  float v;
  surf2Dread(&v, surf, 0, 0);
  out[3] = s.tex2D(0.f, 0.f) + v;  // a member named like a fetch: quiet
  // tex2D<float>(obj, 1, 1) in a comment: quiet
}
