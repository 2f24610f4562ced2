// porter shim: PORTER_WARP_SIZE, a compile-time warp (wavefront) size.
//
// ROCm 7 made warpSize a run-time value: it no longer works in constant expressions (array bounds,
// template arguments, constexpr, static_assert). This header gives a constant per target, following the
// HIP guide's advice: 64 on GFX8/GFX9 (CDNA: gfx90a, gfx942, gfx950), 32 on RDNA (gfx10+ default wave32).
// How this differs from CUDA's warpSize (always 32): it is the wavefront size of the device being compiled
// for. The host pass has no device; there it is 64, porter's targets being CDNA. RDNA built with
// -mwavefrontsize64 would need PORTER_WARP_SIZE defined to 64 by hand.
#ifndef PORTER_WARP_SIZE_H
#define PORTER_WARP_SIZE_H

#ifndef PORTER_WARP_SIZE
#if defined(__GFX8__) || defined(__GFX9__) || !defined(__HIP_DEVICE_COMPILE__)
#define PORTER_WARP_SIZE 64
#else
#define PORTER_WARP_SIZE 32
#endif
#endif

#endif  // PORTER_WARP_SIZE_H
