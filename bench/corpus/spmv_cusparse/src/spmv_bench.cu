// spmv_bench: y = A x for a 2D Poisson matrix, three ways.
//   spmv_bench [grid_n] [repeats]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "csr.h"

#define CHECK_CUDA(func)                                                               \
  {                                                                                    \
    cudaError_t status = (func);                                                       \
    if (status != cudaSuccess) {                                                       \
      printf("line %d: CUDA call failed: %s (%d)\n", __LINE__,             \
             cudaGetErrorString(status), status);                                      \
      return EXIT_FAILURE;                                                             \
    }                                                                                  \
  }
#define CHECK_CUSPARSE(func)                                                           \
  {                                                                                    \
    cusparseStatus_t status = (func);                                                  \
    if (status != CUSPARSE_STATUS_SUCCESS) {                                           \
      printf("line %d: cuSPARSE call failed: %s (%d)\n", __LINE__,         \
             cusparseGetErrorString(status), status);                                  \
      return EXIT_FAILURE;                                                             \
    }                                                                                  \
  }

template <typename F>
static float timeIt(int reps, F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  cudaEventRecord(a);
  for (int i = 0; i < reps; ++i) f();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms / reps;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  int reps = argc > 2 ? atoi(argv[2]) : 50;
  if (n < 2 || reps < 1) {
    fprintf(stderr, "usage: %s [grid_n>=2] [repeats>=1]\n", argv[0]);
    return 2;
  }
  HostCsr A = poisson2d(n);
  std::vector<float> hx(A.cols);
  for (int i = 0; i < A.cols; ++i) hx[i] = 1.f + (i % 3);

  int *dRowPtr, *dColInd;
  float *dVal, *dX, *dY, *dY2;
  CHECK_CUDA(cudaMalloc(&dRowPtr, (A.rows + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dColInd, A.nnz() * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dVal, A.nnz() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dX, A.cols * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dY, A.rows * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dY2, A.rows * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dRowPtr, A.rowPtr.data(), (A.rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dColInd, A.colInd.data(), A.nnz() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dVal, A.val.data(), A.nnz() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dX, hx.data(), A.cols * sizeof(float), cudaMemcpyHostToDevice));

  cusparseHandle_t handle;
  cusparseSpMatDescr_t matA;
  cusparseDnVecDescr_t vecX, vecY;
  CHECK_CUSPARSE(cusparseCreate(&handle));
  CHECK_CUSPARSE(cusparseCreateCsr(&matA, A.rows, A.cols, A.nnz(), dRowPtr, dColInd, dVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK_CUSPARSE(cusparseCreateDnVec(&vecX, A.cols, dX, CUDA_R_32F));
  CHECK_CUSPARSE(cusparseCreateDnVec(&vecY, A.rows, dY, CUDA_R_32F));
  float alpha = 1.f, beta = 0.f;
  size_t bufferSize = 0;
  CHECK_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta, vecY,
                                         CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &bufferSize));
  void *buffer = nullptr;
  CHECK_CUDA(cudaMalloc(&buffer, bufferSize));

  float tLib = timeIt(reps, [&] {
    cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta, vecY, CUDA_R_32F,
                 CUSPARSE_SPMV_CSR_ALG1, buffer);
  });
  std::vector<float> yLib(A.rows), yOwn(A.rows);
  CHECK_CUDA(cudaMemcpy(yLib.data(), dY, A.rows * sizeof(float), cudaMemcpyDeviceToHost));
  float tScalar = timeIt(reps, [&] { spmvScalar(A.rows, dRowPtr, dColInd, dVal, dX, dY2); });
  float tVector = timeIt(reps, [&] { spmvVector(A.rows, dRowPtr, dColInd, dVal, dX, dY2); });
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(yOwn.data(), dY2, A.rows * sizeof(float), cudaMemcpyDeviceToHost));

  double maxDiff = 0;
  for (int i = 0; i < A.rows; ++i) maxDiff = fmax(maxDiff, fabs(yLib[i] - yOwn[i]));
  double gb = (A.nnz() * 8.0 + A.rows * 8.0) / 1e9;
  printf("%d rows, %d nonzeros\n", A.rows, A.nnz());
  printf("  cusparseSpMV  %.4f ms  %.1f GB/s\n", tLib, gb / (tLib * 1e-3));
  printf("  csr scalar    %.4f ms  %.1f GB/s\n", tScalar, gb / (tScalar * 1e-3));
  printf("  csr vector    %.4f ms  %.1f GB/s  (max |diff| %.2e)\n", tVector, gb / (tVector * 1e-3), maxDiff);

  CHECK_CUSPARSE(cusparseDestroySpMat(matA));
  CHECK_CUSPARSE(cusparseDestroyDnVec(vecX));
  CHECK_CUSPARSE(cusparseDestroyDnVec(vecY));
  CHECK_CUSPARSE(cusparseDestroy(handle));
  for (void *p : {(void *)dRowPtr, (void *)dColInd, (void *)dVal, (void *)dX, (void *)dY, (void *)dY2, buffer})
    cudaFree(p);
  return maxDiff < 1e-4 ? EXIT_SUCCESS : EXIT_FAILURE;
}
