#include "um_helpers.cuh"

// Sample a periodic 2D velocity field (fieldN x fieldN, two components interleaved) with bilinear weights.
__device__ float2 sampleField(const float *field, int fieldN, float x, float y) {
  float fx = x * fieldN, fy = y * fieldN;
  int x0 = static_cast<int>(floorf(fx)), y0 = static_cast<int>(floorf(fy));
  float tx = fx - x0, ty = fy - y0;
  auto at = [&](int i, int j) {
    i = (i % fieldN + fieldN) % fieldN;
    j = (j % fieldN + fieldN) % fieldN;
    const float *v = field + 2 * (j * fieldN + i);
    return make_float2(v[0], v[1]);
  };
  float2 a = at(x0, y0), b = at(x0 + 1, y0), c = at(x0, y0 + 1), d = at(x0 + 1, y0 + 1);
  float2 r;
  r.x = (1 - ty) * ((1 - tx) * a.x + tx * b.x) + ty * ((1 - tx) * c.x + tx * d.x);
  r.y = (1 - ty) * ((1 - tx) * a.y + tx * b.y) + ty * ((1 - tx) * c.y + tx * d.y);
  return r;
}

__global__ void advectKernel(Particles p, const float *field, int fieldN, float dt, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  float x = p.x[i], y = p.y[i];
  float2 v = make_float2(p.vx[i], p.vy[i]);
  for (int s = 0; s < steps; ++s) {
    // midpoint (RK2) step
    float2 k1 = sampleField(field, fieldN, x, y);
    float2 k2 = sampleField(field, fieldN, x + 0.5f * dt * k1.x, y + 0.5f * dt * k1.y);
    v = k2;
    x = x + dt * k2.x;
    y = y + dt * k2.y;
    x -= floorf(x);
    y -= floorf(y);
  }
  p.x[i] = x;
  p.y[i] = y;
  p.vx[i] = v.x;
  p.vy[i] = v.y;
}

void advect(Particles p, const float *field, int fieldN, float dt, int steps, cudaStream_t stream) {
  const int threads = 256;
  advectKernel<<<(p.n + threads - 1) / threads, threads, 0, stream>>>(p, field, fieldN, dt, steps);
  UM_CHECK(cudaGetLastError());
}
