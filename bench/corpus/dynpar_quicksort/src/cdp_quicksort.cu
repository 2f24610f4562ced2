// cdp_quicksort: three-way quicksort whose partitions launch the sorts of their outer parts from the GPU.
//   cdp_quicksort [-n elements] [-v]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define DEPTH_LIMIT 20
#define SMALL_RANGE 24

#define checkCudaErrors(call)                                                                  \
  do {                                                                                         \
    cudaError_t err = call;                                                                    \
    if (err != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #call,                    \
              cudaGetErrorString(err));                                                        \
      exit(EXIT_FAILURE);                                                                      \
    }                                                                                          \
  } while (0)

__device__ void insertionSortRange(unsigned *a, int lo, int hi) {
  for (int i = lo + 1; i <= hi; ++i) {
    unsigned key = a[i];
    int j = i - 1;
    while (j >= lo && a[j] > key) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = key;
  }
}

// Median of three, then a three-way (Dijkstra) partition: [lo, lt) < p, [lt, gt] == p, (gt, hi] > p.
__device__ void partition3(unsigned *a, int lo, int hi, int *ltOut, int *gtOut) {
  int mid = lo + (hi - lo) / 2;
  unsigned x = a[lo], y = a[mid], z = a[hi];
  unsigned p = (x < y) ? ((y < z) ? y : (x < z ? z : x)) : ((x < z) ? x : (y < z ? z : y));
  int lt = lo, i = lo, gt = hi;
  while (i <= gt) {
    if (a[i] < p) {
      unsigned t = a[lt];
      a[lt++] = a[i];
      a[i++] = t;
    } else if (a[i] > p) {
      unsigned t = a[gt];
      a[gt--] = a[i];
      a[i] = t;
    } else {
      ++i;
    }
  }
  *ltOut = lt;
  *gtOut = gt;
}

__device__ unsigned long long g_childLaunches = 0;

// Sorts a[lo..hi]; the two outer parts are handed to child grids on their own device streams.
__global__ void dpSort(unsigned *a, int lo, int hi, int depth) {
  if (hi - lo < SMALL_RANGE || depth >= DEPTH_LIMIT) {
    insertionSortRange(a, lo, hi);
    return;
  }
  int lt, gt;
  partition3(a, lo, hi, &lt, &gt);
  if (lo < lt - 1) {
    cudaStream_t left;
    cudaStreamCreateWithFlags(&left, cudaStreamNonBlocking);
    dpSort<<<1, 1, 0, left>>>(a, lo, lt - 1, depth + 1);
    cudaStreamDestroy(left);
    atomicAdd(&g_childLaunches, 1ull);
  }
  if (gt + 1 < hi) {
    cudaStream_t right;
    cudaStreamCreateWithFlags(&right, cudaStreamNonBlocking);
    dpSort<<<1, 1, 0, right>>>(a, gt + 1, hi, depth + 1);
    cudaStreamDestroy(right);
    atomicAdd(&g_childLaunches, 1ull);
  }
}

// Entry grid: starts the recursion fire-and-forget so the host sees one launch.
__global__ void dpSortRoot(unsigned *a, int n) {
  dpSort<<<1, 1, 0, cudaStreamFireAndForget>>>(a, 0, n - 1, 0);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) printf("root launch failed: %d\n", int(e));
}

static void sortOnDevice(unsigned *data, unsigned n) {
  checkCudaErrors(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, DEPTH_LIMIT));
  checkCudaErrors(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 1 << 15));
  dpSortRoot<<<1, 1>>>(data, int(n));
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
  sortOnDevice(d, n);
  cudaEventRecord(t1);
  cudaEventSynchronize(t1);
  float ms;
  cudaEventElapsedTime(&ms, t0, t1);

  std::vector<unsigned> out(n);
  checkCudaErrors(cudaMemcpy(out.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long launches = 0;
  checkCudaErrors(cudaMemcpyFromSymbol(&launches, g_childLaunches, sizeof(launches)));
  std::sort(h.begin(), h.end());
  bool ok = out == h;
  if (verbose)
    for (unsigned i = 0; i < std::min(n, 16u); ++i) printf("%u ", out[i]);
  printf("\nsorted %u values in %.2f ms with %llu child grids: %s\n", n, ms, launches, ok ? "PASSED" : "FAILED");
  checkCudaErrors(cudaFree(d));
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
