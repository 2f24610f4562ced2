// Driver API: CUdeviceptr is an integer in CUDA, so byte offsets and integer casts are common.
#include <cuda.h>
#include <cstdint>
void upload(const float* host, size_t n) {
    CUdeviceptr base;
    cuMemAlloc(&base, n * sizeof(float) + 256);
    cuMemcpyHtoD(base + 256, host, n * sizeof(float));
    unsigned long long raw = base;
    CUdeviceptr again = static_cast<CUdeviceptr>(raw);
    cuMemFree(again);
}
