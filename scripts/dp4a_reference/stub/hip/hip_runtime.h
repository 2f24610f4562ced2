// stand-in for HIP's header when the shim is compiled with nvcc against CUDA's own intrinsics
#pragma once
#include <cuda_runtime.h>
