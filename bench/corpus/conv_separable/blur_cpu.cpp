// Host reference with the same clamp-to-edge rule.
#include "blur.h"

static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

void blurHorizontalHost(float *out, const float *in, const float *taps, int width, int height) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float acc = 0.f;
      for (int k = 0; k < TAP_COUNT; ++k) acc += taps[k] * in[y * width + clampi(x + k - TAP_RADIUS, 0, width - 1)];
      out[y * width + x] = acc;
    }
}

void blurVerticalHost(float *out, const float *in, const float *taps, int width, int height) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float acc = 0.f;
      for (int k = 0; k < TAP_COUNT; ++k) acc += taps[k] * in[clampi(y + k - TAP_RADIUS, 0, height - 1) * width + x];
      out[y * width + x] = acc;
    }
}
