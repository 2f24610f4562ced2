// hipcc side of the corpus: compile with -Rpass-analysis=kernel-resource-usage (see porter/tune/usage.py).
#include <hip/hip_runtime.h>
#include "kernels.inc"

#define TUNE_INSTANTIATE(kernel, B) template __global__ void kernel<B>(TUNE_ARGS);
#define TUNE_ALL_BLOCKS(kernel) TUNE_FOR_EACH_BLOCK(TUNE_INSTANTIATE, kernel)
TUNE_KERNELS_COMMON(TUNE_ALL_BLOCKS)
#ifdef TUNE_LDS_64K
TUNE_ALL_BLOCKS(tune_lds64k)
#endif
#ifdef TUNE_LDS_160K
TUNE_ALL_BLOCKS(tune_lds96k)
TUNE_ALL_BLOCKS(tune_lds160k)
#endif
