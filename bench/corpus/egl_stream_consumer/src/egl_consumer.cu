// egl_consumer: attach CUDA as the consumer of an EGLStream created by a producer process
// (camera, decoder) and print statistics of every frame.
//   egl_consumer [frames] [timeout_us]
#include <cstdlib>
#include <cstring>

#include "egl_util.h"

static PFNEGLCREATESTREAMKHRPROC pEglCreateStreamKHR;
static PFNEGLDESTROYSTREAMKHRPROC pEglDestroyStreamKHR;

static bool loadExtensions() {
  pEglCreateStreamKHR = (PFNEGLCREATESTREAMKHRPROC)eglGetProcAddress("eglCreateStreamKHR");
  pEglDestroyStreamKHR = (PFNEGLDESTROYSTREAMKHRPROC)eglGetProcAddress("eglDestroyStreamKHR");
  return pEglCreateStreamKHR && pEglDestroyStreamKHR;
}

static bool consume(EGLStreamKHR stream, int frames, unsigned timeoutUs) {
  cudaEglStreamConnection conn;
  CUDA_EGL_CHECK(cudaEGLStreamConsumerConnect(&conn, stream));
  cudaStream_t cudaStream;
  CUDA_EGL_CHECK(cudaStreamCreate(&cudaStream));
  for (int f = 0; f < frames; ++f) {
    cudaGraphicsResource_t resource = nullptr;
    cudaError_t e = cudaEGLStreamConsumerAcquireFrame(&conn, &resource, &cudaStream, timeoutUs);
    if (e == cudaErrorLaunchTimeout) {
      printf("frame %d: producer timed out\n", f);
      break;
    }
    CUDA_EGL_CHECK(e);
    cudaEglFrame frame;
    CUDA_EGL_CHECK(cudaGraphicsResourceGetMappedEglFrame(&frame, resource, 0, 0));
    FrameStats s;
    if (!frameStatistics(frame, cudaStream, &s)) return false;
    printf("frame %3d: %ux%u %s, %u planes, luma mean %.1f [%u, %u]\n", f, s.width, s.height,
           frame.frameType == cudaEglFrameTypePitch ? "pitch" : "array", frame.planeCount,
           double(s.sum) / (double(s.width) * s.height), s.minLuma, s.maxLuma);
    CUDA_EGL_CHECK(cudaEGLStreamConsumerReleaseFrame(&conn, resource, &cudaStream));
  }
  CUDA_EGL_CHECK(cudaEGLStreamConsumerDisconnect(&conn));
  CUDA_EGL_CHECK(cudaStreamDestroy(cudaStream));
  return true;
}

// Single-image path: an EGLImage from another API, registered once.
bool statsForImage(EGLImageKHR image, EGLSyncKHR ready, FrameStats *out) {
  cudaEvent_t readyEvent;
  CUDA_EGL_CHECK(cudaEventCreateFromEGLSync(&readyEvent, ready, cudaEventDefault));
  cudaGraphicsResource_t res;
  CUDA_EGL_CHECK(cudaGraphicsEGLRegisterImage(&res, image, cudaGraphicsRegisterFlagsReadOnly));
  cudaEglFrame frame;
  CUDA_EGL_CHECK(cudaGraphicsResourceGetMappedEglFrame(&frame, res, 0, 0));
  cudaStream_t s;
  CUDA_EGL_CHECK(cudaStreamCreate(&s));
  CUDA_EGL_CHECK(cudaStreamWaitEvent(s, readyEvent, 0));
  bool ok = frameStatistics(frame, s, out);
  CUDA_EGL_CHECK(cudaGraphicsUnregisterResource(res));
  CUDA_EGL_CHECK(cudaEventDestroy(readyEvent));
  CUDA_EGL_CHECK(cudaStreamDestroy(s));
  return ok;
}

int main(int argc, char **argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 30;
  unsigned timeout = argc > 2 ? unsigned(atoi(argv[2])) : 16000;
  EGLDisplay display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr)) {
    fprintf(stderr, "no EGL display\n");
    return 1;
  }
  if (!loadExtensions()) {
    fprintf(stderr, "EGL_KHR_stream is not available\n");
    return 1;
  }
  const EGLint attrs[] = {EGL_STREAM_FIFO_LENGTH_KHR, 4, EGL_NONE};
  EGLStreamKHR stream = pEglCreateStreamKHR(display, attrs);
  if (stream == EGL_NO_STREAM_KHR) {
    fprintf(stderr, "eglCreateStreamKHR failed: 0x%x\n", eglGetError());
    return 1;
  }
  bool ok = consume(stream, frames, timeout);
  pEglDestroyStreamKHR(display, stream);
  eglTerminate(display);
  return ok ? 0 : 1;
}
