// cdp_quicksort: quicksort where every partition launches the sorts of its halves from the GPU.
//   cdp_quicksort [-n elements] [-v]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define MAX_DEPTH 16
#define INSERTION_SORT 32

#define checkCudaErrors(call)                                                                  \
  do {                                                                                         \
    cudaError_t err = call;                                                                    \
    if (err != cudaSuccess) {                                                                  \
      fprintf(stderr, "CUDA error at %s:%d (%s): %s\n", __FILE__, __LINE__, #call,             \
              cudaGetErrorString(err));                                                        \
      exit(EXIT_FAILURE);                                                                      \
    }                                                                                          \
  } while (0)

__device__ void selectionSort(unsigned *data, int left, int right) {
  for (int i = left; i <= right; ++i) {
    unsigned minVal = data[i];
    int minIdx = i;
    for (int j = i + 1; j <= right; ++j) {
      if (data[j] < minVal) {
        minIdx = j;
        minVal = data[j];
      }
    }
    if (i != minIdx) {
      data[minIdx] = data[i];
      data[i] = minVal;
    }
  }
}

__global__ void cdpSimpleQuicksort(unsigned *data, int left, int right, int depth) {
  if (depth >= MAX_DEPTH || right - left <= INSERTION_SORT) {
    selectionSort(data, left, right);
    return;
  }
  unsigned *lptr = data + left;
  unsigned *rptr = data + right;
  unsigned pivot = data[(left + right) / 2];
  while (lptr <= rptr) {
    unsigned lval = *lptr, rval = *rptr;
    while (lval < pivot) {
      lptr++;
      lval = *lptr;
    }
    while (rval > pivot) {
      rptr--;
      rval = *rptr;
    }
    if (lptr <= rptr) {
      *lptr++ = rval;
      *rptr-- = lval;
    }
  }
  int nright = rptr - data;
  int nleft = lptr - data;

  // Sort the two halves concurrently: one child per device-side stream.
  if (left < nright) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cdpSimpleQuicksort<<<1, 1, 0, s>>>(data, left, nright, depth + 1);
    cudaStreamDestroy(s);
  }
  if (nleft < right) {
    cudaStream_t s1;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cdpSimpleQuicksort<<<1, 1, 0, s1>>>(data, nleft, right, depth + 1);
    cudaStreamDestroy(s1);
  }
}

// Counts how many launches the device made: checks that the child launches really happened.
__device__ unsigned long long g_launches = 0;

__global__ void countingQuicksort(unsigned *data, int left, int right, int depth) {
  atomicAdd(&g_launches, 1ull);
  if (right - left <= INSERTION_SORT || depth >= MAX_DEPTH) {
    selectionSort(data, left, right);
    return;
  }
  cdpSimpleQuicksort<<<1, 1, 0, cudaStreamFireAndForget>>>(data, left, right, depth);
  if (cudaGetLastError() != cudaSuccess) printf("device launch failed at depth %d\n", depth);
}

static void runQsort(unsigned *data, unsigned n) {
  checkCudaErrors(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, MAX_DEPTH));
  checkCudaErrors(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 1 << 16));
  countingQuicksort<<<1, 1>>>(data, 0, n - 1, 0);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaDeviceSynchronize());
}

int main(int argc, char **argv) {
  unsigned n = 128 * 1024;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) n = strtoul(argv[++i], nullptr, 10);
    else if (!strcmp(argv[i], "-v")) verbose = true;
    else {
      printf("usage: %s [-n elements] [-v]\n", argv[0]);
      return EXIT_FAILURE;
    }
  }
  int device = 0;
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, device));
  if (prop.major < 5) {
    printf("dynamic parallelism needs sm_50 or newer, waiving\n");
    return EXIT_SUCCESS;
  }
  std::vector<unsigned> h(n);
  srand(2);
  for (unsigned &v : h) v = rand() % n;
  unsigned *d;
  checkCudaErrors(cudaMalloc(&d, n * sizeof(unsigned)));
  checkCudaErrors(cudaMemcpy(d, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));

  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaEventRecord(t0);
  runQsort(d, n);
  cudaEventRecord(t1);
  cudaEventSynchronize(t1);
  float ms;
  cudaEventElapsedTime(&ms, t0, t1);

  std::vector<unsigned> out(n);
  checkCudaErrors(cudaMemcpy(out.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long launches = 0;
  checkCudaErrors(cudaMemcpyFromSymbol(&launches, g_launches, sizeof(launches)));
  std::sort(h.begin(), h.end());
  bool ok = out == h;
  if (verbose)
    for (unsigned i = 0; i < std::min(n, 16u); ++i) printf("%u ", out[i]);
  printf("\nsorted %u values in %.2f ms (%llu top-level launches): %s\n", n, ms, launches, ok ? "PASSED" : "FAILED");
  checkCudaErrors(cudaFree(d));
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
