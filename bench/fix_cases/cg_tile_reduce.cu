// Tile reduction with cooperative_groups::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void tile_max(const int* in, int* out) {
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int m = cg::reduce(tile, v, cg::greater<int>());
    int s = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0) { atomicMax(out, m); atomicAdd(out + 1, s); }
}
