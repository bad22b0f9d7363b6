// irgl/block.cuh -- block-level building blocks (on top of CUB).
//
// PRECONDITION for everything here: the block is 1-D with exactly
// BLOCK_THREADS threads (blockDim == (BLOCK_THREADS, 1, 1)), and ALL threads of
// the block call the function, from non-divergent code (it contains
// __syncthreads()). Calling it from a branch that some threads skip deadlocks
// or corrupts shared memory. Consecutive calls are safe: each function ends
// with a barrier so that its shared memory can be reused.
#pragma once

#include <cub/block/block_scan.cuh>

namespace irgl {

/// Exclusive prefix sum of `value` over the threads of the block in
/// threadIdx.x order; `total` receives the block-wide sum in every thread.
template <int BLOCK_THREADS, class T>
__device__ __forceinline__ T block_exclusive_sum(T value, T& total) {
  using Scan = cub::BlockScan<T, BLOCK_THREADS>;
  __shared__ typename Scan::TempStorage storage;
  T exclusive;
  Scan(storage).ExclusiveSum(value, exclusive, total);
  __syncthreads();  // storage may be reused by the next call
  return exclusive;
}

/// Block-aggregated atomicAdd: the threads add their `n` to *counter with ONE
/// atomic per block (thread 0 issues it; none when the block's sum is 0), and
/// each thread gets the counter's value before its own part, as if the
/// threads had added in threadIdx.x order. Threads may pass n = 0.
template <int BLOCK_THREADS>
__device__ __forceinline__ unsigned long long block_atomic_add(unsigned long long* counter, unsigned n) {
  __shared__ unsigned long long base;
  unsigned long long total;
  const unsigned long long exclusive = block_exclusive_sum<BLOCK_THREADS, unsigned long long>(n, total);
  if (threadIdx.x == 0) base = total != 0 ? atomicAdd(counter, total) : 0ull;
  __syncthreads();
  const unsigned long long start = base + exclusive;
  __syncthreads();  // `base` may be rewritten by the next call
  return start;
}

/// block_atomic_add for flags (n = flag ? 1 : 0), the valid flags of a trip's
/// pushes: counts by ballot instead of a scan, one barrier when no thread of the
/// block has its flag set (the common trip of a sparse push, and no atomic), two
/// otherwise. No barrier at the end: whatever the next call writes to shared
/// memory, every thread has read it before the barrier that this call ends with
/// (or has not read it at all, when the block's count is 0).
template <int BLOCK_THREADS>
__device__ __forceinline__ unsigned long long block_atomic_add_one(unsigned long long* counter, bool flag) {
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, at most 1024 threads");
  constexpr int kWarps = BLOCK_THREADS / 32;
  __shared__ unsigned warp_counts[kWarps];
  __shared__ unsigned long long base;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned ballot = __ballot_sync(0xffffffffu, flag);
  if (lane == 0) warp_counts[warp] = static_cast<unsigned>(__popc(ballot));
  const int total = __syncthreads_count(flag);
  if (total == 0) return 0ull;  // the same in every thread
  unsigned before = static_cast<unsigned>(__popc(ballot & ((1u << lane) - 1u)));
  for (unsigned w = 0; w < warp; ++w) before += warp_counts[w];
  if (threadIdx.x == 0) base = atomicAdd(counter, static_cast<unsigned long long>(total));
  __syncthreads();
  return base + before;
}

}  // namespace irgl
