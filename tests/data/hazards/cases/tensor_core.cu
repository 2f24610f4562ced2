// checks: PM001
#include <mma.h>                                                          // expect: PM001
using namespace nvcuda;
__global__ void k(const half* a, const half* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::mma_sync(fc, fa, fa, fc);
  rocwmma::fill_fragment(fc, 0.0f);
}
