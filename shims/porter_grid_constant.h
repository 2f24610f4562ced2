// porter shim: CUDA's __grid_constant__ kernel-parameter qualifier, which HIP does not define.
//
// How this differs from CUDA: CUDA keeps a __grid_constant__ parameter in the grid's parameter space, so taking
// its address yields one address for the whole grid and no per-thread copy is made. On AMD GPUs kernel arguments
// sit in the kernarg segment; where the code takes a parameter's address the compiler may give each thread its
// own copy to point at (for a large struct: a copy in scratch memory, slower). What the code reads through that
// pointer is the same (the parameter is const, as CUDA requires), but addresses compared across threads differ.
// Where the compiler knows clang's grid_constant attribute (ROCm 6.x's clang does, 5.2's does not) the qualifier
// maps to it; otherwise it is dropped.
#ifndef PORTER_GRID_CONSTANT_H
#define PORTER_GRID_CONSTANT_H

#include <hip/hip_runtime.h>

#ifndef __grid_constant__
#if defined(__has_attribute)
#if __has_attribute(grid_constant)
#define __grid_constant__ __attribute__((grid_constant))
#endif
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
#endif

#endif  // PORTER_GRID_CONSTANT_H
