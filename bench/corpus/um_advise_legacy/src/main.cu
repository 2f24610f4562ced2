// advect: move particles through a swirling velocity field; all data in managed memory.
//   advect [particles] [steps] [field resolution]
#include <cmath>
#include <cstdlib>
#include <vector>

#include "um_helpers.cuh"

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : (1 << 20);
  const int steps = argc > 2 ? atoi(argv[2]) : 200;
  const int fieldN = argc > 3 ? atoi(argv[3]) : 256;
  if (n <= 0 || steps <= 0 || fieldN < 2) {
    fprintf(stderr, "usage: %s [particles>0] [steps>0] [field>=2]\n", argv[0]);
    return 2;
  }
  int dev = 0;
  UM_CHECK(cudaGetDevice(&dev));
  cudaStream_t stream;
  UM_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  Particles p;
  p.n = n;
  // particle state is private to our stream: attach it so other streams do not fault on it
  p.x = um::allocManaged<float>(n, cudaMemAttachHost);
  p.y = um::allocManaged<float>(n, cudaMemAttachHost);
  p.vx = um::allocManaged<float>(n, cudaMemAttachHost);
  p.vy = um::allocManaged<float>(n, cudaMemAttachHost);
  float *field = um::allocManaged<float>(size_t(2) * fieldN * fieldN);

  srand(1234);
  for (int i = 0; i < n; ++i) {
    p.x[i] = rand() / float(RAND_MAX);
    p.y[i] = rand() / float(RAND_MAX);
    p.vx[i] = p.vy[i] = 0.f;
  }
  const float pi = 3.14159265f;
  for (int j = 0; j < fieldN; ++j)
    for (int i = 0; i < fieldN; ++i) {
      float x = (i + 0.5f) / fieldN, y = (j + 0.5f) / fieldN;
      field[2 * (j * fieldN + i) + 0] = -sinf(pi * x) * cosf(pi * y);
      field[2 * (j * fieldN + i) + 1] = cosf(pi * x) * sinf(pi * y);
    }

  for (float *a : {p.x, p.y, p.vx, p.vy}) UM_CHECK(cudaStreamAttachMemAsync(stream, a, 0, cudaMemAttachSingle));
  UM_CHECK(um::advise(field, sizeof(float) * 2 * fieldN * fieldN, cudaMemAdviseSetReadMostly, dev));
  UM_CHECK(um::prefetch(field, sizeof(float) * 2 * fieldN * fieldN, dev, stream));
  for (float *a : {p.x, p.y, p.vx, p.vy}) UM_CHECK(um::prefetch(a, n * sizeof(float), dev, stream));

  cudaEvent_t t0, t1;
  UM_CHECK(cudaEventCreate(&t0));
  UM_CHECK(cudaEventCreate(&t1));
  UM_CHECK(cudaEventRecord(t0, stream));
  advect(p, field, fieldN, 1e-3f, steps, stream);
  UM_CHECK(cudaEventRecord(t1, stream));
  for (float *a : {p.x, p.y}) UM_CHECK(um::prefetch(a, n * sizeof(float), -1, stream));
  UM_CHECK(cudaStreamSynchronize(stream));
  float ms = 0;
  UM_CHECK(cudaEventElapsedTime(&ms, t0, t1));

  double cx = 0, cy = 0;
  for (int i = 0; i < n; ++i) {
    cx += p.x[i];
    cy += p.y[i];
  }
  printf("%d particles x %d steps in %.3f ms; centroid (%.4f, %.4f)\n", n, steps, ms, cx / n, cy / n);
  bool ok = std::isfinite(cx) && std::isfinite(cy);
  for (float *a : {p.x, p.y, p.vx, p.vy, field}) UM_CHECK(cudaFree(a));
  UM_CHECK(cudaStreamDestroy(stream));
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
