// Monte Carlo estimate of pi twice: host-API generator (curandGenerateUniform) and device API (curand_init).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

#define CHECK_CURAND(call)                                                            \
    do {                                                                              \
        curandStatus_t st_ = (call);                                                  \
        if (st_ != CURAND_STATUS_SUCCESS) {                                           \
            fprintf(stderr, "cuRAND error %d at %s:%d\n", static_cast<int>(st_),      \
                    __FILE__, __LINE__);                                              \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

constexpr unsigned long long kSeed = 20240607ULL;

// Counts points of (xs[i], ys[i]) inside the unit quarter circle.
__global__ void count_inside(const float* xs, const float* ys, int n, unsigned long long* hits) {
    unsigned long long local = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        // Explicit rounding stops the compiler fusing into an FMA, so the CPU reference sees the same sums.
        local += (__fadd_rn(__fmul_rn(xs[i], xs[i]), __fmul_rn(ys[i], ys[i])) <= 1.0f);
    atomicAdd(hits, local);
}

// Each thread owns one generator state (same seed, its own subsequence) and draws `per_thread` points.
__global__ void sample_device(unsigned long long seed, int per_thread, unsigned long long* hits) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    curandState state;
    curand_init(seed, tid, 0, &state);
    unsigned long long local = 0;
    for (int i = 0; i < per_thread; ++i) {
        float x = curand_uniform(&state);
        float y = curand_uniform(&state);
        local += (x * x + y * y <= 1.0f);
    }
    atomicAdd(hits, local);
}

int main() {
    const int n = 1 << 22;
    float *d_x, *d_y;
    unsigned long long* d_hits;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMalloc(&d_hits, sizeof(unsigned long long)));

    // Host API: the generator fills device buffers.
    curandGenerator_t gen;
    CHECK_CURAND(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CHECK_CURAND(curandSetPseudoRandomGeneratorSeed(gen, kSeed));
    CHECK_CURAND(curandGenerateUniform(gen, d_x, n));
    CHECK_CURAND(curandGenerateUniform(gen, d_y, n));
    CHECK(cudaMemset(d_hits, 0, sizeof(unsigned long long)));
    count_inside<<<256, 256>>>(d_x, d_y, n, d_hits);
    CHECK(cudaGetLastError());
    unsigned long long host_api_hits = 0;
    CHECK(cudaMemcpy(&host_api_hits, d_hits, sizeof(host_api_hits), cudaMemcpyDeviceToHost));

    // CPU reference: count the very same numbers on the host.
    std::vector<float> hx(n), hy(n);
    CHECK(cudaMemcpy(hx.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hy.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    unsigned long long cpu_hits = 0;
    bool in_range = true;
    for (int i = 0; i < n; ++i) {
        cpu_hits += (hx[i] * hx[i] + hy[i] * hy[i] <= 1.0f);
        in_range = in_range && hx[i] > 0.0f && hx[i] <= 1.0f && hy[i] > 0.0f && hy[i] <= 1.0f;
    }

    // Device API.
    const int blocks = 128, threads = 128, per_thread = 256;
    CHECK(cudaMemset(d_hits, 0, sizeof(unsigned long long)));
    sample_device<<<blocks, threads>>>(kSeed, per_thread, d_hits);
    CHECK(cudaGetLastError());
    unsigned long long device_api_hits = 0;
    CHECK(cudaMemcpy(&device_api_hits, d_hits, sizeof(device_api_hits), cudaMemcpyDeviceToHost));
    const double device_n = static_cast<double>(blocks) * threads * per_thread;

    double pi_host = 4.0 * host_api_hits / n;
    double pi_device = 4.0 * device_api_hits / device_n;
    // Generators differ between vendors: only the rounded estimates are stable, not the exact counts.
    bool ok = host_api_hits == cpu_hits && in_range && fabs(pi_host - M_PI) < 0.01 && fabs(pi_device - M_PI) < 0.01;
    printf("host API:   %d samples, pi ~ %.2f\n", n, pi_host);
    printf("device API: %.0f samples, pi ~ %.2f\n", device_n, pi_device);
    printf("gpu count matches cpu count: %s\n", host_api_hits == cpu_hits ? "yes" : "no");
    printf("uniforms in (0, 1]: %s\n", in_range ? "yes" : "no");
    printf("%s\n", ok ? "PASS" : "FAIL");

    CHECK_CURAND(curandDestroyGenerator(gen));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_hits));
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
