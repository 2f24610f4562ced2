// Histogram library interface (implemented in histogram.cu, called from plain C++).
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

constexpr int kBins = 64;

// Counts bytes of d_data (n of them) into kBins bins of d_hist (value / 4), on `stream`.
cudaError_t histogram_async(const uint8_t* d_data, size_t n, unsigned int* d_hist, cudaStream_t stream);
