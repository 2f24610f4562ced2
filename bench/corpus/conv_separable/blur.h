#ifndef GAUSS_BLUR_H
#define GAUSS_BLUR_H

#define TAP_RADIUS 6
#define TAP_COUNT (2 * TAP_RADIUS + 1)

// Tiles: each block produces TILE_W x TILE_H outputs of one pass.
#define TILE_W 32
#define TILE_H 8

void uploadTaps(const float *taps);
void blurHorizontal(float *out, const float *in, int width, int height);
void blurVertical(float *out, const float *in, int width, int height);

void blurHorizontalHost(float *out, const float *in, const float *taps, int width, int height);
void blurVerticalHost(float *out, const float *in, const float *taps, int width, int height);

#endif
