#include "csr.h"

HostCsr poisson2d(int n) {
  HostCsr a;
  a.rows = a.cols = n * n;
  a.rowPtr.push_back(0);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      auto add = [&](int c, float v) {
        a.colInd.push_back(c);
        a.val.push_back(v);
      };
      int r = y * n + x;
      if (y > 0) add(r - n, -1.f);
      if (x > 0) add(r - 1, -1.f);
      add(r, 4.f);
      if (x < n - 1) add(r + 1, -1.f);
      if (y < n - 1) add(r + n, -1.f);
      a.rowPtr.push_back(int(a.val.size()));
    }
  return a;
}
