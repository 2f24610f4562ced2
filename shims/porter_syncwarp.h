// porter shim: __syncwarp for HIP before 7.0 (HIP 7.0 adds its own; porter leaves this shim out there).
//
// How this differs from CUDA: AMD wavefronts execute in lock-step, so there is no independent thread
// scheduling to reconverge. __syncwarp(mask) becomes a wavefront-scope memory fence plus a wave barrier
// (orders shared/global memory accesses between lanes, as CUDA code relying on __syncwarp expects).
// The mask is ignored. Defined as a macro so it wins over a HIP version that later declares __syncwarp.
#ifndef PORTER_SYNCWARP_H
#define PORTER_SYNCWARP_H

#include <hip/hip_runtime.h>

__device__ inline void porter_syncwarp(unsigned long long mask = ~0ull) {
    (void)mask;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

#define __syncwarp(...) porter_syncwarp(__VA_ARGS__)

#endif  // PORTER_SYNCWARP_H
