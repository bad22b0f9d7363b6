// irgl/lock.cuh -- the lock array behind `Atomic (lock) { ... } Else { ... }`.
//
// A lock array is a DeviceArray<unsigned int> zeroed before use (0 = free,
// 1 = held). try_lock is an atomicCAS 0 -> 1 followed by a device-scope fence
// (acquire); unlock is a fence (release) followed by an atomic store of 0. So
// the locked statements of a thread see every write made by earlier holders
// of the same lock, also from other SMs, and plain (non-atomic) loads and
// stores to the data the lock protects are safe.
//
// Atomic ... Else (try once):
//     if (irgl::try_lock(locks, i)) { locked; irgl::unlock(locks, i); } else { failed; }
//
// Atomic without Else: the DIVERGENCE-FREE BLOCKING PATTERN. A thread must
// never spin on a lock in a loop of its own, waiting for a lane of its own
// warp that holds it (before Volta that deadlocks, because the holder's path
// is not scheduled while the others spin). Instead each thread retries the
// whole try-lock-and-body inside one loop, so every iteration of the warp
// lets the lanes that got their lock run their body and release it:
//     bool done = false;
//     while (!done) {
//       if (irgl::try_lock(locks, i)) {
//         locked statements;
//         irgl::unlock(locks, i);
//         done = true;
//       }
//     }
// The body must not take another lock of the same array (no nesting).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace irgl {

/// Tries once to take lock i. On success (true) the caller holds it and sees
/// the writes of the lock's earlier holders. Never blocks.
__device__ __forceinline__ bool try_lock(unsigned int* locks, uint32_t i) {
  if (atomicCAS(&locks[i], 0u, 1u) == 0u) {
    __threadfence();  // acquire: the locked statements come after the CAS
    return true;
  }
  return false;
}

/// Releases lock i. Precondition: the caller holds it.
__device__ __forceinline__ void unlock(unsigned int* locks, uint32_t i) {
  __threadfence();  // release: the locked statements' writes are visible first
  atomicExch(&locks[i], 0u);
}

}  // namespace irgl
