// wmma_hgemm: C = alpha * A * B + beta * C with A, B in half precision and C in float,
// on tensor cores through the WMMA API.
//   wmma_hgemm [M] [N] [K]   (multiples of 16)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16
#define WARP_SIZE 32

#define WMMA_CHECK(stat) \
  { checkStatus((stat), __FILE__, __LINE__); }
static void checkStatus(cudaError_t stat, const char *file, int line) {
  if (stat != cudaSuccess) {
    fprintf(stderr, "%s:%d: %s\n", file, line, cudaGetErrorString(stat));
    exit(1);
  }
}

// A is M x K row-major, B is K x N column-major, C is M x N column-major.
__global__ void wmmaGemm(const half *a, const half *b, float *c, int M, int N, int K, float alpha, float beta) {
  int tileRow = (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
  int tileCol = blockIdx.y * blockDim.y + threadIdx.y;

  wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> aFrag;
  wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> bFrag;
  wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> accFrag;
  wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> cFrag;
  wmma::fill_fragment(accFrag, 0.0f);

  int row = tileRow * WMMA_M, col = tileCol * WMMA_N;
  if (row >= M || col >= N) return;
  for (int k = 0; k < K; k += WMMA_K) {
    wmma::load_matrix_sync(aFrag, a + row * K + k, K);
    wmma::load_matrix_sync(bFrag, b + col * K + k, K);
    wmma::mma_sync(accFrag, aFrag, bFrag, accFrag);
  }
  wmma::load_matrix_sync(cFrag, c + row + col * M, M, wmma::mem_col_major);
  for (int i = 0; i < cFrag.num_elements; ++i) cFrag.x[i] = alpha * accFrag.x[i] + beta * cFrag.x[i];
  wmma::store_matrix_sync(c + row + col * M, cFrag, M, wmma::mem_col_major);
}

__global__ void simtGemm(const half *a, const half *b, float *c, int M, int N, int K, float alpha, float beta) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += __half2float(a[r * K + k]) * __half2float(b[col * K + k]);
  c[r + col * M] = alpha * acc + beta * c[r + col * M];
}

__global__ void fillHalf(half *p, size_t n, unsigned seed) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = __float2half(float((i * 2654435761u + seed) % 17) / 17.f - 0.5f);
}

int main(int argc, char **argv) {
  int M = argc > 1 ? atoi(argv[1]) : 4096;
  int N = argc > 2 ? atoi(argv[2]) : 4096;
  int K = argc > 3 ? atoi(argv[3]) : 4096;
  if (M % 16 || N % 16 || K % 16 || M <= 0 || N <= 0 || K <= 0) {
    fprintf(stderr, "M, N and K must be positive multiples of 16\n");
    return 2;
  }
  cudaDeviceProp prop;
  WMMA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 7) {
    printf("tensor cores need sm_70, found sm_%d%d: waiving\n", prop.major, prop.minor);
    return 0;
  }
  half *a, *b;
  float *c, *cRef;
  WMMA_CHECK(cudaMalloc(&a, size_t(M) * K * sizeof(half)));
  WMMA_CHECK(cudaMalloc(&b, size_t(K) * N * sizeof(half)));
  WMMA_CHECK(cudaMalloc(&c, size_t(M) * N * sizeof(float)));
  WMMA_CHECK(cudaMalloc(&cRef, size_t(M) * N * sizeof(float)));
  fillHalf<<<(size_t(M) * K + 255) / 256, 256>>>(a, size_t(M) * K, 1);
  fillHalf<<<(size_t(K) * N + 255) / 256, 256>>>(b, size_t(K) * N, 2);
  WMMA_CHECK(cudaMemset(c, 0, size_t(M) * N * sizeof(float)));
  WMMA_CHECK(cudaMemset(cRef, 0, size_t(M) * N * sizeof(float)));

  float alpha = 2.0f, beta = 0.0f;
  cudaEvent_t start, stop;
  WMMA_CHECK(cudaEventCreate(&start));
  WMMA_CHECK(cudaEventCreate(&stop));
  // 128x4 threads: 4x4 warps, each warp one 16x16 tile -> a block covers 64x64
  dim3 block(128, 4);
  dim3 grid((M + (WMMA_M * block.x / WARP_SIZE) - 1) / (WMMA_M * block.x / WARP_SIZE),
            (N + WMMA_N * block.y - 1) / (WMMA_N * block.y));
  WMMA_CHECK(cudaEventRecord(start));
  wmmaGemm<<<grid, block>>>(a, b, c, M, N, K, alpha, beta);
  WMMA_CHECK(cudaEventRecord(stop));
  WMMA_CHECK(cudaEventSynchronize(stop));
  WMMA_CHECK(cudaGetLastError());
  float msWmma;
  WMMA_CHECK(cudaEventElapsedTime(&msWmma, start, stop));

  WMMA_CHECK(cudaEventRecord(start));
  simtGemm<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(a, b, cRef, M, N, K, alpha, beta);
  WMMA_CHECK(cudaEventRecord(stop));
  WMMA_CHECK(cudaEventSynchronize(stop));
  float msSimt;
  WMMA_CHECK(cudaEventElapsedTime(&msSimt, start, stop));

  std::vector<float> h(size_t(M) * N), hRef(size_t(M) * N);
  WMMA_CHECK(cudaMemcpy(h.data(), c, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  WMMA_CHECK(cudaMemcpy(hRef.data(), cRef, hRef.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int errors = 0;
  for (size_t i = 0; i < h.size(); ++i)
    if (fabsf(h[i] - hRef[i]) > 1e-2f * (1.f + fabsf(hRef[i]))) ++errors;
  double tflop = 2.0 * M * N * K / 1e12;
  printf("M=%d N=%d K=%d: wmma %.2f ms (%.1f TFLOP/s), simt %.2f ms (%.1f TFLOP/s), %d mismatches\n", M, N, K, msWmma,
         tflop / (msWmma * 1e-3), msSimt, tflop / (msSimt * 1e-3), errors);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(cRef);
  return errors ? 1 : 0;
}
