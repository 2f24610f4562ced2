// porter shim: hipsparseGetErrorName/hipsparseGetErrorString (hipSPARSE in ROCm 6.0) for older ROCm, from the
// status enumerators every hipSPARSE has; taken through macros so a hipSPARSE that has them gets no conflict.
// How they differ from CUDA: the names are hipSPARSE's (HIPSPARSE_STATUS_*), the texts porter's own, not cuSPARSE's.
#pragma once
#include <hipsparse/hipsparse.h>

#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 60000000
static inline const char* porter_hipsparse_error_name(hipsparseStatus_t status) {
    switch (status) {
        case HIPSPARSE_STATUS_SUCCESS: return "HIPSPARSE_STATUS_SUCCESS";
        case HIPSPARSE_STATUS_NOT_INITIALIZED: return "HIPSPARSE_STATUS_NOT_INITIALIZED";
        case HIPSPARSE_STATUS_ALLOC_FAILED: return "HIPSPARSE_STATUS_ALLOC_FAILED";
        case HIPSPARSE_STATUS_INVALID_VALUE: return "HIPSPARSE_STATUS_INVALID_VALUE";
        case HIPSPARSE_STATUS_ARCH_MISMATCH: return "HIPSPARSE_STATUS_ARCH_MISMATCH";
        case HIPSPARSE_STATUS_MAPPING_ERROR: return "HIPSPARSE_STATUS_MAPPING_ERROR";
        case HIPSPARSE_STATUS_EXECUTION_FAILED: return "HIPSPARSE_STATUS_EXECUTION_FAILED";
        case HIPSPARSE_STATUS_INTERNAL_ERROR: return "HIPSPARSE_STATUS_INTERNAL_ERROR";
        case HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
        case HIPSPARSE_STATUS_ZERO_PIVOT: return "HIPSPARSE_STATUS_ZERO_PIVOT";
        case HIPSPARSE_STATUS_NOT_SUPPORTED: return "HIPSPARSE_STATUS_NOT_SUPPORTED";
        case HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES";
        default: return "HIPSPARSE_STATUS_UNKNOWN";
    }
}
static inline const char* porter_hipsparse_error_string(hipsparseStatus_t status) {
    switch (status) {
        case HIPSPARSE_STATUS_SUCCESS: return "success";
        case HIPSPARSE_STATUS_NOT_INITIALIZED: return "hipSPARSE was not initialized";
        case HIPSPARSE_STATUS_ALLOC_FAILED: return "resource allocation failed";
        case HIPSPARSE_STATUS_INVALID_VALUE: return "unsupported value was passed to the function";
        case HIPSPARSE_STATUS_ARCH_MISMATCH: return "device architecture not supported";
        case HIPSPARSE_STATUS_MAPPING_ERROR: return "access to GPU memory space failed";
        case HIPSPARSE_STATUS_EXECUTION_FAILED: return "GPU program failed to execute";
        case HIPSPARSE_STATUS_INTERNAL_ERROR: return "an internal hipSPARSE operation failed";
        case HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "matrix type not supported";
        case HIPSPARSE_STATUS_ZERO_PIVOT: return "zero pivot was computed";
        case HIPSPARSE_STATUS_NOT_SUPPORTED: return "operation is not supported";
        case HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "resources are insufficient";
        default: return "unknown hipSPARSE status";
    }
}
#define hipsparseGetErrorName porter_hipsparse_error_name
#define hipsparseGetErrorString porter_hipsparse_error_string
#endif
