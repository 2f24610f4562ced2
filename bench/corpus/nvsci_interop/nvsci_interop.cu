// nvsci_interop: share a buffer and fences between CUDA and another NvSci-aware engine.
//   nvsci_interop [elements]
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <nvscibuf.h>
#include <nvscisync.h>

#define CHECK_CUDA(x)                                                                 \
  do {                                                                                \
    cudaError_t e = (x);                                                              \
    if (e != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d CUDA: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)
#define CHECK_NVSCI(x)                                                                \
  do {                                                                                \
    NvSciError e = (x);                                                               \
    if (e != NvSciError_Success) {                                                    \
      fprintf(stderr, "%s:%d NvSci error 0x%x\n", __FILE__, __LINE__, unsigned(e));  \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

__global__ void produce(float *data, size_t n, int frame) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) data[i] = frame + 0.001f * float(i % 1000);
}

static NvSciBufObj allocateBuffer(NvSciBufModule module, size_t bytes, const CUuuid &gpuId) {
  NvSciBufAttrList attrs, reconciled, conflicts;
  CHECK_NVSCI(NvSciBufAttrListCreate(module, &attrs));
  NvSciBufType type = NvSciBufType_RawBuffer;
  uint64_t size = bytes, align = 4096;
  bool cpuAccess = true;
  NvSciBufAttrValAccessPerm perm = NvSciBufAccessPerm_ReadWrite;
  NvSciRmGpuId gpu;
  memcpy(&gpu.bytes, &gpuId.bytes, sizeof(gpuId.bytes));
  NvSciBufAttrKeyValuePair kv[] = {
      {NvSciBufGeneralAttrKey_Types, &type, sizeof(type)},
      {NvSciBufRawBufferAttrKey_Size, &size, sizeof(size)},
      {NvSciBufRawBufferAttrKey_Align, &align, sizeof(align)},
      {NvSciBufGeneralAttrKey_NeedCpuAccess, &cpuAccess, sizeof(cpuAccess)},
      {NvSciBufGeneralAttrKey_RequiredPerm, &perm, sizeof(perm)},
      {NvSciBufGeneralAttrKey_GpuId, &gpu, sizeof(gpu)},
  };
  CHECK_NVSCI(NvSciBufAttrListSetAttrs(attrs, kv, sizeof(kv) / sizeof(kv[0])));
  CHECK_NVSCI(NvSciBufAttrListReconcile(&attrs, 1, &reconciled, &conflicts));
  NvSciBufObj obj;
  CHECK_NVSCI(NvSciBufObjAlloc(reconciled, &obj));
  NvSciBufAttrListFree(attrs);
  NvSciBufAttrListFree(reconciled);
  return obj;
}

static NvSciSyncObj allocateSync(NvSciSyncModule module, int device, bool cudaSignals) {
  NvSciSyncAttrList cudaAttrs, cpuAttrs, reconciled, conflicts;
  CHECK_NVSCI(NvSciSyncAttrListCreate(module, &cudaAttrs));
  CHECK_CUDA(cudaDeviceGetNvSciSyncAttributes(cudaAttrs, device,
                                              cudaSignals ? cudaNvSciSyncAttrSignal : cudaNvSciSyncAttrWait));
  CHECK_NVSCI(NvSciSyncAttrListCreate(module, &cpuAttrs));
  bool cpu = true;
  NvSciSyncAccessPerm perm = cudaSignals ? NvSciSyncAccessPerm_WaitOnly : NvSciSyncAccessPerm_SignalOnly;
  NvSciSyncAttrKeyValuePair kv[] = {{NvSciSyncAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)},
                                    {NvSciSyncAttrKey_RequiredPerm, &perm, sizeof(perm)}};
  CHECK_NVSCI(NvSciSyncAttrListSetAttrs(cpuAttrs, kv, 2));
  NvSciSyncAttrList lists[] = {cudaAttrs, cpuAttrs};
  CHECK_NVSCI(NvSciSyncAttrListReconcile(lists, 2, &reconciled, &conflicts));
  NvSciSyncObj obj;
  CHECK_NVSCI(NvSciSyncObjAlloc(reconciled, &obj));
  NvSciSyncAttrListFree(cudaAttrs);
  NvSciSyncAttrListFree(cpuAttrs);
  NvSciSyncAttrListFree(reconciled);
  return obj;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoull(argv[1], nullptr, 10) : (1u << 20);
  int device = 0;
  CHECK_CUDA(cudaSetDevice(device));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));

  NvSciBufModule bufModule;
  NvSciSyncModule syncModule;
  CHECK_NVSCI(NvSciBufModuleOpen(&bufModule));
  CHECK_NVSCI(NvSciSyncModuleOpen(&syncModule));
  CUuuid uuid;
  memcpy(uuid.bytes, prop.uuid.bytes, sizeof(uuid.bytes));
  NvSciBufObj buf = allocateBuffer(bufModule, n * sizeof(float), uuid);

  cudaExternalMemoryHandleDesc memDesc = {};
  memDesc.type = cudaExternalMemoryHandleTypeNvSciBuf;
  memDesc.handle.nvSciBufObject = buf;
  memDesc.size = n * sizeof(float);
  cudaExternalMemory_t extMem;
  CHECK_CUDA(cudaImportExternalMemory(&extMem, &memDesc));
  cudaExternalMemoryBufferDesc bufDesc = {};
  bufDesc.offset = 0;
  bufDesc.size = n * sizeof(float);
  float *dData;
  CHECK_CUDA(cudaExternalMemoryGetMappedBuffer(reinterpret_cast<void **>(&dData), extMem, &bufDesc));

  NvSciSyncObj signalObj = allocateSync(syncModule, device, true);
  cudaExternalSemaphoreHandleDesc semDesc = {};
  semDesc.type = cudaExternalSemaphoreHandleTypeNvSciSync;
  semDesc.handle.nvSciSyncObj = signalObj;
  cudaExternalSemaphore_t signalSem;
  CHECK_CUDA(cudaImportExternalSemaphore(&signalSem, &semDesc));

  NvSciSyncCpuWaitContext waitCtx;
  CHECK_NVSCI(NvSciSyncCpuWaitContextAlloc(syncModule, &waitCtx));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int frame = 0; frame < 4; ++frame) {
    produce<<<(n + 255) / 256, 256, 0, stream>>>(dData, n, frame);
    NvSciSyncFence fence = NvSciSyncFenceInitializer;
    cudaExternalSemaphoreSignalParams sp = {};
    sp.params.nvSciSync.fence = &fence;
    sp.flags = 0;
    CHECK_CUDA(cudaSignalExternalSemaphoresAsync(&signalSem, &sp, 1, stream));
    CHECK_NVSCI(NvSciSyncFenceWait(&fence, waitCtx, 1000000));  // the consumer would wait here
    NvSciSyncFenceClear(&fence);
    printf("frame %d produced and signalled\n", frame);
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));

  CHECK_CUDA(cudaDestroyExternalSemaphore(signalSem));
  CHECK_CUDA(cudaDestroyExternalMemory(extMem));
  NvSciSyncCpuWaitContextFree(waitCtx);
  NvSciSyncObjFree(signalObj);
  NvSciBufObjFree(buf);
  NvSciSyncModuleClose(syncModule);
  NvSciBufModuleClose(bufModule);
  CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}
