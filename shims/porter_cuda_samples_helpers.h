// porter shim: the parts of cuda-samples' Common/ helpers (helper_cuda.h, helper_string.h, helper_timer.h,
// helper_functions.h) that projects include from a CUDA samples install without shipping them: error checks
// (checkCudaErrors, getLastCudaError), device choice (findCudaDevice, gpuDeviceInit, gpuGetMaxGflopsDeviceId),
// command-line flags (checkCmdLineFlag, getCmdLineArgument*), and the stop-watch timers (sdkCreateTimer...).
// Written for porter on HIP from the helpers' documented behaviour; a project that has its own copy keeps it.
// How it differs from CUDA: _ConvertSMVer2Cores answers 64 for AMD GPUs (the stream processors of a compute unit;
// CUDA's table knows NVIDIA's SM versions only), and _ConvertSMVer2ArchName the gcnArchName; the image, GL and
// multi-process helpers (helper_image.h, helper_gl.h) are not here.
#ifndef PORTER_CUDA_SAMPLES_HELPERS_H
#define PORTER_CUDA_SAMPLES_HELPERS_H

#include <hip/hip_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif
#ifndef STRCASECMP
#define STRCASECMP strcasecmp
#endif
#ifndef STRNCASECMP
#define STRNCASECMP strncasecmp
#endif

// ---- helper_string.h: flags written -name or --name, values -name=value; names compare case-insensitively
inline int stringRemoveDelimiter(char delimiter, const char* string) {
    int start = 0;
    while (string[start] == delimiter) ++start;
    return string[start] == '\0' ? 0 : start;  // a lone "-" or "--" is not a flag
}

inline int getFileExtension(char* filename, char** extension) {
    int length = static_cast<int>(strlen(filename));
    while (length > 0 && filename[length - 1] != '.') --length;
    if (length == 0) return 0;
    *extension = &filename[length];
    return length;
}

inline bool checkCmdLineFlag(const int argc, const char** argv, const char* string_ref) {
    const size_t length = strlen(string_ref);
    for (int i = 1; i < argc; ++i) {
        const char* arg = &argv[i][stringRemoveDelimiter('-', argv[i])];
        const char* equal = strchr(arg, '=');
        const size_t arg_length = equal == nullptr ? strlen(arg) : static_cast<size_t>(equal - arg);
        if (arg_length == length && STRNCASECMP(arg, string_ref, length) == 0) return true;
    }
    return false;
}

// the text after "name" (and its '='), or nullptr when no argument starts with the name
inline const char* porter_cmdline_value(const int argc, const char** argv, const char* string_ref) {
    const size_t length = strlen(string_ref);
    for (int i = 1; i < argc; ++i) {
        const char* arg = &argv[i][stringRemoveDelimiter('-', argv[i])];
        if (STRNCASECMP(arg, string_ref, length) == 0) return arg[length] == '=' ? arg + length + 1 : arg + length;
    }
    return nullptr;
}

template <class T>
inline bool getCmdLineArgumentValue(const int argc, const char** argv, const char* string_ref, T* value) {
    const char* text = porter_cmdline_value(argc, argv, string_ref);
    if (text == nullptr) return false;
    *value = static_cast<T>(*text ? atof(text) : 0.0);
    return true;
}

inline int getCmdLineArgumentInt(const int argc, const char** argv, const char* string_ref) {
    const char* text = porter_cmdline_value(argc, argv, string_ref);
    return text != nullptr && *text ? atoi(text) : 0;  // 0 when absent or empty, as cuda-samples'
}

inline float getCmdLineArgumentFloat(const int argc, const char** argv, const char* string_ref) {
    const char* text = porter_cmdline_value(argc, argv, string_ref);
    return text != nullptr && *text ? static_cast<float>(atof(text)) : 0.0f;
}

inline bool getCmdLineArgumentString(const int argc, const char** argv, const char* string_ref, char** string_retval) {
    const char* text = porter_cmdline_value(argc, argv, string_ref);
    if (text == nullptr) {
        *string_retval = nullptr;
        return false;
    }
    *string_retval = const_cast<char*>(text);
    return true;
}

// ---- helper_timer.h: wall-clock stop watches in milliseconds
class StopWatchInterface {
  public:
    void start() { begin_ = std::chrono::steady_clock::now(); running_ = true; }
    void stop() {
        if (!running_) return;
        last_ = elapsed_ms();
        total_ += last_;
        running_ = false;
        ++sessions_;
    }
    void reset() {
        total_ = last_ = 0.0f;
        sessions_ = 0;
        if (running_) begin_ = std::chrono::steady_clock::now();
    }
    float getTime() const { return running_ ? total_ + elapsed_ms() : total_; }  // ms, the running session too
    float getAverageTime() const { return sessions_ > 0 ? total_ / static_cast<float>(sessions_) : 0.0f; }

  private:
    float elapsed_ms() const {
        return std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - begin_).count();
    }
    std::chrono::steady_clock::time_point begin_{};
    float total_ = 0.0f, last_ = 0.0f;
    int sessions_ = 0;
    bool running_ = false;
};

