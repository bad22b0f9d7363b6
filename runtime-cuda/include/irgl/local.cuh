// irgl/local.cuh -- checked indices: a thread's local arrays (`let a: [T; N];` in IrGL),
// always, and property elements in kernels with `irglc --check-indices on`.
//
// An index out of range never touches memory outside its array: the access records an error
// code and the index in the program's one irgl::DeviceError (the generated `irgl_error`) and
// goes to element 0 instead. The host reads it after each launch of a kernel that indexes
// checked arrays and ends the program with one line naming the array (or property), the
// kernel and the index. The first error recorded wins (atomicCAS of the code from 0), so the
// report names one real error.
//
//   irgl::at(a, i, &e, code)                  a[i], or a[0] and the error recorded when i >= N
//   irgl::copy_prefix(dst, src, n, &e, code)  dst[0..n) = src[0..n); returns n, or N (and
//                                             records the error) when n > N
//   irgl::checked_index(i, n, &e, code)       i, or 0 and the error recorded when i >= n (a
//                                             property of n elements)
//   irgl::checked_ids(ids, count, n, &e, code)
//                                             ids, its first `count` ids below n (each one
//                                             that is not recorded and replaced by 0)
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace irgl {

/// The first index out of range that a kernel met: its code (0: none) and the index.
struct DeviceError {
  unsigned int code;
  unsigned int pad;
  unsigned long long index;
};

/// Records `code` and `index` in `e` unless an earlier error is already there.
__device__ __forceinline__ void raise_error(DeviceError* e, unsigned int code, unsigned long long index) {
  if (atomicCAS(&e->code, 0u, code) == 0u) e->index = index;
}

/// Element `i` of the array `a`: a reference to it, or to a[0] after recording `code` when
/// `i` is out of range. `i` is taken as unsigned 64-bit, so a negative signed index is out
/// of range too.
template <class T, uint32_t N>
__device__ __forceinline__ T& at(T (&a)[N], uint64_t i, DeviceError* e, unsigned int code) {
  if (i < N) return a[i];
  raise_error(e, code, i);
  return a[0];
}

/// Copies the first `n` elements of `src` into `dst`. Returns the count copied: `n`, or `N`
/// after recording `code` when `n > N`.
template <class T, uint32_t N>
__device__ __forceinline__ uint32_t copy_prefix(T (&dst)[N], const T (&src)[N], uint64_t n, DeviceError* e,
                                                unsigned int code) {
  if (n > N) {
    raise_error(e, code, n);
    n = N;
  }
  for (uint32_t i = 0; i < n; ++i) dst[i] = src[i];
  return static_cast<uint32_t>(n);
}

/// An index into an array of `n` elements: `i`, or 0 after recording `code` when `i >= n`.
__device__ __forceinline__ uint64_t checked_index(uint64_t i, uint64_t n, DeviceError* e, unsigned int code) {
  if (i < n) return i;
  raise_error(e, code, i);
  return 0;
}

/// The element list of an `Exclusive` over a property of `n` elements, checked: each of the
/// first `count` ids at or past `n` is recorded (the first one) and replaced by 0.
template <uint32_t N>
__device__ __forceinline__ uint32_t (&checked_ids(uint32_t (&ids)[N], uint64_t count, uint64_t n, DeviceError* e,
                                                  unsigned int code))[N] {
  for (uint32_t k = 0; k < count && k < N; ++k) {
    if (ids[k] >= n) {
      raise_error(e, code, ids[k]);
      ids[k] = 0;
    }
  }
  return ids;
}

}  // namespace irgl
