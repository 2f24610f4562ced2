#include <cmath>
#include <cstdlib>

#include "scene.cuh"

__device__ bool intersectScene(const Scene &s, const Ray &r, Hit &hit) {
  hit.t = 1e30f;
  hit.id = -1;
  for (int i = 0; i < s.count; ++i) {
    const Sphere &sp = s.spheres[i];
    float3 oc = r.o - sp.center;
    float b = dot(oc, r.d);
    float c = dot(oc, oc) - sp.radius * sp.radius;
    float disc = b * b - c;
    if (disc < 0.f) continue;
    float sq = sqrtf(disc);
    float t = -b - sq;
    if (t < 1e-3f) t = -b + sq;
    if (t > 1e-3f && t < hit.t) {
      hit.t = t;
      hit.id = i;
    }
  }
  if (hit.id < 0) return false;
  hit.p = r.o + r.d * hit.t;
  hit.n = normalize(hit.p - s.spheres[hit.id].center);
  return true;
}

__host__ Scene makeDemoScene(int extra) {
  Scene s{};
  s.spheres[0] = {make_float3(0.f, -1000.f, 0.f), 999.f, make_float3(0.6f, 0.6f, 0.55f), 0.05f};
  s.spheres[1] = {make_float3(0.f, 0.f, 0.f), 1.f, make_float3(0.9f, 0.2f, 0.2f), 0.3f};
  s.spheres[2] = {make_float3(2.2f, 0.f, 0.5f), 1.f, make_float3(0.2f, 0.9f, 0.3f), 0.6f};
  s.spheres[3] = {make_float3(-2.2f, 0.f, -0.5f), 1.f, make_float3(0.2f, 0.3f, 0.9f), 0.1f};
  s.count = 4;
  srand(7);
  for (int i = 0; i < extra && s.count < kMaxSpheres; ++i) {
    float a = 6.2831853f * rand() / float(RAND_MAX);
    float3 c = make_float3(4.f * cosf(a), -0.7f, 4.f * sinf(a));
    s.spheres[s.count++] = {c, 0.3f, make_float3(rand() / float(RAND_MAX)), 0.2f};
  }
  s.lightDir = normalize(make_float3(-0.5f, 1.f, 0.3f));
  s.sky = make_float3(0.55f, 0.7f, 0.95f);
  return s;
}

__host__ Camera makeCamera(float3 eye, float3 target, float fovDeg, float aspect) {
  Camera c;
  c.eye = eye;
  c.forward = normalize(target - eye);
  c.right = normalize(cross(c.forward, make_float3(0.f, 1.f, 0.f))) * aspect;
  c.up = cross(c.right, c.forward) / aspect;
  c.fovScale = tanf(0.5f * fovDeg * 3.14159265f / 180.f);
  return c;
}
