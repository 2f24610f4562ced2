// checks: PK001 PK002
__global__ void k(long long* out) {
  long long t0 = wall_clock64();
  out[0] = wall_clock64() - t0;
}
double to_ms(long long ticks) {
  int rate = 0;
  hipDeviceGetAttribute(&rate, hipDeviceAttributeClockRate, 0);          // expect: PK002
  int wall = 0;
  hipDeviceGetAttribute(&wall, hipDeviceAttributeWallClockRate, 0);
  return ticks / (double)rate;
}
