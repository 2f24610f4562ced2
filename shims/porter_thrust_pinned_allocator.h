// porter shim: Thrust's old thrust::cuda::experimental::pinned_allocator<T> (thrust/system/cuda/experimental/
// pinned_allocator.h, gone from CUDA 13's Thrust and absent from rocThrust 6.4): a standard allocator of page-locked
// host memory for thrust::host_vector and std containers, over hipHostMalloc/hipHostFree, with raw pointers as
// the original had, so algorithms on such a vector still run on the host.
// How it differs from CUDA: the memory comes from hipHostMalloc's default flags (coherent, mapped), where
// cudaMallocHost gave portable page-locked memory; a failed allocation throws std::bad_alloc and a failed free
// thrust::system_error, as the original did.
#ifndef PORTER_THRUST_PINNED_ALLOCATOR_H
#define PORTER_THRUST_PINNED_ALLOCATOR_H

#include <hip/hip_runtime.h>
#include <thrust/system/hip/error.h>
#include <thrust/system_error.h>

#include <cstddef>
#include <limits>
#include <new>

namespace thrust {
namespace system {
namespace hip {
namespace experimental {
template <typename T>
class pinned_allocator {
  public:
    typedef T value_type;
    typedef T* pointer;
    typedef const T* const_pointer;
    typedef T& reference;
    typedef const T& const_reference;
    typedef std::size_t size_type;
    typedef std::ptrdiff_t difference_type;
    template <typename U>
    struct rebind {
        typedef pinned_allocator<U> other;
    };

    pinned_allocator() {}
    pinned_allocator(const pinned_allocator&) {}
    template <typename U>
    pinned_allocator(const pinned_allocator<U>&) {}

    pointer address(reference r) { return &r; }
    const_pointer address(const_reference r) { return &r; }
    size_type max_size() const { return (std::numeric_limits<size_type>::max)() / sizeof(T); }

    pointer allocate(size_type count, const_pointer = nullptr) {
        if (count > max_size()) throw std::bad_alloc();
        pointer result = nullptr;
        if (hipHostMalloc(reinterpret_cast<void**>(&result), count * sizeof(value_type)) != hipSuccess) {
            (void)hipGetLastError();
            throw std::bad_alloc();
        }
        return result;
    }
    void deallocate(pointer p, size_type) {
        hipError_t error = hipHostFree(p);
        (void)hipGetLastError();
        if (error != hipSuccess) throw thrust::system_error(error, thrust::hip_category());
    }
    bool operator==(const pinned_allocator&) const { return true; }
    bool operator!=(const pinned_allocator& other) const { return !(*this == other); }
};
}  // namespace experimental
}  // namespace hip
}  // namespace system
namespace hip {
namespace experimental {
using thrust::system::hip::experimental::pinned_allocator;
}  // namespace experimental
}  // namespace hip
}  // namespace thrust

#endif  // PORTER_THRUST_PINNED_ALLOCATOR_H
