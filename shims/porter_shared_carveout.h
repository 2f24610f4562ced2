// porter shim: CUDA's cudaSharedCarveout values for cudaFuncAttributePreferredSharedMemoryCarveout, which HIP's
// headers lack although hipFuncSetAttribute takes hipFuncAttributePreferredSharedMemoryCarveout.
// How this differs from CUDA: the values are CUDA's (-1 default, 100 the most shared memory, 0 the most L1); on AMD
// GPUs LDS is not carved out of the L1 cache, so the preference changes nothing there.
#ifndef PORTER_SHARED_CARVEOUT_H
#define PORTER_SHARED_CARVEOUT_H

enum porter_shared_carveout {
    porter_sharedmem_carveout_default = -1,
    porter_sharedmem_carveout_max_shared = 100,
    porter_sharedmem_carveout_max_l1 = 0
};

#endif  // PORTER_SHARED_CARVEOUT_H
