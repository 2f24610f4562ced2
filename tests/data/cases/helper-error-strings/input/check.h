// An error-check helper in the style of sample collections: one error-string overload per library, each behind
// the include guard of that library's header, and switches that name enumerators HIP lacks
#pragma once
#include <cstdio>
#include <cstdlib>

#ifdef CUBLAS_API_H_
static const char* errorName(cublasStatus_t e) {
  switch (e) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    default: return "<unknown>";
  }
}
#endif

#ifdef _CUFFT_H_
static const char* errorName(cufftResult e) {
  switch (e) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_LICENSE_ERROR:
      return "CUFFT_LICENSE_ERROR";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
  }
  return "<unknown>";
}
#endif

#ifdef CURAND_H_
static const char* errorName(curandStatus_t e) { return e == CURAND_STATUS_SUCCESS ? "ok" : "curand error"; }
#endif

#ifdef CUSPARSEAPI
static const char* errorName(cusparseStatus_t e) { return e == CUSPARSE_STATUS_SUCCESS ? "ok" : "cusparse error"; }
#endif

template <typename T>
void check(T result, const char* what) {
  if (result) {
    std::fprintf(stderr, "%s failed: %s\n", what, errorName(result));
    std::exit(1);
  }
}
