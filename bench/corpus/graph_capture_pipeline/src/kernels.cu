#include "pipeline.h"

__global__ void hannWindow(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 0.5f * (1.f - cospif(2.f * i / (n - 1)));
}

__global__ void fir(const float *in, float *out, const float *taps, int n, int ntaps, bool high) {
  extern __shared__ float staps[];
  for (int t = threadIdx.x; t < ntaps; t += blockDim.x) staps[t] = (high && (t & 1)) ? -taps[t] : taps[t];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int t = 0; t < ntaps; ++t) {
    int j = i - t;
    if (j >= 0) acc = fmaf(staps[t], in[j], acc);
  }
  out[i] = acc;
}

__global__ void energy(const float *in, float *out, int n) {
  __shared__ float part[256];
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i] * in[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

__global__ void scale(float *d, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= f;
}

static int blocks(int n) { return (n + 255) / 256; }

void launchWindow(const Buffers &b, cudaStream_t s) { hannWindow<<<blocks(b.n), 256, 0, s>>>(b.input, b.windowed, b.n); }
void launchFir(const float *in, float *out, const float *taps, int n, int ntaps, bool high, cudaStream_t s) {
  fir<<<blocks(n), 256, ntaps * sizeof(float), s>>>(in, out, taps, n, ntaps, high);
}
void launchEnergy(const float *in, float *out, int n, cudaStream_t s) {
  cudaMemsetAsync(out, 0, sizeof(float), s);
  energy<<<120, 256, 0, s>>>(in, out, n);
}
void launchScale(float *data, int n, float factor, cudaStream_t s) { scale<<<blocks(n), 256, 0, s>>>(data, n, factor); }
