// fichier en Latin-1: café crème
#include <hip/hip_runtime.h>
int main() {
    float* p;
    hipMalloc(&p, 16); /* été */
    hipFree(p);
    return 0;
}
