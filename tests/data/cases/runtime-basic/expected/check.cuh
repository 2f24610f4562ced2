#pragma once
#include <cstdio>
#include <cstdlib>
#include <hip/hip_runtime_api.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        hipError_t err_ = (call);                                              \
        if (err_ != hipSuccess) {                                              \
            fprintf(stderr, "CUDA error %s at %s:%d\n", hipGetErrorString(err_), \
                    __FILE__, __LINE__);                                        \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#ifdef __HIPCC__
#define HOST_DEVICE __host__ __device__
#else
#define HOST_DEVICE
#endif
