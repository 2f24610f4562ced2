// porter shim: cuBLAS 10's cudaDataType compute type for cublasGemmEx, cublasGemmBatchedEx and
// cublasGemmStridedBatchedEx, which CUDA 11 and later still accept from C++ (cublas_api.h's wrappers over
// cublasMigrateComputeType) and hipBLAS does not (its computeType is a hipblasComputeType_t).
// The overloads below take a hipDataType compute type and migrate it as cuBLAS does: R/C 32F -> 32F, R/C 64F -> 64F,
// R 16F -> 16F, R 32I -> 32I, the _PEDANTIC forms when the handle's math mode is pedantic; any other type is
// HIPBLAS_STATUS_NOT_SUPPORTED, as cuBLAS returns. How this differs from CUDA: nothing beyond hipBLAS itself.
#ifndef PORTER_HIPBLAS_COMPUTE_TYPE_H
#define PORTER_HIPBLAS_COMPUTE_TYPE_H
#if __has_include(<hipblas/hipblas.h>)  // (where hipBLAS is missing the project's own include says so)
#include <hipblas/hipblas.h>
#endif

#if defined(__cplusplus) && defined(HIPBLAS_H) && (defined(HIPBLAS_V2) || (defined(hipblasVersionMajor) && hipblasVersionMajor >= 3))
static inline hipblasStatus_t porter_hipblas_migrate_compute_type(hipblasHandle_t handle, hipDataType type,
                                                                  hipblasComputeType_t* compute) {
    hipblasMath_t mode = HIPBLAS_DEFAULT_MATH;
    const hipblasStatus_t status = hipblasGetMathMode(handle, &mode);
    if (status != HIPBLAS_STATUS_SUCCESS) return status;
    const bool pedantic = mode == HIPBLAS_PEDANTIC_MATH;
    switch (type) {
        case HIP_R_32F:
        case HIP_C_32F: *compute = pedantic ? HIPBLAS_COMPUTE_32F_PEDANTIC : HIPBLAS_COMPUTE_32F; return HIPBLAS_STATUS_SUCCESS;
        case HIP_R_64F:
        case HIP_C_64F: *compute = pedantic ? HIPBLAS_COMPUTE_64F_PEDANTIC : HIPBLAS_COMPUTE_64F; return HIPBLAS_STATUS_SUCCESS;
        case HIP_R_16F: *compute = pedantic ? HIPBLAS_COMPUTE_16F_PEDANTIC : HIPBLAS_COMPUTE_16F; return HIPBLAS_STATUS_SUCCESS;
        case HIP_R_32I: *compute = pedantic ? HIPBLAS_COMPUTE_32I_PEDANTIC : HIPBLAS_COMPUTE_32I; return HIPBLAS_STATUS_SUCCESS;
        default: return HIPBLAS_STATUS_NOT_SUPPORTED;
    }
}

static inline hipblasStatus_t hipblasGemmEx(hipblasHandle_t handle, hipblasOperation_t transa, hipblasOperation_t transb,
                                            int m, int n, int k, const void* alpha, const void* A, hipDataType a_type,
                                            int lda, const void* B, hipDataType b_type, int ldb, const void* beta,
                                            void* C, hipDataType c_type, int ldc, hipDataType compute_type,
                                            hipblasGemmAlgo_t algo) {
    hipblasComputeType_t compute = HIPBLAS_COMPUTE_32F;
    const hipblasStatus_t status = porter_hipblas_migrate_compute_type(handle, compute_type, &compute);
    if (status != HIPBLAS_STATUS_SUCCESS) return status;
    return hipblasGemmEx(handle, transa, transb, m, n, k, alpha, A, a_type, lda, B, b_type, ldb, beta, C, c_type, ldc,
                         compute, algo);
}

static inline hipblasStatus_t hipblasGemmBatchedEx(hipblasHandle_t handle, hipblasOperation_t transa,
                                                   hipblasOperation_t transb, int m, int n, int k, const void* alpha,
                                                   const void* A[], hipDataType a_type, int lda, const void* B[],
                                                   hipDataType b_type, int ldb, const void* beta, void* C[],
                                                   hipDataType c_type, int ldc, int batch_count,
                                                   hipDataType compute_type, hipblasGemmAlgo_t algo) {
    hipblasComputeType_t compute = HIPBLAS_COMPUTE_32F;
    const hipblasStatus_t status = porter_hipblas_migrate_compute_type(handle, compute_type, &compute);
    if (status != HIPBLAS_STATUS_SUCCESS) return status;
    return hipblasGemmBatchedEx(handle, transa, transb, m, n, k, alpha, A, a_type, lda, B, b_type, ldb, beta, C, c_type,
                                ldc, batch_count, compute, algo);
}

static inline hipblasStatus_t hipblasGemmStridedBatchedEx(hipblasHandle_t handle, hipblasOperation_t transa,
                                                          hipblasOperation_t transb, int m, int n, int k,
                                                          const void* alpha, const void* A, hipDataType a_type, int lda,
                                                          long long stride_a, const void* B, hipDataType b_type, int ldb,
                                                          long long stride_b, const void* beta, void* C,
                                                          hipDataType c_type, int ldc, long long stride_c,
                                                          int batch_count, hipDataType compute_type,
                                                          hipblasGemmAlgo_t algo) {
    hipblasComputeType_t compute = HIPBLAS_COMPUTE_32F;
    const hipblasStatus_t status = porter_hipblas_migrate_compute_type(handle, compute_type, &compute);
    if (status != HIPBLAS_STATUS_SUCCESS) return status;
    return hipblasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, a_type, lda, stride_a, B, b_type, ldb,
                                       stride_b, beta, C, c_type, ldc, stride_c, batch_count, compute, algo);
}
#endif

#endif  // PORTER_HIPBLAS_COMPUTE_TYPE_H
