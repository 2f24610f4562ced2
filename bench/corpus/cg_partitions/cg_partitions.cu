// cg_partitions: group threads by data with cooperative groups and check the results on the host.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CUDA_SAFE_CALL(x)                                                        \
  do {                                                                           \
    cudaError_t result = x;                                                      \
    if (result != cudaSuccess) {                                                 \
      printf("error: %s failed with error %s\n", #x, cudaGetErrorString(result)); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

constexpr int kBuckets = 8;

// Warp-aggregated append: the active lanes elect a leader that reserves space for all of them.
__device__ int aggregatedAppend(int *counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  int base = 0;
  if (active.thread_rank() == 0) base = atomicAdd(counter, active.num_threads());
  base = active.shfl(base, 0);
  return base + active.thread_rank();
}

__global__ void filterPositive(const int *in, int n, int *out, int *count, unsigned *ballots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (in[i] > 0) {
    cg::coalesced_group positives = cg::coalesced_threads();
    // every lane of the coalesced group holds a positive value
    unsigned large = positives.ballot(in[i] > 1000);
    if (positives.all(in[i] > 0) && positives.thread_rank() == 0) ballots[i / 32] = large;
    bool anyHuge = positives.any(in[i] > 1000000);
    out[aggregatedAppend(count)] = anyHuge ? -in[i] : in[i];
  }
}

// Split each warp into even and odd values and let each half reduce on its own.
__global__ void evenOddSums(const int *in, int n, unsigned long long *sums) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  bool odd = v & 1;
  cg::coalesced_group half = cg::binary_partition(warp, odd);
  unsigned long long s = v;
  for (int offset = 1; offset < 32; offset <<= 1) {
    unsigned long long other = half.shfl_down(s, offset);
    if (half.thread_rank() + offset < half.num_threads()) s += other;
  }
  if (half.thread_rank() == 0) atomicAdd(&sums[odd ? 1 : 0], s);
}

// Group lanes by bucket label; each label group counts itself once.
__global__ void bucketCounts(const int *in, int n, int *counts) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int bucket = i < n ? (in[i] & 0x7fffffff) % kBuckets : kBuckets;  // out-of-range lanes get their own label
  cg::coalesced_group same = cg::labeled_partition(warp, bucket);
  if (same.thread_rank() == 0 && bucket < kBuckets) atomicAdd(&counts[bucket], same.num_threads());
}

// Tile votes and key matching on a 16-wide tile.
__global__ void tileVotes(const int *in, int n, int *stats) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  unsigned neg = tile.ballot(v < 0);
  bool anyNeg = tile.any(v < 0);
  bool allPos = tile.all(v > 0);
  unsigned sameAsMe = tile.match_any(v % kBuckets);
  if (tile.thread_rank() == 0) {
    atomicAdd(&stats[0], __popc(neg));
    atomicAdd(&stats[1], anyNeg ? 1 : 0);
    atomicAdd(&stats[2], allPos ? 1 : 0);
    atomicMax(&stats[3], int(tile.meta_group_rank()));
  }
  if (__popc(sameAsMe) == 16 && tile.thread_rank() == 0) atomicAdd(&stats[4], 1);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  if (n <= 0) {
    fprintf(stderr, "usage: %s [elements]\n", argv[0]);
    return 2;
  }
  std::vector<int> h(n);
  srand(5);
  for (int &x : h) x = (rand() % 4001) - 1000;

  int *dIn, *dOut, *dCount, *dBuckets, *dStats;
  unsigned *dBallots;
  unsigned long long *dSums;
  CUDA_SAFE_CALL(cudaMalloc(&dIn, n * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&dOut, n * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&dCount, sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&dBuckets, kBuckets * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&dStats, 5 * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&dBallots, ((n + 31) / 32) * sizeof(unsigned)));
  CUDA_SAFE_CALL(cudaMalloc(&dSums, 2 * sizeof(unsigned long long)));
  CUDA_SAFE_CALL(cudaMemcpy(dIn, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_SAFE_CALL(cudaMemset(dCount, 0, sizeof(int)));
  CUDA_SAFE_CALL(cudaMemset(dBuckets, 0, kBuckets * sizeof(int)));
  CUDA_SAFE_CALL(cudaMemset(dStats, 0, 5 * sizeof(int)));
  CUDA_SAFE_CALL(cudaMemset(dSums, 0, 2 * sizeof(unsigned long long)));

  int blocks = (n + 255) / 256;
  filterPositive<<<blocks, 256>>>(dIn, n, dOut, dCount, dBallots);
  evenOddSums<<<blocks, 256>>>(dIn, n, dSums);
  bucketCounts<<<blocks, 256>>>(dIn, n, dBuckets);
  tileVotes<<<blocks, 256>>>(dIn, n, dStats);
  CUDA_SAFE_CALL(cudaDeviceSynchronize());

  int count, buckets[kBuckets], stats[5];
  unsigned long long sums[2];
  CUDA_SAFE_CALL(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_SAFE_CALL(cudaMemcpy(buckets, dBuckets, sizeof(buckets), cudaMemcpyDeviceToHost));
  CUDA_SAFE_CALL(cudaMemcpy(stats, dStats, sizeof(stats), cudaMemcpyDeviceToHost));
  CUDA_SAFE_CALL(cudaMemcpy(sums, dSums, sizeof(sums), cudaMemcpyDeviceToHost));

  int refCount = 0, refBuckets[kBuckets] = {0}, refNeg = 0;
  long long refSums[2] = {0, 0};
  for (int x : h) {
    refCount += x > 0;
    refNeg += x < 0;
    refBuckets[(x & 0x7fffffff) % kBuckets]++;
    refSums[x & 1] += x;
  }
  bool ok = count == refCount && stats[0] == refNeg && (long long)sums[0] == refSums[0] &&
            (long long)sums[1] == refSums[1];
  for (int b = 0; b < kBuckets; ++b) ok = ok && buckets[b] == refBuckets[b];
  printf("positives %d/%d, negatives %d/%d, even sum %lld, odd sum %lld, max tile rank %d: %s\n", count, refCount,
         stats[0], refNeg, (long long)sums[0], (long long)sums[1], stats[3], ok ? "PASSED" : "FAILED");
  cudaFree(dIn);
  cudaFree(dOut);
  cudaFree(dCount);
  cudaFree(dBuckets);
  cudaFree(dStats);
  cudaFree(dBallots);
  cudaFree(dSums);
  return ok ? 0 : 1;
}
