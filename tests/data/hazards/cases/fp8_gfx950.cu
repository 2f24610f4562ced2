// target: gfx950
// checks: PF001 PF002 PF003
__global__ void k(__hip_fp8_e4m3* out, const float* in) {
  __hip_fp8_e4m3_fnuz fnuz(in[0]);                                        // expect: PF002
  __nv_fp8_e5m2 ocp(in[1]);
  out[0] = __hip_fp8_e4m3(in[0]);
}
