#include <cstdio>
#include "kernels.cuh"
int main() {
    float* x;
    hipMalloc(&x, 1024 * sizeof(float));
    scale<<<4, 256>>>(x, 2.0f, 1024);
    hipDeviceSynchronize();
    hipFree(x);
    puts("done");
}
