// porter shim: CUDA's integer min/max spellings umin, umax, llmin, llmax, ullmin, ullmax, which HIP (checked: 5.2,
// 6.4) does not declare.
//
// How this differs from CUDA: it does not. Each takes and returns CUDA's types (so an int argument converts to
// unsigned as in CUDA; HIP's own min(unsigned int, int) would instead return an int), callable from host and
// device code like CUDA's. They are templates constrained to those exact types, so a HIP release that declares
// these functions itself wins overload resolution and nothing is redefined.
#ifndef PORTER_MINMAX_H
#define PORTER_MINMAX_H

#include <hip/hip_runtime.h>
#include <type_traits>

namespace porter_minmax {
template <typename T> struct same { using type = T; };
template <typename T, typename U> using only = typename std::enable_if<std::is_same<T, U>::value, int>::type;
}  // namespace porter_minmax

#define PORTER_MINMAX_PAIR(NAME_MIN, NAME_MAX, TYPE)                                                       \
    template <typename T = TYPE, porter_minmax::only<T, TYPE> = 0>                                         \
    __host__ __device__ inline TYPE NAME_MIN(typename porter_minmax::same<T>::type a,                      \
                                             typename porter_minmax::same<T>::type b) { return b < a ? b : a; } \
    template <typename T = TYPE, porter_minmax::only<T, TYPE> = 0>                                         \
    __host__ __device__ inline TYPE NAME_MAX(typename porter_minmax::same<T>::type a,                      \
                                             typename porter_minmax::same<T>::type b) { return a < b ? b : a; }

PORTER_MINMAX_PAIR(umin, umax, unsigned int)
PORTER_MINMAX_PAIR(llmin, llmax, long long int)
PORTER_MINMAX_PAIR(ullmin, ullmax, unsigned long long int)
#undef PORTER_MINMAX_PAIR

#endif  // PORTER_MINMAX_H
