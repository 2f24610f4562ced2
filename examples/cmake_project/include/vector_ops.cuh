// Public interface of the vector_ops library: host wrappers around CUDA kernels.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

struct Stats {
    double sum;
    float min;
    float max;
};

// y = a * x + y on device buffers of length n, queued on `stream`.
void saxpy(float a, const float* d_x, float* d_y, size_t n, cudaStream_t stream);

// Sum, min and max of a device buffer (blocks until done).
Stats vector_stats(const float* d_v, size_t n, cudaStream_t stream);
