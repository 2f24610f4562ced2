// porter shim: CUDA L2 access-policy-window stream attributes, as no-ops, under the names porter
// translates them to (cudaStreamAttrValue -> hipStreamAttrValue, cudaStreamSetAttribute -> hipStreamSetAttribute,
// cudaStreamAttributeAccessPolicyWindow -> hipStreamAttributeAccessPolicyWindow, ...).
//
// How this differs from CUDA: AMD GPUs have no persisting-L2 carve-out. hipStreamSetAttribute here stores
// nothing and returns hipSuccess; hipStreamGetAttribute returns a zeroed value (an empty window).
// hipCtxResetPersistingL2Cache does nothing. Performance tuning that relied on the window is lost, results
// are unchanged. HIP before 6.2 lacks these declarations; hipAccessPolicyWindow and hipAccessProperty
// themselves already exist in HIP 5.x.
#ifndef PORTER_ACCESS_POLICY_H
#define PORTER_ACCESS_POLICY_H

#include <hip/hip_runtime.h>
#include <cstring>

#if !defined(HIP_VERSION) || HIP_VERSION < 60200000

typedef enum hipStreamAttrID {
    hipStreamAttributeAccessPolicyWindow = 1,
    hipStreamAttributeSynchronizationPolicy = 3,
    hipStreamAttributePriority = 8,
} hipStreamAttrID;

typedef union hipStreamAttrValue {
    hipAccessPolicyWindow accessPolicyWindow;
    int syncPolicy;
    int priority;
    char pad[64];
} hipStreamAttrValue;

inline hipError_t hipStreamSetAttribute(hipStream_t stream, hipStreamAttrID attr, const hipStreamAttrValue* value) {
    (void)stream;
    (void)attr;
    return value == nullptr ? hipErrorInvalidValue : hipSuccess;
}

inline hipError_t hipStreamGetAttribute(hipStream_t stream, hipStreamAttrID attr, hipStreamAttrValue* value) {
    (void)stream;
    (void)attr;
    if (value == nullptr) return hipErrorInvalidValue;
    std::memset(value, 0, sizeof(*value));
    return hipSuccess;
}

inline hipError_t hipCtxResetPersistingL2Cache() { return hipSuccess; }

#endif  // HIP_VERSION < 6.2
#endif  // PORTER_ACCESS_POLICY_H
