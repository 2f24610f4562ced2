// porter shim: the CUDA 3.x driver-API launch sequence (cuParamSetSize/cuParamSetv/cuParamSeti/cuParamSetf,
// cuFuncSetBlockShape, cuFuncSetSharedSize, cuLaunch/cuLaunchGrid/cuLaunchGridAsync), deprecated since CUDA 4 but
// still in CUDA 13's cuda.h and in real code (gpu-burn). HIP has none of it: this header keeps each function's
// parameter bytes, block shape and dynamic shared size as the calls set them, and launches with
// hipModuleLaunchKernel, passing the bytes as HIP_LAUNCH_PARAM_BUFFER_POINTER (the `extra` argument), which is
// how CUDA's driver read them too. cuFuncSetCacheConfig on a module function becomes porter_func_set_cache_config.
// How this differs from CUDA: the offsets the program passes are used as given, so a kernel whose parameters the
// AMD ABI lays out differently from the offsets the program computed reads them wrong (the same holds on CUDA:
// the program must match the kernel's layout; plain pointers and 4/8-byte scalars lay out alike on both).
// cuFuncSetCacheConfig has nothing to set on AMD GPUs (LDS is not carved out of L1) and answers hipSuccess. The
// state is per function and guarded by a mutex; a launch with no cuParamSetSize passes no parameters.
#ifndef PORTER_LEGACY_LAUNCH_H
#define PORTER_LEGACY_LAUNCH_H

#include <hip/hip_runtime.h>

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace porter_legacy {
struct launch_state {
    std::vector<unsigned char> params;
    unsigned block[3] = {1, 1, 1};
    unsigned shared_bytes = 0;
};
inline std::mutex& lock() {
    static std::mutex m;
    return m;
}
inline std::map<hipFunction_t, launch_state>& states() {
    static std::map<hipFunction_t, launch_state> s;
    return s;
}
inline hipError_t set_bytes(hipFunction_t f, int offset, const void* value, unsigned bytes) {
    if (f == nullptr || offset < 0 || (bytes != 0 && value == nullptr)) return hipErrorInvalidValue;
    std::lock_guard<std::mutex> guard(lock());
    std::vector<unsigned char>& p = states()[f].params;
    if (static_cast<size_t>(offset) + bytes > p.size()) return hipErrorInvalidValue;  // past cuParamSetSize
    if (bytes != 0) std::memcpy(p.data() + offset, value, bytes);
    return hipSuccess;
}
}  // namespace porter_legacy

inline hipError_t porter_param_set_size(hipFunction_t f, unsigned bytes) {
    if (f == nullptr) return hipErrorInvalidValue;
    std::lock_guard<std::mutex> guard(porter_legacy::lock());
    porter_legacy::states()[f].params.assign(bytes, 0);
    return hipSuccess;
}
inline hipError_t porter_param_setv(hipFunction_t f, int offset, void* value, unsigned bytes) {
    return porter_legacy::set_bytes(f, offset, value, bytes);
}
inline hipError_t porter_param_seti(hipFunction_t f, int offset, unsigned int value) {
    return porter_legacy::set_bytes(f, offset, &value, sizeof(value));
}
inline hipError_t porter_param_setf(hipFunction_t f, int offset, float value) {
    return porter_legacy::set_bytes(f, offset, &value, sizeof(value));
}
inline hipError_t porter_func_set_block_shape(hipFunction_t f, int x, int y, int z) {
    if (f == nullptr || x <= 0 || y <= 0 || z <= 0) return hipErrorInvalidValue;
    std::lock_guard<std::mutex> guard(porter_legacy::lock());
    porter_legacy::launch_state& s = porter_legacy::states()[f];
    s.block[0] = static_cast<unsigned>(x), s.block[1] = static_cast<unsigned>(y), s.block[2] = static_cast<unsigned>(z);
    return hipSuccess;
}
inline hipError_t porter_func_set_shared_size(hipFunction_t f, unsigned bytes) {
    if (f == nullptr) return hipErrorInvalidValue;
    std::lock_guard<std::mutex> guard(porter_legacy::lock());
    porter_legacy::states()[f].shared_bytes = bytes;
    return hipSuccess;
}
inline hipError_t porter_launch_grid_async(hipFunction_t f, int grid_width, int grid_height, hipStream_t stream) {
    if (f == nullptr || grid_width <= 0 || grid_height <= 0) return hipErrorInvalidValue;
    porter_legacy::launch_state s;
    {
        std::lock_guard<std::mutex> guard(porter_legacy::lock());
        s = porter_legacy::states()[f];  // a copy: the parameter bytes as they are at the launch, as in CUDA
    }
    size_t size = s.params.size();
    void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, s.params.data(), HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      HIP_LAUNCH_PARAM_END};
    return hipModuleLaunchKernel(f, static_cast<unsigned>(grid_width), static_cast<unsigned>(grid_height), 1,
                                 s.block[0], s.block[1], s.block[2], s.shared_bytes, stream, nullptr,
                                 size != 0 ? config : nullptr);
}
inline hipError_t porter_launch_grid(hipFunction_t f, int grid_width, int grid_height) {
    return porter_launch_grid_async(f, grid_width, grid_height, nullptr);
}
inline hipError_t porter_launch(hipFunction_t f) { return porter_launch_grid_async(f, 1, 1, nullptr); }
inline hipError_t porter_func_set_cache_config(hipFunction_t f, hipFuncCache_t) {
    return f == nullptr ? hipErrorInvalidValue : hipSuccess;
}

#endif  // PORTER_LEGACY_LAUNCH_H
