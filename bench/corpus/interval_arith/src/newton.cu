// newton: isolate the roots of p(x) = x^3 - 2x - 5 (and friends) with the interval Newton method.
// Each thread owns one starting box; boxes that shrink below the tolerance are reported.
//   newton [boxes] [tolerance]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "interval.cuh"

struct Cubic {
  double a, b, c, d;  // a x^3 + b x^2 + c x + d
};

template <typename T>
__device__ interval_t<T> evalP(const Cubic &p, interval_t<T> x) {
  interval_t<T> r(T(p.a));
  r = r * x + interval_t<T>(T(p.b));
  r = r * x + interval_t<T>(T(p.c));
  return r * x + interval_t<T>(T(p.d));
}

template <typename T>
__device__ interval_t<T> evalDP(const Cubic &p, interval_t<T> x) {
  interval_t<T> r(T(3 * p.a));
  r = r * x + interval_t<T>(T(2 * p.b));
  return r * x + interval_t<T>(T(p.c));
}

template <typename T>
__global__ void newtonBoxes(Cubic p, T lo, T hi, int boxes, T tol, interval_t<T> *roots, int *found) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= boxes) return;
  typedef rounded<T> R;
  T w = R::div_up(R::sub_up(hi, lo), T(boxes));
  interval_t<T> x(R::fma_down(T(i), w, lo), R::fma_up(T(i + 1), w, lo));
  for (int it = 0; it < 60; ++it) {
    T m = x.mid();
    interval_t<T> fm = evalP(p, interval_t<T>(m));
    interval_t<T> d = evalDP(p, x);
    if (d.lo <= 0 && d.hi >= 0) break;  // derivative may vanish: give up on this box
    interval_t<T> n = interval_t<T>(m) - fm / d;
    x = intersect(x, n);
    if (empty(x)) return;
    if (x.width() < tol) {
      int slot = atomicAdd(found, 1);
      roots[slot] = x;
      return;
    }
  }
}

int main(int argc, char **argv) {
  int boxes = argc > 1 ? atoi(argv[1]) : 4096;
  double tol = argc > 2 ? atof(argv[2]) : 1e-12;
  if (boxes <= 0 || tol <= 0) {
    fprintf(stderr, "usage: %s [boxes] [tolerance]\n", argv[0]);
    return 2;
  }
  Cubic p{1.0, 0.0, -2.0, -5.0};
  intervald *dRoots;
  int *dFound;
  cudaMalloc(&dRoots, boxes * sizeof(intervald));
  cudaMalloc(&dFound, sizeof(int));
  cudaMemset(dFound, 0, sizeof(int));
  newtonBoxes<double><<<(boxes + 127) / 128, 128>>>(p, -10.0, 10.0, boxes, tol, dRoots, dFound);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  int found = 0;
  cudaMemcpy(&found, dFound, sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<intervald> roots(found);
  cudaMemcpy(roots.data(), dRoots, found * sizeof(intervald), cudaMemcpyDeviceToHost);
  printf("%d enclosure(s) of roots of x^3 - 2x - 5:\n", found);
  for (const intervald &r : roots) printf("  [%.17g, %.17g]  width %.3g\n", r.lo, r.hi, r.width());
  bool ok = found > 0 && roots[0].contains(2.0945514815423265);
  printf("%s\n", ok ? "PASS" : "FAIL");
  cudaFree(dRoots);
  cudaFree(dFound);
  return ok ? 0 : 1;
}
