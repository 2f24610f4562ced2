// fichier en Latin-1: café crème
#include <cuda_runtime.h>
int main() {
    float* p;
    cudaMalloc(&p, 16); /* été */
    cudaFree(p);
    return 0;
}
