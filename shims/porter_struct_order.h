// porter shim: HIP structs whose fields come in another order than CUDA's, built from CUDA's positional order.
// porter wraps a positional initializer `{a, b, c}` of these types as `{porter_make_...(a, b, c)}`.
//
// How this differs from CUDA: it does not: each function takes the fields in CUDA's declaration order, with CUDA's
// defaults for the ones left out (zero, or dim3's 1, 1, 1), and returns HIP's struct with the same fields set.
// One thing is looser: a function call converts its arguments where an aggregate initializer would reject a
// narrowing conversion.
#ifndef PORTER_STRUCT_ORDER_H
#define PORTER_STRUCT_ORDER_H

#include <hip/hip_runtime.h>

inline hipKernelNodeParams porter_make_kernel_node_params(void* func = nullptr, dim3 gridDim = dim3(),
                                                          dim3 blockDim = dim3(), unsigned int sharedMemBytes = 0,
                                                          void** kernelParams = nullptr, void** extra = nullptr) {
    hipKernelNodeParams p{};
    p.func = func;
    p.gridDim = gridDim;
    p.blockDim = blockDim;
    p.sharedMemBytes = sharedMemBytes;
    p.kernelParams = kernelParams;
    p.extra = extra;
    return p;
}

inline hipMemsetParams porter_make_memset_params(void* dst = nullptr, size_t pitch = 0, unsigned int value = 0,
                                                 unsigned int elementSize = 0, size_t width = 0, size_t height = 0) {
    hipMemsetParams p{};
    p.dst = dst;
    p.pitch = pitch;
    p.value = value;
    p.elementSize = elementSize;
    p.width = width;
    p.height = height;
    return p;
}

inline hipAccessPolicyWindow porter_make_access_policy_window(void* base_ptr = nullptr, size_t num_bytes = 0,
                                                              float hitRatio = 0.0f,
                                                              hipAccessProperty hitProp = hipAccessProperty(),
                                                              hipAccessProperty missProp = hipAccessProperty()) {
    hipAccessPolicyWindow w{};
    w.base_ptr = base_ptr;
    w.num_bytes = num_bytes;
    w.hitRatio = hitRatio;
    w.hitProp = hitProp;
    w.missProp = missProp;
    return w;
}

#if defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR >= 6
inline hipGraphInstantiateParams porter_make_graph_instantiate_params(
        unsigned long long flags = 0, hipStream_t uploadStream = nullptr, hipGraphNode_t errNode_out = nullptr,
        hipGraphInstantiateResult result_out = hipGraphInstantiateResult()) {
    hipGraphInstantiateParams p{};
    p.flags = flags;
    p.uploadStream = uploadStream;
    p.errNode_out = errNode_out;
    p.result_out = result_out;
    return p;
}
#endif

#endif  // PORTER_STRUCT_ORDER_H
