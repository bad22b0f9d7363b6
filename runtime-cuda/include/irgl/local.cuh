// irgl/local.cuh -- checked access to a thread's local arrays (`let a: [T; N];` in IrGL).
//
// An index out of range never touches memory outside the array: the access records an error
// code in a device flag (the generated program's `irgl_error`, one per program) and goes to
// element 0 instead. The host reads the flag after each launch of a kernel that indexes
// arrays and ends the program with one line naming the array and the kernel. The first code
// recorded wins (atomicCAS from 0), so the report names one real error.
//
//   irgl::at(a, i, &flag, code)              a[i], or a[0] and the flag set when i >= N
//   irgl::copy_prefix(dst, src, n, &flag, code)
//                                            dst[0..n) = src[0..n); returns n, or N (and sets
//                                            the flag) when n > N
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace irgl {

/// Records `code` in `flag` unless an earlier error is already there.
__device__ __forceinline__ void raise_error(unsigned int* flag, unsigned int code) {
  atomicCAS(flag, 0u, code);
}

/// Element `i` of the array `a`: a reference to it, or to a[0] after recording `code` when
/// `i` is out of range. `i` is taken as unsigned 64-bit, so a negative signed index is out
/// of range too.
template <class T, uint32_t N>
__device__ __forceinline__ T& at(T (&a)[N], uint64_t i, unsigned int* flag, unsigned int code) {
  if (i < N) return a[i];
  raise_error(flag, code);
  return a[0];
}

/// Copies the first `n` elements of `src` into `dst`. Returns the count copied: `n`, or `N`
/// after recording `code` when `n > N`.
template <class T, uint32_t N>
__device__ __forceinline__ uint32_t copy_prefix(T (&dst)[N], const T (&src)[N], uint64_t n,
                                                unsigned int* flag, unsigned int code) {
  if (n > N) {
    raise_error(flag, code);
    n = N;
  }
  for (uint32_t i = 0; i < n; ++i) dst[i] = src[i];
  return static_cast<uint32_t>(n);
}

}  // namespace irgl
