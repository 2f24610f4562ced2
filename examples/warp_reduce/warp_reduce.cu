// Block reduction built from warp shuffles: sum, max and a ballot count over a large array.
#include <cstdio>
#include <cstdlib>
#include <vector>
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

#define WARP_SIZE 32
#define BLOCK_SIZE 256
#define FULL_MASK 0xffffffff

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__device__ int warp_max(int v) {
    for (int offset = 16; offset > 0; offset /= 2) v = max(v, __shfl_xor_sync(FULL_MASK, v, offset));
    return v;
}

__global__ void reduce(const float* in, int n, float* sum_out, int* max_out, unsigned int* big_out) {
    __shared__ float warp_sums[BLOCK_SIZE / WARP_SIZE];
    __shared__ int warp_maxes[BLOCK_SIZE / WARP_SIZE];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int warp = tid / 32;

    float sum = 0.0f;
    int vmax = 0;
    unsigned int big = 0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
        float v = in[i];
        sum += v;
        vmax = max(vmax, static_cast<int>(v));
        // Count elements above 12 one warp at a time: the ballot mask has one bit per lane.
        unsigned int mask = __ballot_sync(FULL_MASK, v > 12.0f);
        if (lane == 0) big += __popc(mask);
    }
    sum = warp_sum(sum);
    vmax = warp_max(vmax);
    if (lane == 0) {
        warp_sums[warp] = sum;
        warp_maxes[warp] = vmax;
        atomicAdd(big_out, big);
    }
    __syncthreads();
    if (warp == 0) {
        sum = lane < BLOCK_SIZE / WARP_SIZE ? warp_sums[lane] : 0.0f;
        vmax = lane < BLOCK_SIZE / WARP_SIZE ? warp_maxes[lane] : 0;
        sum = warp_sum(sum);
        vmax = warp_max(vmax);
        if (lane == 0) {
            atomicAdd(sum_out, sum);
            atomicMax(max_out, vmax);
        }
    }
}

int main() {
    // n is a multiple of the block size so every warp is full in the ballot loop.
    const int n = 1 << 20;
    std::vector<float> h(n);
    unsigned int seed = 12345u;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;  // fixed LCG: same data on every run
        h[i] = static_cast<float>((seed >> 16) % 16);
    }
    h[777777] = 15.0f;

    float* d_in;
    float* d_sum;
    int* d_max;
    unsigned int* d_big;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMalloc(&d_max, sizeof(int)));
    CHECK(cudaMalloc(&d_big, sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    CHECK(cudaMemset(d_max, 0, sizeof(int)));
    CHECK(cudaMemset(d_big, 0, sizeof(unsigned int)));

    const int blocks = 512;
    reduce<<<blocks, BLOCK_SIZE>>>(d_in, n, d_sum, d_max, d_big);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    float g_sum;
    int g_max;
    unsigned int g_big;
    CHECK(cudaMemcpy(&g_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&g_max, d_max, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&g_big, d_big, sizeof(unsigned int), cudaMemcpyDeviceToHost));

    // Values are small integers and the total stays below 2^24, so float sums are exact in any order.
    double c_sum = 0.0;
    int c_max = 0;
    unsigned int c_big = 0;
    for (float v : h) {
        c_sum += v;
        c_max = v > c_max ? static_cast<int>(v) : c_max;
        c_big += v > 12.0f;
    }
    bool ok = static_cast<double>(g_sum) == c_sum && g_max == c_max && g_big == c_big;
    printf("n = %d, blocks = %d, threads = %d\n", n, blocks, BLOCK_SIZE);
    printf("sum: gpu %.1f cpu %.1f\n", g_sum, c_sum);
    printf("max: gpu %d cpu %d\n", g_max, c_max);
    printf("count(v > 12): gpu %u cpu %u\n", g_big, c_big);
    printf("%s\n", ok ? "PASS" : "FAIL");

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_max));
    CHECK(cudaFree(d_big));
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
