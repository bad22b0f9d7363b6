// irgl/warp.cuh -- warp-level building blocks.
//
// All functions that take a `mask` require that EXACTLY the lanes in `mask`
// call them together (convergently, with the same mask), as for __shfl_sync.
// The usual way to obtain such a mask in divergent code is
//     const unsigned mask = __activemask();
// evaluated once and then passed to every function of the group: never pass a
// full mask (0xffffffff) from code that may be divergent.
// These are safe under Volta+ independent thread scheduling: every exchange
// goes through a *_sync intrinsic with the caller's mask.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace irgl {

/// Number of threads in a warp.
constexpr unsigned kWarpSize = 32;

/// This thread's lane in its warp (0..31), from the %laneid register, so it
/// is right for 1-D, 2-D and 3-D blocks.
__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

/// Bit mask of the lanes below this one (bits 0 .. lane_id()-1).
__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned m;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

/// The lane that leads `mask`: its lowest set bit. Precondition: mask != 0.
__device__ __forceinline__ unsigned leader_lane(unsigned mask) { return __ffs(mask) - 1; }

/// True in exactly one lane of `mask` (the lowest). Precondition: the caller
/// is in `mask`. Needs no synchronization.
__device__ __forceinline__ bool elect_leader(unsigned mask) { return lane_id() == leader_lane(mask); }

/// Position of the k-th (0-based) set bit of `mask`.
/// Precondition: k < popcount(mask). Five popcounts, no loop over lanes.
__host__ __device__ __forceinline__ unsigned nth_set_bit(unsigned mask, unsigned k) {
  unsigned pos = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned w = 16; w > 0; w >>= 1) {
    const unsigned low = (mask >> pos) & ((1u << w) - 1u);
#if defined(__CUDA_ARCH__)
    const unsigned c = __popc(low);
#else
    const unsigned c = static_cast<unsigned>(__builtin_popcount(low));
#endif
    if (k >= c) {
      k -= c;
      pos += w;
    }
  }
  return pos;
}

/// Exclusive prefix sum of `value` over the lanes of `mask`, in lane order.
/// Works for any (non-contiguous) mask: the scan runs over the ranks of the
/// lanes in `mask` (Kogge-Stone, log2(popc(mask)) shuffles). If `total` is not
/// null, *total receives the sum over all lanes of `mask`.
/// Precondition: all lanes of `mask`, and only they, call it with the same mask.
/// T: any type __shfl_sync supports (32- or 64-bit integers, float, double).
template <class T>
__device__ __forceinline__ T warp_exclusive_sum(unsigned mask, T value, T* total = nullptr) {
  const unsigned lane = lane_id();
  const unsigned rank = __popc(mask & lanemask_lt());
  const unsigned count = __popc(mask);
  T inclusive = value;
  for (unsigned d = 1; d < count; d <<= 1) {  // `count` is the same in every lane
    const unsigned src = rank >= d ? nth_set_bit(mask, rank - d) : lane;
    const T t = __shfl_sync(mask, inclusive, src);
    if (rank >= d) inclusive += t;
  }
  if (total != nullptr) *total = __shfl_sync(mask, inclusive, 31 - __clz(mask));
  return inclusive - value;
}

/// Warp-aggregated atomicAdd: the lanes of `mask` add their `n` to *counter
/// with ONE atomic (issued by the leader, skipped when the warp's sum is 0),
/// and each lane gets back the value the counter had before its own part, as
/// if the lanes had added in lane order. Lanes may pass different n (0 too).
/// Precondition: all lanes of `mask`, and only they, call it with the same
/// mask; use `__activemask()` in divergent code.
__device__ __forceinline__ unsigned long long warp_atomic_add(unsigned mask, unsigned long long* counter,
                                                              unsigned n) {
  unsigned long long exclusive, total;
  if (__all_sync(mask, n <= 1u)) {
    // Common case (a conditional push of one item): a ballot is the scan.
    const unsigned votes = __ballot_sync(mask, n == 1u);
    exclusive = __popc(votes & lanemask_lt());
    total = __popc(votes);
  } else {
    exclusive = warp_exclusive_sum<unsigned long long>(mask, n, &total);
  }
  const unsigned leader = leader_lane(mask);
  unsigned long long base = 0;
  if (lane_id() == leader && total != 0) base = atomicAdd(counter, total);
  base = __shfl_sync(mask, base, leader);
  return base + exclusive;
}

}  // namespace irgl
