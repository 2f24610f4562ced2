// porter shim: include guards of CUDA headers, defined so helper headers that test them take their
// "CUDA runtime is available" branch (e.g. `#ifdef __CUDA_RUNTIME_H__` around cudaError_t helpers) after
// porter has translated those helpers to HIP.
//
// How this differs from CUDA: no CUDA header is included; only the guard macros are defined, so a later
// `#include <cuda_runtime.h>` left in the code would be skipped silently instead of failing. Code that
// tests these guards to pick CUDA-only paths (inline PTX, nvcc pragmas) still needs porting by hand.
// __CUDACC__ is NOT defined: it would switch libraries into nvcc mode.
// CUDART_VERSION and CUDA_VERSION (code gates features on them: `#if CUDART_VERSION >= 2020`) are defined as 12000,
// CUDA 12.0, the API level porter's maps translate; left undefined they would read as 0 and pick the oldest
// branch. porter reports every comparison so that a person checks the branch taken.
#ifndef PORTER_CUDA_GUARDS_H
#define PORTER_CUDA_GUARDS_H

#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__
#endif
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif
#ifndef __cuda_cuda_h__  // cuda.h's (the driver API: HIP's runtime header declares it)
#define __cuda_cuda_h__
#endif
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
#endif
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__
#endif

#ifndef CUDART_VERSION
#define CUDART_VERSION 12000
#endif
#ifndef CUDA_VERSION
#define CUDA_VERSION 12000
#endif

#endif  // PORTER_CUDA_GUARDS_H
