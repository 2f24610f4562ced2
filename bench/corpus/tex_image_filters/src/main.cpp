// imgfilter: run the texture-based filters on a PGM image (or a generated test card).
//   imgfilter [-i in.pgm] [-o prefix] [-r radius] [-s scale]
#include <cstdlib>
#include <cstring>
#include <string>

#include "filters.h"

int main(int argc, char **argv) {
  std::string input, prefix = "out";
  int radius = 3;
  float scale = 2.f;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-i")) input = argv[i + 1];
    else if (!strcmp(argv[i], "-o")) prefix = argv[i + 1];
    else if (!strcmp(argv[i], "-r")) radius = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-s")) scale = float(atof(argv[i + 1]));
    else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  GreyImage img;
  if (input.empty()) img = makeTestCard(1024, 768);
  else if (!loadPGM(input, img)) {
    fprintf(stderr, "cannot read %s (binary PGM, maxval 255 expected)\n", input.c_str());
    return 1;
  }
  GreyImage box, big, edges;
  float t1 = boxFilter(img, box, radius);
  float t2 = resizeBilinear(img, big, img.width * 3 / 2, img.height * 3 / 2);
  float t3 = sobelEdges(img, edges, scale);
  printf("box r=%d: %.3f ms, resize x1.5: %.3f ms, sobel: %.3f ms\n", radius, t1, t2, t3);
  bool ok = savePGM(prefix + "_box.pgm", box) && savePGM(prefix + "_resize.pgm", big) &&
            savePGM(prefix + "_sobel.pgm", edges);
  if (!ok) {
    fprintf(stderr, "cannot write output images\n");
    return 1;
  }
  return 0;
}
