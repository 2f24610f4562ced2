// Direct circular convolution on the host, for checking.
#include "fftconv.h"

void convolveReference(const std::vector<float> &img, int w, int h, const std::vector<float> &kernel, int kw,
                       int kh, std::vector<float> &out) {
  out.assign(size_t(w) * h, 0.f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double acc = 0.0;
      for (int j = 0; j < kh; ++j)
        for (int i = 0; i < kw; ++i) {
          int sx = (x - i + w) % w, sy = (y - j + h) % h;
          acc += double(kernel[j * kw + i]) * img[size_t(sy) * w + sx];
        }
      out[size_t(y) * w + x] = float(acc);
    }
}
