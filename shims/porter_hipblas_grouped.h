// porter shim: cuBLAS calls that no hipBLAS up to 6.4 has, done with the ones it has.
// - cublasSgemmGroupedBatched / cublasDgemmGroupedBatched (cuBLAS 12.5): group g's group_size[g] problems share
//   transa/transb/m/n/k/alpha/lda/ldb/beta/ldc and are one hipblas<t>gemmBatched call on the next group_size[g]
//   pointers of Aarray/Barray/Carray (device arrays of device pointers, as in cuBLAS). The parameter arrays and the
//   scalars are host arrays in cuBLAS, so each call runs with the handle's pointer mode set to host and restored
//   after. How this differs from CUDA: one kernel launch per group instead of one for all groups (same results;
//   slower where groups are many and small). Groups of size 0 are skipped; a negative size or count is
//   HIPBLAS_STATUS_INVALID_VALUE.
// - cublasGetCudartVersion: the CUDA runtime version cuBLAS was built with. There is none on ROCm; it answers
//   12000, the value porter gives CUDART_VERSION (porter_cuda_guards.h), so a run-time comparison with a CUDA
//   version takes the branch the compile-time ones take. porter reports each use.
#ifndef PORTER_HIPBLAS_GROUPED_H
#define PORTER_HIPBLAS_GROUPED_H
#if __has_include(<hipblas/hipblas.h>)  // (where hipBLAS is missing the project's own include says so)
#include <hipblas/hipblas.h>
#endif
#include <stddef.h>

#if defined(HIPBLAS_H)
static inline size_t porter_cublas_get_cudart_version(void) { return 12000; }

#define PORTER_GEMM_GROUPED_BATCHED(NAME, T, BATCHED)                                                                 \
    static inline hipblasStatus_t NAME(hipblasHandle_t handle, const hipblasOperation_t transa_array[],             \
                                       const hipblasOperation_t transb_array[], const int m_array[],                \
                                       const int n_array[], const int k_array[], const T alpha_array[],             \
                                       const T* const Aarray[], const int lda_array[], const T* const Barray[],     \
                                       const int ldb_array[], const T beta_array[], T* const Carray[],              \
                                       const int ldc_array[], int group_count, const int group_size[]) {            \
        if (group_count < 0) return HIPBLAS_STATUS_INVALID_VALUE;                                                     \
        for (int g = 0; g < group_count; ++g)                                                                         \
            if (group_size[g] < 0) return HIPBLAS_STATUS_INVALID_VALUE;                                               \
        hipblasPointerMode_t mode = HIPBLAS_POINTER_MODE_HOST;                                                        \
        hipblasStatus_t status = hipblasGetPointerMode(handle, &mode);                                                \
        if (status != HIPBLAS_STATUS_SUCCESS) return status;                                                          \
        if (mode != HIPBLAS_POINTER_MODE_HOST) {                                                                      \
            status = hipblasSetPointerMode(handle, HIPBLAS_POINTER_MODE_HOST);                                        \
            if (status != HIPBLAS_STATUS_SUCCESS) return status;                                                      \
        }                                                                                                             \
        long long first = 0;                                                                                          \
        for (int g = 0; g < group_count && status == HIPBLAS_STATUS_SUCCESS; ++g) {                                   \
            if (group_size[g] == 0) continue;                                                                         \
            status = BATCHED(handle, transa_array[g], transb_array[g], m_array[g], n_array[g], k_array[g],            \
                             &alpha_array[g], Aarray + first, lda_array[g], Barray + first, ldb_array[g],             \
                             &beta_array[g], Carray + first, ldc_array[g], group_size[g]);                            \
            first += group_size[g];                                                                                   \
        }                                                                                                             \
        if (mode != HIPBLAS_POINTER_MODE_HOST) {                                                                      \
            const hipblasStatus_t restored = hipblasSetPointerMode(handle, mode);                                     \
            if (status == HIPBLAS_STATUS_SUCCESS) status = restored;                                                  \
        }                                                                                                             \
        return status;                                                                                                \
    }

PORTER_GEMM_GROUPED_BATCHED(porter_sgemm_grouped_batched, float, hipblasSgemmBatched)
PORTER_GEMM_GROUPED_BATCHED(porter_dgemm_grouped_batched, double, hipblasDgemmBatched)
#undef PORTER_GEMM_GROUPED_BATCHED
#endif  // HIPBLAS_H

#endif  // PORTER_HIPBLAS_GROUPED_H
