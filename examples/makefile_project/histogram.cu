// Shared-memory privatised histogram: each block counts into its own bins, then merges with global atomics.
#include "histogram.cuh"

__global__ void histogram_kernel(const uint8_t* data, size_t n, unsigned int* hist) {
    __shared__ unsigned int local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        atomicAdd(&local[data[i] / 4], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}

cudaError_t histogram_async(const uint8_t* d_data, size_t n, unsigned int* d_hist, cudaStream_t stream) {
    cudaError_t err = cudaMemsetAsync(d_hist, 0, kBins * sizeof(unsigned int), stream);
    if (err != cudaSuccess) return err;
    histogram_kernel<<<120, 256, 0, stream>>>(d_data, n, d_hist);
    return cudaGetLastError();
}
