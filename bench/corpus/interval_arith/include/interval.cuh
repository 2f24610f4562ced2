// interval.cuh - rigorous interval arithmetic on the GPU.
//
// Every operation rounds the lower bound toward -inf and the upper bound toward +inf with
// CUDA's directed-rounding intrinsics, so the true result is always enclosed.
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>

template <typename T>
struct interval_t {
  T lo, hi;
  __host__ __device__ interval_t() : lo(0), hi(0) {}
  __host__ __device__ interval_t(T v) : lo(v), hi(v) {}
  __host__ __device__ interval_t(T l, T h) : lo(l), hi(h) {}
  __host__ __device__ bool contains(T v) const { return lo <= v && v <= hi; }
  __host__ __device__ T width() const { return hi - lo; }
  __host__ __device__ T mid() const { return lo + (hi - lo) / 2; }
};

typedef interval_t<float> intervalf;
typedef interval_t<double> intervald;

// Rounding policy: one struct per precision maps the generic names onto the intrinsics.
template <typename T>
struct rounded;

template <>
struct rounded<float> {
  __device__ static float add_down(float a, float b) { return __fadd_rd(a, b); }
  __device__ static float add_up(float a, float b) { return __fadd_ru(a, b); }
  __device__ static float sub_down(float a, float b) { return __fsub_rd(a, b); }
  __device__ static float sub_up(float a, float b) { return __fsub_ru(a, b); }
  __device__ static float mul_down(float a, float b) { return __fmul_rd(a, b); }
  __device__ static float mul_up(float a, float b) { return __fmul_ru(a, b); }
  __device__ static float div_down(float a, float b) { return __fdiv_rd(a, b); }
  __device__ static float div_up(float a, float b) { return __fdiv_ru(a, b); }
  __device__ static float sqrt_down(float a) { return __fsqrt_rd(a); }
  __device__ static float sqrt_up(float a) { return __fsqrt_ru(a); }
  __device__ static float rcp_down(float a) { return __frcp_rd(a); }
  __device__ static float rcp_up(float a) { return __frcp_ru(a); }
  __device__ static float fma_down(float a, float b, float c) { return __fmaf_rd(a, b, c); }
  __device__ static float fma_up(float a, float b, float c) { return __fmaf_ru(a, b, c); }
  __device__ static float pos_inf() { return CUDART_INF_F; }
};

template <>
struct rounded<double> {
  __device__ static double add_down(double a, double b) { return __dadd_rd(a, b); }
  __device__ static double add_up(double a, double b) { return __dadd_ru(a, b); }
  __device__ static double sub_down(double a, double b) { return __dsub_rd(a, b); }
  __device__ static double sub_up(double a, double b) { return __dsub_ru(a, b); }
  __device__ static double mul_down(double a, double b) { return __dmul_rd(a, b); }
  __device__ static double mul_up(double a, double b) { return __dmul_ru(a, b); }
  __device__ static double div_down(double a, double b) { return __ddiv_rd(a, b); }
  __device__ static double div_up(double a, double b) { return __ddiv_ru(a, b); }
  __device__ static double sqrt_down(double a) { return __dsqrt_rd(a); }
  __device__ static double sqrt_up(double a) { return __dsqrt_ru(a); }
  __device__ static double rcp_down(double a) { return __drcp_rd(a); }
  __device__ static double rcp_up(double a) { return __drcp_ru(a); }
  __device__ static double fma_down(double a, double b, double c) { return __fma_rd(a, b, c); }
  __device__ static double fma_up(double a, double b, double c) { return __fma_ru(a, b, c); }
  __device__ static double pos_inf() { return CUDART_INF; }
};

template <typename T>
__device__ interval_t<T> operator+(interval_t<T> a, interval_t<T> b) {
  return interval_t<T>(rounded<T>::add_down(a.lo, b.lo), rounded<T>::add_up(a.hi, b.hi));
}

template <typename T>
__device__ interval_t<T> operator-(interval_t<T> a, interval_t<T> b) {
  return interval_t<T>(rounded<T>::sub_down(a.lo, b.hi), rounded<T>::sub_up(a.hi, b.lo));
}

template <typename T>
__device__ interval_t<T> operator*(interval_t<T> a, interval_t<T> b) {
  typedef rounded<T> R;
  T l = fmin(fmin(R::mul_down(a.lo, b.lo), R::mul_down(a.lo, b.hi)),
             fmin(R::mul_down(a.hi, b.lo), R::mul_down(a.hi, b.hi)));
  T h = fmax(fmax(R::mul_up(a.lo, b.lo), R::mul_up(a.lo, b.hi)), fmax(R::mul_up(a.hi, b.lo), R::mul_up(a.hi, b.hi)));
  return interval_t<T>(l, h);
}

// Division by an interval that contains zero yields the whole line.
template <typename T>
__device__ interval_t<T> operator/(interval_t<T> a, interval_t<T> b) {
  typedef rounded<T> R;
  if (b.lo <= 0 && b.hi >= 0) return interval_t<T>(-R::pos_inf(), R::pos_inf());
  interval_t<T> inv(R::rcp_down(b.hi), R::rcp_up(b.lo));
  return a * inv;
}

template <typename T>
__device__ interval_t<T> square(interval_t<T> a) {
  typedef rounded<T> R;
  if (a.lo >= 0) return interval_t<T>(R::mul_down(a.lo, a.lo), R::mul_up(a.hi, a.hi));
  if (a.hi <= 0) return interval_t<T>(R::mul_down(a.hi, a.hi), R::mul_up(a.lo, a.lo));
  T m = fmax(-a.lo, a.hi);
  return interval_t<T>(0, R::mul_up(m, m));
}

template <typename T>
__device__ interval_t<T> sqrt(interval_t<T> a) {
  typedef rounded<T> R;
  return interval_t<T>(R::sqrt_down(fmax(a.lo, T(0))), R::sqrt_up(a.hi));
}

// a*b + c with one rounding per bound, valid when a and b are non-negative
template <typename T>
__device__ interval_t<T> fma_pos(interval_t<T> a, interval_t<T> b, interval_t<T> c) {
  typedef rounded<T> R;
  return interval_t<T>(R::fma_down(a.lo, b.lo, c.lo), R::fma_up(a.hi, b.hi, c.hi));
}

template <typename T>
__device__ interval_t<T> intersect(interval_t<T> a, interval_t<T> b) {
  return interval_t<T>(fmax(a.lo, b.lo), fmin(a.hi, b.hi));
}

template <typename T>
__device__ bool empty(interval_t<T> a) {
  return a.lo > a.hi;
}

// Round-to-nearest helpers used where an estimate, not an enclosure, is wanted.
__device__ inline float nearest_ratio(float a, float b) { return __fdiv_rn(a, b); }
__device__ inline float nearest_sqrt(float a) { return __fsqrt_rn(a); }
__device__ inline double nearest_rcp(double a) { return __drcp_rn(a); }
