// p2p_bandwidth: unidirectional and bidirectional copy bandwidth between every pair of GPUs,
// with and without peer access, plus a latency test with tiny copies.
//
//   p2p_bandwidth [--mb 64] [--reps 10] [--no-latency]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.cuh"

struct Options {
  size_t bytes = 64u << 20;
  int reps = 10;
  bool latency = true;
};

static Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--mb") && i + 1 < argc) o.bytes = size_t(atoi(argv[++i])) << 20;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) o.reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-latency")) o.latency = false;
    else {
      fprintf(stderr, "usage: %s [--mb N] [--reps N] [--no-latency]\n", argv[0]);
      exit(2);
    }
  }
  return o;
}

// Keeps the GPU busy until the host flag flips, so all copies are queued before timing starts.
__global__ void delay(volatile int *flag, unsigned long long timeout_clocks = 10000000) {
  long long start = clock64();
  while (!*flag) {
    if (clock64() - start > (long long)timeout_clocks) break;
  }
}

static void enablePeers(int n, bool on) {
  for (int i = 0; i < n; ++i) {
    CUDA_CHECK(cudaSetDevice(i));
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, i, j));
      if (!can) continue;
      if (on) CUDA_WARN(cudaDeviceEnablePeerAccess(j, 0));
      else CUDA_WARN(cudaDeviceDisablePeerAccess(j));
    }
  }
}

static double measure(int src, int dst, const Options &o, bool bidirectional, std::vector<void *> &bufs,
                      std::vector<cudaStream_t> &streams, int *flag) {
  cudaEvent_t start, stop, peerDone;
  CUDA_CHECK(cudaSetDevice(src));
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaSetDevice(dst));
  CUDA_CHECK(cudaEventCreateWithFlags(&peerDone, cudaEventDisableTiming));

  CUDA_CHECK(cudaSetDevice(src));
  *flag = 0;
  delay<<<1, 1, 0, streams[src]>>>(flag);
  CUDA_CHECK(cudaEventRecord(start, streams[src]));
  if (bidirectional) {
    // the reverse direction runs on the destination's stream and must start with ours
    CUDA_CHECK(cudaStreamWaitEvent(streams[dst], start));
  }
  for (int r = 0; r < o.reps; ++r) {
    CUDA_CHECK(cudaMemcpyPeerAsync(bufs[dst], dst, bufs[src], src, o.bytes, streams[src]));
    if (bidirectional) {
      CUDA_CHECK(cudaMemcpyPeerAsync(bufs[src], src, bufs[dst], dst, o.bytes, streams[dst]));
    }
  }
  if (bidirectional) {
    CUDA_CHECK(cudaEventRecord(peerDone, streams[dst]));
    CUDA_CHECK(cudaStreamWaitEvent(streams[src], peerDone));
  }
  CUDA_CHECK(cudaEventRecord(stop, streams[src]));
  *flag = 1;
  CUDA_CHECK(cudaStreamSynchronize(streams[src]));

  float ms = 0.f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaEventDestroy(peerDone));
  double bytes = double(o.bytes) * o.reps * (bidirectional ? 2 : 1);
  return bytes / (ms * 1e-3) / 1e9;
}

static void printMatrix(const char *title, const std::vector<double> &m, int n, const char *unit) {
  printf("\n%s (%s)\n   D\\D", title, unit);
  for (int j = 0; j < n; ++j) printf("%8d ", j);
  printf("\n");
  for (int i = 0; i < n; ++i) {
    printf("%6d ", i);
    for (int j = 0; j < n; ++j) printf("%8.2f ", m[i * n + j]);
    printf("\n");
  }
}

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  int n = 0;
  CUDA_CHECK(cudaGetDeviceCount(&n));
  if (n < 1) {
    printf("no CUDA devices\n");
    return 0;
  }
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    printf("Device %d: %s, %d copy engine(s), UVA %s\n", d, prop.name, prop.asyncEngineCount,
           prop.unifiedAddressing ? "yes" : "no");
    if (prop.asyncEngineCount < 2) {
      printf("  note: bidirectional figures are limited by a single copy engine\n");
    }
  }

  std::vector<void *> bufs(n);
  std::vector<cudaStream_t> streams(n);
  for (int d = 0; d < n; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMalloc(&bufs[d], o.bytes));
    CUDA_CHECK(cudaMemset(bufs[d], d, o.bytes));
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking));
  }
  int *flag = nullptr;
  CUDA_CHECK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocPortable));

  std::vector<double> bw(n * n);
  for (int peer = 0; peer < 2; ++peer) {
    enablePeers(n, peer == 1);
    for (int bidir = 0; bidir < 2; ++bidir) {
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) bw[i * n + j] = measure(i, j, o, bidir == 1, bufs, streams, flag);
      char title[128];
      snprintf(title, sizeof(title), "%s bandwidth, P2P %s", bidir ? "Bidirectional" : "Unidirectional",
               peer ? "enabled" : "disabled");
      printMatrix(title, bw, n, "GB/s");
    }
  }

  if (o.latency) {
    Options tiny = o;
    tiny.bytes = 4;
    tiny.reps = 100;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double gbps = measure(i, j, tiny, false, bufs, streams, flag);
        bw[i * n + j] = 1e6 * tiny.bytes / (gbps * 1e9);  // microseconds per copy
      }
    printMatrix("P2P write latency", bw, n, "us");
  }

  for (int d = 0; d < n; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaFree(bufs[d]));
    CUDA_CHECK(cudaStreamDestroy(streams[d]));
  }
  CUDA_CHECK(cudaFreeHost(flag));
  printf("\nTest passed\n");
  return 0;
}
