/* Particles bouncing in a box: explicit Euler with float3 helper operators. */
#include <stdio.h>
#include <vector>

#include <helper_cuda_lite.h>
#include <helper_math_lite.h>

struct Particle {
  float3 pos, vel;
};

__global__ void stepParticles(Particle *p, int n, float3 gravity, float dt, float3 boxMin, float3 boxMax) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle q = p[i];
  q.vel += gravity * dt;
  q.pos += q.vel * dt;
  if (q.pos.x < boxMin.x || q.pos.x > boxMax.x) q.vel.x = -q.vel.x;
  if (q.pos.y < boxMin.y || q.pos.y > boxMax.y) q.vel.y = -0.8f * q.vel.y;
  if (q.pos.z < boxMin.z || q.pos.z > boxMax.z) q.vel.z = -q.vel.z;
  q.pos.x = clamp(q.pos.x, boxMin.x, boxMax.x);
  q.pos.y = clamp(q.pos.y, boxMin.y, boxMax.y);
  q.pos.z = clamp(q.pos.z, boxMin.z, boxMax.z);
  p[i] = q;
}

__global__ void kineticEnergy(const Particle *p, int n, float *e) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(e, 0.5f * dot(p[i].vel, p[i].vel));
}

int main(int argc, const char **argv) {
  findCudaDevice(argc, argv);
  const int n = 1 << 16, steps = 1000;
  std::vector<Particle> h(n);
  for (int i = 0; i < n; ++i) {
    h[i].pos = make_float3(rand() / (float)RAND_MAX, rand() / (float)RAND_MAX, rand() / (float)RAND_MAX);
    h[i].vel = make_float3(0.f);
  }
  Particle *d;
  float *dE, e0 = 0.f, e1 = 0.f;
  checkCudaErrors(cudaMalloc(&d, n * sizeof(Particle)));
  checkCudaErrors(cudaMalloc(&dE, sizeof(float)));
  checkCudaErrors(cudaMemcpy(d, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice));
  float3 g = make_float3(0.f, -9.81f, 0.f), lo = make_float3(0.f), hi = make_float3(1.f);
  for (int s = 0; s < steps; ++s) stepParticles<<<(n + 255) / 256, 256>>>(d, n, g, 1e-3f, lo, hi);
  getLastCudaError("stepParticles failed");
  checkCudaErrors(cudaMemset(dE, 0, sizeof(float)));
  kineticEnergy<<<(n + 255) / 256, 256>>>(d, n, dE);
  checkCudaErrors(cudaMemcpy(&e1, dE, sizeof(float), cudaMemcpyDeviceToHost));
  printf("kinetic energy after %d steps: %.3f (started at %.3f)\n", steps, e1, e0);
  checkCudaErrors(cudaFree(d));
  checkCudaErrors(cudaFree(dE));
  return e1 > 0.f ? 0 : 1;
}
