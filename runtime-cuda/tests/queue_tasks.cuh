// runtime-cuda/tests/queue_tasks.cuh -- the tasks of the asynchronous queue's tests
// (test_queue.cu, test_queue_stress.cu): a binary tree or chains of tasks grown from a
// few input items through an irgl::AsyncQueue, with every kind of reservation and with
// continuations. Include after defining IRGL_QUEUE_DELAY, if any.
#pragma once

#include <irgl/runtime.cuh>

namespace queue_tasks {

constexpr int kBlock = 128;

/// How a task's children are reserved, or kept: kKeep, a thread keeps its first child
/// as its own next task (a continuation) and pushes the rest; kKeepAny, the block's
/// children are dealt out, thread i keeping the i-th whether or not it had a task.
enum Reserve : int {
  kPush = 0,       // push: one atomic per item
  kWarp = 1,       // reserve_warp(kids): one atomic per warp
  kBlockWide = 2,  // reserve_block(kids): one atomic per block
  kKeep = 3,       // a continuation, the rest pushed
  kKeepAny = 4,    // continuations dealt out over the block
  kThread = 5,     // reserve_thread(kids): one atomic per thread
  kWarpOne = 6,    // reserve_warp_one per item
  kBlockOne = 7,   // reserve_block_one per child rank, by ballots
};
constexpr int kReserveKinds = 8;

inline const char* reserve_name(int how) {
  static const char* names[] = {"push", "warp", "block", "keep", "keep-any", "thread", "warp-one", "block-one"};
  return how >= 0 && how < kReserveKinds ? names[how] : "?";
}

/// The children of task x below n: 2x+1 and 2x+2 (a binary tree) when stride is
/// 0, else x + stride (chains); a child below `roots` is a root already.
__device__ inline uint32_t children(uint32_t x, uint32_t n, uint32_t roots, uint32_t stride, uint32_t* first) {
  if (stride != 0) {
    *first = x + stride;
    return x + stride < n ? 1u : 0u;
  }
  uint32_t c = 2u * x + 1u;
  if (c < roots) c = roots;  // children below roots are roots: skip them
  if (c > 2u * x + 2u) return 0u;
  *first = c;
  const uint32_t last = 2u * x + 2u < n ? 2u * x + 2u : n - 1u;
  return c <= last && c < n ? last - c + 1u : 0u;
}

/// Task x (from the input worklist or the queue) counts itself in seen[x] and
/// pushes its children (at most two): every x < n once in all. The roots are the tasks
/// below `roots` (0: the input worklist's size; a later launch's input after a yield holds
/// other tasks).
__global__ void __launch_bounds__(kBlock) grow(irgl::Worklist in, irgl::AsyncQueue q, uint32_t n, uint32_t stride, int how, uint32_t* seen,
                                               uint32_t roots = 0) {
  const uint32_t n_in = in.size();
  if (roots == 0) roots = n_in;
  uint32_t claimed = 0, rank = 0;
  unsigned long long first = 0;
  bool processed = false, carry = false;
  uint32_t next = 0;
  while (q.claim_block<kBlock>(n_in, processed, carry, &first, &rank, &claimed) != 0u) {
    uint32_t x = next;
    const bool active = carry || (rank < claimed && q.take(in, n_in, first + rank, &x));
    processed = active;
    carry = false;
    uint32_t kids = 0, first_kid = 0;
    if (active) {
      atomicAdd(&seen[x], 1u);
      kids = children(x, n, roots, stride, &first_kid);
    }
    if (how == kKeepAny) {
      __shared__ uint32_t dealt[2 * kBlock];
      __shared__ uint32_t n_dealt;
      if (threadIdx.x == 0) n_dealt = 0;
      __syncthreads();
      for (uint32_t k = 0; k < kids; ++k) dealt[atomicAdd(&n_dealt, 1u)] = first_kid + k;
      __syncthreads();
      if (threadIdx.x < n_dealt) {
        carry = true;
        next = dealt[threadIdx.x];
      }
      if (threadIdx.x + kBlock < n_dealt) q.push(dealt[threadIdx.x + kBlock]);
      __syncthreads();
    } else if (how == kKeep) {
      for (uint32_t k = 0; k < kids; ++k) {
        if (!carry) {
          carry = true;
          next = first_kid + k;
        } else {
          q.push(first_kid + k);
        }
      }
    } else if (how == kBlockWide) {
      const irgl::wl_index_t at = q.reserve_block<kBlock>(kids);
      for (uint32_t k = 0; k < kids; ++k) q.write(at, k, first_kid + k);
    } else if (how == kBlockOne) {
      for (uint32_t k = 0; k < 2u; ++k) {  // every thread, every rank
        const bool pushes = k < kids;
        const irgl::wl_index_t at = q.reserve_block_one<kBlock>(pushes);
        if (pushes) q.write(at, 0u, first_kid + k);
      }
    } else if (active && kids != 0) {
      if (how == kWarp) {
        const irgl::wl_index_t at = q.reserve_warp(kids);
        for (uint32_t k = 0; k < kids; ++k) q.write(at, k, first_kid + k);
      } else if (how == kThread) {
        const irgl::wl_index_t at = q.reserve_thread(kids);
        for (uint32_t k = 0; k < kids; ++k) q.write(at, k, first_kid + k);
      } else if (how == kWarpOne) {
        for (uint32_t k = 0; k < kids; ++k) q.write(q.reserve_warp_one(), 0u, first_kid + k);
      } else {
        for (uint32_t k = 0; k < kids; ++k) q.push(first_kid + k);
      }
    }
  }
  // A yield (the queue's deadline) may end the claims with a task carried: it goes to the
  // queue, among what the launch leaves (as the generated kernels do).
  if (carry) q.push(next);
  q.leave_block();
}

/// Whether every slot of the ring is empty (an even turn) and how many items the ring has
/// seen since its reset: the checks after a launch that ended well.
struct RingState {
  uint32_t full = 0;  ///< slots holding an item (odd turn)
  irgl::AsyncQueueCtl ctl;
};

inline RingState ring_state(const irgl::HostAsyncQueue& q) {
  RingState r;
  std::vector<unsigned long long> slots(q.capacity());
  IRGL_CHECK(cudaMemcpy(slots.data(), q.view().slots, slots.size() * 8, cudaMemcpyDeviceToHost));
  for (unsigned long long v : slots) r.full += (v >> 32) & 1u;
  IRGL_CHECK(cudaMemcpy(&r.ctl, q.view().ctl, sizeof r.ctl, cudaMemcpyDeviceToHost));
  return r;
}

}  // namespace queue_tasks
