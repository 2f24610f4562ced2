// HIP names over CUDA, just enough to build porter_texture.h with nvcc (test harness only)
#pragma once
#include <cuda_runtime.h>
#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorNotSupported cudaErrorNotSupported
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipGetErrorString cudaGetErrorString
#define hipMalloc cudaMalloc
#define hipMallocPitch cudaMallocPitch
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpy2D cudaMemcpy2D
#define hipMemcpy2DAsync cudaMemcpy2DAsync
#define hipMemcpy3DAsync cudaMemcpy3DAsync
#define hipMemcpy3DParms cudaMemcpy3DParms
#define hipStreamSynchronize cudaStreamSynchronize
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipStream_t cudaStream_t
#define hipMemcpyKind cudaMemcpyKind
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipPos cudaPos
#define hipPitchedPtr cudaPitchedPtr
#define hipExtent cudaExtent
#define make_hipPitchedPtr make_cudaPitchedPtr
#define make_hipExtent make_cudaExtent
#define hipChannelFormatDesc cudaChannelFormatDesc
#define hipCreateChannelDesc cudaCreateChannelDesc
#define hipResourceType cudaResourceType
#define hipResourceTypeArray cudaResourceTypeArray
#define hipResourceTypeLinear cudaResourceTypeLinear
#define hipResourceTypePitch2D cudaResourceTypePitch2D
#define hipMipmappedArray_t cudaMipmappedArray_t
#define hipTextureDesc cudaTextureDesc
#define hipFilterModeLinear cudaFilterModeLinear
#define hipReadModeNormalizedFloat cudaReadModeNormalizedFloat
#define hipSurfaceBoundaryMode cudaSurfaceBoundaryMode
#define hipBoundaryModeZero cudaBoundaryModeZero
#define hipBoundaryModeTrap cudaBoundaryModeTrap
#define hipBoundaryModeClamp cudaBoundaryModeClamp
// texture references (texref.cu)
#define hipTextureFilterMode cudaTextureFilterMode
#define hipTextureAddressMode cudaTextureAddressMode
#define hipTextureReadMode cudaTextureReadMode
#define hipFilterModePoint cudaFilterModePoint
#define hipAddressModeClamp cudaAddressModeClamp
#define hipAddressModeBorder cudaAddressModeBorder
#define hipReadModeElementType cudaReadModeElementType
#define hipMemcpyToSymbol cudaMemcpyToSymbol
// graph memcpy nodes (porter's overloads of them)
#define hipGraph_t cudaGraph_t
#define hipGraphNode_t cudaGraphNode_t
#define hipGraphExec_t cudaGraphExec_t
#define hipGraphAddMemcpyNode cudaGraphAddMemcpyNode
#define hipGraphMemcpyNodeSetParams cudaGraphMemcpyNodeSetParams
#define hipGraphExecMemcpyNodeSetParams cudaGraphExecMemcpyNodeSetParams
#define hipArrayLayered cudaArrayLayered
#define hipArrayCubemap cudaArrayCubemap
// inline-PTX rewrites (scripts/ptx_reference): HIP's spellings that nvcc lacks in device code
#define __atomic_signal_fence(order) asm volatile("" ::: "memory")
#define __HIP_MEMORY_SCOPE_WORKGROUP 0
#define __HIP_MEMORY_SCOPE_AGENT 1
#define __HIP_MEMORY_SCOPE_SYSTEM 2
// __hip_atomic_load(p, __ATOMIC_RELAXED, scope) as libcu++'s relaxed atomic_ref load at that scope (ld.relaxed.gpu
// or ld.relaxed.sys on sm_70+), so the check compares ld.cg/ld.cv with what the HIP spelling means
#include <cuda/atomic>
#ifndef __ATOMIC_RELAXED
#define __ATOMIC_RELAXED 0
#endif
template <class T> __device__ T __hip_atomic_load(T* p, int, int scope) {
  if (scope == __HIP_MEMORY_SCOPE_SYSTEM) return cuda::atomic_ref<T, cuda::thread_scope_system>(*p).load(cuda::memory_order_relaxed);
  if (scope == __HIP_MEMORY_SCOPE_AGENT) return cuda::atomic_ref<T, cuda::thread_scope_device>(*p).load(cuda::memory_order_relaxed);
  return cuda::atomic_ref<T, cuda::thread_scope_block>(*p).load(cuda::memory_order_relaxed);
}
