// irgl/grid.cuh -- the grid-wide barrier behind SyncRunningThreads and
// outlined control kernels.
//
// Device: irgl::grid_sync() -- a grid barrier on cooperative groups' arrival, with a wait
//         that leaves the L1 caches alone (see below).
//         irgl::grid_sync_then(action) -- a grid barrier whose last arriving thread
//         runs action() before it releases the others (one thread, once; what it
//         writes is visible to every thread after the barrier).
// PRECONDITION: the kernel was launched with cudaLaunchCooperativeKernel (use
// irgl::launch_cooperative below) with no more blocks than can be resident at
// once, and every thread of the grid reaches each grid_sync() the same number
// of times (so the kernel must use grid-stride loops, not one thread per item).
//
// Host: launch_cooperative(name, kernel, blocks, threads, smem, stream, args...)
// computes the residency of `kernel` (cudaOccupancyMaxActiveBlocksPerMultiprocessor
// x SM count, for that block size and dynamic shared memory), launches
// min(blocks, residency) blocks (all resident blocks when blocks == 0) and
// returns that number. If the device cannot launch cooperatively or not even
// one block fits, it exits with
//   error: cannot make kernel K resident for a grid barrier: <why>
// rather than deadlocking.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "check.cuh"

namespace irgl {

/// Grid-wide barrier (see the preconditions above). Also a memory fence:
/// writes before it are visible to all threads of the grid after it.
///
/// The arrival is cooperative groups' (`barrier_arrive`: a block barrier, then one release
/// atomic per block on the driver's barrier word; the last arrival flips the word's top bit).
/// The wait is not theirs. `barrier_wait` polls the word with acquire loads, and an acquire at
/// GPU scope invalidates the L1 cache of the polling block's multiprocessor at every poll: a
/// block still working in a round (a hub's edges) loses its L1 to the blocks waiting beside it.
/// Here the first thread polls with relaxed loads, sleeping 32 ns after the first poll and
/// twice as long after each later one up to 256 ns (1,056 blocks polling without a pause crowd
/// the word's L2 slice and slow every load that maps there), and acquires once, when the
/// barrier is released. Measured on an H200 (docs/optimizations.md, *The grid barrier*):
/// mis on cnr-2000 outlined 0.91 ms against 1.57 with `this_grid().sync()`, pr-pull on road-FLA
/// level. Define IRGL_GRID_SYNC_COOPERATIVE_GROUPS for `this_grid().sync()` (comparisons).
namespace detail {
__device__ __forceinline__ unsigned int load_relaxed(const unsigned int* word) {
  unsigned int now;
  asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(now) : "l"(word) : "memory");
  return now;
}

/// The grid barriers' wait (one thread of a block): polls `*word` with relaxed loads, sleeping
/// 32 ns after the first poll and twice as long after each later one up to 256 ns, until
/// `released(value)`; then acquires the word once.
template <class Released>
__device__ __forceinline__ void wait_released(unsigned int* word, Released released) {
  unsigned int pause_ns = 32;
  while (!released(load_relaxed(word))) {
    __nanosleep(pause_ns);
    if (pause_ns < 256u) pause_ns *= 2u;
  }
  unsigned int now;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(word) : "memory");
}
}  // namespace detail

#if defined(IRGL_GRID_SYNC_COOPERATIVE_GROUPS)
__device__ __forceinline__ void grid_sync() { cooperative_groups::this_grid().sync(); }
#else
__device__ __forceinline__ void grid_sync() {
  const unsigned int before = cooperative_groups::this_grid().barrier_arrive();
  if (threadIdx.x == 0) {
    // The word barrier_arrive added to (the driver's grid workspace, as barrier_wait reads it).
    // Every block's release atomic precedes the flip: the wait's acquire orders what they
    // wrote before what this block reads after the barrier below.
    detail::wait_released(&cooperative_groups::details::get_grid_workspace()->barrier,
                          [&](unsigned int now) { return ((before ^ now) & 0x80000000u) != 0u; });
  }
  __syncthreads();
}
#endif

/// The device's global clock, in nanoseconds.
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// The start of one timed call of a kernel's body inside a control kernel (`--kernel-times`):
/// when `timed`, a grid barrier (what came before is done) and the clock; else 0. Every
/// thread of the grid calls it alike.
__device__ __forceinline__ unsigned long long timed_call_start(bool timed) {
  if (!timed) return 0ull;
  grid_sync();
  return global_ns();
}

/// The end of a timed call begun at `start`: when `timed`, a grid barrier (the call is done
/// in every block), then the first thread of the grid adds the time to `*ns` and one to
/// `*calls`.
__device__ __forceinline__ void timed_call_end(bool timed, unsigned long long start, unsigned long long* ns,
                                               unsigned int* calls) {
  if (!timed) return;
  grid_sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *ns += global_ns() - start;
    *calls += 1u;
  }
}

namespace detail {
/// A barrier word alone on its 128-byte line.
struct alignas(128) BarrierWord {
  unsigned int word;
};
/// grid_sync_then's arrivals (cooperative groups' top-bit flip) and its releases (a count the last
/// arrival adds one to), on lines of their own.
static __device__ BarrierWord then_arrival;
static __device__ BarrierWord then_release;

#if defined(IRGL_GRID_SYNC_THEN_COUNT)
/// The arrival count and generation of the former grid_sync_then, a cache line apart.
struct BarrierWords {
  unsigned int count;
  unsigned int pad[31];
  unsigned int generation;
};
static __device__ BarrierWords barrier_words;
#endif
}  // namespace detail

