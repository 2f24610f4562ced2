#pragma once
#include <hip/hip_runtime.h>
__global__ void scale(float* x, float s, int n);
