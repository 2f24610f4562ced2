// Dumps the H200's bfe.u64, bfe.s64 and bfi.b64 over every position and length byte (0..255 each) for four
// operand pairs, so that porter_ptx.h's 64-bit forms can be fitted to what the hardware does (its first check
// showed they differ from the PTX ISA's description where pos + len passes 64 or len is 0).
// Writes bfe64_dump.bin: for each pair, for pos, for len: u64 bfe.u64, u64 bfe.s64, u64 bfi.b64.
#include <cstdio>
#include <cstdlib>
__global__ void sweep(unsigned long long a, unsigned long long base, unsigned long long* out) {
  unsigned pos = blockIdx.x, len = threadIdx.x;
  unsigned long long u, s, f;
  asm("bfe.u64 %0, %1, %2, %3;" : "=l"(u) : "l"(a), "r"(pos), "r"(len));
  asm("bfe.s64 %0, %1, %2, %3;" : "=l"(s) : "l"(a), "r"(pos), "r"(len));
  asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(f) : "l"(a), "l"(base), "r"(pos), "r"(len));
  unsigned long long* o = out + 3 * (pos * 256 + len);
  o[0] = u; o[1] = s; o[2] = f;
}
int main() {
  const unsigned long long pairs[4][2] = {{0x4fe9636427fe1b67ull, 0x0123456789abcdefull}, {0xd48e6395feca6da0ull, 0xfedcba9876543210ull},
                                          {0xffffffffffffffffull, 0ull}, {0x8000000000000001ull, 0x5555555555555555ull}};
  unsigned long long* d; cudaMalloc(&d, 3 * 65536 * 8);
  unsigned long long* h = new unsigned long long[3 * 65536];
  FILE* f = fopen(getenv("F") ? getenv("F") : "bfe64_dump.bin", "wb");
  for (auto& p : pairs) {
    sweep<<<256, 256>>>(p[0], p[1], d);
    cudaMemcpy(h, d, 3 * 65536 * 8, cudaMemcpyDeviceToHost);
    fwrite(h, 8, 3 * 65536, f);
  }
  fclose(f);
  printf("wrote 4 x 65536 x 3 values\n");
  return 0;
}
