// porter shim: CUDA L2 access-policy-window stream attributes, as no-ops, under the names porter
// translates them to (cudaStreamAttrValue -> hipStreamAttrValue, cudaStreamSetAttribute -> hipStreamSetAttribute,
// cudaStreamAttributeAccessPolicyWindow -> hipStreamAttributeAccessPolicyWindow, ...), and
// cudaCtxResetPersistingL2Cache, which no HIP has.
//
// How this differs from CUDA: AMD GPUs have no persisting-L2 carve-out. hipStreamSetAttribute here stores
// nothing and returns hipSuccess; hipStreamGetAttribute returns a zeroed value (an empty window).
// hipCtxResetPersistingL2Cache does nothing. Performance tuning that relied on the window is lost, results
// are unchanged. HIP before 7.1 lacks the stream-attribute declarations (not in HIP 6.4's headers; the ROCm 7.1
// release notes list hipStreamSetAttribute/hipStreamGetAttribute as new); hipAccessPolicyWindow and
// hipAccessProperty themselves already exist in HIP 5.x. From HIP 7.1 on, HIP's own stream attributes are used.
#ifndef PORTER_ACCESS_POLICY_H
#define PORTER_ACCESS_POLICY_H

#include <hip/hip_runtime.h>
#include <cstring>

#if !defined(HIP_VERSION) || HIP_VERSION < 70100000

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

#endif  // HIP_VERSION < 7.1

inline hipError_t hipCtxResetPersistingL2Cache() { return hipSuccess; }  // no HIP has it
#endif  // PORTER_ACCESS_POLICY_H
