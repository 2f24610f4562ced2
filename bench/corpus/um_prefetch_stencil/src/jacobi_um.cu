// Jacobi iteration for the 2D heat equation on unified (managed) memory.
// The grid lives in managed memory; we tell the driver where the data should live
// with cudaMemAdvise and move it ahead of use with cudaMemPrefetchAsync.
//
//   jacobi_um [nx] [ny] [iterations] [--no-prefetch]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                 \
  do {                                                                                           \
    cudaError_t e = (x);                                                                         \
    if (e != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));     \
      std::exit(EXIT_FAILURE);                                                                   \
    }                                                                                            \
  } while (0)

constexpr int BX = 32;
constexpr int BY = 8;

__global__ void jacobiStep(const float *__restrict__ in, float *__restrict__ out, const float *__restrict__ k,
                           int nx, int ny, float *residual) {
  __shared__ float blockMax[BX * BY];
  int x = blockIdx.x * BX + threadIdx.x;
  int y = blockIdx.y * BY + threadIdx.y;
  int t = threadIdx.y * BX + threadIdx.x;
  float diff = 0.f;
  if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
    int i = y * nx + x;
    float v = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
    v = in[i] + k[i] * (v - in[i]);
    out[i] = v;
    diff = fabsf(v - in[i]);
  }
  blockMax[t] = diff;
  __syncthreads();
  for (int s = (BX * BY) / 2; s > 0; s >>= 1) {
    if (t < s) blockMax[t] = fmaxf(blockMax[t], blockMax[t + s]);
    __syncthreads();
  }
  if (t == 0) atomicMax(reinterpret_cast<int *>(residual), __float_as_int(blockMax[0]));
}

static void initialize(float *u, float *k, int nx, int ny) {
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      int i = y * nx + x;
      u[i] = (y == 0) ? 100.f : 0.f;  // hot top edge
      k[i] = (x > nx / 3 && x < 2 * nx / 3) ? 0.5f : 1.0f;  // a slow inclusion in the middle
    }
}

static cudaMemLocation deviceLocation(int device) {
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = device;
  return loc;
}

static cudaMemLocation hostLocation() {
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeHost;
  loc.id = 0;
  return loc;
}

int main(int argc, char **argv) {
  int nx = argc > 1 ? std::atoi(argv[1]) : 2048;
  int ny = argc > 2 ? std::atoi(argv[2]) : 2048;
  int iters = argc > 3 ? std::atoi(argv[3]) : 500;
  bool prefetch = !(argc > 4 && !std::strcmp(argv[4], "--no-prefetch"));
  if (nx < 3 || ny < 3 || iters < 1) {
    std::fprintf(stderr, "usage: %s [nx>=3] [ny>=3] [iterations>=1] [--no-prefetch]\n", argv[0]);
    return 2;
  }

  int device = 0;
  CHECK(cudaGetDevice(&device));
  int concurrent = 0;
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
  if (!concurrent) {
    std::printf("device %d has no concurrent managed access: prefetch and advice are hints only\n", device);
  }

  const size_t n = size_t(nx) * ny;
  float *a, *b, *k, *residual;
  CHECK(cudaMallocManaged(&a, n * sizeof(float)));
  CHECK(cudaMallocManaged(&b, n * sizeof(float)));
  CHECK(cudaMallocManaged(&k, n * sizeof(float)));
  CHECK(cudaMallocManaged(&residual, sizeof(float)));
  initialize(a, k, nx, ny);
  std::memcpy(b, a, n * sizeof(float));

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  if (concurrent) {
    // the coefficients are only read: let every processor keep a copy
    CHECK(cudaMemAdvise(k, n * sizeof(float), cudaMemAdviseSetReadMostly, deviceLocation(device)));
    CHECK(cudaMemAdvise(a, n * sizeof(float), cudaMemAdviseSetPreferredLocation, deviceLocation(device)));
    CHECK(cudaMemAdvise(b, n * sizeof(float), cudaMemAdviseSetPreferredLocation, deviceLocation(device)));
    CHECK(cudaMemAdvise(residual, sizeof(float), cudaMemAdviseSetAccessedBy, hostLocation()));
  }
  if (prefetch && concurrent) {
    CHECK(cudaMemPrefetchAsync(a, n * sizeof(float), deviceLocation(device), 0, stream));
    CHECK(cudaMemPrefetchAsync(b, n * sizeof(float), deviceLocation(device), 0, stream));
    CHECK(cudaMemPrefetchAsync(k, n * sizeof(float), deviceLocation(device), 0, stream));
  }

  dim3 block(BX, BY);
  dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, stream));
  float last = 0.f;
  for (int it = 0; it < iters; ++it) {
    *residual = 0.f;
    jacobiStep<<<grid, block, 0, stream>>>(a, b, k, nx, ny, residual);
    float *tmp = a;
    a = b;
    b = tmp;
    if (it % 100 == 99) {
      CHECK(cudaStreamSynchronize(stream));
      last = *residual;
      std::printf("iteration %5d  residual %.6e\n", it + 1, last);
    }
  }
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaGetLastError());
  float ms = 0.f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  if (prefetch && concurrent) {
    // bring the result home before the host reads it
    CHECK(cudaMemPrefetchAsync(a, n * sizeof(float), hostLocation(), 0, stream));
    CHECK(cudaStreamSynchronize(stream));
  }
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += a[i];
  std::printf("%dx%d, %d iterations: %.2f ms (%.2f GLUP/s), mean temperature %.4f\n", nx, ny, iters, ms,
              double(n) * iters / (ms * 1e-3) / 1e9, sum / double(n));

  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(k));
  CHECK(cudaFree(residual));
  return last < 1e30f ? 0 : 1;
}
