#pragma once
#include "grid_math.cuh"

struct SphParams {
  float h;          // smoothing length
  float mass;
  float restDensity;
  float stiffness;
  float viscosity;
  float dt;
  float3 gravity;
  GridSpec grid;
};

struct Fluid {
  float3 *pos, *vel, *force;
  float *density, *pressure;
  unsigned *cell, *sortedIndex, *cellStart, *cellCount;
  int n;
};

void buildGrid(Fluid f, const SphParams &p, cudaStream_t s);
void computeDensity(Fluid f, const SphParams &p, cudaStream_t s);
void computeForces(Fluid f, const SphParams &p, cudaStream_t s);
void integrate(Fluid f, const SphParams &p, cudaStream_t s);
