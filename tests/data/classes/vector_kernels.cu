// Uses every operator of vector_helpers.cuh; the ones porter reports (they are not HIP's) under USE_REPORTED.
#include "vector_helpers.cuh"

__global__ void uses(float2* f2, float3* f3, int2* i2, uint2* u2, short2* s2) {
  float2 a = f2[0], b = f2[1];
  a = a * b; a *= b; a = a / b; a /= b; a = a * 2.0f; a = 2.0f * a; a = a + b; a += b;
  f2[2] = a;
  float3 c = f3[0], d = f3[1];
  c += d; c -= d; c = c * d; c = c + d; c = c / d; c *= d;
  f3[2] = c;
  i2[0] = i2[1] * i2[2];
  u2[0] = u2[1] * u2[2];
  short2 s = s2[0];
  s = s + s2[1]; s = s * s2[1]; s += s2[1];
  s2[0] = s;
}

void host_uses(float3* f3) {
  float3 c = f3[0];
  c += f3[1];
  c = c * f3[2];
  f3[0] = c;
}

#ifdef USE_REPORTED
__global__ void reported(double2* d2, float4* f4, int4* i4, uint2* u2) {
  d2[0] = d2[1] * d2[2];
  float4 e = f4[0];
  e += f4[1];
  f4[0] = e;
  int4 g = i4[0];
  g -= i4[1];
  i4[0] = g;
  uint2 u = u2[0];
  u -= u2[1];
  u2[0] = u;
}
#endif
