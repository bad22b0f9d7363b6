// irgl/reduce.cuh -- the Any/All reduction behind ReduceAndReturn.
//
//   Any: OR over all contributions, false when there is none.
//   All: AND over all contributions, true when there is none.
//
// Host: HostReduceFlag f; f.reset(Reduce::Any); launch(..., f.view()); bool r = f.read();
// Device: view.contribute_any(b) / contribute_all(b) / contribute(kind, b), from
// any (divergent) code: the converged lanes (__activemask) vote together and
// at most one atomic per warp reaches memory, only when the result changes.
//
// Settled loops (rounds without grid barriers) use BlockAnyFlag: a block's own pass, in
// shared memory, no atomic.
//
// Control kernels (iteration outlining) use RoundFlag instead: two words taken in
// turn, each reduction's hits stamped with its number, so that a reduction
// needs no reset in memory, and the next round's contributions need no grid
// barrier after this round's reads of its result.
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

/// The reduction flag of a control kernel. Every thread keeps its own copy of
/// the view and calls start() alike, before the launches that contribute.
/// start() takes the other word and the next stamp: a contribution that decides
/// the result (Any: a true value; All: a false one) writes the stamp to the
/// word, and the result is whether the word holds it. The words must be zero
/// when the control kernel starts; the stamp starts at 1, so that a word never
/// holds a stamp before its reduction (until the stamp wraps, after 2^32 of them).
struct RoundFlag {
  unsigned int* words = nullptr;  // two
  unsigned int stamp = 1;
  Reduce kind = Reduce::Any;

  __device__ __forceinline__ unsigned int* word() const { return words + (stamp & 1u); }
  /// A new reduction of `kind` (every thread alike; no memory is written).
  __device__ __forceinline__ void start(Reduce k) {
    ++stamp;
    kind = k;
  }
  __device__ __forceinline__ void contribute(Reduce k, bool value) const {
    const unsigned mask = __activemask();
    const bool decides = k == Reduce::Any ? __any_sync(mask, value) : !__all_sync(mask, value);
    if (decides && elect_leader(mask)) atomicExch(word(), stamp);
  }
  /// The result, after the grid barrier that follows the contributions.
  __device__ __forceinline__ bool result() const {
    const bool hit = *reinterpret_cast<volatile unsigned int*>(word()) == stamp;
    return kind == Reduce::Any ? hit : !hit;
  }
};

/// The reduction of one block's pass in a settled loop (irglc's settle_rounds, which runs an
/// `Iterate Unordered While Any` without grid barriers): `word` is in shared memory, cleared by
/// the block before the pass; result() after the barrier that ends it.
struct BlockAnyFlag {
  unsigned int* word = nullptr;

  __device__ __forceinline__ void contribute(Reduce, bool value) const {
    if (value) *reinterpret_cast<volatile unsigned int*>(word) = 1u;  // any thread, the same value
  }
  __device__ __forceinline__ bool result() const { return *reinterpret_cast<volatile unsigned int*>(word) != 0u; }
};

/// Host owner of a reduction flag.
class HostReduceFlag {
 public:
  HostReduceFlag() : flag_(1) {}
  ReduceFlag view() const { return ReduceFlag{const_cast<unsigned int*>(flag_.data())}; }
  /// Sets the identity of `kind`: false for Any, true for All (asynchronous on `stream`).
  void reset(Reduce kind, cudaStream_t stream = 0) {
    kind_ = kind;
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
  /// The reduction of the last reset.
  Reduce kind() const { return kind_; }

 private:
  DeviceArray<unsigned int> flag_;
  Reduce kind_ = Reduce::Any;
};

}  // namespace irgl
