// Persisting-L2 access policy window on a stream (no AMD equivalent: becomes a no-op).
#include <cuda_runtime.h>
void set_window(cudaStream_t stream, void* ptr, size_t bytes) {
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = ptr;
    attr.accessPolicyWindow.num_bytes = bytes;
    attr.accessPolicyWindow.hitRatio = 0.6f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
}
