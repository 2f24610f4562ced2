// cuSPARSE generic API: y = alpha * A * x + beta * y with A a banded matrix in CSR form.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cusparse.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

#define CHECK_CUSPARSE(call)                                                          \
    do {                                                                              \
        cusparseStatus_t st_ = (call);                                                \
        if (st_ != CUSPARSE_STATUS_SUCCESS) {                                         \
            fprintf(stderr, "cuSPARSE error %d at %s:%d\n", static_cast<int>(st_),    \
                    __FILE__, __LINE__);                                              \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

int main() {
    // Pentadiagonal n x n matrix: 4 on the diagonal, -1 and 0.5 on the off-diagonals.
    const int n = 2000;
    std::vector<int> row_ptr(n + 1, 0), col_idx;
    std::vector<float> vals;
    const int offsets[] = {-2, -1, 0, 1, 2};
    const float band[] = {0.5f, -1.0f, 4.0f, -1.0f, 0.5f};
    for (int i = 0; i < n; ++i) {
        for (int b = 0; b < 5; ++b) {
            int j = i + offsets[b];
            if (j < 0 || j >= n) continue;
            col_idx.push_back(j);
            vals.push_back(band[b]);
        }
        row_ptr[i + 1] = static_cast<int>(col_idx.size());
    }
    const int nnz = static_cast<int>(vals.size());
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = static_cast<float>(i % 10) * 0.5f;
        y[i] = 1.0f;
    }
    const float alpha = 2.0f, beta = -1.0f;

    int *d_row, *d_col;
    float *d_val, *d_x, *d_y;
    CHECK(cudaMalloc(&d_row, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_col, nnz * sizeof(int)));
    CHECK(cudaMalloc(&d_val, nnz * sizeof(float)));
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMemcpy(d_row, row_ptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, col_idx.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_val, vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cusparseHandle_t handle;
    cusparseSpMatDescr_t matA;
    cusparseDnVecDescr_t vecX, vecY;
    CHECK_CUSPARSE(cusparseCreate(&handle));
    CHECK_CUSPARSE(cusparseCreateCsr(&matA, n, n, nnz, d_row, d_col, d_val, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vecX, n, d_x, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vecY, n, d_y, CUDA_R_32F));

    size_t buffer_size = 0;
    CHECK_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta,
                                           vecY, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &buffer_size));
    void* d_buffer = nullptr;
    CHECK(cudaMalloc(&d_buffer, buffer_size > 0 ? buffer_size : 1));
    CHECK_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta, vecY,
                                CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, d_buffer));
    CHECK(cudaDeviceSynchronize());

    std::vector<float> g_y(n);
    CHECK(cudaMemcpy(g_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

    // CPU reference: every value is a multiple of 1/4, so the results are exact.
    int mismatches = 0;
    double checksum = 0.0;
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) acc += vals[k] * x[col_idx[k]];
        float want = alpha * acc + beta * y[i];
        if (g_y[i] != want) ++mismatches;
        checksum += g_y[i];
    }
    printf("CSR matrix %d x %d, nnz = %d\n", n, n, nnz);
    printf("y[0] = %.4f, y[1] = %.4f, y[999] = %.4f, y[n-1] = %.4f\n", g_y[0], g_y[1], g_y[999], g_y[n - 1]);
    printf("checksum = %.4f\n", checksum);
    printf("mismatches = %d\n", mismatches);
    printf("%s\n", mismatches == 0 ? "PASS" : "FAIL");

    CHECK_CUSPARSE(cusparseDestroySpMat(matA));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vecX));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vecY));
    CHECK_CUSPARSE(cusparseDestroy(handle));
    CHECK(cudaFree(d_buffer));
    CHECK(cudaFree(d_row));
    CHECK(cudaFree(d_col));
    CHECK(cudaFree(d_val));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    return mismatches == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
