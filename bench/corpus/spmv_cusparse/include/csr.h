#pragma once
#include <vector>

struct HostCsr {
  int rows = 0, cols = 0;
  std::vector<int> rowPtr, colInd;
  std::vector<float> val;
  int nnz() const { return int(val.size()); }
};

HostCsr poisson2d(int n);  // 5-point Laplacian on an n x n grid

void spmvScalar(int rows, const int *rowPtr, const int *colInd, const float *val, const float *x, float *y);
void spmvVector(int rows, const int *rowPtr, const int *colInd, const float *val, const float *x, float *y);
