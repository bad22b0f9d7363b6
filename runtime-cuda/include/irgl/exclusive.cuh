// irgl/exclusive.cuh -- the marking protocol behind
//     Exclusive (object, elements) { locked } Else { failed }
//
// A mark array is a DeviceArray<unsigned int> zeroed before use (0 = free).
// The compiler emits:
//     uint32_t ids[K]; uint32_t n = ...;             // the elements, n <= K
//     if (irgl::exclusive_acquire(marks, ids, n)) {
//       locked statements;
//       irgl::exclusive_release(marks, ids, n);
//     } else {
//       failed statements;
//     }
//
// PROTOCOL. exclusive_acquire sorts ids[0..n) ascending IN PLACE (insertion
// sort; n is small), then walks it in that order, skipping duplicates, and
// takes each mark with atomicCAS(0 -> 1). It tries each element once: at the
// first CAS that fails it releases, in reverse order, the marks it took and
// returns false; if all CAS succeed it issues a fence (acquire) and returns
// true. exclusive_release fences (release) and clears the marks it took
// (duplicates skipped, so no mark is cleared twice).
//
// PROGRESS: among threads that conflict, at least one succeeds. Proof. Take a
// set S of threads running exclusive_acquire concurrently (nothing else holds
// marks), and suppose every thread of S fails. A thread T fails at a CAS on
// some element e(T) that another thread U = b(T) of S held at that moment.
// U takes marks in ascending order and holds e(T) until it returns, so U took
// e(T) before its own failing CAS on e(U), and e(U) > e(T) (ids are distinct
// after dedup, so strictly). Following T, b(T), b(b(T)), ... gives strictly
// increasing e(.), hence no thread repeats; S is finite, so the chain ends at
// a thread that did not fail -- a contradiction. So some thread of S succeeds.
// (Marks are only held by threads inside acquire..release, so a thread that
// has succeeded releases in finite time and later rounds progress too.)
// Holding at most one mark per element at a time gives mutual exclusion:
// two threads that succeed at the same time share no element.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace irgl {

/// Sorts ids[0..n) ascending (insertion sort: for the small n of Exclusive).
__host__ __device__ __forceinline__ void sort_ids(uint32_t* ids, uint32_t n) {
  for (uint32_t i = 1; i < n; ++i) {
    const uint32_t v = ids[i];
    uint32_t j = i;
    while (j > 0 && ids[j - 1] > v) {
      ids[j] = ids[j - 1];
      --j;
    }
    ids[j] = v;
  }
}

/// Tries once to mark all of ids[0..n) (duplicates allowed; ids is sorted in
/// place). All-or-nothing: true if every element is now held by the caller,
/// false (holding none) if some element was held by another thread.
/// n == 0 succeeds trivially.
__device__ __forceinline__ bool exclusive_acquire(unsigned int* marks, uint32_t* ids, uint32_t n) {
  sort_ids(ids, n);
  uint32_t i = 0;
  for (; i < n; ++i) {
    if (i > 0 && ids[i] == ids[i - 1]) continue;
    if (atomicCAS(&marks[ids[i]], 0u, 1u) != 0u) break;
  }
  if (i == n) {
    __threadfence();  // acquire
    return true;
  }
  // Release what we took: ids[0..i) minus duplicates, in reverse order.
  while (i > 0) {
    --i;
    if (i > 0 && ids[i] == ids[i - 1]) continue;
    atomicExch(&marks[ids[i]], 0u);
  }
  return false;
}

/// Releases the marks taken by a successful exclusive_acquire(marks, ids, n).
/// Precondition: ids and n are those of that call (ids as it left them).
__device__ __forceinline__ void exclusive_release(unsigned int* marks, const uint32_t* ids, uint32_t n) {
  __threadfence();  // release
  for (uint32_t i = 0; i < n; ++i) {
    if (i > 0 && ids[i] == ids[i - 1]) continue;
    atomicExch(&marks[ids[i]], 0u);
  }
}

}  // namespace irgl
