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
  printf("%s: driver API device report\n", argv[0]);
  checkCudaErrors(cuInit(0));
  checkCudaErrors(cuDeviceGetCount(&deviceCount));
  if (deviceCount == 0) {
    printf("no CUDA devices\n");
    exit(EXIT_FAILURE);
  }
  for (dev = 0; dev < deviceCount; ++dev) {
    checkCudaErrors(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    checkCudaErrors(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    checkCudaErrors(cuDeviceGetName(deviceName, 256, dev));
    printf("\nDevice %d: \"%s\"\n", dev, deviceName);
    int driverVersion = 0;
    checkCudaErrors(cuDriverGetVersion(&driverVersion));
    printf("  driver version     %d.%d\n", driverVersion / 1000,
           (driverVersion % 100) / 10);
    printf("  compute capability %d.%d\n", major, minor);
    size_t totalGlobalMem;
    checkCudaErrors(cuDeviceTotalMem(&totalGlobalMem, dev));
    printf("  memory             %.0f MiB\n", (float)totalGlobalMem / 1048576.0f);
    int clockRate, asyncEngines, unified, l2, persisting;
    checkCudaErrors(cuDeviceGetAttribute(&clockRate, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev));
    checkCudaErrors(cuDeviceGetAttribute(&asyncEngines, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, dev));
    checkCudaErrors(cuDeviceGetAttribute(&unified, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev));
    checkCudaErrors(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev));
    checkCudaErrors(cuDeviceGetAttribute(&persisting, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, dev));
    printf("  clock              %.0f MHz\n", clockRate * 1e-3f);
    printf("  copy engines       %d, UVA %s\n", asyncEngines, unified ? "Yes" : "No");
    printf("  L2                 %d B (persisting up to %d B)\n", l2, persisting);

    cudaDeviceProp prop;
    checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
    printf("  Runtime: %d SMs, %d copy engines, max 2D layered texture %dx%dx%d, 1D layered %dx%d\n",
           prop.multiProcessorCount, prop.asyncEngineCount, prop.maxTexture2DLayered[0], prop.maxTexture2DLayered[1],
           prop.maxTexture2DLayered[2], prop.maxTexture1DLayered[0], prop.maxTexture1DLayered[1]);
  }
  printf("done\n");
  exit(EXIT_SUCCESS);
}
