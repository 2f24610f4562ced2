// porter shim: hipBLAS's hipComplex/hipDataType API on ROCm 6.x (hipBLAS 2.x), what porter's cuBLAS mapping emits.
//
// porter maps cuComplex to hipFloatComplex (hipComplex), cudaDataType to hipDataType, and complex cuBLAS calls
// (cublasCgemm, cublasZaxpy_v2, ...) to hipBLAS's plain names. hipBLAS 3.0 (ROCm 7.0) takes those types; hipBLAS
// 2.x (ROCm 6.0-6.4) only does when HIPBLAS_V2 is defined before hipblas.h (its plain complex functions take the
// deprecated hipblasComplex otherwise, and `no matching function for call to 'hipblasCgemm'` follows). porter
// includes this header before the file's first HIP include and defines HIPBLAS_V2 there unless hipblas.h came
// first (then it is too late; define HIPBLAS_V2 on the command line instead).
//
// How this differs from CUDA: nothing beyond hipBLAS itself; HIPBLAS_V2 also makes hipblasGemmEx and friends take
// hipDataType, as cublasGemmEx takes cudaDataType.
#ifndef PORTER_HIPBLAS_V2_H
#define PORTER_HIPBLAS_V2_H

#if !defined(HIPBLAS_V2) && !defined(HIPBLAS_H)
#define HIPBLAS_V2 1
#endif

#endif  // PORTER_HIPBLAS_V2_H
