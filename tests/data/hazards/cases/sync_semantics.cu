// checks: PY001 PY002 PY003
__device__ void warp_reduce(float* sdata, int tid) {
  sdata[tid] += sdata[tid + 32];                                          // expect: PY002
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}
__device__ void warp_reduce_volatile(volatile float* sdata, int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
}
__global__ void k(float* flag, float* s) {
  if (threadIdx.x < 16) {
    __syncwarp(0x0000ffff);                                               // expect: PY001
  }
  __syncwarp();
  __syncwarp(0xffffffff);
  s[0] = 1.0f;
  __threadfence_system();                                                 // expect: PY003
  flag[0] = 1.0f;
}
