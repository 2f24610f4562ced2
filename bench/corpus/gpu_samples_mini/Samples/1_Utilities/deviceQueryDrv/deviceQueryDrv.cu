/* Device properties through the driver API, with the runtime's view for comparison. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#include <helper_cuda_lite.h>

int main(int argc, char **argv) {
  CUdevice dev;
  int major = 0, minor = 0;
  int deviceCount = 0;
  char deviceName[256];
  printf("%s Starting...\n\n", argv[0]);
  checkCudaErrors(cuInit(0));
  checkCudaErrors(cuDeviceGetCount(&deviceCount));
  if (deviceCount == 0) {
    printf("There are no available device(s) that support CUDA\n");
    exit(EXIT_FAILURE);
  }
  for (dev = 0; dev < deviceCount; ++dev) {
    checkCudaErrors(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    checkCudaErrors(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    checkCudaErrors(cuDeviceGetName(deviceName, 256, dev));
    printf("\nDevice %d: \"%s\"\n", dev, deviceName);
    int driverVersion = 0;
    checkCudaErrors(cuDriverGetVersion(&driverVersion));
    printf("  CUDA Driver Version:                           %d.%d\n", driverVersion / 1000,
           (driverVersion % 100) / 10);
    printf("  CUDA Capability Major/Minor version number:    %d.%d\n", major, minor);
    size_t totalGlobalMem;
    checkCudaErrors(cuDeviceTotalMem(&totalGlobalMem, dev));
    printf("  Total amount of global memory:                 %.0f MBytes\n", (float)totalGlobalMem / 1048576.0f);
    int clockRate, asyncEngines, unified, l2, persisting;
    checkCudaErrors(cuDeviceGetAttribute(&clockRate, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev));
    checkCudaErrors(cuDeviceGetAttribute(&asyncEngines, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, dev));
    checkCudaErrors(cuDeviceGetAttribute(&unified, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev));
    checkCudaErrors(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev));
    checkCudaErrors(cuDeviceGetAttribute(&persisting, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, dev));
    printf("  GPU Max Clock rate:                            %.0f MHz\n", clockRate * 1e-3f);
    printf("  Copy engines / unified addressing:             %d / %s\n", asyncEngines, unified ? "Yes" : "No");
    printf("  L2 cache / persisting max:                     %d / %d bytes\n", l2, persisting);

    cudaDeviceProp prop;
    checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
    printf("  Runtime: %d SMs, %d copy engines, max 2D layered texture %dx%dx%d, 1D layered %dx%d\n",
           prop.multiProcessorCount, prop.asyncEngineCount, prop.maxTexture2DLayered[0], prop.maxTexture2DLayered[1],
           prop.maxTexture2DLayered[2], prop.maxTexture1DLayered[0], prop.maxTexture1DLayered[1]);
  }
  printf("Result = PASS\n");
  exit(EXIT_SUCCESS);
}
