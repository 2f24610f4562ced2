// Builds a byte stream, histograms it on the GPU and checks the bins against a CPU count.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "histogram.cuh"

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

int main() {
    const size_t n = 10000000;
    std::vector<uint8_t> data(n);
    uint32_t state = 2463534242u;  // xorshift32 with a fixed seed
    for (size_t i = 0; i < n; ++i) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        // Sum of two bytes folded back: a triangular-ish distribution, so bins differ visibly.
        data[i] = static_cast<uint8_t>(((state & 0xff) + ((state >> 8) & 0xff)) / 2);
    }

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    uint8_t* d_data;
    unsigned int* d_hist;
    CHECK(cudaMalloc(&d_data, n));
    CHECK(cudaMalloc(&d_hist, kBins * sizeof(unsigned int)));
    CHECK(cudaMemcpyAsync(d_data, data.data(), n, cudaMemcpyHostToDevice, stream));
    CHECK(histogram_async(d_data, n, d_hist, stream));
    unsigned int gpu[kBins];
    CHECK(cudaMemcpyAsync(gpu, d_hist, sizeof(gpu), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));

    unsigned int cpu[kBins] = {};
    for (uint8_t v : data) ++cpu[v / 4];
    int mismatches = 0;
    unsigned long long total = 0;
    int peak = 0;
    for (int b = 0; b < kBins; ++b) {
        mismatches += gpu[b] != cpu[b];
        total += gpu[b];
        if (gpu[b] > gpu[peak]) peak = b;
    }
    printf("bytes = %zu, bins = %d\n", n, kBins);
    printf("bins[0..7] =");
    for (int b = 0; b < 8; ++b) printf(" %u", gpu[b]);
    printf("\n");
    printf("peak bin = %d (%u), total = %llu\n", peak, gpu[peak], total);
    printf("mismatches = %d\n", mismatches);
    bool ok = mismatches == 0 && total == n;
    printf("%s\n", ok ? "PASS" : "FAIL");

    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_hist));
    CHECK(cudaStreamDestroy(stream));
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
