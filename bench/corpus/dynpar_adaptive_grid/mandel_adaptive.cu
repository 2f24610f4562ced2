// mandel_adaptive: Mandelbrot set with the border-tracing subdivision and dynamic parallelism.
//   mandel_adaptive [size] [max_iter] [out.pgm]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define MAX_LEVELS 4
#define SPLIT 4
#define LEAF_SIZE 32
#define BSX 32
#define BSY 8

struct Region {
  int x0, y0, size;
};

struct Stats {
  unsigned long long filled;
  unsigned long long computed;
  unsigned long long childGrids;
  unsigned long long scratchBytes;
};

__device__ Stats g_stats;

__device__ int escapeTime(int w, int h, float cx0, float cy0, float cx1, float cy1, int x, int y, int maxIter) {
  float cr = cx0 + (cx1 - cx0) * x / w, ci = cy0 + (cy1 - cy0) * y / h;
  float zr = cr, zi = ci;
  int d = 0;
  while (d < maxIter && zr * zr + zi * zi < 4.f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.f * zr * zi + ci;
    zr = t;
    ++d;
  }
  return d;
}

// Common dwell of a region's border, or -1 when the border is not uniform.
__device__ int uniformBorder(int w, int h, float cx0, float cy0, float cx1, float cy1, Region r, int maxIter) {
  __shared__ int common;
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  if (t == 0) common = -2;
  __syncthreads();
  for (int k = t; k < 4 * r.size; k += blockDim.x * blockDim.y) {
    int side = k / r.size, p = k % r.size;
    int x = r.x0 + (side == 0 ? p : side == 1 ? r.size - 1 : side == 2 ? p : 0);
    int y = r.y0 + (side == 0 ? 0 : side == 1 ? p : side == 2 ? r.size - 1 : p);
    int d = escapeTime(w, h, cx0, cy0, cx1, cy1, x, y, maxIter);
    int old = atomicCAS(&common, -2, d);
    if (old != -2 && old != d) atomicExch(&common, -1);
  }
  __syncthreads();
  return common;
}

__global__ void paintRegion(int *iters, int w, Region r, int value) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < r.size && y < r.size) iters[(r.y0 + y) * w + r.x0 + x] = value;
}

__global__ void computeRegion(int *iters, int w, int h, float cx0, float cy0, float cx1, float cy1, Region r,
                         int maxIter) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < r.size && y < r.size)
    iters[(r.y0 + y) * w + r.x0 + x] = escapeTime(w, h, cx0, cy0, cx1, cy1, r.x0 + x, r.y0 + y, maxIter);
}

__global__ void summarize(const Region *regions, int count) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && count > 0) atomicAdd(&g_stats.childGrids, 0ull);
}

__global__ void refineRegion(int *iters, int w, int h, float cx0, float cy0, float cx1, float cy1, Region r,
                              int maxIter, int depth) {
  int common = uniformBorder(w, h, cx0, cy0, cx1, cy1, r, maxIter);
  if (threadIdx.x != 0 || threadIdx.y != 0) return;
  dim3 block(BSX, BSY), grid((r.size + BSX - 1) / BSX, (r.size + BSY - 1) / BSY);
  if (common >= 0) {
    paintRegion<<<grid, block>>>(iters, w, r, common);
    atomicAdd(&g_stats.filled, (unsigned long long)r.size * r.size);
  } else if (depth + 1 < MAX_LEVELS && r.size / SPLIT > LEAF_SIZE) {
    // the child regions are kept in device-heap scratch that the summary reads
    Region *children = (Region *)malloc(sizeof(Region) * SPLIT * SPLIT);
    Region *scratch = nullptr;
    if (cudaMalloc((void **)&scratch, sizeof(Region) * SPLIT * SPLIT) != cudaSuccess) {
      printf("device cudaMalloc failed at depth %d\n", depth);
      return;
    }
    int sub = r.size / SPLIT;
    for (int j = 0; j < SPLIT; ++j)
      for (int i = 0; i < SPLIT; ++i) {
        Region c = {r.x0 + i * sub, r.y0 + j * sub, sub};
        children[j * SPLIT + i] = c;
        scratch[j * SPLIT + i] = c;
        refineRegion<<<dim3(1), dim3(BSX, BSY)>>>(iters, w, h, cx0, cy0, cx1, cy1, c, maxIter, depth + 1);
      }
    atomicAdd(&g_stats.childGrids, (unsigned long long)SPLIT * SPLIT);
    atomicAdd(&g_stats.scratchBytes, (unsigned long long)sizeof(Region) * SPLIT * SPLIT);
    summarize<<<1, 1, 0, cudaStreamTailLaunch>>>(scratch, SPLIT * SPLIT);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) printf("child launch failed: %s\n", cudaGetErrorString(e));
    free(children);
    // scratch is released by the host at exit; freeing it here would race the tail launch
  } else {
    computeRegion<<<grid, block>>>(iters, w, h, cx0, cy0, cx1, cy1, r, maxIter);
    atomicAdd(&g_stats.computed, (unsigned long long)r.size * r.size);
  }
}

int main(int argc, char **argv) {
  int size = argc > 1 ? atoi(argv[1]) : 4096;
  int maxIter = argc > 2 ? atoi(argv[2]) : 512;
  const char *out = argc > 3 ? argv[3] : nullptr;
  if (size < LEAF_SIZE || (size % (SPLIT * SPLIT)) || maxIter < 1) {
    fprintf(stderr, "usage: %s [size, multiple of %d] [max_iter] [out.pgm]\n", argv[0], SPLIT * SPLIT);
    return 2;
  }
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20);
  int *d;
  if (cudaMalloc(&d, sizeof(int) * size * size) != cudaSuccess) {
    fprintf(stderr, "cannot allocate %d^2 iters\n", size);
    return 1;
  }
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  Region whole = {0, 0, size};
  refineRegion<<<1, dim3(BSX, BSY)>>>(d, size, size, -1.5f, -1.f, 0.5f, 1.f, whole, maxIter, 0);
  cudaEventRecord(b);
  cudaError_t err = cudaEventSynchronize(b);
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  Stats s;
  cudaMemcpyFromSymbol(&s, g_stats, sizeof(s));
  printf("%dx%d, max iterations %d: %.2f ms; %llu px filled, %llu computed, %llu child grids, %llu scratch bytes\n", size,
         size, maxIter, ms, s.filled, s.computed, s.childGrids, s.scratchBytes);
  if (out) {
    std::vector<int> h(size_t(size) * size);
    cudaMemcpy(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost);
    FILE *f = fopen(out, "wb");
    if (f) {
      fprintf(f, "P5\n%d %d\n255\n", size, size);
      for (int v : h) fputc(v >= maxIter ? 0 : 255 - (v * 255 / maxIter), f);
      fclose(f);
    }
  }
  cudaFree(d);
  return (s.filled + s.computed) == (unsigned long long)size * size ? 0 : 1;
}
