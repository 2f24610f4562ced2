// topk: the k best-scoring documents of every query, scores computed on the GPU.
//   topk [queries] [docs_per_query] [k]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cub/cub.cuh>

#define CubDebugExitOnError(e)                                                      \
  do {                                                                              \
    cudaError_t err_ = (e);                                                         \
    if (err_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s(%d): %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

constexpr int BLOCK = 128;

struct MaxOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return a > b ? a : b; }
};

// Score = dot(query, doc) over 64 features; also per-block statistics with CUB block primitives.
__global__ void scoreDocs(const float *queries, const float *docs, int docsPerQuery, float *scores, int *docIds,
                          float *blockMax, int *blockPositives) {
  using BlockReduceT = cub::BlockReduce<float, BLOCK>;
  using BlockScanT = cub::BlockScan<int, BLOCK>;
  using WarpReduceT = cub::WarpReduce<float>;
  __shared__ union {
    typename BlockReduceT::TempStorage reduce;
    typename BlockScanT::TempStorage scan;
  } temp;
  __shared__ typename WarpReduceT::TempStorage warpTemp[BLOCK / 32];

  int q = blockIdx.y;
  int d = blockIdx.x * BLOCK + threadIdx.x;
  float s = -1e30f;
  if (d < docsPerQuery) {
    const float *qv = queries + q * 64;
    const float *dv = docs + size_t(d) * 64;
    float acc = 0.f;
#pragma unroll 8
    for (int f = 0; f < 64; ++f) acc += qv[f] * dv[f];
    s = acc;
    scores[size_t(q) * docsPerQuery + d] = s;
    docIds[size_t(q) * docsPerQuery + d] = d;
  }
  float warpMax = WarpReduceT(warpTemp[threadIdx.x / 32]).Reduce(s, MaxOp());
  (void)warpMax;
  float m = BlockReduceT(temp.reduce).Reduce(s, MaxOp());
  __syncthreads();
  int positive = (d < docsPerQuery && s > 0.f) ? 1 : 0, rank, total;
  BlockScanT(temp.scan).ExclusiveSum(positive, rank, total);
  if (threadIdx.x == 0) {
    blockMax[q * gridDim.x + blockIdx.x] = m;
    blockPositives[q * gridDim.x + blockIdx.x] = total;
  }
}

