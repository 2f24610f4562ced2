// nvcc includes cuda_runtime.h implicitly in .cu files; hipcc does not include hip_runtime.h.
__global__ void fill(int* p, int v) { p[threadIdx.x] = v; }
int main() {
    int* d = nullptr;
    cudaMalloc(&d, 64 * sizeof(int));
    fill<<<1, 64>>>(d, 7);
    cudaDeviceSynchronize();
    cudaFree(d);
    return 0;
}
