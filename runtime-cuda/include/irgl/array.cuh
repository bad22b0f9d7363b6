// irgl/array.cuh -- DeviceArray<T>: an RAII owner of a device allocation, for
// node and edge properties and for scalars (DeviceScalar<T>).
//
// All operations are synchronous with respect to the host unless they take a
// stream (fill and zero, which are asynchronous on that stream). Errors exit
// through irgl::fatal. A zero-length array allocates nothing (data() == nullptr).
// Copies of the owner are not allowed; move it, or pass data() to kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "check.cuh"

namespace irgl {

namespace detail {
template <class T>
__global__ void fill_kernel(T* p, size_t n, T value) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    p[i] = value;
  }
}
/// The bytes that DeviceArrays hold now, and the most they held at once, per host thread:
/// one GPU's, where a run on several GPUs drives each from a thread of its own.
inline thread_local size_t device_bytes_live = 0;
inline thread_local size_t device_bytes_most = 0;
}  // namespace detail

/// The most device memory this thread's DeviceArrays held at once, in bytes: the runtime's
/// own accounting of a run (graph, properties, worklists, queues), which nvidia-smi's
/// sampling can miss.
inline size_t device_bytes_peak() { return detail::device_bytes_most; }

template <class T>
class DeviceArray {
  static_assert(std::is_trivially_copyable<T>::value, "DeviceArray<T> needs a trivially copyable T");

 public:
  /// Host vector type that to_host() returns (uint8_t for bool, as std::vector<bool> packs bits).
  using HostVector = std::vector<typename std::conditional<std::is_same<T, bool>::value, uint8_t, T>::type>;

  DeviceArray() = default;
  /// Allocates n elements (uninitialized).
  explicit DeviceArray(size_t n) { allocate(n); }
  /// Allocates n elements, each set to `value`.
  DeviceArray(size_t n, const T& value) {
    allocate(n);
    fill(value);
    IRGL_CHECK(cudaStreamSynchronize(0));
  }
  /// Allocates and uploads a host vector.
  explicit DeviceArray(const std::vector<T>& host) {
    allocate(host.size());
    upload(host.data(), host.size());
  }
  ~DeviceArray() { reset(); }

  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : ptr_(o.ptr_), n_(o.n_) {
    o.ptr_ = nullptr;
    o.n_ = 0;
  }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      reset();
      std::swap(ptr_, o.ptr_);
      std::swap(n_, o.n_);
    }
    return *this;
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

  /// Frees the allocation (errors from cudaFree are ignored here, as in a destructor).
  void reset() {
    if (ptr_ != nullptr) {
      (void)cudaFree(ptr_);
      detail::device_bytes_live -= bytes();
    }
    ptr_ = nullptr;
    n_ = 0;
  }

  /// Sets every element to `value` (asynchronous on `stream`).
  void fill(const T& value, cudaStream_t stream = 0) {
    if (n_ == 0) return;
    const int threads = 256;
    size_t blocks = (n_ + threads - 1) / threads;
    if (blocks > 65535u * 16u) blocks = 65535u * 16u;
    detail::fill_kernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(ptr_, n_, value);
    IRGL_CHECK_LAUNCH("irgl::detail::fill_kernel");
  }
  /// Sets every byte to 0 (asynchronous on `stream`).
  void zero(cudaStream_t stream = 0) {
    if (n_ != 0) IRGL_CHECK(cudaMemsetAsync(ptr_, 0, bytes(), stream));
  }
  /// Copies n elements from host memory to elements [offset, offset + n).
  void upload(const T* host, size_t n, size_t offset = 0) {
    bounds(n, offset, "upload");
    if (n != 0) IRGL_CHECK(cudaMemcpy(ptr_ + offset, host, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
  /// Copies n elements from pageable host memory to elements [offset, offset + n) in the
  /// order of `stream`, without waiting for the work before it: the runtime stages pageable
  /// memory at once, so `host` may go out of scope on return.
  void upload_async(const T* host, size_t n, cudaStream_t stream = 0, size_t offset = 0) {
    bounds(n, offset, "upload");
    if (n != 0) IRGL_CHECK(cudaMemcpyAsync(ptr_ + offset, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  /// Copies elements [offset, offset + n) to host memory.
  void download(T* host, size_t n, size_t offset = 0) const {
    bounds(n, offset, "download");
    if (n != 0) IRGL_CHECK(cudaMemcpy(host, ptr_ + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
  /// Downloads the whole array.
  HostVector to_host() const {
    HostVector v(n_);
    if (n_ != 0) IRGL_CHECK(cudaMemcpy(v.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  void allocate(size_t n) {
    n_ = n;
    if (n == 0) return;
    const cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T));
    if (err != cudaSuccess) {
      ptr_ = nullptr;
      n_ = 0;
      fatal("cannot allocate %zu bytes of device memory (%zu elements of %zu bytes; %zu bytes allocated before): %s",
            n * sizeof(T), n, sizeof(T), detail::device_bytes_live, cudaGetErrorString(err));
    }
    detail::device_bytes_live += bytes();
    if (detail::device_bytes_live > detail::device_bytes_most) detail::device_bytes_most = detail::device_bytes_live;
  }
  void bounds(size_t n, size_t offset, const char* what) const {
    if (offset > n_ || n > n_ - offset) {
      fatal("DeviceArray::%s of %zu elements at offset %zu is out of bounds (size %zu)", what, n, offset, n_);
    }
  }

  T* ptr_ = nullptr;
  size_t n_ = 0;
};

/// One device-resident value (a kernel's global scalar).
template <class T>
class DeviceScalar {
 public:
  DeviceScalar() : a_(1) {}
  explicit DeviceScalar(const T& v) : a_(1) { set(v); }
  T* data() { return a_.data(); }
  const T* data() const { return a_.data(); }
  void set(const T& v) { a_.upload(&v, 1); }
  T get() const {
    T v;
    a_.download(&v, 1);
    return v;
  }

 private:
  DeviceArray<T> a_;
};

}  // namespace irgl