int main(int argc, char **argv) {
  int queries = argc > 1 ? atoi(argv[1]) : 64;
  int docs = argc > 2 ? atoi(argv[2]) : 50000;
  int k = argc > 3 ? atoi(argv[3]) : 10;
  if (queries < 1 || docs < 1 || k < 1 || k > docs) {
    fprintf(stderr, "usage: %s [queries] [docs_per_query] [k<=docs]\n", argv[0]);
    return 2;
  }
  std::vector<float> hq(queries * 64), hd(size_t(docs) * 64);
  srand(3);
  for (auto &v : hq) v = rand() / float(RAND_MAX) - 0.5f;
  for (auto &v : hd) v = rand() / float(RAND_MAX) - 0.5f;

  cub::CachingDeviceAllocator alloc;
  float *dq, *dd, *scores, *scoresOut, *blockMax, *globalMax;
  int *ids, *idsOut, *blockPos, *offsets, *segCounts;
  const size_t total = size_t(queries) * docs;
  const int blocksX = (docs + BLOCK - 1) / BLOCK;
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&dq, hq.size() * sizeof(float)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&dd, hd.size() * sizeof(float)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&scores, total * sizeof(float)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&scoresOut, total * sizeof(float)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&ids, total * sizeof(int)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&idsOut, total * sizeof(int)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&blockMax, queries * blocksX * sizeof(float)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&blockPos, queries * blocksX * sizeof(int)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&globalMax, sizeof(float)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&offsets, (queries + 1) * sizeof(int)));
  CubDebugExitOnError(alloc.DeviceAllocate((void **)&segCounts, (queries + 1) * sizeof(int)));
  CubDebugExitOnError(cudaMemcpy(dq, hq.data(), hq.size() * sizeof(float), cudaMemcpyHostToDevice));
  CubDebugExitOnError(cudaMemcpy(dd, hd.data(), hd.size() * sizeof(float), cudaMemcpyHostToDevice));

  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaEventRecord(t0);
  scoreDocs<<<dim3(blocksX, queries), BLOCK>>>(dq, dd, docs, scores, ids, blockMax, blockPos);
  CubDebugExitOnError(cudaGetLastError());

  // segment offsets from per-segment sizes with an exclusive scan
  std::vector<int> sizes(queries + 1, docs);
  sizes[queries] = 0;
  CubDebugExitOnError(cudaMemcpy(segCounts, sizes.data(), sizes.size() * sizeof(int), cudaMemcpyHostToDevice));
  void *temp = nullptr;
  size_t tempBytes = 0;
  CubDebugExitOnError(cub::DeviceScan::ExclusiveSum(temp, tempBytes, segCounts, offsets, queries + 1));
  CubDebugExitOnError(alloc.DeviceAllocate(&temp, tempBytes));
  CubDebugExitOnError(cub::DeviceScan::ExclusiveSum(temp, tempBytes, segCounts, offsets, queries + 1));
  CubDebugExitOnError(alloc.DeviceFree(temp));

  // sort every query's scores descending
  temp = nullptr;
  tempBytes = 0;
  CubDebugExitOnError(cub::DeviceSegmentedRadixSort::SortPairsDescending(
      temp, tempBytes, scores, scoresOut, ids, idsOut, int(total), queries, offsets, offsets + 1));
  CubDebugExitOnError(alloc.DeviceAllocate(&temp, tempBytes));
  CubDebugExitOnError(cub::DeviceSegmentedRadixSort::SortPairsDescending(
      temp, tempBytes, scores, scoresOut, ids, idsOut, int(total), queries, offsets, offsets + 1));
  CubDebugExitOnError(alloc.DeviceFree(temp));

  // best score overall
  temp = nullptr;
  tempBytes = 0;
  CubDebugExitOnError(cub::DeviceReduce::Max(temp, tempBytes, blockMax, globalMax, queries * blocksX));
  CubDebugExitOnError(alloc.DeviceAllocate(&temp, tempBytes));
  CubDebugExitOnError(cub::DeviceReduce::Max(temp, tempBytes, blockMax, globalMax, queries * blocksX));
  CubDebugExitOnError(alloc.DeviceFree(temp));
  cudaEventRecord(t1);
  CubDebugExitOnError(cudaEventSynchronize(t1));
  float ms;
  cudaEventElapsedTime(&ms, t0, t1);

  std::vector<float> top(size_t(queries) * docs);
  std::vector<int> topIds(top.size());
  float best;
  CubDebugExitOnError(cudaMemcpy(top.data(), scoresOut, top.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CubDebugExitOnError(cudaMemcpy(topIds.data(), idsOut, topIds.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CubDebugExitOnError(cudaMemcpy(&best, globalMax, sizeof(float), cudaMemcpyDeviceToHost));

  // check query 0 against the host
  std::vector<float> ref(docs);
  for (int d = 0; d < docs; ++d) {
    float acc = 0.f;
    for (int f = 0; f < 64; ++f) acc += hq[f] * hd[size_t(d) * 64 + f];
    ref[d] = acc;
  }
  std::partial_sort(ref.begin(), ref.begin() + k, ref.end(), std::greater<float>());
  bool ok = true;
  for (int i = 0; i < k; ++i) ok = ok && std::abs(top[i] - ref[i]) < 1e-4f;
  printf("%d queries x %d docs, top-%d in %.2f ms; best overall %.4f; query 0 top doc %d (%.4f): %s\n", queries, docs,
         k, ms, best, topIds[0], top[0], ok ? "OK" : "MISMATCH");
  alloc.FreeAllCached();
  return ok ? 0 : 1;
}
