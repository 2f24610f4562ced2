// Vector add with streams and events. cudaMalloc in this comment stays as it is.
#include <cstdio>
#include <hip/hip_runtime.h>
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
    CUDA_CHECK(hipMalloc(&a, n * sizeof(float)));
    CUDA_CHECK(hipMalloc(&b, n * sizeof(float)));
    CUDA_CHECK(hipMallocManaged(&c, n * sizeof(float)));
    CUDA_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(scale), &h_scale, sizeof(float)));
    hipStream_t stream;
    hipEvent_t start, stop;
    CUDA_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    hipEventCreate(&start);
    hipEventCreate(&stop);
    hipEventRecord(start, stream);
    vectorAdd<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
    CUDA_CHECK(hipGetLastError());
    hipEventRecord(stop, stream);
    hipEventSynchronize(stop);
    float ms = 0;
    hipEventElapsedTime(&ms, start, stop);
    hipDeviceProp_t prop;
    hipGetDeviceProperties(&prop, 0);
    printf("cudaMalloc ok on %s\n", prop.name);
    hipStreamDestroy(stream);
    hipFree(a); hipFree(b); hipFree(c);
    return 0;
}
