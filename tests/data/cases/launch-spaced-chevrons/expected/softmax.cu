// Launches a formatter spaced out (`<< <` ... `>> >`), which nvcc reads as launches and clang does not
#include <hip/hip_runtime.h>
#include <ostream>

template <typename T>
__global__ void scaleKernel(T* out, const T* in, T factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * factor;
}

template <typename T>
struct Box { T v; };
template <typename T>
std::ostream& operator<<(std::ostream& os, const Box<T>& b);
template <>
std::ostream& operator<< <float>(std::ostream& os, const Box<float>& b) { return os << b.v; }

void scale(float* out, const float* in, int n, hipStream_t stream) {
    const int block = 256;
    const int grid = (n + block - 1) / block;
    // scaleKernel << <grid, block >> > (out, in, 2.0f, n) stays as written in a comment
    scaleKernel<float> <<<grid, block, 0, stream >>> (out, in, 2.0f, n);
    scaleKernel <<< grid, block >>> (out, in, 0.5f, n);
    hipStreamSynchronize(stream);
}
