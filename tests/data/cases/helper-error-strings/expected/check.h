// An error-check helper in the style of sample collections: one error-string overload per library, each behind
// the include guard of that library's header, and switches that name enumerators HIP lacks
#pragma once
#include <cstdio>
#include <cstdlib>

#ifdef HIPBLAS_H
static const char* errorName(hipblasStatus_t e) {
  switch (e) {
    case HIPBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case HIPBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    default: return "<unknown>";
  }
}
#endif

#ifdef HIPFFT_H_
static const char* errorName(hipfftResult e) {
  switch (e) {
    case HIPFFT_SUCCESS:
      return "CUFFT_SUCCESS";
#if 0  // porter: CUFFT_LICENSE_ERROR has no HIP equivalent, so this case cannot occur
    case CUFFT_LICENSE_ERROR:
      return "CUFFT_LICENSE_ERROR";
#endif
    case HIPFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
  }
  return "<unknown>";
}
#endif

#ifdef HIPRAND_H_
static const char* errorName(hiprandStatus_t e) { return e == HIPRAND_STATUS_SUCCESS ? "ok" : "curand error"; }
#endif

#ifdef HIPSPARSE_EXPORT
static const char* errorName(hipsparseStatus_t e) { return e == HIPSPARSE_STATUS_SUCCESS ? "ok" : "cusparse error"; }
#endif

template <typename T>
void check(T result, const char* what) {
  if (result) {
    std::fprintf(stderr, "%s failed: %s\n", what, errorName(result));
    std::exit(1);
  }
}
