// simple_graph: sum of squares of a vector, as an explicitly built CUDA graph.
//
//   memset(result) ─┐
//   H2D copy(input) ┴─> square+partial-sum kernel ─> final-sum child graph ─> D2H copy ─> host check
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define checkCudaErrors(x)                                                                     \
  {                                                                                            \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      printf("%s(%d): %s failed: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      exit(EXIT_FAILURE);                                                                      \
    }                                                                                          \
  }

constexpr int THREADS = 512;

__global__ void squarePartials(const float *in, double *partial, size_t n, float scale) {
  __shared__ double s[THREADS];
  double v = 0.0;
  for (size_t i = blockIdx.x * size_t(THREADS) + threadIdx.x; i < n; i += size_t(gridDim.x) * THREADS) {
    double x = in[i] * scale;
    v += x * x;
  }
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void finalSum(const double *partial, int count, double *result) {
  __shared__ double s[THREADS];
  double v = 0.0;
  for (int i = threadIdx.x; i < count; i += THREADS) v += partial[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = THREADS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) *result += s[0];
}

struct HostCheck {
  const double *hostResult;
  double expected;
  int runs;
  int failures;
};

static void CUDART_CB checkResult(void *data) {
  HostCheck *c = static_cast<HostCheck *>(data);
  ++c->runs;
  double rel = std::fabs(*c->hostResult - c->expected) / c->expected;
  if (rel > 1e-6) {
    ++c->failures;
    printf("run %d: got %.10e, expected %.10e\n", c->runs, *c->hostResult, c->expected);
  }
}

static cudaGraph_t buildFinalSumGraph(double *partial, int *count, double **result) {
  cudaGraph_t child;
  checkCudaErrors(cudaGraphCreate(&child, 0));
  cudaKernelNodeParams p = {0};
  void *args[3] = {(void *)&partial, (void *)count, (void *)result};
  p.func = (void *)finalSum;
  p.gridDim = dim3(1);
  p.blockDim = dim3(THREADS);
  p.sharedMemBytes = 0;
  p.kernelParams = args;
  p.extra = NULL;
  cudaGraphNode_t node;
  checkCudaErrors(cudaGraphAddKernelNode(&node, child, NULL, 0, &p));
  return child;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (1u << 24);
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (n == 0 || runs < 1) {
    fprintf(stderr, "usage: %s [elements] [runs]\n", argv[0]);
    return 2;
  }
  int blocks = 256;
  float *hIn, *dIn;
  double *dPartial, *dResult, *hResult;
  checkCudaErrors(cudaMallocHost(&hIn, n * sizeof(float)));
  checkCudaErrors(cudaMallocHost(&hResult, sizeof(double)));
  checkCudaErrors(cudaMalloc(&dIn, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dPartial, blocks * sizeof(double)));
  checkCudaErrors(cudaMalloc(&dResult, sizeof(double)));
  double expected = 0.0;
  for (size_t i = 0; i < n; ++i) {
    hIn[i] = float(i % 17) * 0.25f;
    expected += double(hIn[i]) * hIn[i];
  }

  cudaGraph_t graph;
  checkCudaErrors(cudaGraphCreate(&graph, 0));

  // memset node: zero the result (8 bytes as two 4-byte elements)
  cudaGraphNode_t memsetNode;
  cudaMemsetParams ms;
  memset(&ms, 0, sizeof(ms));
  ms.dst = (void *)dResult;
  ms.value = 0;
  ms.elementSize = sizeof(int);
  ms.width = 2;
  ms.height = 1;
  ms.pitch = 0;
  checkCudaErrors(cudaGraphAddMemsetNode(&memsetNode, graph, NULL, 0, &ms));

  // 3D memcpy node for the input (a 1 x 1 x n bytes "volume")
  cudaGraphNode_t copyIn;
  cudaMemcpy3DParms cp;
  memset(&cp, 0, sizeof(cp));
  cp.srcArray = NULL;
  cp.srcPos = make_cudaPos(0, 0, 0);
  cp.srcPtr = make_cudaPitchedPtr(hIn, n * sizeof(float), n, 1);
  cp.dstArray = NULL;
  cp.dstPos = make_cudaPos(0, 0, 0);
  cp.dstPtr = make_cudaPitchedPtr(dIn, n * sizeof(float), n, 1);
  cp.extent = make_cudaExtent(n * sizeof(float), 1, 1);
  cp.kind = cudaMemcpyHostToDevice;
  checkCudaErrors(cudaGraphAddMemcpyNode(&copyIn, graph, NULL, 0, &cp));

  // kernel node depending on both
  cudaGraphNode_t squareNode;
  float scale = 1.0f;
  void *squareArgs[4] = {(void *)&dIn, (void *)&dPartial, (void *)&n, (void *)&scale};
  cudaKernelNodeParams kp = {0};
  kp.func = (void *)squarePartials;
  kp.gridDim = dim3(blocks, 1, 1);
  kp.blockDim = dim3(THREADS, 1, 1);
  kp.sharedMemBytes = 0;
  kp.kernelParams = (void **)squareArgs;
  kp.extra = NULL;
  cudaGraphNode_t deps[2] = {memsetNode, copyIn};
  checkCudaErrors(cudaGraphAddKernelNode(&squareNode, graph, deps, 2, &kp));

  // child graph for the final reduction
  cudaGraph_t child = buildFinalSumGraph(dPartial, &blocks, &dResult);
  cudaGraphNode_t childNode;
  checkCudaErrors(cudaGraphAddChildGraphNode(&childNode, graph, &squareNode, 1, child));

  // result back to the host, then the check on the host
  cudaGraphNode_t copyOut, hostNode;
  checkCudaErrors(cudaGraphAddMemcpyNode1D(&copyOut, graph, NULL, 0, hResult, dResult, sizeof(double),
                                           cudaMemcpyDeviceToHost));
  // CUDA 13: edge data (nullptr = default edges) before the count
  checkCudaErrors(cudaGraphAddDependencies(graph, &childNode, &copyOut, nullptr, 1));
  HostCheck check = {hResult, expected, 0, 0};
  cudaHostNodeParams hp = {0};
  hp.fn = checkResult;
  hp.userData = &check;
  checkCudaErrors(cudaGraphAddHostNode(&hostNode, graph, &copyOut, 1, &hp));

  size_t numNodes = 0;
  checkCudaErrors(cudaGraphGetNodes(graph, NULL, &numNodes));
  printf("graph has %zu nodes\n", numNodes);

  cudaGraphExec_t exec;
  checkCudaErrors(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t stream;
  checkCudaErrors(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int r = 0; r < runs; ++r) checkCudaErrors(cudaGraphLaunch(exec, stream));
  checkCudaErrors(cudaStreamSynchronize(stream));

  // Same graph, doubled scale: the expected value quadruples.
  scale = 2.0f;
  check.expected = 4.0 * expected;
  checkCudaErrors(cudaGraphExecKernelNodeSetParams(exec, squareNode, &kp));
  checkCudaErrors(cudaGraphLaunch(exec, stream));
  checkCudaErrors(cudaStreamSynchronize(stream));

  printf("%d graph launches, %d host checks failed: %s\n", check.runs, check.failures,
         check.failures ? "FAILED" : "PASSED");
  checkCudaErrors(cudaGraphExecDestroy(exec));
  checkCudaErrors(cudaGraphDestroy(child));
  checkCudaErrors(cudaGraphDestroy(graph));
  checkCudaErrors(cudaStreamDestroy(stream));
  cudaFreeHost(hIn);
  cudaFreeHost(hResult);
  cudaFree(dIn);
  cudaFree(dPartial);
  cudaFree(dResult);
  return check.failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
