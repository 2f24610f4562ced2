// poisson_xt: solve laplace(u) = f on a periodic N^3 grid with FFTs split across GPUs.
//   poisson_xt [N] [num_gpus]
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#define CHECK_CUDA(x)                                                                         \
  do {                                                                                        \
    cudaError_t e = (x);                                                                      \
    if (e != cudaSuccess) {                                                                   \
      fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);     \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)
#define CHECK_CUFFT(x)                                                                        \
  do {                                                                                        \
    cufftResult r = (x);                                                                      \
    if (r != CUFFT_SUCCESS) {                                                                 \
      fprintf(stderr, "cuFFT error %d at %s:%d\n", int(r), __FILE__, __LINE__);              \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

// After a multi-GPU forward transform each GPU holds N/nGPUs planes along the first axis.
__global__ void spectralDivide(cufftComplex *data, int N, int xBegin, int xCount) {
  size_t idx = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  size_t total = size_t(xCount) * N * N;
  if (idx >= total) return;
  int z = idx % N, y = (idx / N) % N, x = int(idx / (size_t(N) * N)) + xBegin;
  auto wave = [N](int i) { return float(i <= N / 2 ? i : i - N); };
  float kx = wave(x), ky = wave(y), kz = wave(z);
  float k2 = kx * kx + ky * ky + kz * kz;
  float scale = (k2 > 0.f) ? -1.f / (k2 * float(N) * N * N) : 0.f;
  data[idx].x *= scale;
  data[idx].y *= scale;
}

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 64;
  int want = argc > 2 ? atoi(argv[2]) : 2;
  int available = 0;
  CHECK_CUDA(cudaGetDeviceCount(&available));
  if (N < 8 || want < 1) {
    fprintf(stderr, "usage: %s [N>=8] [num_gpus>=1]\n", argv[0]);
    return 2;
  }
  if (available < want) {
    printf("need %d GPUs, found %d: waiving\n", want, available);
    return 0;
  }
  std::vector<int> gpus(want);
  for (int i = 0; i < want; ++i) gpus[i] = i;

  // right-hand side: f = -3 sin(x) sin(y) sin(z)  =>  u = sin(x) sin(y) sin(z)
  const size_t cells = size_t(N) * N * N;
  std::vector<std::complex<float>> h(cells);
  const float dx = 2.f * 3.14159265f / N;
  for (int x = 0; x < N; ++x)
    for (int y = 0; y < N; ++y)
      for (int z = 0; z < N; ++z)
        h[(size_t(x) * N + y) * N + z] = -3.f * sinf(x * dx) * sinf(y * dx) * sinf(z * dx);

  cufftHandle plan;
  CHECK_CUFFT(cufftCreate(&plan));
  CHECK_CUFFT(cufftXtSetGPUs(plan, want, gpus.data()));
  std::vector<size_t> workSizes(want);
  CHECK_CUFFT(cufftMakePlan3d(plan, N, N, N, CUFFT_C2C, workSizes.data()));

  cudaLibXtDesc *desc = nullptr;
  CHECK_CUFFT(cufftXtMalloc(plan, &desc, CUFFT_XT_FORMAT_INPLACE));
  CHECK_CUFFT(cufftXtMemcpy(plan, desc, h.data(), CUFFT_COPY_HOST_TO_DEVICE));
  CHECK_CUFFT(cufftXtExecDescriptorC2C(plan, desc, desc, CUFFT_FORWARD));

  // the forward output is in shuffled order: each GPU owns a contiguous range of x planes
  int planesPer = N / want, extra = N % want, begin = 0;
  for (int g = 0; g < desc->descriptor->nGPUs; ++g) {
    int count = planesPer + (g < extra ? 1 : 0);
    CHECK_CUDA(cudaSetDevice(desc->descriptor->GPUs[g]));
    size_t n = size_t(count) * N * N;
    spectralDivide<<<(n + 255) / 256, 256>>>(static_cast<cufftComplex *>(desc->descriptor->data[g]), N, begin,
                                             count);
    CHECK_CUDA(cudaGetLastError());
    begin += count;
  }
  for (int g = 0; g < desc->descriptor->nGPUs; ++g) {
    CHECK_CUDA(cudaSetDevice(desc->descriptor->GPUs[g]));
    CHECK_CUDA(cudaDeviceSynchronize());
  }

  CHECK_CUFFT(cufftXtExecDescriptorC2C(plan, desc, desc, CUFFT_INVERSE));
  CHECK_CUFFT(cufftXtMemcpy(plan, h.data(), desc, CUFFT_COPY_DEVICE_TO_HOST));

  double maxErr = 0;
  for (int x = 0; x < N; ++x)
    for (int y = 0; y < N; ++y)
      for (int z = 0; z < N; ++z) {
        float exact = sinf(x * dx) * sinf(y * dx) * sinf(z * dx);
        maxErr = fmax(maxErr, fabs(h[(size_t(x) * N + y) * N + z].real() - exact));
      }
  printf("N=%d on %d GPU(s): max error %.3e\n", N, want, maxErr);
  CHECK_CUFFT(cufftXtFree(desc));
  CHECK_CUFFT(cufftDestroy(plan));
  return maxErr < 1e-3 ? 0 : 1;
}
