// Legacy texture reference API (removed in CUDA 12): needs a rewrite to texture objects.
#include <cuda_runtime.h>
texture<float, 1, cudaReadModeElementType> tex;
__global__ void k(float* out) { out[threadIdx.x] = tex1Dfetch(tex, threadIdx.x); }
void bind(float* d, size_t n) { cudaBindTexture(0, tex, d, n * sizeof(float)); }
