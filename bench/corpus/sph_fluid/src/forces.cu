// Density, pressure and viscosity forces with poly6 / spiky / viscosity kernels.
#include <math_constants.h>

#include "sph.cuh"

__device__ float poly6(float r2, float h) {
  float h2 = h * h;
  if (r2 >= h2) return 0.f;
  float d = h2 - r2;
  return 315.f / (64.f * CUDART_PI_F * powf(h, 9.f)) * d * d * d;
}

__device__ float3 spikyGrad(float3 r, float len, float h) {
  if (len <= 0.f || len >= h) return make_float3(0.f, 0.f, 0.f);
  float d = h - len;
  return r * (-45.f / (CUDART_PI_F * powf(h, 6.f)) * d * d / len);
}

template <typename F>
__device__ void forNeighbours(const Fluid &f, const SphParams &p, int i, F fn) {
  uint3 c = cellOf(p.grid, f.pos[i]);
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int3 nc = make_int3(c.x, c.y, c.z) + make_int3(dx, dy, dz);
        if (nc.x < 0 || nc.y < 0 || nc.z < 0) continue;
        uint3 u = make_uint3(umax(nc.x, 0), umax(nc.y, 0), umax(nc.z, 0));
        if (u.x >= p.grid.dims.x || u.y >= p.grid.dims.y || u.z >= p.grid.dims.z) continue;
        unsigned h = cellHash(p.grid, u);
        unsigned begin = f.cellStart[h], end = begin + f.cellCount[h];
        for (unsigned k = begin; k < end; ++k) fn(f.sortedIndex[k]);
      }
}

__global__ void densityKernel(Fluid f, SphParams p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= f.n) return;
  float rho = 0.f;
  forNeighbours(f, p, i, [&](unsigned j) {
    float3 r = f.pos[i] - f.pos[j];
    rho += p.mass * poly6(dot(r, r), p.h);
  });
  f.density[i] = rho;
  f.pressure[i] = p.stiffness * fmaxf(rho - p.restDensity, 0.f);
}

__global__ void forceKernel(Fluid f, SphParams p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= f.n) return;
  float3 force = p.gravity * f.density[i];
  forNeighbours(f, p, i, [&](unsigned j) {
    if (j == static_cast<unsigned>(i)) return;
    float3 r = f.pos[i] - f.pos[j];
    float len = length(r);
    float pTerm = (f.pressure[i] + f.pressure[j]) / (2.f * f.density[j]);
    force += spikyGrad(r, len, p.h) * (-p.mass * pTerm);
    float lap = len < p.h ? 45.f / (CUDART_PI_F * powf(p.h, 6.f)) * (p.h - len) : 0.f;
    force += (f.vel[j] - f.vel[i]) * (p.viscosity * p.mass / f.density[j] * lap);
  });
  f.force[i] = force;
}

__global__ void integrateKernel(Fluid f, SphParams p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= f.n) return;
  float3 v = f.vel[i] + f.force[i] * (p.dt / fmaxf(f.density[i], 1e-6f));
  float3 x = f.pos[i] + v * p.dt;
  float3 lo = p.grid.origin;
  float3 hi = lo + make_float3(p.grid.dims.x, p.grid.dims.y, p.grid.dims.z) * p.grid.cellSize;
  if (x.y < lo.y) { x.y = lo.y; v.y *= -0.5f; }
  if (x.x < lo.x) { x.x = lo.x; v.x *= -0.5f; }
  if (x.x > hi.x) { x.x = hi.x; v.x *= -0.5f; }
  if (x.z < lo.z) { x.z = lo.z; v.z *= -0.5f; }
  if (x.z > hi.z) { x.z = hi.z; v.z *= -0.5f; }
  f.pos[i] = x;
  f.vel[i] = v;
}

static dim3 blocksFor(int n) { return dim3((n + 127) / 128); }

void computeDensity(Fluid f, const SphParams &p, cudaStream_t s) { densityKernel<<<blocksFor(f.n), 128, 0, s>>>(f, p); }
void computeForces(Fluid f, const SphParams &p, cudaStream_t s) { forceKernel<<<blocksFor(f.n), 128, 0, s>>>(f, p); }
void integrate(Fluid f, const SphParams &p, cudaStream_t s) { integrateKernel<<<blocksFor(f.n), 128, 0, s>>>(f, p); }
