#include "gpuwrap.h"

#include <fstream>
#include <sstream>

namespace gpuwrap {

void check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS) return;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  throw Error(std::string(what) + ": " + (name ? name : "?") + " (" + (text ? text : "") + ")");
}

void check(cudaError_t result, const char *what) {
  if (result == cudaSuccess) return;
  throw Error(std::string(what) + ": " + cudaGetErrorName(result) + " (" + cudaGetErrorString(result) + ")");
}

void copyToDevice(CUdeviceptr dst, const void *src, size_t bytes) { GPUWRAP_CHECK(cuMemcpyHtoD(dst, src, bytes)); }
void copyToDevice(void *dst, const void *src, size_t bytes) {
  GPUWRAP_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copyToHost(void *dst, CUdeviceptr src, size_t bytes) { GPUWRAP_CHECK(cuMemcpyDtoH(dst, src, bytes)); }

std::string describe(CUarray array) {
  CUDA_ARRAY3D_DESCRIPTOR d;
  GPUWRAP_CHECK(cuArray3DGetDescriptor(&d, array));
  std::ostringstream os;
  os << "CUarray " << d.Width << "x" << d.Height << "x" << d.Depth << ", " << d.NumChannels << " channel(s)";
  return os.str();
}

std::string describe(cudaArray_t array) {
  cudaChannelFormatDesc desc;
  cudaExtent extent;
  unsigned flags = 0;
  GPUWRAP_CHECK(cudaArrayGetInfo(&desc, &extent, &flags, array));
  std::ostringstream os;
  os << "cudaArray " << extent.width << "x" << extent.height << "x" << extent.depth << ", " << desc.x << "-bit x";
  return os.str();
}

Context::Context(int ordinal) {
  GPUWRAP_CHECK(cuInit(0));
  GPUWRAP_CHECK(cuDeviceGet(&device_, ordinal));
  GPUWRAP_CHECK(cuDevicePrimaryCtxRetain(&context_, device_));
  GPUWRAP_CHECK(cuCtxSetCurrent(context_));
}

Context::~Context() {
  if (context_) cuDevicePrimaryCtxRelease(device_);
}

Module::Module(const std::string &fatbinPath) { GPUWRAP_CHECK(cuModuleLoad(&module_, fatbinPath.c_str())); }

Module::Module(const std::vector<char> &image) { GPUWRAP_CHECK(cuModuleLoadData(&module_, image.data())); }

Module::~Module() {
  if (module_) cuModuleUnload(module_);
}

CUfunction Module::function(const char *name) const {
  CUfunction f;
  GPUWRAP_CHECK(cuModuleGetFunction(&f, module_, name));
  return f;
}

void Module::launch(const char *name, dim3 grid, dim3 block, void **args, size_t shared, CUstream stream) const {
  GPUWRAP_CHECK(cuLaunchKernel(function(name), grid.x, grid.y, grid.z, block.x, block.y, block.z,
                               static_cast<unsigned>(shared), stream, args, nullptr));
}

}  // namespace gpuwrap
