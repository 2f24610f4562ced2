// fftconv: convolve a batch of images with a small kernel through the frequency domain.
//   fftconv [width] [height] [batch] [kernel_size]
#include <cmath>

#include "fftconv.h"

__global__ void multiplyScale(cufftComplex *a, const cufftComplex *b, int n, int perImage, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cufftComplex x = a[i], y = b[i % perImage];
  cufftComplex r;
  r.x = (x.x * y.x - x.y * y.y) * scale;
  r.y = (x.x * y.y + x.y * y.x) * scale;
  a[i] = r;
}

int main(int argc, char **argv) {
  int w = argc > 1 ? atoi(argv[1]) : 512;
  int h = argc > 2 ? atoi(argv[2]) : 512;
  int batch = argc > 3 ? atoi(argv[3]) : 8;
  int k = argc > 4 ? atoi(argv[4]) : 7;
  if (w < 8 || h < 8 || batch < 1 || k < 1 || k > w || k > h) {
    fprintf(stderr, "usage: %s [width>=8] [height>=8] [batch>=1] [kernel_size]\n", argv[0]);
    return 2;
  }
  const int freqW = w / 2 + 1;
  const size_t realPerImage = size_t(w) * h, freqPerImage = size_t(freqW) * h;

  std::vector<float> img(realPerImage * batch), kernel(size_t(k) * k, 1.f / (k * k)), padded(realPerImage, 0.f);
  for (size_t i = 0; i < img.size(); ++i) img[i] = float((i * 7919) % 255) / 255.f;
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < k; ++i) padded[size_t(j) * w + i] = kernel[j * k + i];

  float *dImg, *dKer;
  cufftComplex *dImgF, *dKerF;
  CUDA_RT_CALL(cudaMalloc(&dImg, img.size() * sizeof(float)));
  CUDA_RT_CALL(cudaMalloc(&dKer, realPerImage * sizeof(float)));
  CUDA_RT_CALL(cudaMalloc(&dImgF, freqPerImage * batch * sizeof(cufftComplex)));
  CUDA_RT_CALL(cudaMalloc(&dKerF, freqPerImage * sizeof(cufftComplex)));
  CUDA_RT_CALL(cudaMemcpy(dImg, img.data(), img.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_RT_CALL(cudaMemcpy(dKer, padded.data(), realPerImage * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CUDA_RT_CALL(cudaStreamCreate(&stream));

  // batched forward/inverse plans for the images, single plan for the kernel; one shared work area
  int dims[2] = {h, w};
  cufftHandle fwd, inv, kerPlan;
  size_t fwdWork = 0, invWork = 0, kerWork = 0;
  CUFFT_CALL(cufftCreate(&fwd));
  CUFFT_CALL(cufftCreate(&inv));
  CUFFT_CALL(cufftCreate(&kerPlan));
  CUFFT_CALL(cufftSetAutoAllocation(fwd, 0));
  CUFFT_CALL(cufftSetAutoAllocation(inv, 0));
  CUFFT_CALL(cufftMakePlanMany(fwd, 2, dims, nullptr, 1, int(realPerImage), nullptr, 1, int(freqPerImage), CUFFT_R2C,
                               batch, &fwdWork));
  CUFFT_CALL(cufftMakePlanMany(inv, 2, dims, nullptr, 1, int(freqPerImage), nullptr, 1, int(realPerImage), CUFFT_C2R,
                               batch, &invWork));
  CUFFT_CALL(cufftMakePlan2d(kerPlan, h, w, CUFFT_R2C, &kerWork));
  void *work;
  size_t workBytes = fwdWork > invWork ? fwdWork : invWork;
  CUDA_RT_CALL(cudaMalloc(&work, workBytes));
  CUFFT_CALL(cufftSetWorkArea(fwd, work));
  CUFFT_CALL(cufftSetWorkArea(inv, work));
  for (cufftHandle p : {fwd, inv, kerPlan}) CUFFT_CALL(cufftSetStream(p, stream));

  cudaEvent_t t0, t1;
  CUDA_RT_CALL(cudaEventCreate(&t0));
  CUDA_RT_CALL(cudaEventCreate(&t1));
  CUDA_RT_CALL(cudaEventRecord(t0, stream));
  CUFFT_CALL(cufftExecR2C(kerPlan, dKer, dKerF));
  CUFFT_CALL(cufftExecR2C(fwd, dImg, dImgF));
  int total = int(freqPerImage * batch);
  multiplyScale<<<(total + 255) / 256, 256, 0, stream>>>(dImgF, dKerF, total, int(freqPerImage),
                                                          1.f / float(realPerImage));
  CUDA_RT_CALL(cudaGetLastError());
  CUFFT_CALL(cufftExecC2R(inv, dImgF, dImg));
  CUDA_RT_CALL(cudaEventRecord(t1, stream));
  CUDA_RT_CALL(cudaEventSynchronize(t1));
  float ms;
  CUDA_RT_CALL(cudaEventElapsedTime(&ms, t0, t1));

  std::vector<float> out(realPerImage);
  CUDA_RT_CALL(cudaMemcpy(out.data(), dImg, realPerImage * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> ref;
  std::vector<float> first(img.begin(), img.begin() + realPerImage);
  convolveReference(first, w, h, kernel, k, k, ref);
  double maxErr = 0;
  for (size_t i = 0; i < realPerImage; ++i) maxErr = fmax(maxErr, fabs(double(out[i]) - ref[i]));
  printf("%d images %dx%d, %dx%d kernel: %.3f ms; max error vs direct %.2e (work area %zu bytes)\n", batch, w, h, k,
         k, ms, maxErr, workBytes);

  for (cufftHandle p : {fwd, inv, kerPlan}) CUFFT_CALL(cufftDestroy(p));
  cudaFree(work);
  cudaFree(dImg);
  cudaFree(dKer);
  cudaFree(dImgF);
  cudaFree(dKerF);
  cudaStreamDestroy(stream);
  return maxErr < 1e-3 ? 0 : 1;
}
