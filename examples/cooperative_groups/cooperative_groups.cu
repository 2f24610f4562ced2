// Cooperative groups: per-tile reductions with tiled_partition<32>, then a grid-wide sync so every block
// can use the global total in a second phase of the same kernel (launched with cudaLaunchCooperativeKernel).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

constexpr int kThreads = 256;

__device__ int tile_sum(cg::thread_block_tile<32> tile, int v) {
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    return v;
}

// Phase 1: block partial sums into partials[]. grid.sync(). Phase 2: out[i] = in[i] * blocks - total
// (each element's deviation from the mean, scaled to stay an integer).
__global__ void center(const int* in, int* out, int n, int* partials, long long* total) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ int tile_sums[kThreads / 32];

    int local = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) local += in[i];
    int s = tile_sum(tile, local);
    if (tile.thread_rank() == 0) tile_sums[block.thread_rank() / tile.size()] = s;
    block.sync();
    if (block.thread_rank() == 0) {
        int b = 0;
        for (unsigned t = 0; t < block.size() / tile.size(); ++t) b += tile_sums[t];
        partials[blockIdx.x] = b;
    }
    grid.sync();
    if (grid.thread_rank() == 0) {
        long long t = 0;
        for (int b = 0; b < gridDim.x; ++b) t += partials[b];
        *total = t;
    }
    grid.sync();
    long long t = *total;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) out[i] = static_cast<int>((in[i] * (long long)n - t) / 64);
}

int main() {
    int dev = 0, coop = 0, sms = 0, per_sm = 0;
    CHECK(cudaSetDevice(dev));
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) {
        fprintf(stderr, "device does not support cooperative launch\n");
        return EXIT_FAILURE;
    }
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, center, kThreads, 0));
    // A fixed grid keeps the output identical on every GPU; it only has to fit co-resident.
    const int blocks = 32;
    if (blocks > sms * per_sm) {
        fprintf(stderr, "grid of %d blocks cannot be co-resident (%d x %d)\n", blocks, sms, per_sm);
        return EXIT_FAILURE;
    }

    int n = 1 << 16;
    std::vector<int> h_in(n), h_out(n);
    for (int i = 0; i < n; ++i) h_in[i] = (i * 131) % 97;

    int *d_in, *d_out, *d_partials;
    long long* d_total;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_partials, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_total, sizeof(long long)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    void* args[] = {&d_in, &d_out, &n, &d_partials, &d_total};
    CHECK(cudaLaunchCooperativeKernel((void*)center, dim3(blocks), dim3(kThreads), args, 0, nullptr));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    long long g_total = 0;
    CHECK(cudaMemcpy(&g_total, d_total, sizeof(long long), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));

    long long c_total = 0;
    for (int v : h_in) c_total += v;
    int mismatches = 0;
    long long checksum = 0;
    for (int i = 0; i < n; ++i) {
        int want = static_cast<int>((h_in[i] * (long long)n - c_total) / 64);
        if (h_out[i] != want) ++mismatches;
        checksum += h_out[i];
    }
    printf("cooperative launch: %d blocks x %d threads, n = %d\n", blocks, kThreads, n);
    printf("total: gpu %lld cpu %lld\n", g_total, c_total);
    printf("out[0] = %d, out[1] = %d, out[n-1] = %d\n", h_out[0], h_out[1], h_out[n - 1]);
    printf("checksum = %lld\n", checksum);
    printf("mismatches = %d\n", mismatches);
    bool ok = mismatches == 0 && g_total == c_total;
    printf("%s\n", ok ? "PASS" : "FAIL");

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_partials));
    CHECK(cudaFree(d_total));
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
