// target: gfx950
// checks: PS001 PS002
__global__ void big(float* out) {
  __shared__ float a[128][72];
  out[0] = a[0][0];
}
__global__ void huge(float* out) {                                      // expect: PS001
  __shared__ float a[256][192];
  out[0] = a[0][0];
}
int main() {
  big<<<1, 256, 120 * 1024>>>(nullptr);
  big<<<1, 256, 200 * 1024>>>(nullptr);                                  // expect: PS002
}
