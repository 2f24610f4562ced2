// PageRank with one persistent cooperative kernel: every iteration is separated by a grid-wide
// barrier instead of a kernel relaunch.
//   pagerank_grid [vertices] [avg_degree] [iterations]
#include <cooperative_groups.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace cg = cooperative_groups;

struct Csr {
  int n;
  const int *rowPtr;  // incoming edges of each vertex
  const int *colIdx;
  const float *invOutDeg;
};

__global__ void pagerankPersistent(Csr g, float *rankA, float *rankB, float damping, int iterations,
                                   float *delta) {
  cg::grid_group grid = cg::this_grid();
  if (!grid.is_valid()) return;  // not launched cooperatively
  const unsigned long long tid = grid.thread_rank();
  const unsigned long long stride = grid.num_threads();
  float *cur = rankA, *next = rankB;
  for (int it = 0; it < iterations; ++it) {
    if (tid == 0) *delta = 0.f;
    grid.sync();
    float localDelta = 0.f;
    for (unsigned long long v = tid; v < (unsigned long long)g.n; v += stride) {
      float sum = 0.f;
      for (int e = g.rowPtr[v]; e < g.rowPtr[v + 1]; ++e) {
        int u = g.colIdx[e];
        sum += cur[u] * g.invOutDeg[u];
      }
      float r = (1.f - damping) / g.n + damping * sum;
      localDelta += fabsf(r - cur[v]);
      next[v] = r;
    }
    atomicAdd(delta, localDelta);
    grid.sync();
    float *t = cur;
    cur = next;
    next = t;
  }
  // report which block finished last, as a sanity check of block_rank/num_blocks
  if (grid.thread_rank() == 0) {
    printf("grid: %llu blocks, %llu threads, final L1 delta %.3e\n", (unsigned long long)grid.num_blocks(),
           (unsigned long long)grid.num_threads(), *delta);
  }
  if (grid.block_rank() == grid.num_blocks() - 1 && threadIdx.x == 0 && iterations % 2 == 1) {
    // odd number of iterations: the result sits in rankB, copy it back so the host reads rankA
    for (int v = 0; v < g.n; ++v) rankA[v] = rankB[v];
  }
}

static void buildGraph(int n, int degree, std::vector<int> &rowPtr, std::vector<int> &colIdx,
                       std::vector<float> &invOut) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> pick(0, n - 1);
  std::vector<std::vector<int>> incoming(n);
  std::vector<int> outDeg(n, 0);
  for (int u = 0; u < n; ++u)
    for (int k = 0; k < degree; ++k) {
      int v = pick(rng);
      incoming[v].push_back(u);
      outDeg[u]++;
    }
  rowPtr.assign(n + 1, 0);
  for (int v = 0; v < n; ++v) rowPtr[v + 1] = rowPtr[v] + int(incoming[v].size());
  colIdx.resize(rowPtr[n]);
  for (int v = 0; v < n; ++v) std::copy(incoming[v].begin(), incoming[v].end(), colIdx.begin() + rowPtr[v]);
  invOut.resize(n);
  for (int u = 0; u < n; ++u) invOut[u] = outDeg[u] ? 1.f / outDeg[u] : 0.f;
}

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cudaError_t err = call;                                                             \
    if (err != cudaSuccess) {                                                           \
      fprintf(stderr, "CUDA error in %s at line %d: %s\n", __FILE__, __LINE__,          \
              cudaGetErrorString(err));                                                 \
      exit(EXIT_FAILURE);                                                               \
    }                                                                                   \
  } while (0)

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 18;
  int degree = argc > 2 ? atoi(argv[2]) : 8;
  int iterations = argc > 3 ? atoi(argv[3]) : 30;
  if (n < 1 || degree < 1 || iterations < 1) {
    fprintf(stderr, "usage: %s [vertices] [avg_degree] [iterations]\n", argv[0]);
    return 2;
  }
  int dev = 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  if (!prop.cooperativeLaunch) {
    printf("device %s does not support cooperative launch, waiving\n", prop.name);
    return 0;
  }

  std::vector<int> rowPtr, colIdx;
  std::vector<float> invOut;
  buildGraph(n, degree, rowPtr, colIdx, invOut);
  int *dRow, *dCol;
  float *dInv, *dA, *dB, *dDelta;
  CHECK(cudaMalloc(&dRow, rowPtr.size() * sizeof(int)));
  CHECK(cudaMalloc(&dCol, colIdx.size() * sizeof(int)));
  CHECK(cudaMalloc(&dInv, n * sizeof(float)));
  CHECK(cudaMalloc(&dA, n * sizeof(float)));
  CHECK(cudaMalloc(&dB, n * sizeof(float)));
  CHECK(cudaMalloc(&dDelta, sizeof(float)));
  CHECK(cudaMemcpy(dRow, rowPtr.data(), rowPtr.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dCol, colIdx.data(), colIdx.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dInv, invOut.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<float> init(n, 1.f / n);
  CHECK(cudaMemcpy(dA, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const int threads = 256;
  int blocksPerSm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, pagerankPersistent, threads, 0));
  dim3 grid(blocksPerSm * prop.multiProcessorCount), block(threads);
  Csr g{n, dRow, dCol, dInv};
  float damping = 0.85f;
  void *args[] = {&g, &dA, &dB, &damping, &iterations, &dDelta};

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  CHECK(cudaLaunchCooperativeKernel((void *)pagerankPersistent, grid, block, args, 0, 0));
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<float> rank(n);
  CHECK(cudaMemcpy(rank.data(), dA, n * sizeof(float), cudaMemcpyDeviceToHost));
  double total = 0;
  for (float r : rank) total += r;
  printf("%d vertices, %zu edges, %d iterations: %.2f ms; sum of ranks %.6f\n", n, colIdx.size(), iterations, ms,
         total);
  for (void *p : {(void *)dRow, (void *)dCol, (void *)dInv, (void *)dA, (void *)dB, (void *)dDelta}) cudaFree(p);
  return std::fabs(total - 1.0) < 0.05 ? 0 : 1;
}
