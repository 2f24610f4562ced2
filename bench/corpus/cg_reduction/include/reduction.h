#pragma once
#include <cstddef>

enum ReduceKind { kSharedTree = 0, kTileReduce = 1, kTile16Reduce = 2, kDynamicTile = 3, kNumKinds = 4 };

const char *reduceName(ReduceKind k);
// Sum and maximum of `n` floats on the device; returns kernel time in ms.
float runReduce(ReduceKind k, const float *dIn, size_t n, float *sum, float *maxv, int blocks, int threads);
