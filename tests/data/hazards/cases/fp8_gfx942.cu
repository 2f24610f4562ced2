// checks: PF001 PF002 PF003
#include <cuda_fp8.h>
__global__ void k(__nv_fp8_e4m3* out, const float* in) {                 // expect: PF001
  __hip_fp8_e4m3_fnuz ok(in[0]);
  __hip_fp8_e5m2 ocp(in[1]);                                             // expect: PF001
  out[0] = __nv_fp8_e4m3(in[0]);
}
