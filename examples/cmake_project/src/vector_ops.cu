// Kernels and host wrappers of the vector_ops library.
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include "vector_ops.cuh"

namespace {

constexpr int kThreads = 256;

__global__ void saxpy_kernel(float a, const float* x, float* y, size_t n) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        y[i] = a * x[i] + y[i];
}

// One partial (sum, min, max) per block, tree-reduced in shared memory.
__global__ void stats_kernel(const float* v, size_t n, float* sums, float* mins, float* maxs) {
    __shared__ float s_sum[kThreads], s_min[kThreads], s_max[kThreads];
    float sum = 0.0f, lo = FLT_MAX, hi = -FLT_MAX;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        sum += v[i];
        lo = fminf(lo, v[i]);
        hi = fmaxf(hi, v[i]);
    }
    s_sum[threadIdx.x] = sum;
    s_min[threadIdx.x] = lo;
    s_max[threadIdx.x] = hi;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + stride];
            s_min[threadIdx.x] = fminf(s_min[threadIdx.x], s_min[threadIdx.x + stride]);
            s_max[threadIdx.x] = fmaxf(s_max[threadIdx.x], s_max[threadIdx.x + stride]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = s_sum[0];
        mins[blockIdx.x] = s_min[0];
        maxs[blockIdx.x] = s_max[0];
    }
}

}  // namespace

void saxpy(float a, const float* d_x, float* d_y, size_t n, cudaStream_t stream) {
    int blocks = static_cast<int>((n + kThreads - 1) / kThreads);
    if (blocks > 1024) blocks = 1024;
    saxpy_kernel<<<blocks, kThreads, 0, stream>>>(a, d_x, d_y, n);
    CHECK(cudaGetLastError());
}

Stats vector_stats(const float* d_v, size_t n, cudaStream_t stream) {
    const int blocks = 64;
    float* d_parts;
    CHECK(cudaMalloc(&d_parts, 3 * blocks * sizeof(float)));
    stats_kernel<<<blocks, kThreads, 0, stream>>>(d_v, n, d_parts, d_parts + blocks, d_parts + 2 * blocks);
    CHECK(cudaGetLastError());
    float h_parts[3 * blocks];
    CHECK(cudaMemcpyAsync(h_parts, d_parts, sizeof(h_parts), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaFree(d_parts));
    Stats s{0.0, FLT_MAX, -FLT_MAX};
    for (int b = 0; b < blocks; ++b) {
        s.sum += h_parts[b];
        s.min = h_parts[blocks + b] < s.min ? h_parts[blocks + b] : s.min;
        s.max = h_parts[2 * blocks + b] > s.max ? h_parts[2 * blocks + b] : s.max;
    }
    return s;
}
