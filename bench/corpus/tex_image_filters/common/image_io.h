// Minimal binary PGM (P5) reader/writer, 8-bit grey.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

struct GreyImage {
  int width = 0, height = 0;
  std::vector<unsigned char> pixels;
};

inline bool loadPGM(const std::string &path, GreyImage &img) {
  FILE *f = fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[3] = {0};
  int maxval = 0;
  bool ok = fscanf(f, "%2s %d %d %d", magic, &img.width, &img.height, &maxval) == 4 && std::string(magic) == "P5" &&
            maxval == 255;
  if (ok) {
    fgetc(f);
    img.pixels.resize(size_t(img.width) * img.height);
    ok = fread(img.pixels.data(), 1, img.pixels.size(), f) == img.pixels.size();
  }
  fclose(f);
  return ok;
}

inline bool savePGM(const std::string &path, const GreyImage &img) {
  FILE *f = fopen(path.c_str(), "wb");
  if (!f) return false;
  fprintf(f, "P5\n%d %d\n255\n", img.width, img.height);
  bool ok = fwrite(img.pixels.data(), 1, img.pixels.size(), f) == img.pixels.size();
  return fclose(f) == 0 && ok;
}

// A test card when no input file is given: gradients, rings and a checkerboard.
inline GreyImage makeTestCard(int w, int h) {
  GreyImage img;
  img.width = w;
  img.height = h;
  img.pixels.resize(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int dx = x - w / 2, dy = y - h / 2;
      int ring = ((dx * dx + dy * dy) / 400) % 2;
      int check = ((x / 16) + (y / 16)) % 2;
      img.pixels[size_t(y) * w + x] = (unsigned char)(x < w / 2 ? (255 * y) / h : (ring ? 220 : 30) ^ (check * 16));
    }
  return img;
}