/// Grid-wide barrier (the preconditions of grid_sync) whose last arriving block's first thread runs
/// `action()` after every thread of the grid has arrived and before any leaves: a leader's write that must
/// follow what every thread did before the barrier and precede what any does after, for the cost of one
/// barrier instead of two.
///
/// Blocks arrive as in grid_sync, with one acquire-release atomic per block on `then_arrival` (the first
/// block adds 2^31 - (blocks - 1), the others 1, so that the last arrival, whichever it is, flips the top
/// bit and knows it from the old value). The last runs the action and then releases with one more atomic on
/// `then_release`, which every block's second warp polls as grid_sync's wait does. That warp reads the
/// release word before its block arrives (it cannot change before then), so the read overlaps the arrival.
/// On one H200 (runtime-cuda/bench/grid_barrier.cu, `then`; docs/optimizations.md, *The barrier with an
/// action*): 2.38, 2.05 and 1.79 us on 1,056, 528 and 132 blocks, against grid_sync's 2.15, 1.13 and 0.89 (the last
/// arrival's release waits for its action's writes: one more round trip), and against 3.46, 2.35 and 2.05
/// for the former barrier (an arrival count, its reset by the last arrival, fences, a generation that every
/// block polled without pausing), which IRGL_GRID_SYNC_THEN_COUNT keeps for comparisons.
template <class Action>
__device__ __forceinline__ void grid_sync_then(Action action) {
#if defined(IRGL_GRID_SYNC_THEN_COUNT)
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile unsigned int* generation = &detail::barrier_words.generation;
    const unsigned int g = *generation;  // cannot move on before this block arrives
    __threadfence();                     // this block's writes, before its arrival
    if (atomicAdd(&detail::barrier_words.count, 1u) == gridDim.x - 1) {
      __threadfence();                   // acquire: every block's writes before its arrival
      detail::barrier_words.count = 0u;  // nobody adds before the release below
      action();
      __threadfence();
      *generation = g + 1u;
    } else {
      while (*generation == g) {
      }
    }
    __threadfence();
  }
  __syncthreads();
#else
  const unsigned int poller = blockDim.x > 32u ? 32u : 0u;
  unsigned int before = 0u;
  if (threadIdx.x == poller) before = detail::load_relaxed(&detail::then_release.word);
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned int add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
    unsigned int old;
    asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(&detail::then_arrival.word), "r"(add)
                 : "memory");
    if (((old ^ (old + add)) & 0x80000000u) != 0u) {  // the last arrival: every block's writes are seen
      action();
      asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(&detail::then_release.word), "r"(1u) : "memory");
    }
  }
  if (threadIdx.x == poller) {
    detail::wait_released(&detail::then_release.word, [&](unsigned int now) { return now != before; });
  }
  __syncthreads();
#endif
}

/// Computes how many blocks of `kernel` (block_threads threads, dyn_smem bytes
/// of dynamic shared memory) can be resident at once on the current device.
/// Returns false with a reason in *error when none can, or the device cannot
/// launch cooperative kernels.
template <class Kernel>
bool cooperative_residency(Kernel kernel, int block_threads, size_t dyn_smem, int* max_blocks,
                           std::string* error) {
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  int coop = 0, sms = 0, per_sm = 0;
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess) {
    *error = std::string("cannot query the device: ") + cudaGetErrorString(err);
    return false;
  }
  if (!coop) {
    *error = "the device does not support cooperative launch";
    return false;
  }
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, dyn_smem);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // clear it: this is reported, not sticky
    *error = "occupancy query failed for blocks of " + std::to_string(block_threads) + " threads with " +
             std::to_string(dyn_smem) + " bytes of dynamic shared memory: " + cudaGetErrorString(err);
    return false;
  }
  if (per_sm <= 0) {
    *error = "no block of " + std::to_string(block_threads) + " threads with " + std::to_string(dyn_smem) +
             " bytes of dynamic shared memory fits on a multiprocessor";
    return false;
  }
  *max_blocks = per_sm * sms;
  return true;
}

namespace detail {
template <class... Params, size_t... I>
cudaError_t launch_coop_impl(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                             std::tuple<Params...>& values, std::index_sequence<I...>) {
  void* ptrs[sizeof...(Params) + 1] = {static_cast<void*>(&std::get<I>(values))..., nullptr};
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid, block, ptrs, smem, stream);
}
}  // namespace detail

/// The number of multiprocessors of the current device (for grids of k blocks
/// per multiprocessor).
inline int sm_count() {
  int dev = 0, sms = 0;
  IRGL_CHECK(cudaGetDevice(&dev));
  IRGL_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

/// Launches `kernel(args...)` cooperatively with min(blocks, residency) blocks
/// of block_threads threads (all resident blocks when blocks <= 0); returns the
/// number of blocks launched. Exits with a one-line error naming `name` when
/// the kernel cannot be made resident or the launch fails.
template <class... Params, class... Args>
int launch_cooperative(const char* name, void (*kernel)(Params...), int blocks, int block_threads, size_t dyn_smem,
                       cudaStream_t stream, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "launch_cooperative: wrong number of kernel arguments");
  int resident = 0;
  std::string why;
  if (!cooperative_residency(kernel, block_threads, dyn_smem, &resident, &why)) {
    fatal("cannot make kernel %s resident for a grid barrier: %s", name, why.c_str());
  }
  const int grid = (blocks <= 0 || blocks > resident) ? resident : blocks;
  std::tuple<Params...> values(std::forward<Args>(args)...);
  const cudaError_t err = detail::launch_coop_impl(kernel, dim3(grid), dim3(block_threads), dyn_smem, stream, values,
                                                   std::index_sequence_for<Params...>{});
  if (err != cudaSuccess) {
    fatal("cannot make kernel %s resident for a grid barrier: cooperative launch of %d blocks of %d threads failed: %s",
          name, grid, block_threads, cudaGetErrorString(err));
  }
  return grid;
}

}  // namespace irgl
