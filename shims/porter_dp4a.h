// porter shim: CUDA's packed integer dot products __dp4a, __dp2a_lo and __dp2a_hi (sm_61+), which no HIP up to
// 6.4 declares. How they differ from CUDA: in speed only. The results are CUDA's (each byte or 16-bit half taken
// as signed for the int overloads and as unsigned for the unsigned ones, the products summed into the accumulator
// with 32-bit wrap-around; checked against CUDA's own on an H200, scripts/dp4a_reference), computed with shifts
// and multiply-adds rather than one instruction: the compiler may fuse them into a dot instruction where the GPU
// has one; `__builtin_amdgcn_sdot4`/`udot4` are the explicit route where it matters.
#pragma once
#include <hip/hip_runtime.h>

namespace porter_dp {
__device__ inline int sbyte(unsigned int v, int i) { return static_cast<signed char>((v >> (8 * i)) & 0xffu); }
__device__ inline unsigned int ubyte(unsigned int v, int i) { return (v >> (8 * i)) & 0xffu; }
__device__ inline int shalf(unsigned int v, int i) { return static_cast<short>((v >> (16 * i)) & 0xffffu); }
__device__ inline unsigned int uhalf(unsigned int v, int i) { return (v >> (16 * i)) & 0xffffu; }
template <class V> __device__ inline unsigned int pack4(V v) {  // char4/uchar4: x in the low byte, as CUDA packs
    return static_cast<unsigned char>(v.x) | static_cast<unsigned int>(static_cast<unsigned char>(v.y)) << 8 |
           static_cast<unsigned int>(static_cast<unsigned char>(v.z)) << 16 |
           static_cast<unsigned int>(static_cast<unsigned char>(v.w)) << 24;
}
template <class V> __device__ inline unsigned int pack2(V v) {  // short2/ushort2
    return static_cast<unsigned short>(v.x) | static_cast<unsigned int>(static_cast<unsigned short>(v.y)) << 16;
}
// signed sums accumulate as unsigned: CUDA wraps around, and signed overflow would be undefined in C++
__device__ inline int signed_dot(unsigned int a, unsigned int b, int c, int count, int b_first, bool halves) {
    unsigned int sum = static_cast<unsigned int>(c);
    for (int i = 0; i < count; ++i)
        sum += static_cast<unsigned int>((halves ? shalf(a, i) : sbyte(a, i)) * sbyte(b, i + b_first));
    return static_cast<int>(sum);
}
__device__ inline unsigned int unsigned_dot(unsigned int a, unsigned int b, unsigned int c, int count, int b_first,
                                            bool halves) {
    for (int i = 0; i < count; ++i) c += (halves ? uhalf(a, i) : ubyte(a, i)) * ubyte(b, i + b_first);
    return c;
}
}  // namespace porter_dp

__device__ inline int __dp4a(int a, int b, int c) { return porter_dp::signed_dot(a, b, c, 4, 0, false); }
__device__ inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
    return porter_dp::unsigned_dot(a, b, c, 4, 0, false);
}
__device__ inline int __dp4a(char4 a, char4 b, int c) {
    return porter_dp::signed_dot(porter_dp::pack4(a), porter_dp::pack4(b), c, 4, 0, false);
}
__device__ inline unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c) {
    return porter_dp::unsigned_dot(porter_dp::pack4(a), porter_dp::pack4(b), c, 4, 0, false);
}

// srcA holds two 16-bit values; srcB two bytes each: its low pair (_lo) or its high pair (_hi)
__device__ inline int __dp2a_lo(int a, int b, int c) { return porter_dp::signed_dot(a, b, c, 2, 0, true); }
__device__ inline int __dp2a_hi(int a, int b, int c) { return porter_dp::signed_dot(a, b, c, 2, 2, true); }
__device__ inline unsigned int __dp2a_lo(unsigned int a, unsigned int b, unsigned int c) {
    return porter_dp::unsigned_dot(a, b, c, 2, 0, true);
}
__device__ inline unsigned int __dp2a_hi(unsigned int a, unsigned int b, unsigned int c) {
    return porter_dp::unsigned_dot(a, b, c, 2, 2, true);
}
__device__ inline int __dp2a_lo(short2 a, char4 b, int c) {
    return porter_dp::signed_dot(porter_dp::pack2(a), porter_dp::pack4(b), c, 2, 0, true);
}
__device__ inline int __dp2a_hi(short2 a, char4 b, int c) {
    return porter_dp::signed_dot(porter_dp::pack2(a), porter_dp::pack4(b), c, 2, 2, true);
}
__device__ inline unsigned int __dp2a_lo(ushort2 a, uchar4 b, unsigned int c) {
    return porter_dp::unsigned_dot(porter_dp::pack2(a), porter_dp::pack4(b), c, 2, 0, true);
}
__device__ inline unsigned int __dp2a_hi(ushort2 a, uchar4 b, unsigned int c) {
    return porter_dp::unsigned_dot(porter_dp::pack2(a), porter_dp::pack4(b), c, 2, 2, true);
}
