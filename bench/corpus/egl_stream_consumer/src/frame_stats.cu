#include "egl_util.h"

__global__ void lumaPitch(const unsigned char *base, size_t pitch, unsigned w, unsigned h, FrameStats *s) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  unsigned v = base[y * pitch + x];
  atomicAdd(&s->sum, (unsigned long long)v);
  atomicMin(&s->minLuma, v);
  atomicMax(&s->maxLuma, v);
}

__global__ void lumaSurface(cudaSurfaceObject_t surf, unsigned w, unsigned h, FrameStats *s) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  unsigned v = surf2Dread<unsigned char>(surf, x, y);
  atomicAdd(&s->sum, (unsigned long long)v);
  atomicMin(&s->minLuma, v);
  atomicMax(&s->maxLuma, v);
}

bool frameStatistics(const cudaEglFrame &frame, cudaStream_t stream, FrameStats *out) {
  const cudaEglPlaneDesc &plane = frame.planeDesc[0];
  FrameStats init = {0, 255u, 0u, plane.width, plane.height};
  FrameStats *d;
  CUDA_EGL_CHECK(cudaMalloc(&d, sizeof(FrameStats)));
  CUDA_EGL_CHECK(cudaMemcpyAsync(d, &init, sizeof(init), cudaMemcpyHostToDevice, stream));
  dim3 block(32, 8), grid((plane.width + 31) / 32, (plane.height + 7) / 8);
  if (frame.frameType == cudaEglFrameTypePitch) {
    const cudaPitchedPtr &p = frame.frame.pPitch[0];
    lumaPitch<<<grid, block, 0, stream>>>(static_cast<const unsigned char *>(p.ptr), p.pitch, plane.width,
                                          plane.height, d);
  } else {
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = frame.frame.pArray[0];
    cudaSurfaceObject_t surf;
    CUDA_EGL_CHECK(cudaCreateSurfaceObject(&surf, &rd));
    lumaSurface<<<grid, block, 0, stream>>>(surf, plane.width, plane.height, d);
    CUDA_EGL_CHECK(cudaStreamSynchronize(stream));
    CUDA_EGL_CHECK(cudaDestroySurfaceObject(surf));
  }
  CUDA_EGL_CHECK(cudaMemcpyAsync(out, d, sizeof(FrameStats), cudaMemcpyDeviceToHost, stream));
  CUDA_EGL_CHECK(cudaStreamSynchronize(stream));
  CUDA_EGL_CHECK(cudaFree(d));
  return true;
}
