// Host program: plain C++ compiled by the host compiler, talking to the GPU through the runtime API
// and the vector_ops library.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "vector_ops.cuh"

int main() {
    const size_t n = 1 << 20;
    std::vector<float> x(n), y(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = static_cast<float>(i % 64) * 0.125f;
        y[i] = static_cast<float>(i % 7) - 3.0f;
    }

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMemcpyAsync(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));

    const float a = 1.5f;
    saxpy(a, d_x, d_y, n, stream);
    Stats gpu = vector_stats(d_y, n, stream);

    std::vector<float> result(n);
    CHECK(cudaMemcpy(result.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

    // CPU reference. Values are multiples of 1/64 and partial sums stay far below 2^24 * (1/64) per block,
    // so the float block sums are exact and comparable with ==.
    int mismatches = 0;
    Stats cpu{0.0, 1e30f, -1e30f};
    for (size_t i = 0; i < n; ++i) {
        float want = a * x[i] + y[i];
        if (result[i] != want) ++mismatches;
        cpu.sum += want;
        cpu.min = want < cpu.min ? want : cpu.min;
        cpu.max = want > cpu.max ? want : cpu.max;
    }
    bool ok = mismatches == 0 && gpu.sum == cpu.sum && gpu.min == cpu.min && gpu.max == cpu.max;
    printf("saxpy over %zu elements, a = %.3f\n", n, a);
    printf("sum: gpu %.3f cpu %.3f\n", gpu.sum, cpu.sum);
    printf("min: gpu %.3f cpu %.3f\n", gpu.min, cpu.min);
    printf("max: gpu %.3f cpu %.3f\n", gpu.max, cpu.max);
    printf("mismatches = %d\n", mismatches);
    printf("%s\n", ok ? "PASS" : "FAIL");

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaStreamDestroy(stream));
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
