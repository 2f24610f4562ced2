// async_conv: 1D convolution where each block streams tiles of the input through shared memory,
// overlapping the copy of tile i+1 with the compute of tile i.
//   async_conv [n] [reps]
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

constexpr int TILE = 1024;
constexpr int RADIUS = 8;
constexpr int STAGES = 2;
__constant__ float c_weights[2 * RADIUS + 1];

__device__ float convolveAt(const float *tile, int i) {
  float acc = 0.f;
#pragma unroll
  for (int k = -RADIUS; k <= RADIUS; ++k) acc += c_weights[k + RADIUS] * tile[i + k + RADIUS];
  return acc;
}

// Baseline: plain loads into shared memory.
__global__ void convSync(const float *in, float *out, int tiles) {
  __shared__ float tile[TILE + 2 * RADIUS];
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    for (int i = threadIdx.x; i < TILE + 2 * RADIUS; i += blockDim.x) tile[i] = in[t * TILE + i];
    __syncthreads();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) out[t * TILE + i] = convolveAt(tile, i);
    __syncthreads();
  }
}

// libcu++ pipeline shared by the whole block.
__global__ void convPipeline(const float *in, float *out, int tiles) {
  __shared__ float buf[STAGES][TILE + 2 * RADIUS];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int first = blockIdx.x, stride = gridDim.x;
  // prologue: fill every stage
  for (int s = 0; s < STAGES; ++s) {
    int t = first + s * stride;
    pipe.producer_acquire();
    if (t < tiles)
      cuda::memcpy_async(block, buf[s], in + t * TILE, sizeof(float) * (TILE + 2 * RADIUS), pipe);
    pipe.producer_commit();
  }
  int stage = 0;
  for (int t = first; t < tiles; t += stride) {
    pipe.consumer_wait();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) out[t * TILE + i] = convolveAt(buf[stage], i);
    block.sync();
    pipe.consumer_release();
    int next = t + STAGES * stride;
    pipe.producer_acquire();
    if (next < tiles)
      cuda::memcpy_async(block, buf[stage], in + next * TILE, sizeof(float) * (TILE + 2 * RADIUS), pipe);
    pipe.producer_commit();
    stage = (stage + 1) % STAGES;
  }
}

// Primitive API: each thread copies its own elements, 4 bytes at a time.
__global__ void convPrimitives(const float *in, float *out, int tiles) {
  __shared__ float buf[STAGES][TILE + 2 * RADIUS];
  int stride = gridDim.x;
  auto issue = [&](int t, int s) {
    if (t < tiles)
      for (int i = threadIdx.x; i < TILE + 2 * RADIUS; i += blockDim.x)
        __pipeline_memcpy_async(&buf[s][i], &in[t * TILE + i], sizeof(float));
    __pipeline_commit();
  };
  issue(blockIdx.x, 0);
  issue(blockIdx.x + stride, 1);
  int stage = 0;
  for (int t = blockIdx.x; t < tiles; t += stride) {
    __pipeline_wait_prior(STAGES - 1);
    __syncthreads();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) out[t * TILE + i] = convolveAt(buf[stage], i);
    __syncthreads();
    issue(t + STAGES * stride, stage);
    stage ^= 1;
  }
  __pipeline_wait_prior(0);
}

// Cooperative-groups flavour: one collective copy per tile, then cg::wait.
__global__ void convCg(const float *in, float *out, int tiles) {
  __shared__ float tile[TILE + 2 * RADIUS];
  cg::thread_block block = cg::this_thread_block();
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    cg::memcpy_async(block, tile, in + t * TILE, sizeof(float) * (TILE + 2 * RADIUS));
    cg::wait(block);
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) out[t * TILE + i] = convolveAt(tile, i);
    block.sync();
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (n < TILE || reps < 1) {
    fprintf(stderr, "usage: %s [n>=%d] [reps>=1]\n", argv[0], TILE);
    return 2;
  }
  int tiles = n / TILE;
  n = tiles * TILE;
  std::vector<float> h(n + 2 * RADIUS), w(2 * RADIUS + 1);
  for (size_t i = 0; i < h.size(); ++i) h[i] = sinf(0.001f * i);
  for (int k = 0; k <= 2 * RADIUS; ++k) w[k] = 1.f / (2 * RADIUS + 1);
  cudaMemcpyToSymbol(c_weights, w.data(), w.size() * sizeof(float));
  float *in, *out;
  cudaMalloc(&in, h.size() * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);

  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  dim3 grid(sms * 2), block(256);
  typedef void (*Kernel)(const float *, float *, int);
  struct {
    const char *name;
    Kernel k;
  } variants[] = {{"synchronous", convSync}, {"cuda::pipeline", convPipeline},
                  {"__pipeline primitives", convPrimitives}, {"cg::memcpy_async", convCg}};
  std::vector<float> ref, got(n);
  int failures = 0;
  for (auto &v : variants) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    for (int r = 0; r < reps; ++r) v.k<<<grid, block>>>(in, out, tiles);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaError_t e = cudaGetLastError();
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
    if (ref.empty()) ref = got;
    double maxDiff = 0;
    for (int i = 0; i < n; ++i) maxDiff = fmax(maxDiff, fabs(got[i] - ref[i]));
    bool ok = e == cudaSuccess && maxDiff < 1e-5;
    failures += !ok;
    printf("%-24s %8.3f ms  %7.1f GB/s  %s\n", v.name, ms / reps, 2.0 * n * 4 / (ms / reps * 1e6),
           ok ? "ok" : "MISMATCH");
  }
  cudaFree(in);
  cudaFree(out);
  return failures ? 1 : 0;
}
