#pragma once
#include "vec_math.cuh"

struct Ray {
  float3 o, d;
};

struct Sphere {
  float3 center;
  float radius;
  float3 albedo;
  float reflectivity;
};

struct Camera {
  float3 eye, forward, right, up;
  float fovScale;
};

struct Hit {
  float t;
  float3 p, n;
  int id;
};

constexpr int kMaxSpheres = 16;

struct Scene {
  Sphere spheres[kMaxSpheres];
  int count;
  float3 lightDir;
  float3 sky;
};

__device__ bool intersectScene(const Scene &s, const Ray &r, Hit &hit);
__host__ Scene makeDemoScene(int extra);
__host__ Camera makeCamera(float3 eye, float3 target, float fovDeg, float aspect);

bool render(const Scene &scene, const Camera &cam, int width, int height, int spp, uchar4 *image);
