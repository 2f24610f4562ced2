// wrap_demo: vector add through a driver-API module, checked through the runtime API.
//   wrap_demo path/to/vector_kernels.fatbin [elements]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpuwrap.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s vector_kernels.fatbin [elements]\n", argv[0]);
    return 2;
  }
  int n = argc > 2 ? atoi(argv[2]) : 1 << 20;
  try {
    gpuwrap::Context ctx(0);
    gpuwrap::Module module(argv[1]);
    std::vector<float> a(n, 1.f), b(n, 2.f), c(n, 0.f);

    CUdeviceptr da, db, dc;
    GPUWRAP_CHECK(cuMemAlloc(&da, n * sizeof(float)));
    GPUWRAP_CHECK(cuMemAlloc(&db, n * sizeof(float)));
    GPUWRAP_CHECK(cuMemAlloc(&dc, n * sizeof(float)));
    gpuwrap::copyToDevice(da, a.data(), n * sizeof(float));
    gpuwrap::copyToDevice(db, b.data(), n * sizeof(float));

    void *args[] = {&da, &db, &dc, &n};
    module.launch("vectorAdd", dim3((n + 255) / 256), dim3(256), args);
    float s = 0.5f;
    void *scaleArgs[] = {&dc, &s, &n};
    module.launch("vectorScale", dim3((n + 255) / 256), dim3(256), scaleArgs);
    GPUWRAP_CHECK(cuCtxSynchronize());
    gpuwrap::copyToHost(c.data(), dc, n * sizeof(float));

    // the same memory seen from the runtime API
    float *runtimeView = reinterpret_cast<float *>(dc);
    float first = 0.f;
    GPUWRAP_CHECK(cudaMemcpy(&first, runtimeView, sizeof(float), cudaMemcpyDeviceToHost));

    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    GPUWRAP_CHECK(cudaMallocArray(&arr, &desc, 64, 64));
    printf("%s\n", gpuwrap::describe(arr).c_str());
    GPUWRAP_CHECK(cudaFreeArray(arr));

    int errors = 0;
    for (int i = 0; i < n; ++i) errors += c[i] != 1.5f;
    printf("%d elements, first %.2f, %d errors: %s\n", n, first, errors, errors ? "FAILED" : "PASSED");
    GPUWRAP_CHECK(cuMemFree(da));
    GPUWRAP_CHECK(cuMemFree(db));
    GPUWRAP_CHECK(cuMemFree(dc));
    return errors ? 1 : 0;
  } catch (const gpuwrap::Error &e) {
    fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
