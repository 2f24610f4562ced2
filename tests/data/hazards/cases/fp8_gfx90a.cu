// target: gfx90a
// checks: PF001 PF002 PF003
__global__ void k(__hip_fp8_e4m3_fnuz* out, const float* in) {            // expect: PF003
  out[0] = __hip_fp8_e4m3_fnuz(in[0]);
}
