// Warp reduction with the CUDA 9 *_sync intrinsics and a 32-bit full mask.
#include <cuda_runtime.h>
#define FULL_MASK 0xffffffff
__global__ void warp_sum(const float* in, float* out) {
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(FULL_MASK, v, offset);
    unsigned int active = __activemask();
    if (__all_sync(active, v > 0.0f) && (threadIdx.x & 31) == 0) atomicAdd(out, v);
    __syncwarp();
}