inline bool sdkCreateTimer(StopWatchInterface** timer) { *timer = new StopWatchInterface(); return *timer != nullptr; }
inline bool sdkDeleteTimer(StopWatchInterface** timer) {
    delete *timer;
    *timer = nullptr;
    return true;
}
inline bool sdkStartTimer(StopWatchInterface** timer) { if (*timer) (*timer)->start(); return true; }
inline bool sdkStopTimer(StopWatchInterface** timer) { if (*timer) (*timer)->stop(); return true; }
inline bool sdkResetTimer(StopWatchInterface** timer) { if (*timer) (*timer)->reset(); return true; }
inline float sdkGetTimerValue(StopWatchInterface** timer) { return *timer ? (*timer)->getTime() : 0.0f; }
inline float sdkGetAverageTimerValue(StopWatchInterface** timer) { return *timer ? (*timer)->getAverageTime() : 0.0f; }

// ---- helper_cuda.h: errors and devices
template <class T>
inline const char* _cudaGetErrorEnum(T) { return "<unknown>"; }  // a status type with no name table here
inline const char* _cudaGetErrorEnum(hipError_t error) { return hipGetErrorName(error); }
#ifdef HIPBLAS_H
inline const char* _cudaGetErrorEnum(hipblasStatus_t error) { return hipblasStatusToString(error); }
#endif

template <typename T>
void check(T result, char const* const func, const char* const file, int const line) {
    if (result) {
        fprintf(stderr, "HIP error at %s:%d code=%d(%s) \"%s\" \n", file, line, static_cast<int>(result),
                _cudaGetErrorEnum(result), func);
        exit(EXIT_FAILURE);
    }
}
#ifndef checkCudaErrors
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
#endif

inline void __getLastCudaError(const char* errorMessage, const char* file, const int line) {
    hipError_t err = hipGetLastError();
    if (err != hipSuccess) {
        fprintf(stderr, "%s(%i) : getLastCudaError() HIP error : %s : (%d) %s.\n", file, line, errorMessage,
                static_cast<int>(err), hipGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}
inline void __printLastCudaError(const char* errorMessage, const char* file, const int line) {
    hipError_t err = hipGetLastError();
    if (err != hipSuccess) {
        fprintf(stderr, "%s(%i) : getLastCudaError() HIP error : %s : (%d) %s.\n", file, line, errorMessage,
                static_cast<int>(err), hipGetErrorString(err));
    }
}
#ifndef getLastCudaError
#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)
#endif
#ifndef printLastCudaError
#define printLastCudaError(msg) __printLastCudaError(msg, __FILE__, __LINE__)
#endif

inline int _ConvertSMVer2Cores(int major, int minor) {
    (void)major;
    (void)minor;
    return 64;  // stream processors per compute unit on AMD GPUs (CDNA and RDNA alike)
}

inline const char* _ConvertSMVer2ArchName(int major, int minor) {
    (void)major;
    (void)minor;
    static thread_local hipDeviceProp_t prop;
    int dev = 0;
    if (hipGetDevice(&dev) != hipSuccess || hipGetDeviceProperties(&prop, dev) != hipSuccess) return "AMD GPU";
    return prop.gcnArchName;
}

inline int gpuDeviceInit(int devID) {
    int count = 0;
    checkCudaErrors(hipGetDeviceCount(&count));
    if (count == 0) {
        fprintf(stderr, "gpuDeviceInit() HIP error: no devices supporting HIP.\n");
        exit(EXIT_FAILURE);
    }
    if (devID < 0) devID = 0;
    if (devID > count - 1) {
        fprintf(stderr, "\n>> %d HIP capable GPU device(s) detected. <<\n", count);
        fprintf(stderr, ">> gpuDeviceInit (-device=%d) is not a valid GPU device. <<\n\n", devID);
        return -devID;
    }
    checkCudaErrors(hipSetDevice(devID));
    hipDeviceProp_t prop;
    checkCudaErrors(hipGetDeviceProperties(&prop, devID));
    printf("gpuDeviceInit() HIP Device [%d]: \"%s\"\n", devID, prop.name);
    return devID;
}

inline int gpuGetMaxGflopsDeviceId() {
    int count = 0, best = 0;
    unsigned long long best_perf = 0;
    checkCudaErrors(hipGetDeviceCount(&count));
    if (count == 0) {
        fprintf(stderr, "gpuGetMaxGflopsDeviceId() HIP error: no devices supporting HIP.\n");
        exit(EXIT_FAILURE);
    }
    for (int dev = 0; dev < count; ++dev) {
        int units = 0, clock = 0;
        checkCudaErrors(hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, dev));
        checkCudaErrors(hipDeviceGetAttribute(&clock, hipDeviceAttributeClockRate, dev));
        const unsigned long long perf = static_cast<unsigned long long>(units) * _ConvertSMVer2Cores(0, 0) * clock;
        if (perf > best_perf) {
            best_perf = perf;
            best = dev;
        }
    }
    return best;
}

inline int findCudaDevice(int argc, const char** argv) {
    int devID = 0;
    if (checkCmdLineFlag(argc, argv, "device")) {
        devID = getCmdLineArgumentInt(argc, argv, "device=");
        if (devID < 0) {
            printf("Invalid command line parameter\n ");
            exit(EXIT_FAILURE);
        }
        devID = gpuDeviceInit(devID);
        if (devID < 0) {
            printf("exiting...\n");
            exit(EXIT_FAILURE);
        }
    } else {
        devID = gpuGetMaxGflopsDeviceId();
        checkCudaErrors(hipSetDevice(devID));
        hipDeviceProp_t prop;
        checkCudaErrors(hipGetDeviceProperties(&prop, devID));
        printf("GPU Device %d: \"%s\" (%s)\n\n", devID, prop.name, prop.gcnArchName);
    }
    return devID;
}

#endif  // PORTER_CUDA_SAMPLES_HELPERS_H
