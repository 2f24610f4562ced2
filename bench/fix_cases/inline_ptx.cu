// Inline PTX the translator rewrites (porter/data/ptx.toml: %laneid -> __lane_id()): builds as translated.
#include <cuda_runtime.h>
__device__ unsigned int lane_id() {
    unsigned int id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}
__global__ void k(unsigned int* out) { out[threadIdx.x] = lane_id(); }
