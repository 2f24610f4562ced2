// porter shim: CUDA's value-returning surface reads, `T v = surf2Dread<T>(surf, x, y, mode)`, for targets with image
// support (HIP has only the `surf2Dread(&v, surf, x, y, mode)` form; targets without image support use
// porter_texture.h instead). Each overload takes HIP's own read; overload resolution picks it by the first argument.
// How they differ from CUDA: nothing beyond HIP's own reads (x counts bytes, as in CUDA; boundary modes as HIP's).
#pragma once
#include <hip/hip_runtime.h>

template <class T>
static __device__ inline T surf1Dread(hipSurfaceObject_t s, int x, int mode = hipBoundaryModeZero) {
    T v;
    surf1Dread(&v, s, x, mode);
    return v;
}
template <class T>
static __device__ inline T surf2Dread(hipSurfaceObject_t s, int x, int y, int mode = hipBoundaryModeZero) {
    T v;
    surf2Dread(&v, s, x, y, mode);
    return v;
}
template <class T>
static __device__ inline T surf3Dread(hipSurfaceObject_t s, int x, int y, int z, int mode = hipBoundaryModeZero) {
    T v;
    surf3Dread(&v, s, x, y, z, mode);
    return v;
}
template <class T>
static __device__ inline T surf1DLayeredread(hipSurfaceObject_t s, int x, int layer, int mode = hipBoundaryModeZero) {
    T v;
    surf1DLayeredread(&v, s, x, layer, mode);
    return v;
}
template <class T>
static __device__ inline T surf2DLayeredread(hipSurfaceObject_t s, int x, int y, int layer,
                                             int mode = hipBoundaryModeZero) {
    T v;
    surf2DLayeredread(&v, s, x, y, layer, mode);
    return v;
}
