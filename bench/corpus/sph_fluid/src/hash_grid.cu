// Counting-sort particles into grid cells: count, scan (on one block), scatter.
#include "sph.cuh"

__global__ void countCells(Fluid f, SphParams p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= f.n) return;
  unsigned h = cellHash(p.grid, cellOf(p.grid, f.pos[i]));
  f.cell[i] = h;
  atomicAdd(&f.cellCount[h], 1u);
}

// Single-block exclusive scan over the cell counts (the grid is small in this sample).
__global__ void scanCells(Fluid f, unsigned numCells) {
  extern __shared__ unsigned partial[];
  unsigned per = (numCells + blockDim.x - 1) / blockDim.x;
  unsigned begin = threadIdx.x * per;
  unsigned end = umin(begin + per, numCells);
  unsigned sum = 0;
  for (unsigned c = begin; c < end; ++c) sum += f.cellCount[c];
  partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned run = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) {
      unsigned v = partial[t];
      partial[t] = run;
      run += v;
    }
  }
  __syncthreads();
  unsigned run = partial[threadIdx.x];
  for (unsigned c = begin; c < end; ++c) {
    f.cellStart[c] = run;
    run += f.cellCount[c];
    f.cellCount[c] = 0;  // reused as the scatter cursor
  }
}

__global__ void scatter(Fluid f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= f.n) return;
  unsigned c = f.cell[i];
  unsigned slot = f.cellStart[c] + atomicAdd(&f.cellCount[c], 1u);
  f.sortedIndex[slot] = i;
}

void buildGrid(Fluid f, const SphParams &p, cudaStream_t s) {
  unsigned cells = p.grid.dims.x * p.grid.dims.y * p.grid.dims.z;
  cudaMemsetAsync(f.cellCount, 0, cells * sizeof(unsigned), s);
  int threads = 256, blocks = (f.n + threads - 1) / threads;
  countCells<<<blocks, threads, 0, s>>>(f, p);
  scanCells<<<1, 256, 256 * sizeof(unsigned), s>>>(f, cells);
  scatter<<<blocks, threads, 0, s>>>(f);
}
