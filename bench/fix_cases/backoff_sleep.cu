// Spin lock with exponential backoff via __nanosleep.
#include <cuda_runtime.h>
__device__ void lock(int* mutex) {
    unsigned int ns = 8;
    while (atomicCAS(mutex, 0, 1) != 0) {
        __nanosleep(ns);
        if (ns < 256) ns *= 2;
    }
}
__global__ void k(int* mutex, int* counter) {
    lock(mutex);
    *counter += 1;
    atomicExch(mutex, 0);
}
