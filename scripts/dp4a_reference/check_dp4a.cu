// porter_dp4a.h against CUDA's own __dp4a/__dp2a_lo/__dp2a_hi, on an NVIDIA GPU (sm_61 or later).
// nvcc -arch=native -I stub -I ../../shims -o check_dp4a check_dp4a.cu && ./check_dp4a
// Every overload, on edge values (each byte/half at its extremes, accumulators at INT_MIN/INT_MAX) and on
// 2^24 pseudo-random inputs per launch; prints the mismatches (0 expected) and a checksum of CUDA's results.
#include <cuda_runtime.h>
#include <climits>
#include <cstdio>

#define __dp4a porter_shim_dp4a
#define __dp2a_lo porter_shim_dp2a_lo
#define __dp2a_hi porter_shim_dp2a_hi
#include "porter_dp4a.h"
#undef __dp4a
#undef __dp2a_lo
#undef __dp2a_hi

__device__ unsigned int mix(unsigned long long x) {  // splitmix64's finalizer, low half
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return static_cast<unsigned int>(x ^ (x >> 31));
}

__constant__ unsigned int kEdges[] = {0u, 1u, 0x7fu, 0x80u, 0xffu, 0x7f7f7f7fu, 0x80808080u, 0xffffffffu,
                                      0x7fff8000u, 0x80007fffu, 0x01ff7f80u, 0xfffe0001u, 0x7fffffffu,
                                      0x80000000u, 0x00ff00ffu, 0xff00ff00u};

__device__ char4 c4(unsigned int v) { return make_char4(v, v >> 8, v >> 16, v >> 24); }
__device__ uchar4 u4(unsigned int v) { return make_uchar4(v, v >> 8, v >> 16, v >> 24); }
__device__ short2 s2(unsigned int v) { return make_short2(v, v >> 16); }
__device__ ushort2 us2(unsigned int v) { return make_ushort2(v, v >> 16); }

__global__ void compare(unsigned long long base, unsigned long long n, unsigned long long* bad,
                        unsigned long long* checksum, unsigned int* first) {
    for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned long long k = base + i;
        unsigned int a = mix(3 * k), b = mix(3 * k + 1), c = mix(3 * k + 2);
        if (k < 16 * 16 * 16) {  // every pair of edge values, with edge accumulators
            a = kEdges[k % 16];
            b = kEdges[(k / 16) % 16];
            c = (k / 256) % 4 == 0 ? INT_MAX : (k / 256) % 4 == 1 ? static_cast<unsigned int>(INT_MIN) : kEdges[k / 256];
        }
        const int ia = a, ib = b, ic = c;
        unsigned int cuda[12] = {
            (unsigned)__dp4a(ia, ib, ic), __dp4a(a, b, c), (unsigned)__dp4a(c4(a), c4(b), ic), __dp4a(u4(a), u4(b), c),
            (unsigned)__dp2a_lo(ia, ib, ic), (unsigned)__dp2a_hi(ia, ib, ic), __dp2a_lo(a, b, c), __dp2a_hi(a, b, c),
            (unsigned)__dp2a_lo(s2(a), c4(b), ic), (unsigned)__dp2a_hi(s2(a), c4(b), ic),
            __dp2a_lo(us2(a), u4(b), c), __dp2a_hi(us2(a), u4(b), c)};
        unsigned int shim[12] = {
            (unsigned)porter_shim_dp4a(ia, ib, ic), porter_shim_dp4a(a, b, c),
            (unsigned)porter_shim_dp4a(c4(a), c4(b), ic), porter_shim_dp4a(u4(a), u4(b), c),
            (unsigned)porter_shim_dp2a_lo(ia, ib, ic), (unsigned)porter_shim_dp2a_hi(ia, ib, ic),
            porter_shim_dp2a_lo(a, b, c), porter_shim_dp2a_hi(a, b, c),
            (unsigned)porter_shim_dp2a_lo(s2(a), c4(b), ic), (unsigned)porter_shim_dp2a_hi(s2(a), c4(b), ic),
            porter_shim_dp2a_lo(us2(a), u4(b), c), porter_shim_dp2a_hi(us2(a), u4(b), c)};
        unsigned long long sum = 0;
        for (int f = 0; f < 12; ++f) {
            sum += cuda[f] * (f + 1ull);
            if (cuda[f] != shim[f]) {
                atomicAdd(&bad[f], 1ull);
                if (atomicCAS(first, 0u, 1u) == 0u) {
                    first[1] = f; first[2] = a; first[3] = b; first[4] = c; first[5] = cuda[f]; first[6] = shim[f];
                }
            }
        }
        atomicAdd(checksum, sum);
    }
}

int main() {
    unsigned long long *bad, *checksum;
    unsigned int* first;
    cudaMallocManaged(&bad, 12 * sizeof(unsigned long long));
    cudaMallocManaged(&checksum, sizeof(unsigned long long));
    cudaMallocManaged(&first, 8 * sizeof(unsigned int));
    cudaMemset(bad, 0, 12 * sizeof(unsigned long long));
    cudaMemset(checksum, 0, sizeof(unsigned long long));
    cudaMemset(first, 0, 8 * sizeof(unsigned int));
    const unsigned long long per_launch = 1ull << 24, launches = 16;
    for (unsigned long long l = 0; l < launches; ++l) compare<<<1024, 256>>>(l * per_launch, per_launch, bad, checksum, first);
    if (cudaDeviceSynchronize() != cudaSuccess) { printf("CUDA error: %s\n", cudaGetErrorString(cudaGetLastError())); return 2; }
    const char* names[12] = {"dp4a(int)", "dp4a(unsigned)", "dp4a(char4)", "dp4a(uchar4)", "dp2a_lo(int)",
                             "dp2a_hi(int)", "dp2a_lo(unsigned)", "dp2a_hi(unsigned)", "dp2a_lo(short2,char4)",
                             "dp2a_hi(short2,char4)", "dp2a_lo(ushort2,uchar4)", "dp2a_hi(ushort2,uchar4)"};
    unsigned long long total = 0;
    for (int f = 0; f < 12; ++f) { printf("%-26s mismatches %llu\n", names[f], bad[f]); total += bad[f]; }
    printf("inputs %llu (edge pairs included), CUDA checksum %016llx, mismatches %llu\n", launches * per_launch,
           *checksum, total);
    if (first[0]) printf("first: %s a=%08x b=%08x c=%08x cuda=%08x shim=%08x\n", names[first[1]], first[2], first[3],
                         first[4], first[5], first[6]);
    return total != 0;
}
