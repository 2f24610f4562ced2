#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <curand_kernel.h>
#include <cublas_v2.h>
#include <cub/cub.cuh>
namespace cg = cooperative_groups;

__global__ void reduce(const float* in, float* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    float v = in[block.thread_rank()];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    unsigned mask = __ballot_sync(0xffffffff, v > 0.0f);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v + __popc(mask));
    __half h = __float2half(v);
    out[1] = __half2float(__hadd(h, h));
}

__global__ void rng(curandState* states, float* out, unsigned long long seed) {
    int id = threadIdx.x + blockIdx.x * blockDim.x;
    curand_init(seed, id, 0, &states[id]);
    out[id] = curand_uniform(&states[id]);
}

void gemm(cublasHandle_t handle, const float* A, const float* B, float* C, int n) {
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, A, n, B, n, &beta, C, n);
    if (st != CUBLAS_STATUS_SUCCESS) return;
    size_t temp_bytes = 0;
    cub::DeviceReduce::Sum(nullptr, temp_bytes, A, C, n);
}
