// sensor_stats: per-sensor mean/variance/min/max and outliers of a synthetic log, with Thrust.
//   sensor_stats [readings] [sensors]
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>

struct Moments {
  double n, mean, m2;
  float lo, hi;
};

struct ToMoments {
  __host__ __device__ Moments operator()(float x) const { return Moments{1.0, x, 0.0, x, x}; }
};

// Chan et al. parallel combination of running moments
struct CombineMoments {
  __host__ __device__ Moments operator()(const Moments &a, const Moments &b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    double n = a.n + b.n, d = b.mean - a.mean;
    Moments r;
    r.n = n;
    r.mean = a.mean + d * b.n / n;
    r.m2 = a.m2 + b.m2 + d * d * a.n * b.n / n;
    r.lo = fminf(a.lo, b.lo);
    r.hi = fmaxf(a.hi, b.hi);
    return r;
  }
};

struct SyntheticReading {
  int sensors;
  __host__ __device__ thrust::tuple<int, float> operator()(int i) const {
    unsigned h = unsigned(i) * 2654435761u;
    int sensor = int(h % unsigned(sensors));
    float base = 20.f + sensor * 0.5f;
    float noise = float((h >> 8) % 1000) / 1000.f - 0.5f;
    float spike = (h % 9973u == 0u) ? 40.f : 0.f;
    return thrust::make_tuple(sensor, base + noise + spike);
  }
};

__global__ void celsiusToKelvin(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 273.15f;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
  int sensors = argc > 2 ? atoi(argv[2]) : 64;
  if (n < 1 || sensors < 1) {
    fprintf(stderr, "usage: %s [readings] [sensors]\n", argv[0]);
    return 2;
  }
  thrust::device_vector<int> sensor(n);
  thrust::device_vector<float> value(n);
  thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n),
                    thrust::make_zip_iterator(thrust::make_tuple(sensor.begin(), value.begin())),
                    SyntheticReading{sensors});

  // global moments in one pass
  Moments init{0.0, 0.0, 0.0, INFINITY, -INFINITY};
  Moments all = thrust::transform_reduce(value.begin(), value.end(), ToMoments(), init, CombineMoments());
  double sd = sqrt(all.m2 / (all.n - 1));
  printf("%d readings: mean %.3f, sd %.3f, min %.2f, max %.2f\n", n, all.mean, sd, all.lo, all.hi);

  // outliers: more than 4 sd from the mean
  float mean = float(all.mean), limit = float(4 * sd);
  thrust::device_vector<float> outliers(n);
  auto end = thrust::copy_if(value.begin(), value.end(), outliers.begin(),
                             [=] __device__(float v) { return fabsf(v - mean) > limit; });
  int numOutliers = int(end - outliers.begin());
  printf("%d outliers (|x - mean| > 4 sd)\n", numOutliers);

  // per-sensor means: sort by sensor, reduce by key on a stream
  cudaStream_t s;
  cudaStreamCreate(&s);
  thrust::sort_by_key(thrust::cuda::par.on(s), sensor.begin(), sensor.end(), value.begin());
  thrust::device_vector<int> keys(sensors), counts(sensors);
  thrust::device_vector<float> sums(sensors);
  auto keyEnd = thrust::reduce_by_key(thrust::cuda::par.on(s), sensor.begin(), sensor.end(), value.begin(),
                                      keys.begin(), sums.begin());
  thrust::reduce_by_key(thrust::cuda::par.on(s), sensor.begin(), sensor.end(), thrust::make_constant_iterator(1),
                        keys.begin(), counts.begin());
  int groups = int(keyEnd.first - keys.begin());
  cudaStreamSynchronize(s);

  // convert in place with a plain kernel, then a running total with a scan
  celsiusToKelvin<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(value.data()), n);
  cudaDeviceSynchronize();
  thrust::device_vector<float> running(n);
  thrust::inclusive_scan(value.begin(), value.begin() + 1024, running.begin());
  float first1024 = running[1023];

  thrust::host_vector<float> hSums = sums;
  thrust::host_vector<int> hCounts = counts;
  int bad = 0;
  for (int g = 0; g < groups; ++g) {
    float m = hSums[g] / hCounts[g];
    float expected = 20.f + g * 0.5f;
    if (fabsf(m - expected) > 0.5f) ++bad;
  }
  printf("%d sensors, %d with an unexpected mean; sum of first 1024 in kelvin %.1f\n", groups, bad, first1024);
  long long spikes = thrust::count_if(value.begin(), value.end(), [] __device__(float k) { return k > 330.f; });
  printf("%lld readings above 330 K\n", spikes);
  cudaStreamDestroy(s);
  return (groups == sensors && bad == 0) ? 0 : 1;
}
