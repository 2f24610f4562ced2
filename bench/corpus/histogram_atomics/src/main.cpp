// histo: compare histogram strategies on a synthetic 8-bit image.
//   histo [megapixels] [--progress]
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "hist.cuh"

int main(int argc, char **argv) {
  size_t mp = 64;
  bool progress = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--progress")) progress = true;
    else mp = strtoul(argv[i], nullptr, 10);
  }
  if (mp == 0) {
    fprintf(stderr, "usage: %s [megapixels>0] [--progress]\n", argv[0]);
    return 2;
  }
  const size_t n = mp << 20;
  std::vector<uint8_t> img(n);
  std::mt19937 rng(2024);
  std::normal_distribution<float> dist(128.f, 30.f);
  for (auto &p : img) p = static_cast<uint8_t>(std::min(255.f, std::max(0.f, dist(rng))));
  std::vector<unsigned> ref(kBins, 0);
  for (uint8_t p : img) ref[p]++;

  try {
    uint8_t *dImg;
    unsigned *dBins;
    HIST_CHECK(cudaMalloc(&dImg, n));
    HIST_CHECK(cudaMalloc(&dBins, kBins * sizeof(unsigned)));
    HIST_CHECK(cudaMemcpy(dImg, img.data(), n, cudaMemcpyHostToDevice));
    const char *names[] = {"global atomics", "shared (block scope)", "per-warp"};
    int failures = 0;
    for (int m = 0; m < 3; ++m) {
      HistStats s = histogram(dImg, n, dBins, static_cast<Method>(m));
      std::vector<unsigned> got(kBins);
      HIST_CHECK(cudaMemcpy(got.data(), dBins, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
      bool ok = got == ref;
      failures += !ok;
      printf("%-22s %8.3f ms %8.2f GB/s  max bin %u, %u non-empty  %s\n", names[m], s.ms, n / (s.ms * 1e6),
             s.maxBin, s.nonEmpty, ok ? "OK" : "MISMATCH");
    }
    if (progress) runWithProgress(dImg, n, dBins, 4096);
    HIST_CHECK(cudaFree(dImg));
    HIST_CHECK(cudaFree(dBins));
    return failures ? 1 : 0;
  } catch (cudaError_t) {
    return 1;
  }
}
