#pragma once
#include "helper_vec.h"

struct RenderParams {
  int width, height;
  float density, brightness;
  float tStep;
  int maxSteps;
  float3x4 invView;
};

struct VolumeTextures {
  cudaTextureObject_t volume;
  cudaTextureObject_t transfer;
};

VolumeTextures createVolume(int n, cudaArray_t *volumeArray, cudaArray_t *transferArray);
float renderVolume(const VolumeTextures &tex, const RenderParams &p, uchar4 *dImage);
void reportKernelResources();
