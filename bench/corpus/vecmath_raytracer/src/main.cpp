// rt: render a few spheres to out.ppm
//   rt [-w width] [-h height] [-s samples] [-n extra_spheres] [-o file.ppm]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "scene.cuh"

static bool writePPM(const char *path, const std::vector<uchar4> &img, int w, int h) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  fprintf(f, "P6\n%d %d\n255\n", w, h);
  for (const uchar4 &p : img) {
    unsigned char rgb[3] = {p.x, p.y, p.z};
    fwrite(rgb, 1, 3, f);
  }
  return fclose(f) == 0;
}

int main(int argc, char **argv) {
  int w = 800, h = 450, spp = 4, extra = 6;
  const char *out = "out.ppm";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-w")) w = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-h")) h = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-s")) spp = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-n")) extra = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-o")) out = argv[i + 1];
    else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (w <= 0 || h <= 0 || spp <= 0) {
    fprintf(stderr, "width, height and samples must be positive\n");
    return 2;
  }
  Scene scene = makeDemoScene(extra);
  Camera cam = makeCamera(make_float3(0.f, 1.5f, 7.f), make_float3(0.f, 0.f, 0.f), 45.f, float(w) / h);
  std::vector<uchar4> image(size_t(w) * h);
  if (!render(scene, cam, w, h, spp, image.data())) return 1;
  if (!writePPM(out, image, w, h)) {
    fprintf(stderr, "cannot write %s\n", out);
    return 1;
  }
  printf("wrote %s\n", out);
  return 0;
}
