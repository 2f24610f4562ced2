/* A tour of cooperative groups: the block, fixed-size tiles and a run-time tile, each summing
   the ranks of its members through shared memory and checking the closed form. */
#include <cooperative_groups.h>
#include <stdio.h>

namespace cg = cooperative_groups;

// Sum of `value` over the group; every member gets the result.
__device__ int groupSum(const cg::thread_group &g, int *slots, int value) {
  unsigned me = g.thread_rank();
  slots[me] = value;
  g.sync();
  for (unsigned half = g.size() / 2; half > 0; half /= 2) {
    if (me < half) slots[me] += slots[me + half];
    g.sync();
  }
  int total = slots[0];
  g.sync();
  return total;
}

__global__ void tour(int *mismatches) {
  extern __shared__ int slots[];
  cg::thread_block block = cg::this_thread_block();
  int n = block.size();
  int s = groupSum(block, slots, block.thread_rank());
  if (s != n * (n - 1) / 2) atomicAdd(mismatches, 1);

  cg::thread_block_tile<8> eight = cg::tiled_partition<8>(block);
  int base = block.thread_rank() - eight.thread_rank();
  s = groupSum(eight, slots + base, eight.thread_rank());
  if (s != 28) atomicAdd(mismatches, 1);

  cg::thread_group quarter = cg::tiled_partition(block, n / 4);
  base = block.thread_rank() - quarter.thread_rank();
  s = groupSum(quarter, slots + base, 1);
  if (s != int(quarter.size())) atomicAdd(mismatches, 1);
  if (block.thread_rank() == 0) printf("block of %d: tiles of 8 and of %d checked\n", n, int(quarter.size()));
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 128;
  if (threads < 32 || threads > 1024 || (threads & (threads - 1))) {
    fprintf(stderr, "threads must be a power of two between 32 and 1024\n");
    return 2;
  }
  int *mismatches;
  cudaMallocManaged(&mismatches, sizeof(int));
  *mismatches = 0;
  tour<<<2, threads, threads * sizeof(int)>>>(mismatches);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    fprintf(stderr, "tour failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  printf("%d mismatching group sums\n", *mismatches);
  int bad = *mismatches;
  cudaFree(mismatches);
  return bad ? 1 : 0;
}
