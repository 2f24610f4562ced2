// Vector add with streams and events. cudaMalloc in this comment stays as it is.
#include <cstdio>
#include <cuda_runtime.h>
#include "check.cuh"

__constant__ float scale;

__global__ void vectorAdd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = scale * (a[i] + b[i]);
}

int main() {
    const int n = 1 << 20;
    float *a, *b, *c;
    float h_scale = 2.0f;
    CUDA_CHECK(cudaMalloc(&a, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b, n * sizeof(float)));
    CUDA_CHECK(cudaMallocManaged(&c, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(scale, &h_scale, sizeof(float)));
    cudaStream_t stream;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, stream);
    vectorAdd<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
    CUDA_CHECK(cudaGetLastError());
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("cudaMalloc ok on %s\n", prop.name);
    cudaStreamDestroy(stream);
    cudaFree(a); cudaFree(b); cudaFree(c);
    return 0;
}
