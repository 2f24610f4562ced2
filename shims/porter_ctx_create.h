// porter shim: CUDA 13's cuCtxCreate (cuCtxCreate_v4), which takes a CUctxCreateParams between the context pointer
// and the flags. HIP's hipCtxCreate (deprecated in HIP, still present up to 6.4) takes (context, flags, device):
// this header overloads it with CUDA 13's four-argument form.
// How it differs from CUDA: CUctxCreateParams asks for execution-affinity or CIG (graphics interop) parameters,
// which ROCm has neither of; a null or zeroed CUctxCreateParams (what code that asks for neither passes) creates the
// context as the three-argument form does, anything else answers hipErrorNotSupported.
#ifndef PORTER_CTX_CREATE_H
#define PORTER_CTX_CREATE_H

#include <hip/hip_runtime.h>

struct porter_ctx_create_params {
    void* execAffinityParams;  // CUexecAffinityParam*: no HIP counterpart
    int numExecAffinityParams;
    void* cigParams;  // CUctxCigParam*: no HIP counterpart
};

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
inline hipError_t hipCtxCreate(hipCtx_t* ctx, porter_ctx_create_params* params, unsigned int flags,
                               hipDevice_t device) {
    if (params != nullptr &&
        (params->execAffinityParams != nullptr || params->numExecAffinityParams != 0 || params->cigParams != nullptr))
        return hipErrorNotSupported;
    return hipCtxCreate(ctx, flags, device);
}
#pragma clang diagnostic pop

#endif
