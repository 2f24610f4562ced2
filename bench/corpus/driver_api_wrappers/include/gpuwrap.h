// gpuwrap: small RAII helpers for code that mixes the CUDA driver and runtime APIs.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuwrap {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string &what) : std::runtime_error(what) {}
};

// One name for both error types, so call sites do not care which API they used.
void check(CUresult result, const char *what);
void check(cudaError_t result, const char *what);

#define GPUWRAP_CHECK(x) ::gpuwrap::check((x), #x)

// Copies for either kind of device address.
void copyToDevice(CUdeviceptr dst, const void *src, size_t bytes);
void copyToDevice(void *dst, const void *src, size_t bytes);
void copyToHost(void *dst, CUdeviceptr src, size_t bytes);

// Human-readable array descriptions.
std::string describe(CUarray array);
std::string describe(cudaArray_t array);

class Context {
 public:
  explicit Context(int ordinal = 0);
  ~Context();
  CUdevice device() const { return device_; }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

class Module {
 public:
  explicit Module(const std::string &fatbinPath);
  explicit Module(const std::vector<char> &image);
  ~Module();
  CUfunction function(const char *name) const;
  void launch(const char *name, dim3 grid, dim3 block, void **args, size_t shared = 0, CUstream stream = nullptr) const;

 private:
  CUmodule module_ = nullptr;
};

}  // namespace gpuwrap
