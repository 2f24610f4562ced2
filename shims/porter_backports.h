// porter shim: HIP runtime and driver calls that arrived after the ROCm this port is built with.
// Each block is guarded by HIP_VERSION and takes HIP's name through a macro, so a HIP that has the call after all
// (the first release is not always pinned) gets porter's version instead of a conflicting definition.
// How they differ from CUDA: hipEventRecordWithFlags with the external flag returns hipErrorNotSupported (no
// older HIP records external capture nodes), and the array descriptors report Flags 0 (older HIP does not keep them).
#pragma once
#include <hip/hip_runtime.h>

#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 50400000
// hipDrvGetErrorName/hipDrvGetErrorString (ROCm 5.4): CUresult is hipError_t in HIP, so the runtime's names apply
static inline hipError_t porter_drv_get_error_name(hipError_t error, const char** name) {
    if (name == nullptr) return hipErrorInvalidValue;
    *name = hipGetErrorName(error);
    return hipSuccess;
}
static inline hipError_t porter_drv_get_error_string(hipError_t error, const char** text) {
    if (text == nullptr) return hipErrorInvalidValue;
    *text = hipGetErrorString(error);
    return hipSuccess;
}
#define hipDrvGetErrorName porter_drv_get_error_name
#define hipDrvGetErrorString porter_drv_get_error_string
#endif

#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 50600000
// hipArrayGetDescriptor/hipArray3DGetDescriptor (ROCm 5.6), from the fields of HIP's own hipArray struct, which older
// HIP declares publicly; arrays made by the runtime API fill `desc`, the driver API fills Format and NumChannels
namespace porter_backports {
static inline void array_format(const hipArray* a, hipArray_Format* format, unsigned int* channels) {
    if (a->NumChannels != 0) {
        *format = a->Format;
        *channels = a->NumChannels;
        return;
    }
    const hipChannelFormatDesc& d = a->desc;
    *channels = (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0);
    const bool is_signed = d.f == hipChannelFormatKindSigned, is_float = d.f == hipChannelFormatKindFloat;
    switch (d.x) {
        case 8: *format = is_signed ? HIP_AD_FORMAT_SIGNED_INT8 : HIP_AD_FORMAT_UNSIGNED_INT8; break;
        case 16: *format = is_float ? HIP_AD_FORMAT_HALF : is_signed ? HIP_AD_FORMAT_SIGNED_INT16 : HIP_AD_FORMAT_UNSIGNED_INT16; break;
        default: *format = is_float ? HIP_AD_FORMAT_FLOAT : is_signed ? HIP_AD_FORMAT_SIGNED_INT32 : HIP_AD_FORMAT_UNSIGNED_INT32; break;
    }
}
}  // namespace porter_backports
static inline hipError_t porter_array_3d_get_descriptor(HIP_ARRAY3D_DESCRIPTOR* out, hipArray_t array) {
    if (out == nullptr || array == nullptr) return hipErrorInvalidValue;
    out->Width = array->width;
    out->Height = array->height;
    out->Depth = array->depth;
    out->Flags = 0;  // HIP before 5.6 does not keep an array's flags
    porter_backports::array_format(array, &out->Format, &out->NumChannels);
    return hipSuccess;
}
static inline hipError_t porter_array_get_descriptor(HIP_ARRAY_DESCRIPTOR* out, hipArray_t array) {
    if (out == nullptr || array == nullptr) return hipErrorInvalidValue;
    out->Width = array->width;
    out->Height = array->height;
    porter_backports::array_format(array, &out->Format, &out->NumChannels);
    return hipSuccess;
}
#define hipArray3DGetDescriptor porter_array_3d_get_descriptor
#define hipArrayGetDescriptor porter_array_get_descriptor
#endif

#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 60400000
// hipEventRecordWithFlags and its flags (seen first in ROCm 6.4's headers): the default flag is a plain record;
// hipEventRecordExternal (an event recorded as an external node of a stream capture) has no older counterpart
#ifndef hipEventRecordDefault
#define hipEventRecordDefault 0x00
#endif
#ifndef hipEventRecordExternal
#define hipEventRecordExternal 0x01
#endif
static inline hipError_t porter_event_record_with_flags(hipEvent_t event, hipStream_t stream = 0, unsigned int flags = 0) {
    if (flags == hipEventRecordDefault) return hipEventRecord(event, stream);
    return hipErrorNotSupported;
}
#define hipEventRecordWithFlags porter_event_record_with_flags
#endif
