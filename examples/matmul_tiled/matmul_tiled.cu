// Tiled shared-memory matrix multiply C = A * B with 32x32 tiles (row-major, sizes not multiples of the tile).
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

#define TILE 32  // tile edge: a data-layout choice, independent of the hardware warp width

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];  // +1 column avoids shared-memory bank conflicts

    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;

    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int a_col = t * TILE + threadIdx.x;
        int b_row = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

static void matmul_cpu(const std::vector<float>& A, const std::vector<float>& B, std::vector<float>& C,
                       int M, int N, int K) {
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double acc = 0.0;
            for (int k = 0; k < K; ++k) acc += static_cast<double>(A[i * K + k]) * B[k * N + j];
            C[i * N + j] = static_cast<float>(acc);
        }
}

int main() {
    const int M = 300, N = 250, K = 270;
    // Entries are multiples of 1/8 in [-1, 1]: every product and partial sum is exact in float,
    // so the GPU result must match the CPU reference bit for bit whatever the summation order.
    std::vector<float> hA(M * K), hB(K * N), hC(M * N), ref(M * N);
    for (int i = 0; i < M * K; ++i) hA[i] = static_cast<float>((i * 7 + 3) % 17 - 8) / 8.0f;
    for (int i = 0; i < K * N; ++i) hB[i] = static_cast<float>((i * 5 + 1) % 17 - 8) / 8.0f;

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0, hC.size() * sizeof(float)));

    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));

    matmul_cpu(hA, hB, ref, M, N, K);
    int mismatches = 0;
    double checksum = 0.0;
    for (int i = 0; i < M * N; ++i) {
        if (hC[i] != ref[i]) ++mismatches;
        checksum += hC[i];
    }
    printf("C is %d x %d (K = %d), grid %u x %u of %u x %u threads\n", M, N, K, grid.x, grid.y, block.x, block.y);
    printf("C[0][0] = %.4f, C[17][42] = %.4f, C[M-1][N-1] = %.4f\n", hC[0], hC[17 * N + 42], hC[M * N - 1]);
    printf("checksum = %.4f\n", checksum);
    printf("mismatches = %d\n", mismatches);
    printf("%s\n", mismatches == 0 ? "PASS" : "FAIL");

    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    return mismatches == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
