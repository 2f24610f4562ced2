// porter shim: __nanosleep for HIP.
//
// How this differs from CUDA: the wavefront sleeps in steps of __builtin_amdgcn_s_sleep(1) (64 clocks,
// ~30-60 ns depending on the shader clock) until the 100 MHz wall clock (s_memrealtime, 10 ns per tick) shows
// that `ns` have passed. The sleep is approximate (+/- one step plus scheduling), applies to the whole
// wavefront, not one thread, and if that clock is unavailable it sleeps ns/32
// steps instead. CUDA also only promises "approximately" ns, capped at 1 ms; this shim caps at 1 ms too.
#ifndef PORTER_NANOSLEEP_H
#define PORTER_NANOSLEEP_H

#include <hip/hip_runtime.h>

__device__ inline long long porter_wall_clock() {
#if __has_builtin(__builtin_amdgcn_s_memrealtime)
    return static_cast<long long>(__builtin_amdgcn_s_memrealtime());
#else
    return -1;  // host pass, or a GPU without the constant clock
#endif
}

__device__ inline void __nanosleep(unsigned int ns) {
    if (ns > 1000000u) ns = 1000000u;
    const long long start = porter_wall_clock();
    if (start < 0) {
        for (unsigned int i = 0; i < ns / 32u; ++i) __builtin_amdgcn_s_sleep(1);
        return;
    }
    const long long ticks = static_cast<long long>(ns) / 10;  // 100 MHz constant clock
    while (porter_wall_clock() - start < ticks) __builtin_amdgcn_s_sleep(1);
}

#endif  // PORTER_NANOSLEEP_H
