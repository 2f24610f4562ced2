// target: gfx1100
// checks: PC004
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<64>(block);                             // expect: PC004
  auto tile32 = cg::tiled_partition<32>(block);
  out[0] = tile.size() + tile32.size();
}
