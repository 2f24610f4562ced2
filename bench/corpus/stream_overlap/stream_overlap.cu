// stream_overlap: how much of the H2D -> kernel -> D2H chain can overlap across streams?
//   stream_overlap [MiB] [chunks] [streams]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CK(call)                                                                                 \
  do {                                                                                           \
    cudaError_t st_ = (call);                                                                    \
    if (st_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(st_));  \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

__global__ void heavyCompute(float *d, size_t n, int rounds) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = d[i];
  for (int r = 0; r < rounds; ++r) v = __sinf(v) * __cosf(v) + 0.5f;
  d[i] = v;
}

struct ChunkLog {
  int chunk;
  int *doneCounter;
};

static void CUDART_CB chunkDone(void *data) {
  ChunkLog *log = static_cast<ChunkLog *>(data);
  __atomic_fetch_add(log->doneCounter, 1, __ATOMIC_RELAXED);
}

static float runPipeline(float *host, float *dev, size_t n, int chunks, std::vector<cudaStream_t> &streams,
                         bool dependent, int *done) {
  size_t per = n / chunks;
  std::vector<cudaEvent_t> computed(chunks);
  for (auto &e : computed) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  std::vector<ChunkLog> logs(chunks);
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  CK(cudaEventRecord(t0, streams[0]));
  for (size_t s = 1; s < streams.size(); ++s) CK(cudaStreamWaitEvent(streams[s], t0));
  for (int c = 0; c < chunks; ++c) {
    cudaStream_t s = streams[c % streams.size()];
    size_t off = c * per;
    CK(cudaMemcpyAsync(dev + off, host + off, per * sizeof(float), cudaMemcpyHostToDevice, s));
    // in the dependent variant every chunk also waits for the previous chunk's kernel
    if (dependent && c > 0) CK(cudaStreamWaitEvent(s, computed[c - 1]));
    heavyCompute<<<unsigned((per + 255) / 256), 256, 0, s>>>(dev + off, per, 64);
    CK(cudaEventRecordWithFlags(computed[c], s, cudaEventRecordDefault));
    CK(cudaMemcpyAsync(host + off, dev + off, per * sizeof(float), cudaMemcpyDeviceToHost, s));
    logs[c] = ChunkLog{c, done};
    CK(cudaLaunchHostFunc(s, chunkDone, &logs[c]));
  }
  for (size_t s = 1; s < streams.size(); ++s) {
    cudaEvent_t joined;
    CK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    CK(cudaEventRecord(joined, streams[s]));
    CK(cudaStreamWaitEvent(streams[0], joined));
    CK(cudaEventDestroy(joined));
  }
  CK(cudaEventRecord(t1, streams[0]));
  CK(cudaEventSynchronize(t1));
  float ms;
  CK(cudaEventElapsedTime(&ms, t0, t1));
  for (auto &e : computed) CK(cudaEventDestroy(e));
  CK(cudaEventDestroy(t0));
  CK(cudaEventDestroy(t1));
  return ms;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], nullptr, 10) : 256;
  int chunks = argc > 2 ? atoi(argv[2]) : 16;
  int nstreams = argc > 3 ? atoi(argv[3]) : 0;
  if (mib == 0 || chunks < 1) {
    fprintf(stderr, "usage: %s [MiB] [chunks] [streams]\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  if (nstreams <= 0) nstreams = prop.asyncEngineCount >= 2 ? 3 : 2;  // copy in, compute, copy out
  printf("%s: %d copy engine(s), concurrent kernels %s; using %d streams\n", prop.name, prop.asyncEngineCount,
         prop.concurrentKernels ? "yes" : "no", nstreams);

  size_t n = (mib << 20) / sizeof(float);
  n -= n % chunks;
  float *host, *dev;
  CK(cudaMallocHost(&host, n * sizeof(float)));
  CK(cudaMalloc(&dev, n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) host[i] = float(i % 100) * 0.01f;

  int leastPriority, greatestPriority;
  CK(cudaDeviceGetStreamPriorityRange(&leastPriority, &greatestPriority));
  std::vector<cudaStream_t> streams(nstreams);
  for (int s = 0; s < nstreams; ++s)
    CK(cudaStreamCreateWithPriority(&streams[s], cudaStreamNonBlocking, s == 0 ? greatestPriority : leastPriority));

  int done = 0;
  std::vector<cudaStream_t> single(1, streams[0]);
  float serial = runPipeline(host, dev, n, chunks, single, false, &done);
  float overlapped = runPipeline(host, dev, n, chunks, streams, false, &done);
  float chained = runPipeline(host, dev, n, chunks, streams, true, &done);
  printf("one stream %.2f ms, %d streams %.2f ms (x%.2f), with kernel chain %.2f ms; %d chunk callbacks\n", serial,
         nstreams, overlapped, serial / overlapped, chained, done);
  for (auto s : streams) CK(cudaStreamDestroy(s));
  CK(cudaFreeHost(host));
  CK(cudaFree(dev));
  return done == 3 * chunks ? 0 : 1;
}
