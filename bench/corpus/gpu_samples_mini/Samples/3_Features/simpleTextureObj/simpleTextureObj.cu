/* Rotate an image with a texture object: normalized coordinates, wrap addressing, linear filtering. */
#include <math.h>
#include <stdio.h>
#include <vector>

#include <helper_cuda_lite.h>

const float angle = 0.5f;

__global__ void transformKernel(float *outputData, int width, int height, float theta, cudaTextureObject_t tex) {
  unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  float u = (float)x - (float)width / 2;
  float v = (float)y - (float)height / 2;
  float tu = u * cosf(theta) - v * sinf(theta);
  float tv = v * cosf(theta) + u * sinf(theta);
  tu /= (float)width;
  tv /= (float)height;
  outputData[y * width + x] = tex2D<float>(tex, tu + 0.5f, tv + 0.5f);
}

int main(int argc, const char **argv) {
  findCudaDevice(argc, argv);
  const unsigned width = 512, height = 512;
  std::vector<float> hData(width * height);
  for (unsigned i = 0; i < width * height; ++i) hData[i] = float((i / 32 + i / (32 * width)) % 2);

  cudaChannelFormatDesc channelDesc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray *cuArray;
  checkCudaErrors(cudaMallocArray(&cuArray, &channelDesc, width, height));
  checkCudaErrors(cudaMemcpy2DToArray(cuArray, 0, 0, hData.data(), width * sizeof(float), width * sizeof(float),
                                      height, cudaMemcpyHostToDevice));
  cudaTextureObject_t tex;
  cudaResourceDesc texRes;
  memset(&texRes, 0, sizeof(cudaResourceDesc));
  texRes.resType = cudaResourceTypeArray;
  texRes.res.array.array = cuArray;
  cudaTextureDesc texDescr;
  memset(&texDescr, 0, sizeof(cudaTextureDesc));
  texDescr.normalizedCoords = true;
  texDescr.filterMode = cudaFilterModeLinear;
  texDescr.addressMode[0] = cudaAddressModeWrap;
  texDescr.addressMode[1] = cudaAddressModeWrap;
  texDescr.readMode = cudaReadModeElementType;
  checkCudaErrors(cudaCreateTextureObject(&tex, &texRes, &texDescr, NULL));

  float *dData = NULL;
  checkCudaErrors(cudaMalloc((void **)&dData, width * height * sizeof(float)));
  dim3 dimBlock(8, 8, 1);
  dim3 dimGrid(width / dimBlock.x, height / dimBlock.y, 1);
  transformKernel<<<dimGrid, dimBlock, 0>>>(dData, width, height, angle, tex);
  getLastCudaError("Kernel execution failed");
  checkCudaErrors(cudaDeviceSynchronize());
  std::vector<float> out(width * height);
  checkCudaErrors(cudaMemcpy(out.data(), dData, width * height * sizeof(float), cudaMemcpyDeviceToHost));
  double mean = 0;
  for (float v : out) mean += v;
  mean /= out.size();
  printf("rotated image mean %.3f: %s\n", mean, (mean > 0.3 && mean < 0.7) ? "PASSED" : "FAILED");
  checkCudaErrors(cudaDestroyTextureObject(tex));
  checkCudaErrors(cudaFree(dData));
  checkCudaErrors(cudaFreeArray(cuArray));
  return 0;
}
