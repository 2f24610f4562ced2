// porter shim: NVTX markers and ranges on rocTX, or on nothing where rocTX is not installed.
//
// nvtxRangePush/Pop, nvtxMark and nvtxRangeStart/End become rocTX's roctx* calls (porter/data/apis/nvtx.toml). ROCm
// installs rocTX with roctracer; where <roctracer/roctx.h> is missing (Debian's HIP packages, compile-only
// toolchains) this header declares the same calls as no-ops, so the port builds.
// How this differs from CUDA: without rocTX the markers label nothing (profilers see no ranges); the program's
// results are unchanged, as markers never affect them. rocTX cannot name streams, events, devices or threads:
// nvtxNameCudaStreamA and friends become porter_roctx_name, which does nothing either way. Link with -lroctx64 only
// where rocTX is installed.
#ifndef PORTER_ROCTX_H
#define PORTER_ROCTX_H

#if defined(__has_include)
#if __has_include(<roctracer/roctx.h>)
#include <roctracer/roctx.h>
#define PORTER_HAVE_ROCTX 1
#endif
#endif

#ifndef PORTER_HAVE_ROCTX
typedef unsigned long long roctx_range_id_t;
inline void roctxMarkA(const char*) {}
inline int roctxRangePushA(const char*) { return 0; }
inline int roctxRangePop() { return 0; }
inline roctx_range_id_t roctxRangeStartA(const char*) { return 0; }
inline void roctxRangeStop(roctx_range_id_t) {}
#define roctxMark(message) roctxMarkA(message)
#define roctxRangePush(message) roctxRangePushA(message)
#define roctxRangeStart(message) roctxRangeStartA(message)
#endif

template <class... Args> inline void porter_roctx_name(Args&&...) {}  // rocTX has no naming calls

// NVTX's event attributes (nvtxRangePushEx(&attrib) with a color, as NVIDIA's PUSH_RANGE macros write it): the
// same struct and constants under porter names; the Ex calls push, mark or start a rocTX range with the ASCII
// message. How it differs from CUDA: rocTX has no colors, categories or payloads, so those are dropped, and a
// wide-character or registered message gives an unnamed range.
#include <stdint.h>
#include <wchar.h>
#define PORTER_NVTX_VERSION 3
typedef union porter_nvtx_message_value {
    const char* ascii;
    const wchar_t* unicode;
    const void* registered;
} porter_nvtx_message_value_t;
typedef struct porter_nvtx_event_attributes {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType;
    porter_nvtx_message_value_t message;
} porter_nvtx_event_attributes_t;
#define PORTER_NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(porter_nvtx_event_attributes_t)))
enum porter_nvtx_color_type { PORTER_NVTX_COLOR_UNKNOWN = 0, PORTER_NVTX_COLOR_ARGB = 1 };
enum porter_nvtx_message_type {
    PORTER_NVTX_MESSAGE_UNKNOWN = 0,
    PORTER_NVTX_MESSAGE_TYPE_ASCII = 1,
    PORTER_NVTX_MESSAGE_TYPE_UNICODE = 2,
    PORTER_NVTX_MESSAGE_TYPE_REGISTERED = 3
};
enum porter_nvtx_payload_type {
    PORTER_NVTX_PAYLOAD_UNKNOWN = 0,
    PORTER_NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
    PORTER_NVTX_PAYLOAD_TYPE_INT64 = 2,
    PORTER_NVTX_PAYLOAD_TYPE_DOUBLE = 3,
    PORTER_NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
    PORTER_NVTX_PAYLOAD_TYPE_INT32 = 5,
    PORTER_NVTX_PAYLOAD_TYPE_FLOAT = 6
};
inline const char* porter_nvtx_message(const porter_nvtx_event_attributes_t* a) {
    return a != 0 && a->messageType == PORTER_NVTX_MESSAGE_TYPE_ASCII && a->message.ascii != 0 ? a->message.ascii : "";
}
inline int porter_nvtx_range_push_ex(const porter_nvtx_event_attributes_t* a) { return roctxRangePushA(porter_nvtx_message(a)); }
inline void porter_nvtx_mark_ex(const porter_nvtx_event_attributes_t* a) { roctxMarkA(porter_nvtx_message(a)); }
inline roctx_range_id_t porter_nvtx_range_start_ex(const porter_nvtx_event_attributes_t* a) {
    return roctxRangeStartA(porter_nvtx_message(a));
}

#endif  // PORTER_ROCTX_H
