// Inline PTX with no HIP counterpart (%warpid, the warp's hardware slot): no rule can translate it; it is left for
// the model.
#include <cuda_runtime.h>
__device__ unsigned int warp_slot() {
    unsigned int id;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(id));
    return id;
}
__global__ void k(unsigned int* out) { out[threadIdx.x] = warp_slot(); }
