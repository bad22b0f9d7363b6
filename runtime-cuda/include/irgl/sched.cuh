// irgl/sched.cuh -- building blocks of the nested-ForAll schedulers (block level).
//
// The compiler's `schedule_nested_loops` pass hands the iterations of a nested ForAll to
// the threads of a block: each thread first records its item's trip count, then the
// schedulers (thread block, warp, virtual warp, fine-grained, edge-balanced) distribute the
// iterations. The fine-grained and edge-balanced schedulers need a block-wide exclusive
// prefix sum of the trip counts and, for each iteration, the item that owns it:
//
//   __shared__ unsigned long long offsets[BLOCK];
//   __shared__ unsigned long long scratch[BLOCK / 32];
//   unsigned long long total;
//   offsets[threadIdx.x] = irgl::block_exclusive_scan<BLOCK>(count, scratch, total);
//   __syncthreads();
//   ... irgl::owner_of<BLOCK>(offsets, k) ...   // the thread whose range holds iteration k
//
// PRECONDITION for block_exclusive_scan: the block is 1-D with exactly BLOCK threads (a
// multiple of 32) and every thread calls it from uniform code (it has barriers).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace irgl {

/// Exclusive prefix sum of `value` over the threads of the block, in threadIdx.x order;
/// `total` receives the sum over the block in every thread. `scratch` is shared memory of
/// BLOCK / 32 elements. Ends with a barrier, so `scratch` may be reused right after.
template <int BLOCK>
__device__ __forceinline__ unsigned long long block_exclusive_scan(unsigned long long value,
                                                                   unsigned long long* scratch,
                                                                   unsigned long long& total) {
  static_assert(BLOCK % 32 == 0 && BLOCK >= 32 && BLOCK <= 1024, "BLOCK: a multiple of 32 up to 1024");
  constexpr int WARPS = BLOCK / 32;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  // Inclusive scan within the warp.
  unsigned long long x = value;
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const unsigned long long y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += y;
  }
  if (lane == 31u) scratch[warp] = x;
  __syncthreads();
  // The first warp scans the warp totals.
  if (warp == 0) {
    unsigned long long t = lane < static_cast<unsigned>(WARPS) ? scratch[lane] : 0ull;
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
      const unsigned long long y = __shfl_up_sync(0xffffffffu, t, d);
      if (lane >= d) t += y;
    }
    // The compiler may load scratch[0] in every lane above (for WARPS == 1, lane < WARPS
    // means lane 0): order those loads before lane 0's store.
    __syncwarp();
    if (lane < static_cast<unsigned>(WARPS)) scratch[lane] = t;  // inclusive
  }
  __syncthreads();
  const unsigned long long before = warp == 0 ? 0ull : scratch[warp - 1];
  total = scratch[WARPS - 1];
  __syncthreads();  // scratch may be reused
  return before + x - value;
}

/// The last thread i in [0, BLOCK) with offsets[i] <= k, for nondecreasing offsets with
/// offsets[0] == 0: the thread whose range [offsets[i], offsets[i + 1]) holds iteration k
/// (threads with no iterations are skipped, since their range is empty). log2(BLOCK) steps.
template <int BLOCK>
__device__ __forceinline__ uint32_t owner_of(const unsigned long long* offsets, unsigned long long k) {
  uint32_t lo = 0, hi = BLOCK;  // offsets[lo] <= k; offsets[hi] > k (hi == BLOCK: past the end)
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (offsets[mid] <= k) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Items each block takes in one trip of an outer loop whose nested loops the block's
/// schedulers share, over `total` items on `blocks` blocks: BLOCK while the items fill the
/// grid, else an even share (at least one). A small frontier of high-degree nodes then
/// spreads over every multiprocessor, a block to each hub, instead of crowding into the
/// first blocks, one BLOCK of items each.
template <uint32_t BLOCK>
__host__ __device__ __forceinline__ uint32_t items_per_block(unsigned long long total, uint32_t blocks) {
  const unsigned long long share = (total + blocks - 1) / blocks;
  return share >= BLOCK ? BLOCK : (share < 1 ? 1u : static_cast<uint32_t>(share));
}

}  // namespace irgl
