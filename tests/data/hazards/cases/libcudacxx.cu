// checks: PX001
#include <cuda/barrier>                                                  // expect: PX001
#include <cuda/std/atomic>
__global__ void k(int* p) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;                 // expect: PX001
  cuda::atomic_ref<int, cuda::thread_scope_device> r(*p);                 // porter_cuda_atomic.h provides it
  cuda::memcpy_async(p, p + 1, sizeof(int), bar);                         // expect: PX001
  cuda::std::atomic<int> fine;
  int x = std::max(1, 2);
}
