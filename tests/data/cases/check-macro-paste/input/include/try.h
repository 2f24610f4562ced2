// A project's error checks in two flavours, chosen by the compiler: both paste the API prefix onto the call.
#pragma once
#include <stdio.h>
#ifdef __HIPCC__
#include <hip/hip_runtime.h>
#define TRY(call) do { err = (hip##call); if (err != hipSuccess) goto fail; } while (0)
typedef hipError_t cudaError_t;
typedef hipStream_t cudaStream_t;
#else
#include <cuda_runtime.h>
#define TRY(call) do { \
    err = (cuda##call); \
    if (err != cudaSuccess) { fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err)); goto fail; } \
  } while (0)
#endif
// pastes onto a variable's name, not a call: left as written
#define TIMER(name) cudaEvent_t cuda##name##Start, cuda##name##Stop
