// Overlap host<->device copies and compute with several streams, pinned host memory and events.
#include <cstdio>
#include <cstdlib>
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

constexpr int kStreams = 4;
constexpr int kN = 1 << 22;
constexpr int kChunk = kN / kStreams;

// y = a * x + b, evaluated a few times so the kernel is not pure bandwidth.
__global__ void affine(const float* __restrict__ x, float* __restrict__ y, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        float v = x[i];
        for (int r = 0; r < 4; ++r) v = a * v + b;
        y[i] = v;
    }
}

static float reference(float v, float a, float b) {
    for (int r = 0; r < 4; ++r) v = a * v + b;
    return v;
}

int main() {
    int devices = 0;
    CHECK(cudaGetDeviceCount(&devices));
    if (devices == 0) {
        fprintf(stderr, "no CUDA device\n");
        return EXIT_FAILURE;
    }
    CHECK(cudaSetDevice(0));

    float *h_x = nullptr, *h_y = nullptr;
    CHECK(cudaMallocHost(&h_x, kN * sizeof(float)));
    CHECK(cudaHostAlloc(&h_y, kN * sizeof(float), cudaHostAllocDefault));
    for (int i = 0; i < kN; ++i) h_x[i] = static_cast<float>(i % 1000) * 0.25f;

    float *d_x = nullptr, *d_y = nullptr;
    CHECK(cudaMalloc(&d_x, kN * sizeof(float)));
    CHECK(cudaMalloc(&d_y, kN * sizeof(float)));

    cudaStream_t streams[kStreams];
    for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    const float a = 0.5f, b = 2.0f;
    const int threads = 256;
    const int blocks = (kChunk + threads - 1) / threads;

    CHECK(cudaEventRecord(start, 0));
    for (int s = 0; s < kStreams; ++s) {
        size_t off = static_cast<size_t>(s) * kChunk;
        CHECK(cudaMemcpyAsync(d_x + off, h_x + off, kChunk * sizeof(float), cudaMemcpyHostToDevice, streams[s]));
        affine<<<blocks, threads, 0, streams[s]>>>(d_x + off, d_y + off, a, b, kChunk);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_y + off, d_y + off, kChunk * sizeof(float), cudaMemcpyDeviceToHost, streams[s]));
    }
    // The legacy default stream waits for the non-blocking streams only through explicit syncs.
    for (auto& s : streams) CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    int mismatches = 0;
    double checksum = 0.0;
    for (int i = 0; i < kN; ++i) {
        float want = reference(h_x[i], a, b);
        if (h_y[i] != want) ++mismatches;
        checksum += h_y[i];
    }
    printf("streams: %d, elements: %d, chunk: %d\n", kStreams, kN, kChunk);
    printf("y[0] = %.4f, y[12345] = %.4f, y[n-1] = %.4f\n", h_y[0], h_y[12345], h_y[kN - 1]);
    printf("checksum = %.1f\n", checksum);
    printf("elapsed time measured: %s\n", ms > 0.0f ? "yes" : "no");
    printf("mismatches = %d\n", mismatches);
    printf("%s\n", mismatches == 0 ? "PASS" : "FAIL");

    for (auto& s : streams) CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFreeHost(h_x));
    CHECK(cudaFreeHost(h_y));
    return mismatches == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
