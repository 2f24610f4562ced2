/* Vector addition: C = A + B. The simplest sample, and a check that the toolchain works. */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include <helper_cuda_lite.h>
#include <helper_timer_lite.h>

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i];
}

int main(int argc, const char **argv) {
  findCudaDevice(argc, argv);
  int numElements = 50000;
  size_t size = numElements * sizeof(float);
  printf("adding two vectors of %d floats\n", numElements);
  std::vector<float> h_A(numElements), h_B(numElements), h_C(numElements);
  for (int i = 0; i < numElements; ++i) {
    h_A[i] = rand() / (float)RAND_MAX;
    h_B[i] = rand() / (float)RAND_MAX;
  }
  float *d_A = NULL, *d_B = NULL, *d_C = NULL;
  checkCudaErrors(cudaMalloc((void **)&d_A, size));
  checkCudaErrors(cudaMalloc((void **)&d_B, size));
  checkCudaErrors(cudaMalloc((void **)&d_C, size));
  checkCudaErrors(cudaMemcpy(d_A, h_A.data(), size, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_B, h_B.data(), size, cudaMemcpyHostToDevice));

  int threadsPerBlock = 256;
  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  StopWatch timer;
  timer.start();
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  getLastCudaError("vectorAdd kernel launch failed");
  checkCudaErrors(cudaDeviceSynchronize());
  timer.stop();
  printf("%d blocks x %d threads: %.3f ms\n", blocksPerGrid, threadsPerBlock, timer.ms());
  checkCudaErrors(cudaMemcpy(h_C.data(), d_C, size, cudaMemcpyDeviceToHost));
  for (int i = 0; i < numElements; ++i) {
    if (fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5) {
      fprintf(stderr, "wrong sum at index %d\n", i);
      exit(EXIT_FAILURE);
    }
  }
  checkCudaErrors(cudaFree(d_A));
  checkCudaErrors(cudaFree(d_B));
  checkCudaErrors(cudaFree(d_C));
  printf("OK\n");
  return 0;
}
