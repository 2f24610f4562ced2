// CUB: device-wide reduce, exclusive scan and radix sort, plus a block-level reduction inside a kernel.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

constexpr int BLOCK = 256;

// per-block sums with cub::BlockReduce (the temp storage lives in shared memory)
__global__ void block_sums(const int* in, int n, int* out) {
    using BlockReduce = cub::BlockReduce<int, BLOCK>;
    __shared__ typename BlockReduce::TempStorage temp;
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int sum = BlockReduce(temp).Sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

int main() {
    const int n = 1 << 20;
    std::vector<int> h(n);
    unsigned state = 12345u;
    for (int i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        h[i] = static_cast<int>(state >> 24) - 128;  // -128..127
    }
    long long ref_sum = 0;
    for (int v : h) ref_sum += v;

    int *d_in, *d_scan, *d_sum, *d_sorted, *d_blocks;
    const int blocks = (n + BLOCK - 1) / BLOCK;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_scan, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sorted, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sum, sizeof(int)));
    CHECK(cudaMalloc(&d_blocks, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // the two-call idiom: ask for the temp size, allocate, run
    void* temp = nullptr;
    size_t temp_bytes = 0, need = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, need, d_in, d_sum, n));
    temp_bytes = need;
    CHECK(cub::DeviceScan::ExclusiveSum(nullptr, need, d_in, d_scan, n));
    temp_bytes = need > temp_bytes ? need : temp_bytes;
    CHECK(cub::DeviceRadixSort::SortKeys(nullptr, need, d_in, d_sorted, n));
    temp_bytes = need > temp_bytes ? need : temp_bytes;
    CHECK(cudaMalloc(&temp, temp_bytes));
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_sum, n));
    CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, d_in, d_scan, n));
    CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_in, d_sorted, n));
    block_sums<<<blocks, BLOCK>>>(d_in, n, d_blocks);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    int sum = 0;
    std::vector<int> scan(n), sorted(n), bsums(blocks);
    CHECK(cudaMemcpy(&sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(scan.data(), d_scan, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sorted.data(), d_sorted, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(bsums.data(), d_blocks, blocks * sizeof(int), cudaMemcpyDeviceToHost));

    bool ok = sum == ref_sum;
    printf("sum: %d (expected %lld)\n", sum, ref_sum);
    long long running = 0;
    int scan_bad = 0;
    for (int i = 0; i < n; ++i) {
        if (scan[i] != running) ++scan_bad;
        running += h[i];
    }
    printf("exclusive scan mismatches: %d\n", scan_bad);
    int unsorted = 0;
    for (int i = 1; i < n; ++i) unsorted += sorted[i - 1] > sorted[i];
    printf("sorted out of order: %d; min %d max %d\n", unsorted, sorted[0], sorted[n - 1]);
    long long block_total = 0;
    for (int b : bsums) block_total += b;
    printf("block sums: %d blocks, total %lld\n", blocks, block_total);
    ok = ok && scan_bad == 0 && unsorted == 0 && block_total == ref_sum;

    CHECK(cudaFree(temp));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_scan));
    CHECK(cudaFree(d_sorted));
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_blocks));
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
