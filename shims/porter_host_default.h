// porter shim: a kernel parameter's default argument that names a host variable
// (`template <class T> __global__ void k(T* out, const float* scale = d_scale)`, as llm.c's dev kernels do).
// nvcc evaluates default arguments where the launch is, on the host, and accepts them; clang checks them in the
// kernel's (device) context and rejects the host variable. PORTER_HOST_DEFAULT(var) is the variable in the host
// pass, where launches evaluate it, and a value-initialized stand-in of its type in the device pass, which never
// evaluates it.
// How it differs from CUDA: not for launches from host code; a launch from device code (dynamic parallelism, which
// HIP lacks) would get the stand-in.
#ifndef PORTER_HOST_DEFAULT_H
#define PORTER_HOST_DEFAULT_H

#ifdef __HIP_DEVICE_COMPILE__
#define PORTER_HOST_DEFAULT(var) (decltype(var){})
#else
#define PORTER_HOST_DEFAULT(var) (var)
#endif

#endif
