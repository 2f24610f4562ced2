/*
 * device_query: enumerate the CUDA devices of this machine and print their
 * properties, in the spirit of the classic deviceQuery sample.
 *
 * Usage: device_query [--device N] [--brief]
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "helper_errors.h"

static void printUuid(const cudaUUID_t &uuid) {
  printf("  UUID:                                          GPU-");
  for (int i = 0; i < 16; ++i) {
    printf("%02x", static_cast<unsigned char>(uuid.bytes[i]));
    if (i == 3 || i == 5 || i == 7 || i == 9) printf("-");
  }
  printf("\n");
}

static int coresPerSM(int major, int minor) {
  struct { int sm; int cores; } table[] = {
      {0x50, 128}, {0x52, 128}, {0x60, 64}, {0x61, 128}, {0x70, 64}, {0x72, 64},
      {0x75, 64},  {0x80, 64},  {0x86, 128}, {0x87, 128}, {0x89, 128}, {0x90, 128},
      {-1, -1}};
  int sm = (major << 4) + minor;
  for (int i = 0; table[i].sm != -1; ++i) {
    if (table[i].sm == sm) return table[i].cores;
  }
  return 128;
}

static void queryDriver(int dev) {
  CUdevice cuDevice;
  char name[256];
  checkCudaErrors(cuDeviceGet(&cuDevice, dev));
  checkCudaErrors(cuDeviceGetName(name, sizeof(name), cuDevice));
  size_t bytes = 0;
  checkCudaErrors(cuDeviceTotalMem(&bytes, cuDevice));
  int clusterLaunch = 0;
  checkCudaErrors(cuDeviceGetAttribute(&clusterLaunch, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, cuDevice));
  printf("  Driver name / memory:                          %s, %zu MiB\n", name, bytes >> 20);
  printf("  Thread block clusters:                         %s\n", clusterLaunch ? "Yes" : "No");
}

static void queryDevice(int dev, bool brief) {
  cudaDeviceProp prop;
  checkCudaErrors(cudaSetDevice(dev));
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));

  int clockKHz = 0, memClockKHz = 0;
  checkCudaErrors(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, dev));
  checkCudaErrors(cudaDeviceGetAttribute(&memClockKHz, cudaDevAttrMemoryClockRate, dev));

  printf("\nDevice %d: \"%s\"\n", dev, prop.name);
  printf("  CUDA capability:                               %d.%d\n", prop.major, prop.minor);
  printf("  Global memory:                                 %.0f MiB\n",
         static_cast<double>(prop.totalGlobalMem) / 1048576.0);
  printf("  Multiprocessors x cores/MP:                    %d x %d = %d cores\n", prop.multiProcessorCount,
         coresPerSM(prop.major, prop.minor), prop.multiProcessorCount * coresPerSM(prop.major, prop.minor));
  printf("  GPU max clock rate:                            %.0f MHz\n", clockKHz * 1e-3f);
  printf("  Memory clock / bus width:                      %.0f MHz / %d-bit\n", memClockKHz * 1e-3f,
         prop.memoryBusWidth);
  printf("  L2 cache size:                                 %d bytes\n", prop.l2CacheSize);
  printf("  Persisting L2 cache max:                       %d bytes\n", prop.persistingL2CacheMaxSize);
  printf("  Access policy max window:                      %d bytes\n", prop.accessPolicyMaxWindowSize);
  if (brief) return;

  printUuid(prop.uuid);
  printf("  LUID node mask:                                0x%x\n", prop.luidDeviceNodeMask);
  printf("  Max texture 1D / 2D / 3D:                      %d / (%d, %d) / (%d, %d, %d)\n", prop.maxTexture1D,
         prop.maxTexture2D[0], prop.maxTexture2D[1], prop.maxTexture3D[0], prop.maxTexture3D[1],
         prop.maxTexture3D[2]);
  printf("  Max layered 1D texture:                        %d, %d layers\n", prop.maxTexture1DLayered[0],
         prop.maxTexture1DLayered[1]);
  printf("  Max layered 2D texture:                        (%d, %d), %d layers\n", prop.maxTexture2DLayered[0],
         prop.maxTexture2DLayered[1], prop.maxTexture2DLayered[2]);
  printf("  Max surface 2D / 1D layered:                   (%d, %d) / %d x %d\n", prop.maxSurface2D[0],
         prop.maxSurface2D[1], prop.maxSurface1DLayered[0], prop.maxSurface1DLayered[1]);
  printf("  Constant memory:                               %zu bytes\n", prop.totalConstMem);
  printf("  Shared memory per block / opt-in / per SM:     %zu / %zu / %zu bytes\n", prop.sharedMemPerBlock,
         prop.sharedMemPerBlockOptin, prop.sharedMemPerMultiprocessor);
  printf("  Registers per block:                           %d\n", prop.regsPerBlock);
  printf("  Warp size:                                     %d\n", prop.warpSize);
  printf("  Max threads per SM / per block:                %d / %d\n", prop.maxThreadsPerMultiProcessor,
         prop.maxThreadsPerBlock);
  printf("  Max block dims:                                (%d, %d, %d)\n", prop.maxThreadsDim[0],
         prop.maxThreadsDim[1], prop.maxThreadsDim[2]);
  printf("  Max grid dims:                                 (%d, %d, %d)\n", prop.maxGridSize[0],
         prop.maxGridSize[1], prop.maxGridSize[2]);
  printf("  Concurrent copy and kernel execution:          %s with %d copy engine(s)\n",
         prop.asyncEngineCount > 0 ? "Yes" : "No", prop.asyncEngineCount);
  printf("  Unified addressing (UVA):                      %s\n", prop.unifiedAddressing ? "Yes" : "No");
  printf("  Managed memory / concurrent access:            %s / %s\n", prop.managedMemory ? "Yes" : "No",
         prop.concurrentManagedAccess ? "Yes" : "No");
  printf("  Stream priorities:                             %s\n", prop.streamPrioritiesSupported ? "Yes" : "No");
  printf("  Host native atomics:                           %s\n", prop.hostNativeAtomicSupported ? "Yes" : "No");
  printf("  Compute preemption:                            %s\n", prop.computePreemptionSupported ? "Yes" : "No");
  printf("  Cooperative launch:                            %s\n", prop.cooperativeLaunch ? "Yes" : "No");
  printf("  Sparse arrays / memory pools:                  %s / %s\n", prop.sparseCudaArraySupported ? "Yes" : "No",
         prop.memoryPoolsSupported ? "Yes" : "No");
  printf("  NUMA config / id, host NUMA id:                %d / %d, %d\n", prop.deviceNumaConfig, prop.deviceNumaId,
         prop.hostNumaId);
  printf("  MPS enabled:                                   %s\n", prop.mpsEnabled ? "Yes" : "No");
  printf("  PCI domain / bus / device:                     %d / %d / %d\n", prop.pciDomainID, prop.pciBusID,
         prop.pciDeviceID);
  queryDriver(dev);
}

int main(int argc, char **argv) {
  int only = -1;
  bool brief = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) {
      only = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--brief")) {
      brief = true;
    } else {
      fprintf(stderr, "usage: %s [--device N] [--brief]\n", argv[0]);
      return EXIT_FAILURE;
    }
  }

  checkCudaErrors(cuInit(0));
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    printf("cudaGetDeviceCount returned %d -> %s\n", static_cast<int>(err), _errorString(err));
    return EXIT_FAILURE;
  }
  if (count == 0) {
    printf("There are no available device(s) that support CUDA\n");
    return EXIT_SUCCESS;
  }
  printf("Detected %d CUDA capable device(s)\n", count);

  int driverVersion = 0, runtimeVersion = 0;
  checkCudaErrors(cudaDriverGetVersion(&driverVersion));
  checkCudaErrors(cudaRuntimeGetVersion(&runtimeVersion));
  printf("CUDA driver / runtime version: %d.%d / %d.%d\n", driverVersion / 1000, (driverVersion % 100) / 10,
         runtimeVersion / 1000, (runtimeVersion % 100) / 10);

  for (int dev = 0; dev < count; ++dev) {
    if (only >= 0 && dev != only) continue;
    queryDevice(dev, brief);
  }
  printf("\nResult = PASS\n");
  return EXIT_SUCCESS;
}
