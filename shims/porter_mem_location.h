// porter shim: CUDA 12.2's memory locations for prefetch and advice (cudaMemPrefetchAsync_v2 and cudaMemAdvise_v2
// in CUDA 12.x, the only forms of cudaMemPrefetchAsync and cudaMemAdvise in CUDA 13), as overloads of HIP's
// device-number hipMemPrefetchAsync and hipMemAdvise (HIP 5.2 and 6.4 have only those).
//
// How this differs from CUDA: a device location prefetches to, or advises for, that device, exactly as HIP's
// device form does. HIP (5.2, 6.4) has no host location type: porter translates cudaMemLocationTypeHost,
// cudaMemLocationTypeHostNuma and cudaMemLocationTypeHostNumaCurrent to porter_mem_location_type_host (HIP's
// invalid type, which only these overloads read), and they pass hipCpuDeviceId, so a host NUMA node is not
// honoured: the memory goes to (or is advised for) the host as a whole. CUDA requires flags to be 0; they are
// ignored. Other location types return hipErrorInvalidValue, as CUDA does for them.
#ifndef PORTER_MEM_LOCATION_H
#define PORTER_MEM_LOCATION_H

#include <hip/hip_runtime.h>

static const hipMemLocationType porter_mem_location_type_host = hipMemLocationTypeInvalid;

namespace porter_mem_location {
inline hipError_t device_of(const hipMemLocation& location, int* device) {
    if (location.type == hipMemLocationTypeDevice) {
        *device = location.id;
        return hipSuccess;
    }
    if (location.type == porter_mem_location_type_host) {
        *device = hipCpuDeviceId;
        return hipSuccess;
    }
    return hipErrorInvalidValue;
}
}  // namespace porter_mem_location

inline hipError_t hipMemPrefetchAsync(const void* dev_ptr, size_t count, hipMemLocation location, unsigned int flags,
                                      hipStream_t stream = 0) {
    (void)flags;
    int device = 0;
    hipError_t status = porter_mem_location::device_of(location, &device);
    return status == hipSuccess ? hipMemPrefetchAsync(dev_ptr, count, device, stream) : status;
}

inline hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice, hipMemLocation location) {
    int device = 0;
    hipError_t status = porter_mem_location::device_of(location, &device);
    return status == hipSuccess ? hipMemAdvise(dev_ptr, count, advice, device) : status;
}

#endif  // PORTER_MEM_LOCATION_H
