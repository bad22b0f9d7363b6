// irgl/reduce.cuh -- the Any/All reduction behind ReduceAndReturn.
//
//   Any: OR over all contributions, false when there is none.
//   All: AND over all contributions, true when there is none.
//
// Host: HostReduceFlag f; f.reset(Reduce::Any); launch(..., f.view()); bool r = f.read();
// Device: view.contribute_any(b) / contribute_all(b) / contribute(kind, b), from
// any (divergent) code: the converged lanes (__activemask) vote together and
// at most one atomic per warp reaches memory, only when the result changes.
#pragma once

#include <cuda_runtime.h>

#include "array.cuh"
#include "check.cuh"
#include "warp.cuh"

namespace irgl {

enum class Reduce { Any, All };

/// Device view of a reduction flag (0 or 1).
struct ReduceFlag {
  unsigned int* flag = nullptr;

  /// Any: sets the flag to 1 if `value` is true in some active lane.
  __device__ __forceinline__ void contribute_any(bool value) const {
    const unsigned mask = __activemask();
    if (__any_sync(mask, value) && elect_leader(mask)) atomicOr(flag, 1u);
  }
  /// All: sets the flag to 0 if `value` is false in some active lane.
  __device__ __forceinline__ void contribute_all(bool value) const {
    const unsigned mask = __activemask();
    if (!__all_sync(mask, value) && elect_leader(mask)) atomicAnd(flag, 0u);
  }
  __device__ __forceinline__ void contribute(Reduce kind, bool value) const {
    if (kind == Reduce::Any) {
      contribute_any(value);
    } else {
      contribute_all(value);
    }
  }
};

/// Host owner of a reduction flag.
class HostReduceFlag {
 public:
  HostReduceFlag() : flag_(1) {}
  ReduceFlag view() const { return ReduceFlag{const_cast<unsigned int*>(flag_.data())}; }
  /// Sets the identity of `kind`: false for Any, true for All (asynchronous on `stream`).
  void reset(Reduce kind, cudaStream_t stream = 0) {
    if (kind == Reduce::Any) {
      flag_.zero(stream);
    } else {
      flag_.fill(1u, stream);
    }
  }
  /// Downloads the result (synchronous).
  bool read() const {
    unsigned int v = 0;
    flag_.download(&v, 1);
    return v != 0u;
  }

 private:
  DeviceArray<unsigned int> flag_;
};

}  // namespace irgl
