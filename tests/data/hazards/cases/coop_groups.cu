// checks: PC001 PC002 PC003 PC004
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>                                   // expect: PC001
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<64>(block);
  auto tile32 = cg::tiled_partition<32>(block);
  auto big = cg::tiled_partition<128>(block);                            // expect: PC004
  int s = cg::reduce(tile, 1, cg::plus<int>());                          // expect: PC003
  cg::invoke_one(tile, [&] { out[0] = s; });                             // expect: PC002
  cg::wait(block);                                                       // expect: PC002
  tile.sync();
  block.sync();
  out[1] = tile32.thread_rank() + big.size();
}
