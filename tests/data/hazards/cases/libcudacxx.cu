// checks: PX001 PX002
#include <cuda/barrier>
#include <cuda/std/atomic>
#include <cuda/annotated_ptr>                                            // expect: PX001
__global__ void k(int* p) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;                 // expect: PX002
  cuda::atomic_ref<int, cuda::thread_scope_device> r(*p);                 // porter_cuda_atomic.h provides it
  cuda::memcpy_async(p, p + 1, sizeof(int), bar);                         // porter_cuda_pipeline.h too
  cuda::discard_memory(p, sizeof(int));                                   // expect: PX001
  cuda::std::atomic<int> fine;
  int x = std::max(1, 2);
}
