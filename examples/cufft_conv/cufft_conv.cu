// Circular convolution of two real signals through cuFFT: R2C, pointwise complex product, C2R, scale by 1/N.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cufft.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

#define CHECK_CUFFT(call)                                                             \
    do {                                                                              \
        cufftResult r_ = (call);                                                      \
        if (r_ != CUFFT_SUCCESS) {                                                    \
            fprintf(stderr, "cuFFT error %d at %s:%d\n", static_cast<int>(r_),        \
                    __FILE__, __LINE__);                                              \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

// a[i] *= b[i] / n for the n/2+1 non-redundant frequency bins.
__global__ void multiply_scale(cufftComplex* a, const cufftComplex* b, int bins, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < bins) {
        cufftComplex p = cuCmulf(a[i], b[i]);
        a[i] = make_cuFloatComplex(p.x * scale, p.y * scale);
    }
}

int main() {
    const int n = 512;
    const int bins = n / 2 + 1;
    // Integer signals: the exact circular convolution is integer, the FFT result is within ~1e-3 of it.
    std::vector<float> signal(n), kernel(n, 0.0f);
    for (int i = 0; i < n; ++i) signal[i] = static_cast<float>((i * 37) % 11 - 5);
    const float taps[] = {1.0f, 2.0f, 3.0f, 2.0f, 1.0f};
    for (int k = 0; k < 5; ++k) kernel[k] = taps[k];

    float *d_signal, *d_kernel;
    cufftComplex *d_sig_f, *d_ker_f;
    CHECK(cudaMalloc(&d_signal, n * sizeof(float)));
    CHECK(cudaMalloc(&d_kernel, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sig_f, bins * sizeof(cufftComplex)));
    CHECK(cudaMalloc(&d_ker_f, bins * sizeof(cufftComplex)));
    CHECK(cudaMemcpy(d_signal, signal.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_kernel, kernel.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cufftHandle fwd, inv;
    CHECK_CUFFT(cufftPlan1d(&fwd, n, CUFFT_R2C, 1));
    CHECK_CUFFT(cufftPlan1d(&inv, n, CUFFT_C2R, 1));
    CHECK_CUFFT(cufftExecR2C(fwd, d_signal, d_sig_f));
    CHECK_CUFFT(cufftExecR2C(fwd, d_kernel, d_ker_f));
    multiply_scale<<<(bins + 127) / 128, 128>>>(d_sig_f, d_ker_f, bins, 1.0f / n);
    CHECK(cudaGetLastError());
    CHECK_CUFFT(cufftExecC2R(inv, d_sig_f, d_signal));
    CHECK(cudaDeviceSynchronize());

    std::vector<float> result(n);
    CHECK(cudaMemcpy(result.data(), d_signal, n * sizeof(float), cudaMemcpyDeviceToHost));

    // CPU reference: direct circular convolution.
    double max_err = 0.0;
    long checksum = 0;
    for (int i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int k = 0; k < n; ++k) acc += signal[k] * kernel[((i - k) % n + n) % n];
        max_err = fmax(max_err, fabs(acc - result[i]));
        checksum += lround(result[i]);
    }
    bool ok = max_err < 1e-2;
    printf("n = %d, frequency bins = %d, kernel taps = 5\n", n, bins);
    printf("out[0..7] =");
    for (int i = 0; i < 8; ++i) printf(" %ld", lround(result[i]));
    printf("\n");
    printf("checksum (rounded) = %ld\n", checksum);
    printf("max abs error below 1e-2: %s\n", ok ? "yes" : "no");
    printf("%s\n", ok ? "PASS" : "FAIL");

    CHECK_CUFFT(cufftDestroy(fwd));
    CHECK_CUFFT(cufftDestroy(inv));
    CHECK(cudaFree(d_signal));
    CHECK(cudaFree(d_kernel));
    CHECK(cudaFree(d_sig_f));
    CHECK(cudaFree(d_ker_f));
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
