#pragma once
#include <cstdint>
#include <cuda_runtime.h>

// All tensors are row-major [rows, cols], device pointers; dtype 0 = fp16, 1 = bf16.
cudaError_t fusedLayerNorm(const void *x, const void *gamma, const void *beta, void *y, int rows, int cols,
                           float eps, int dtype, cudaStream_t stream);
cudaError_t fusedSoftmax(const void *x, void *y, int rows, int cols, float scale, int dtype, cudaStream_t stream);
