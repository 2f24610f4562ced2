// checks: PS001 PS002 PS003
#define TILE 128
constexpr int ROWS = 136;  // 128 x 136 floats = 68 KiB
__global__ void big(float* out) {                                       // expect: PS001
  __shared__ float a[TILE][ROWS];
  __shared__ double b[TILE];
  out[0] = a[0][0] + b[0];
}
__global__ void fits(float* out) {
  __shared__ float a[64][64];
  extern __shared__ float dyn[];
  out[0] = a[0][0] + dyn[0];
}
int main() {
  big<<<1, 256>>>(nullptr);
  fits<<<1, 256, 80 * 1024>>>(nullptr);                                  // expect: PS002
  fits<<<1, 256, 32 * 1024, 0>>>(nullptr);
  cudaFuncSetAttribute(fits, cudaFuncAttributeMaxDynamicSharedMemorySize, 98304);   // expect: PS003
  cudaFuncSetAttribute(fits, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
  return 0;
}
