// gemm_bench: how close does a hand-written tiled SGEMM get to cuBLAS?
//   gemm_bench [-m M] [-n N] [-k K] [-r repeats] [--no-fp16]
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_fp16.h>

#include "cuda_helpers.h"

__global__ void floatToHalf(const float *in, __half *out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = __float2half(in[i]);
}

static double tflops(int m, int n, int k, float ms) { return 2.0 * m * n * k / (ms * 1e-3) / 1e12; }

int main(int argc, char **argv) {
  int m = 2048, n = 2048, k = 2048, reps = 10;
  bool fp16 = true;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-m") && i + 1 < argc) m = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-k") && i + 1 < argc) k = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-fp16")) fp16 = false;
    else {
      fprintf(stderr, "usage: %s [-m M] [-n N] [-k K] [-r repeats] [--no-fp16]\n", argv[0]);
      return 2;
    }
  }
  try {
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    char name[128];
    CHECK(cuDeviceGetName(name, sizeof(name), dev));
    printf("%s: M=%d N=%d K=%d\n", name, m, n, k);

    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> hA(size_t(m) * k), hB(size_t(k) * n);
    for (auto &v : hA) v = u(rng);
    for (auto &v : hB) v = u(rng);
    float *A, *B, *C, *Cref;
    double *dA, *dB, *dC;
    CHECK(cudaMalloc(&A, hA.size() * sizeof(float)));
    CHECK(cudaMalloc(&B, hB.size() * sizeof(float)));
    CHECK(cudaMalloc(&C, size_t(m) * n * sizeof(float)));
    CHECK(cudaMalloc(&Cref, size_t(m) * n * sizeof(float)));
    CHECK(cudaMalloc(&dA, hA.size() * sizeof(double)));
    CHECK(cudaMalloc(&dB, hB.size() * sizeof(double)));
    CHECK(cudaMalloc(&dC, size_t(m) * n * sizeof(double)));
    CHECK(cudaMemcpy(A, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));

    cublasHandle_t handle;
    CHECK(cublasCreate(&handle));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cublasSetStream(handle, stream));
    const float alpha = 1.f, beta = 0.f;
    const double alphaD = 1.0, betaD = 0.0;
    GpuTimer timer(stream);

    CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    timer.begin();
    for (int r = 0; r < reps; ++r) CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, Cref, m));
    float msS = timer.end() / reps;

    CHECK(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
    timer.begin();
    for (int r = 0; r < reps; ++r)
      CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_32F, m, B, CUDA_R_32F, k, &beta,
                         C, CUDA_R_32F, m, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    float msTf32 = timer.end() / reps;

    float msHalf = 0.f;
    if (fp16) {
      __half *hAh, *hBh;
      CHECK(cudaMalloc(&hAh, hA.size() * sizeof(__half)));
      CHECK(cudaMalloc(&hBh, hB.size() * sizeof(__half)));
      floatToHalf<<<(hA.size() + 255) / 256, 256, 0, stream>>>(A, hAh, hA.size());
      floatToHalf<<<(hB.size() + 255) / 256, 256, 0, stream>>>(B, hBh, hB.size());
      timer.begin();
      for (int r = 0; r < reps; ++r)
        CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, hAh, CUDA_R_16F, m, hBh, CUDA_R_16F, k,
                           &beta, C, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      msHalf = timer.end() / reps;
      CHECK(cudaFree(hAh));
      CHECK(cudaFree(hBh));
    }

    timer.begin();
    for (int r = 0; r < reps; ++r) CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alphaD, dA, m, dB, k, &betaD, dC, m));
    float msD = timer.end() / reps;

    timer.begin();
    for (int r = 0; r < reps; ++r) tiledSgemm(m, n, k, alpha, A, B, beta, C, stream);
    float msTiled = timer.end() / reps;

    std::vector<float> got(size_t(m) * n), ref(size_t(m) * n);
    CHECK(cudaMemcpy(got.data(), C, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ref.data(), Cref, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double maxDiff = 0;
    for (size_t i = 0; i < got.size(); ++i) maxDiff = std::max(maxDiff, double(std::fabs(got[i] - ref[i])));

    printf("  cublasSgemm      %8.3f ms  %6.2f TFLOP/s\n", msS, tflops(m, n, k, msS));
    printf("  GemmEx TF32      %8.3f ms  %6.2f TFLOP/s\n", msTf32, tflops(m, n, k, msTf32));
    if (fp16) printf("  GemmEx FP16->32  %8.3f ms  %6.2f TFLOP/s\n", msHalf, tflops(m, n, k, msHalf));
    printf("  cublasDgemm      %8.3f ms  %6.2f TFLOP/s\n", msD, tflops(m, n, k, msD));
    printf("  tiled kernel     %8.3f ms  %6.2f TFLOP/s  (max |diff| vs cuBLAS %.2e)\n", msTiled,
           tflops(m, n, k, msTiled), maxDiff);

    CHECK(cublasDestroy(handle));
    CHECK(cudaStreamDestroy(stream));
    for (void *p : {(void *)A, (void *)B, (void *)C, (void *)Cref, (void *)dA, (void *)dB, (void *)dC}) CHECK(cudaFree(p));
    return maxDiff < 1e-2 * k ? 0 : 1;
  } catch (const std::exception &e) {
    fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
