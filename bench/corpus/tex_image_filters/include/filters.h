#pragma once
#include <cuda_runtime.h>

#include "image_io.h"

#define checkCudaErrors(call)                                                                       \
  do {                                                                                              \
    cudaError_t err = (call);                                                                       \
    if (cudaSuccess != err) {                                                                       \
      fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", __FILE__, __LINE__,              \
              cudaGetErrorString(err));                                                             \
      exit(EXIT_FAILURE);                                                                           \
    }                                                                                               \
  } while (0)

// Every filter takes the input as an 8-bit image on the host and returns the result the same way.
float boxFilter(const GreyImage &in, GreyImage &out, int radius);
float resizeBilinear(const GreyImage &in, GreyImage &out, int newWidth, int newHeight);
float sobelEdges(const GreyImage &in, GreyImage &out, float scale);

// Upload an 8-bit image into a float cudaArray (values 0..255) wrapped in a texture object.
cudaTextureObject_t makeFloatTexture(const GreyImage &in, cudaArray_t *array, cudaTextureFilterMode filter,
                                     cudaTextureAddressMode address, bool normalized);
