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

#endif  // PORTER_ROCTX_H
