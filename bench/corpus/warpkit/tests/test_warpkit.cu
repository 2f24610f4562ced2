#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "warpkit/warp_ops.cuh"

#define REQUIRE(cond, ...)          \
  do {                              \
    if (!(cond)) {                  \
      printf("FAIL: " __VA_ARGS__); \
      printf("\n");                 \
      ++failed;                     \
    } else {                        \
      ++passed;                     \
    }                               \
  } while (0)

__global__ void warpU32(const unsigned *in, unsigned *out) {
  unsigned v = warpkit::warpReduceSumU32(in[threadIdx.x]);
  if (warpkit::laneId() == 0) out[warpkit::warpId()] = v;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  int passed = 0, failed = 0;
  std::vector<float> hf(n);
  std::vector<int> hi(n);
  for (int i = 0; i < n; ++i) {
    hf[i] = float((i * 37) % 101) / 100.f;
    hi[i] = (i * 7) % 5;
  }
  float *df, *dout, *dsum;
  int *di, *dscan, *dleaders;
  cudaMalloc(&df, n * sizeof(float));
  cudaMalloc(&dout, n * sizeof(float));
  cudaMalloc(&dsum, sizeof(float));
  cudaMalloc(&di, n * sizeof(int));
  cudaMalloc(&dscan, n * sizeof(int));
  cudaMalloc(&dleaders, sizeof(int));
  cudaMemcpy(df, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(di, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice);

  wk_reduce(df, dsum, n);
  float sum = 0;
  cudaMemcpy(&sum, dsum, sizeof(float), cudaMemcpyDeviceToHost);
  double ref = std::accumulate(hf.begin(), hf.end(), 0.0);
  REQUIRE(std::fabs(sum - ref) / ref < 1e-4, "reduce %f vs %f", sum, ref);

  wk_scan(di, dscan, n);
  std::vector<int> scan(n);
  cudaMemcpy(scan.data(), dscan, n * sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<int> refScan(n);
  std::partial_sum(hi.begin(), hi.end(), refScan.begin());
  REQUIRE(scan == refScan, "inclusive scan");

  int kept = wk_compact(df, dout, n, 0.5f);
  int refKept = int(std::count_if(hf.begin(), hf.end(), [](float v) { return v > 0.5f; }));
  REQUIRE(kept == refKept, "compaction kept %d, expected %d", kept, refKept);

  wk_count_keys(di, n, dleaders);
  int leaders = 0;
  cudaMemcpy(&leaders, dleaders, sizeof(int), cudaMemcpyDeviceToHost);
  REQUIRE(leaders > 0 && leaders <= n, "key groups %d", leaders);

  unsigned *du, *dwu;
  std::vector<unsigned> hu(256, 3u);
  cudaMalloc(&du, 256 * sizeof(unsigned));
  cudaMalloc(&dwu, 8 * sizeof(unsigned));
  cudaMemcpy(du, hu.data(), 256 * sizeof(unsigned), cudaMemcpyHostToDevice);
  warpU32<<<1, 256>>>(du, dwu);
  unsigned wu[8];
  cudaMemcpy(wu, dwu, sizeof(wu), cudaMemcpyDeviceToHost);
  REQUIRE(wu[0] == 96u && wu[7] == 96u, "u32 warp reduce %u", wu[0]);

  cudaError_t err = cudaDeviceSynchronize();
  REQUIRE(err == cudaSuccess, "device error %s", cudaGetErrorString(err));
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
