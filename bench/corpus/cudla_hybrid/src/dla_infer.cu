// dla_infer: run a DLA loadable (built with TensorRT for DLA) in cuDLA hybrid mode, with CUDA
// kernels before and after it on the same stream.
//   dla_infer model.loadable [dla_core]
#include <cudla.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#include "dla_common.h"

#define CHECK_DLA(x)                                                         \
  do {                                                                       \
    cudlaStatus s_ = (x);                                                    \
    if (s_ != cudlaSuccess) {                                                \
      DPRINTF("%s:%d cuDLA error %d\n", __FILE__, __LINE__, int(s_));       \
      return 1;                                                              \
    }                                                                        \
  } while (0)

static std::vector<uint8_t> readFile(const char *path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return {};
  std::vector<uint8_t> data(size_t(f.tellg()));
  f.seekg(0);
  f.read(reinterpret_cast<char *>(data.data()), data.size());
  return data;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    DPRINTF("usage: %s model.loadable [dla_core]\n", argv[0]);
    return 2;
  }
  uint64_t core = argc > 2 ? strtoull(argv[2], nullptr, 10) : 0;
  std::vector<uint8_t> loadable = readFile(argv[1]);
  if (loadable.empty()) {
    DPRINTF("cannot read %s\n", argv[1]);
    return 1;
  }
  uint64_t version = 0, count = 0;
  CHECK_DLA(cudlaGetVersion(&version));
  CHECK_DLA(cudlaDeviceGetCount(&count));
  printf("cuDLA %llu, %llu DLA core(s)\n", (unsigned long long)version, (unsigned long long)count);
  if (core >= count) {
    DPRINTF("DLA core %llu not present\n", (unsigned long long)core);
    return 1;
  }

  CHECK_CUDA(cudaFree(0));  // create the CUDA context the DLA device attaches to
  cudlaDevHandle dev;
  CHECK_DLA(cudlaCreateDevice(core, &dev, CUDLA_CUDA_DLA));
  cudlaModule module;
  CHECK_DLA(cudlaModuleLoadFromMemory(dev, loadable.data(), loadable.size(), &module, 0));

  cudlaModuleAttribute attr;
  CHECK_DLA(cudlaModuleGetAttributes(module, CUDLA_NUM_INPUT_TENSORS, &attr));
  uint32_t numInputs = attr.numInputTensors;
  CHECK_DLA(cudlaModuleGetAttributes(module, CUDLA_NUM_OUTPUT_TENSORS, &attr));
  uint32_t numOutputs = attr.numOutputTensors;
  if (numInputs != 1 || numOutputs != 1) {
    DPRINTF("expected one input and one output tensor, got %u and %u\n", numInputs, numOutputs);
    return 1;
  }
  std::vector<cudlaModuleTensorDescriptor> inDesc(numInputs), outDesc(numOutputs);
  attr.inputTensorDesc = inDesc.data();
  CHECK_DLA(cudlaModuleGetAttributes(module, CUDLA_INPUT_TENSOR_DESCRIPTORS, &attr));
  attr.outputTensorDesc = outDesc.data();
  CHECK_DLA(cudlaModuleGetAttributes(module, CUDLA_OUTPUT_TENSOR_DESCRIPTORS, &attr));
  printf("input %s: %llu bytes (%llux%llux%llu), output %s: %llu bytes\n", inDesc[0].name,
         (unsigned long long)inDesc[0].size, (unsigned long long)inDesc[0].c, (unsigned long long)inDesc[0].h,
         (unsigned long long)inDesc[0].w, outDesc[0].name, (unsigned long long)outDesc[0].size);

  // CUDA buffers, registered so the DLA can read and write them
  void *inBuf, *outBuf;
  uint8_t *rgb;
  int *best;
  const int w = int(inDesc[0].w), h = int(inDesc[0].h);
  CHECK_CUDA(cudaMalloc(&inBuf, inDesc[0].size));
  CHECK_CUDA(cudaMalloc(&outBuf, outDesc[0].size));
  CHECK_CUDA(cudaMalloc(&rgb, size_t(w) * h * 3));
  CHECK_CUDA(cudaMallocManaged(&best, sizeof(int)));
  CHECK_CUDA(cudaMemset(rgb, 128, size_t(w) * h * 3));
  uint64_t *inDla, *outDla;
  CHECK_DLA(cudlaMemRegister(dev, reinterpret_cast<uint64_t *>(inBuf), inDesc[0].size, &inDla, 0));
  CHECK_DLA(cudlaMemRegister(dev, reinterpret_cast<uint64_t *>(outBuf), outDesc[0].size, &outDla, 0));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  CHECK_CUDA(cudaEventRecord(a, stream));
  launchPreprocess(rgb, w, h, inBuf, stream);
  cudlaTask task = {};
  task.moduleHandle = module;
  task.inputTensor = &inDla;
  task.numInputTensors = 1;
  task.outputTensor = &outDla;
  task.numOutputTensors = 1;
  task.waitEvents = nullptr;
  task.signalEvents = nullptr;
  CHECK_DLA(cudlaSubmitTask(dev, &task, 1, stream, 0));
  launchArgmax(outBuf, int(outDesc[0].size / 2), best, stream);
  CHECK_CUDA(cudaEventRecord(b, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  float ms;
  CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
  printf("class %d in %.3f ms (preprocess + DLA + argmax)\n", *best, ms);

  CHECK_DLA(cudlaMemUnregister(dev, inDla));
  CHECK_DLA(cudlaMemUnregister(dev, outDla));
  CHECK_DLA(cudlaModuleUnload(module, 0));
  CHECK_DLA(cudlaDestroyDevice(dev));
  CHECK_CUDA(cudaStreamDestroy(stream));
  cudaFree(inBuf);
  cudaFree(outBuf);
  cudaFree(rgb);
  cudaFree(best);
  return 0;
}
