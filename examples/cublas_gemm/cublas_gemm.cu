// cuBLAS: C = alpha * A * B + beta * C with SGEMM (column-major), then y = 2 * C + y with SAXPY.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

#define CHECK_CUBLAS(call)                                                            \
    do {                                                                              \
        cublasStatus_t st_ = (call);                                                  \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                           \
            fprintf(stderr, "cuBLAS error %d at %s:%d\n", static_cast<int>(st_),      \
                    __FILE__, __LINE__);                                              \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

#define IDX2C(i, j, ld) ((j) * (ld) + (i))

int main() {
    const int M = 128, N = 96, K = 64;
    const float alpha = 1.0f, beta = 0.5f, axpy_alpha = 2.0f;
    // Multiples of 1/4 in [-2, 2]: products and sums are exact, in FP32 and in TF32 alike.
    std::vector<float> A(M * K), B(K * N), C(M * N), Y(M * N);
    for (int j = 0; j < K; ++j)
        for (int i = 0; i < M; ++i) A[IDX2C(i, j, M)] = static_cast<float>((i + 2 * j) % 17 - 8) / 4.0f;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < K; ++i) B[IDX2C(i, j, K)] = static_cast<float>((3 * i + j) % 13 - 6) / 4.0f;
    for (int i = 0; i < M * N; ++i) {
        C[i] = static_cast<float>(i % 5);
        Y[i] = static_cast<float>(i % 3) - 1.0f;
    }

    float *dA, *dB, *dC, *dY;
    CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CHECK(cudaMalloc(&dY, Y.size() * sizeof(float)));

    cublasHandle_t handle;
    cudaStream_t stream;
    CHECK_CUBLAS(cublasCreate(&handle));
    CHECK(cudaStreamCreate(&stream));
    CHECK_CUBLAS(cublasSetStream(handle, stream));
    CHECK_CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));

    CHECK_CUBLAS(cublasSetMatrix(M, K, sizeof(float), A.data(), M, dA, M));
    CHECK_CUBLAS(cublasSetMatrix(K, N, sizeof(float), B.data(), K, dB, K));
    CHECK_CUBLAS(cublasSetMatrix(M, N, sizeof(float), C.data(), M, dC, M));
    CHECK_CUBLAS(cublasSetVector(M * N, sizeof(float), Y.data(), 1, dY, 1));

    CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, dA, M, dB, K, &beta, dC, M));
    CHECK_CUBLAS(cublasSaxpy(handle, M * N, &axpy_alpha, dC, 1, dY, 1));
    CHECK(cudaStreamSynchronize(stream));

    std::vector<float> gC(M * N), gY(M * N);
    CHECK_CUBLAS(cublasGetMatrix(M, N, sizeof(float), dC, M, gC.data(), M));
    CHECK_CUBLAS(cublasGetVector(M * N, sizeof(float), dY, 1, gY.data(), 1));

    // CPU reference in the same column-major layout.
    int mismatches = 0;
    double checksum = 0.0;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < M; ++i) {
            double acc = 0.0;
            for (int k = 0; k < K; ++k) acc += static_cast<double>(A[IDX2C(i, k, M)]) * B[IDX2C(k, j, K)];
            float c = static_cast<float>(alpha * acc + beta * C[IDX2C(i, j, M)]);
            float y = axpy_alpha * c + Y[IDX2C(i, j, M)];
            if (gC[IDX2C(i, j, M)] != c || gY[IDX2C(i, j, M)] != y) ++mismatches;
            checksum += gY[IDX2C(i, j, M)];
        }

    printf("SGEMM %d x %d x %d, alpha = %.2f, beta = %.2f; SAXPY alpha = %.2f\n", M, N, K, alpha, beta, axpy_alpha);
    printf("C(0,0) = %.4f, C(5,7) = %.4f, C(M-1,N-1) = %.4f\n", gC[IDX2C(0, 0, M)], gC[IDX2C(5, 7, M)],
           gC[IDX2C(M - 1, N - 1, M)]);
    printf("Y(0,0) = %.4f, Y(M-1,N-1) = %.4f\n", gY[IDX2C(0, 0, M)], gY[IDX2C(M - 1, N - 1, M)]);
    printf("checksum(Y) = %.4f\n", checksum);
    printf("mismatches = %d\n", mismatches);
    printf("%s\n", mismatches == 0 ? "PASS" : "FAIL");

    CHECK_CUBLAS(cublasDestroy(handle));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(dY));
    return mismatches == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
