// checks: PM001
#include <mma.h>                                                          // expect: PM001
using namespace nvcuda;
__global__ void k(const half* a, const half* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;   // expect: PM001
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;                // expect: PM001
  wmma::load_matrix_sync(fa, a, 16);                                      // expect: PM001
  wmma::mma_sync(fc, fa, fa, fc);                                         // expect: PM001
  rocwmma::fill_fragment(fc, 0.0f);
}
