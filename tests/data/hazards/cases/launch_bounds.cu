// checks: PB001 PB002
#define THREADS 2048
__global__ void __launch_bounds__(THREADS) too_big(float* o) { o[0] = 1; }        // expect: PB001
__global__ void __launch_bounds__(256, 4) occupancy(float* o) { o[0] = 1; }      // expect: PB002
__global__ void __launch_bounds__(1024) fine(float* o) { o[0] = 1; }
int main() {
  dim3 block(32, 32, 2);
  dim3 ok(16, 16);
  fine<<<1, block>>>(nullptr);                                                     // expect: PB001
  fine<<<1, dim3(64, 32)>>>(nullptr);                                              // expect: PB001
  fine<<<1, ok>>>(nullptr);
  fine<<<1, 1024>>>(nullptr);
}
