// omp_multi_gpu: y = a*x + y and dot(x, y) over all GPUs, one OpenMP thread driving each.
//   omp_multi_gpu [elements] [max_gpus]
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                                 \
  do {                                                                                              \
    cudaError_t e = (call);                                                                         \
    if (e != cudaSuccess) {                                                                         \
      fprintf(stderr, "[thread %d] %s:%d %s\n", omp_get_thread_num(), __FILE__, __LINE__,          \
              cudaGetErrorString(e));                                                               \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

__global__ void axpyDot(float a, const float *x, float *y, size_t n, double *globalDot) {
  __shared__ double part[256];
  double acc = 0.0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float v = a * x[i] + y[i];
    y[i] = v;
    acc += double(x[i]) * v;
  }
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  // every GPU adds into the same managed variable
  if (threadIdx.x == 0) atomicAdd_system(globalDot, part[0]);
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoull(argv[1], nullptr, 10) : (size_t(1) << 26);
  int maxGpus = argc > 2 ? atoi(argv[2]) : 16;
  int gpus = 0;
  CHECK(cudaGetDeviceCount(&gpus));
  gpus = gpus < maxGpus ? gpus : maxGpus;
  if (gpus < 1 || n == 0) {
    fprintf(stderr, "need at least one GPU and one element\n");
    return 1;
  }
  printf("%d GPU(s), %d CPU thread(s) available\n", gpus, omp_get_num_procs());

  std::vector<float> x(n), y(n);
#pragma omp parallel for
  for (long long i = 0; i < (long long)n; ++i) {
    x[i] = 1.0f;
    y[i] = float(i % 7);
  }
  double *dot;
  CHECK(cudaMallocManaged(&dot, sizeof(double)));
  *dot = 0.0;
  const float a = 2.0f;
  double t0 = omp_get_wtime();

  omp_set_num_threads(gpus);
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
    int nthreads = omp_get_num_threads();
    CHECK(cudaSetDevice(tid % gpus));
    size_t chunk = (n + nthreads - 1) / nthreads;
    size_t begin = tid * chunk, count = begin < n ? (begin + chunk < n ? chunk : n - begin) : 0;
    float *dx = nullptr, *dy = nullptr;
    if (count) {
      CHECK(cudaMalloc(&dx, count * sizeof(float)));
      CHECK(cudaMalloc(&dy, count * sizeof(float)));
      CHECK(cudaMemcpy(dx, x.data() + begin, count * sizeof(float), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dy, y.data() + begin, count * sizeof(float), cudaMemcpyHostToDevice));
      axpyDot<<<256, 256>>>(a, dx, dy, count, dot);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(y.data() + begin, dy, count * sizeof(float), cudaMemcpyDeviceToHost));
      CHECK(cudaFree(dx));
      CHECK(cudaFree(dy));
    }
#pragma omp critical
    printf("  thread %d on GPU %d: elements [%zu, %zu)\n", tid, tid % gpus, begin, begin + count);
  }
  for (int d = 0; d < gpus; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaDeviceSynchronize());
  }
  double t1 = omp_get_wtime();

  double ref = 0.0;
#pragma omp parallel for reduction(+ : ref)
  for (long long i = 0; i < (long long)n; ++i) ref += double(x[i]) * (2.0 + double(i % 7));
  bool ok = std::fabs(*dot - ref) <= 1e-6 * ref && y[n - 1] == 2.0f + float((n - 1) % 7);
  printf("dot = %.6e (expected %.6e) in %.3f s: %s\n", *dot, ref, t1 - t0, ok ? "PASSED" : "FAILED");
  CHECK(cudaFree(dot));
  return ok ? 0 : 1;
}
