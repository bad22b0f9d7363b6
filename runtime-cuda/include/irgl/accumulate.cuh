// irgl/accumulate.cuh -- aggregated additions to a global sum (the IR's `Accumulate`, an
// `atomicAdd(global, v)` whose old value is unused):
//
//   irgl::warp_add(p, v)          the lanes converged here (__activemask) sum their values;
//                                 the lowest of them adds the sum: one atomic per warp
//   irgl::block_add<B>(p, v)      the threads of the block sum their values; thread 0 adds
//                                 the sum: one atomic per block. EVERY thread of the 1-D
//                                 block of B threads calls it, from uniform code (barriers)
//
// and of the IR's `FetchAdd`, an `atomicAdd(global, v)` whose old value is used (a
// reservation: tc's `g.start[n] = atomicAdd(cursor, g.outn[n])`):
//
//   old = irgl::warp_fetch_add(p, v)   the lanes converged here scan their values; the lowest
//                                 adds the total: one atomic per warp; each lane gets what
//                                 atomicAdd(p, v) would have returned had the lanes added in
//                                 lane order, one after another
//
// warp_add and block_add issue no atomic when the sum is 0. T: unsigned int, int, unsigned
// long long, long long (the IrGL integer types u32, i32, u64, i64).
#pragma once

#include <cuda_runtime.h>

#include "ops.cuh"
#include "warp.cuh"

namespace irgl {

/// The sum of `v` over the lanes of `mask`, in every lane of it. Precondition: exactly the
/// lanes of `mask` call it together.
template <class T>
__device__ __forceinline__ T warp_sum(unsigned mask, T v) {
  if (mask == 0xffffffffu) {
#pragma unroll
    for (unsigned d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(mask, v, d);
    return v;
  }
  T total;
  warp_exclusive_sum<T>(mask, v, &total);
  return total;
}

template <class T>
__device__ __forceinline__ void warp_add(T* p, T v) {
  const unsigned mask = __activemask();
  const T total = warp_sum<T>(mask, v);
  if (lane_id() == leader_lane(mask) && total != T(0)) atomic_add(p, total);
}

template <class T>
__device__ __forceinline__ T warp_fetch_add(T* p, T v) {
  const unsigned mask = __activemask();
  T total;
  const T before = warp_exclusive_sum<T>(mask, v, &total);
  const unsigned leader = leader_lane(mask);
  T base = T(0);
  // Even when the total is 0: the lanes still need the counter's value.
  if (lane_id() == leader) base = atomic_add(p, total);
  return __shfl_sync(mask, base, leader) + before;
}

template <int BLOCK, class T>
__device__ __forceinline__ void block_add(T* p, T v) {
  static_assert(BLOCK % 32 == 0 && BLOCK >= 32 && BLOCK <= 1024, "BLOCK: a multiple of 32 up to 1024");
  __shared__ T warp_sums[BLOCK / 32];
  const T w = warp_sum<T>(0xffffffffu, v);
  if ((threadIdx.x & 31u) == 0u) warp_sums[threadIdx.x >> 5] = w;
  __syncthreads();
  if (threadIdx.x < 32u) {
    T s = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : T(0);
    s = warp_sum<T>(0xffffffffu, s);
    if (threadIdx.x == 0u && s != T(0)) atomic_add(p, s);
  }
  __syncthreads();  // `warp_sums` may be rewritten by the next call
}

}  // namespace irgl
