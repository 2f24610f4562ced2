// Thrust: device_vector, transform, sort_by_key, reduce, inclusive_scan and count_if with functors and lambdas.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/count.h>
#include <thrust/transform.h>
#include <thrust/sequence.h>
#include <thrust/functional.h>

struct square_mod {
    __host__ __device__ int operator()(int x) const { return static_cast<int>(static_cast<long long>(x) * x % 1000); }
};

struct is_even {
    __host__ __device__ bool operator()(int x) const { return x % 2 == 0; }
};

int main() {
    const int n = 1 << 18;
    thrust::device_vector<int> keys(n);
    thrust::sequence(keys.begin(), keys.end(), 7);                       // 7, 8, 9, ...
    thrust::device_vector<int> vals(n);
    thrust::transform(keys.begin(), keys.end(), vals.begin(), square_mod());

    thrust::sort_by_key(vals.begin(), vals.end(), keys.begin());         // by value, keys follow
    long long total = thrust::reduce(vals.begin(), vals.end(), 0LL, thrust::plus<long long>());
    thrust::device_vector<int> prefix(n);
    thrust::inclusive_scan(vals.begin(), vals.end(), prefix.begin());
    int evens = static_cast<int>(thrust::count_if(vals.begin(), vals.end(), is_even()));

    thrust::host_vector<int> hv = vals, hk = keys, hp = prefix;
    std::vector<int> ref(n);
    for (int i = 0; i < n; ++i) ref[i] = static_cast<int>(static_cast<long long>(i + 7) * (i + 7) % 1000);
    long long ref_total = 0;
    int ref_evens = 0;
    for (int v : ref) {
        ref_total += v;
        ref_evens += v % 2 == 0;
    }
    std::sort(ref.begin(), ref.end());

    bool sorted_ok = std::equal(ref.begin(), ref.end(), hv.begin());
    bool keys_ok = true;  // each key still maps to its value
    for (int i = 0; i < n; ++i) keys_ok = keys_ok && static_cast<long long>(hk[i]) * hk[i] % 1000 == hv[i];
    bool scan_ok = hp[n - 1] == static_cast<int>(ref_total);
    printf("sum of values: %lld (expected %lld)\n", total, ref_total);
    printf("sorted: %s; keys follow: %s; scan total: %d\n", sorted_ok ? "yes" : "no", keys_ok ? "yes" : "no",
           static_cast<int>(hp[n - 1]));
    printf("even values: %d (expected %d)\n", evens, ref_evens);
    bool ok = total == ref_total && sorted_ok && keys_ok && scan_ok && evens == ref_evens;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
