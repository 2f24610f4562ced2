// porter shim: libcu++'s cuda::std for the parts of it that are the C++ standard library's (<cuda/std/limits>,
// <cuda/std/type_traits>, <cuda/std/utility>, <cuda/std/array>, <cuda/std/tuple>, <cuda/std/cstdint>, ...), which
// no ROCm up to 6.4 ships. porter includes the standard header instead (porter/data/headers.toml) and makes its
// names visible in cuda::std, as libcu++ declares them there.
// How this differs from CUDA: libcu++ makes every one of them usable in device code. Here device code may use what
// clang's HIP mode allows of the host library: constexpr functions (numeric_limits, min/max, pair, tuple, array,
// the type traits: clang treats constexpr functions as host and device), and the math functions HIP overloads for
// the device; a non-constexpr library function called from a kernel is a compile error that names it.
#ifndef PORTER_CUDA_STD_H
#define PORTER_CUDA_STD_H
namespace cuda {
namespace std {
using namespace ::std;
}  // namespace std
}  // namespace cuda
#endif  // PORTER_CUDA_STD_H
