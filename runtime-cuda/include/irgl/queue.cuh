// irgl/queue.cuh -- the shared task queue of asynchronous worklist kernels.
//
// An asynchronous kernel (irglc --async) does not stop at the end of its input
// worklist: the items its own pushes feed (Respawn, or every push) go to one
// irgl::AsyncQueue, and the kernel's blocks keep claiming items -- first the
// input worklist's, then the queue's -- until the queue is quiescent: every
// item ever pushed has been processed and no thread is processing one. No
// grid barrier, no relaunch, no round: a block that finds work takes it.
//
// Items, in the order they are claimed, have virtual indices 0, 1, 2, ...:
// index i < n_in is item i of the input worklist; index n_in + j is the j-th
// item pushed to the queue in this launch. The queue is a ring of `capacity`
// 64-bit slots, a bounded multi-producer multi-consumer ring with a turn in
// each slot: pushed item j has the absolute position p = base + j (base: the
// items pushed by the earlier launches since the last reset), lives in slot
// p % capacity in lap L = p / capacity, and the slot's upper 32 bits say whose
// turn it is (mod 2^32):
//   2L      empty, for the pusher of lap L
//   2L + 1  full, holding lap L's item (the lower 32 bits), for its taker
//   2L + 2  empty again, for the pusher of lap L + 1
// A pusher waits for turn 2L, then stores (2L + 1, item) with release
// semantics; a taker waits for turn 2L + 1, reads the item with acquire
// semantics, and stores (2L + 2, -). Each slot is written by one pusher and one
// taker per lap, in that order: no item is lost or taken twice, whatever the
// timing, and a slot's turn never goes past a waiter's.
//
// Counters (each on its own 128-byte line; the idle blocks poll them):
//   head      indices claimed so far (by atomicCAS, at most what exists)
//   tail      slots reserved by pushes so far
//   finished  items whose processing ended, their pushes reserved before
// Quiescence: finished == n_in + tail, read in that order. An item's pushes are
// reserved before it counts as finished, so when every item that exists has
// finished, nobody can push again. A thread may keep one item it pushes as its
// own next item instead (a continuation: no queue round trip); a kept item is
// a unit of work too, so `finished` counts processed items net of kept ones.
// The last block to leave adds tail to base and resets the counters for the
// next launch.
//
// Yields (the switch between rounds and asynchrony, irgl/switch.cuh): with a
// `deadline` on the device's clock, a block that comes to claim after it claims
// nothing and leaves, and a thread that carries an item pushes it to the ring
// first; the items claimed before it are processed as usual. A `claim_limit`
// yields likewise once that many items are claimed. The launch then
// ends with items unclaimed, virtual indices [head, n_in + tail): the last block
// out records them (left_first, left_end, with the ring position of the launch's
// item 0), and drain_into moves them, after a grid barrier, into a worklist (the
// next round's input), emptying their slots for the next lap as a taker would.
//
// First pops (the switch's measure of progress): with `seen` (a byte per node),
// count_first(n) adds one to `first_pops` the first time node n is popped since
// the last clear_seen. A plain load and store: two threads popping the same node
// at once, or one reading a stale 0 from its L1, may both count it, which a
// measure can afford.
//
// Progress and overflow: a pusher of item j waits only when item j - capacity
// (its slot's previous occupant in this launch) has been claimed: its claimer
// is taking it, and that taker waits only for the pusher of j - capacity, and
// so on down to a slot that is free. Claimed items are taken: a thread takes its
// claim before it processes anything. A push whose previous occupant is not
// claimed yet (more than `capacity` items waiting), or whose item is
// kEmptySlot (not a node), stores nothing and sets `stop`; every block then
// leaves, and the host (check_overflow) or the control kernel (overflowed())
// reports it like a worklist overflow. Every wait also watches `stop`, so
// nothing waits for ever.
//
// Memory: a pusher's release store makes what it wrote before (the property
// update that made it push) visible to the taker's acquire load, and the kernel
// reads the properties it also updates with volatile loads
// (irgl::load_coherent), so that an item's consumer sees the update that pushed
// it. The last block to leave a launch (and the last to arrive at a grid
// barrier, grid.cuh) fences after its arrival, before it reads what the others
// wrote.
//
// PRECONDITIONS: the kernel is 1-D with BLOCK threads and every thread of a
// block calls claim_block and leave_block together (they contain
// __syncthreads()). The grid need not be resident: a block that starts after
// the queue went quiescent leaves at once. Threads of one warp wait for each
// other (a pusher for a taker), which needs independent thread scheduling:
// sm_70 or newer.
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "irgl/queue.cuh needs sm_70 or newer (independent thread scheduling: threads of a warp wait for each other)"
#endif

#include <cinttypes>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "array.cuh"
#include "block.cuh"
#include "check.cuh"
#include "grid.cuh"
#include "warp.cuh"
#include "worklist.cuh"

// A hook for the queue's stress test (runtime-cuda/tests/test_queue_stress.cu), which
// defines it to wait a random while: where a pusher has reserved its slot but not written it
// (0), and where a thread has claimed an item but not taken it (1). Nothing by default.
#ifndef IRGL_QUEUE_DELAY
#define IRGL_QUEUE_DELAY(where)
#endif

namespace irgl {

/// The value of an empty slot (never a node: node ids are below 2^32 - 1).
constexpr uint32_t kEmptySlot = 0xffffffffu;

/// Why an asynchronous kernel stopped early (AsyncQueueCtl::stop).
enum AsyncStop : unsigned int { kAsyncRunning = 0u, kAsyncOverflow = 1u, kAsyncBadItem = 2u };

/// Device-side counters of an asynchronous queue, each on its own line.
struct AsyncQueueCtl {
  unsigned long long head;
  unsigned long long pad0[15];
  unsigned long long tail;
  unsigned long long pad1[15];
  unsigned long long finished;
  unsigned long long pad2[15];
  unsigned int n_in;      ///< the input worklist's size in the current launch
  unsigned int exited;    ///< blocks that left the current launch
  unsigned int stop;      ///< AsyncStop; kept after the launch for the host
  unsigned int bad_item;  ///< the item of a kAsyncBadItem stop
  unsigned long long pushed;  ///< tail when it stopped (the overflow report)
  unsigned long long base;    ///< items pushed by the earlier launches: absolute position of item 0
  /// The device clock (global_ns) from which no block claims: the launch yields (0: never).
  /// Reset by the last block out.
  unsigned long long deadline;
  /// The most items the launch claims (virtual indices below it): it yields after them (0:
  /// no limit). Reset by the last block out.
  unsigned long long claim_limit;
  /// After a launch, what it left unclaimed (a yield): virtual indices [left_first, left_end),
  /// index i < left_n_in the input worklist's, the others in the ring from position left_base.
  /// left_first is also the number of items the launch claimed.
  unsigned long long left_first;
  unsigned long long left_end;
  unsigned long long left_base;
  unsigned int left_n_in;
  unsigned int pad3;
  /// Nodes popped for the first time since the last clear_seen (count_first).
  unsigned long long first_pops;
};

namespace detail {
__device__ __forceinline__ unsigned long long load_volatile(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}
__device__ __forceinline__ unsigned int load_volatile(const unsigned int* p) {
  return *reinterpret_cast<const volatile unsigned int*>(p);
}
/// A store that makes this thread's earlier writes visible before it (device scope).
__device__ __forceinline__ void store_release(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
/// A load after which the writes released before the value it reads are visible.
__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
/// A load and a store that are atomic (no torn or cached value) but order nothing else.
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void store_relaxed(unsigned int* p, unsigned int v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
/// The turn of a slot (its upper 32 bits).
__device__ __forceinline__ uint32_t turn_of(unsigned long long slot) { return static_cast<uint32_t>(slot >> 32); }
/// A slot's value: `turn` and, when full, its item.
__device__ __forceinline__ unsigned long long slot_value(uint32_t turn, uint32_t item) {
  return (static_cast<unsigned long long>(turn) << 32) | item;
}
}  // namespace detail

/// A load that bypasses the SM's L1 cache (which other SMs' writes do not
/// update): for properties an asynchronous kernel both reads and updates.
template <class T>
__device__ __forceinline__ T load_coherent(const T& place) {
  return *reinterpret_cast<const volatile T*>(&place);
}

/// Device view of an asynchronous queue (trivially copyable; pass by value).
/// Its push side has the API of irgl::Worklist, so cooperative conversion
/// aggregates its reservations alike.
struct AsyncQueue {
  unsigned long long* slots = nullptr;
  AsyncQueueCtl* ctl = nullptr;
  uint32_t capacity = 0;
  /// A byte per node, for count_first (null: the program counts nothing).
  uint8_t* seen = nullptr;
  uint32_t nseen = 0;

  // ---- producers (any thread, inside the item it processes)

  /// Stores `item` as pushed item start + taskid (reserved by one of the reserve_*).
  /// Returns false (and stops every block) on overflow or a bad item.
  __device__ __forceinline__ bool write(wl_index_t start, uint32_t taskid, uint32_t item) const {
    const wl_index_t j = start + taskid;
    IRGL_QUEUE_DELAY(0);
    if (detail::load_volatile(&ctl->stop) != kAsyncRunning) return false;
    if (item == kEmptySlot) {
      halt(kAsyncBadItem, item);
      return false;
    }
    // Item j - capacity, the slot's previous occupant in this launch, must have been
    // claimed (its virtual index below head): then its claimer is taking it. Otherwise
    // more than `capacity` items wait.
    if (j >= capacity &&
        detail::load_volatile(&ctl->n_in) + (j - capacity) >= detail::load_volatile(&ctl->head)) {
      halt(kAsyncOverflow, 0u);
      return false;
    }
    const unsigned long long p = detail::load_volatile(&ctl->base) + j;
    unsigned long long* slot = slots + (p % capacity);
    const uint32_t turn = static_cast<uint32_t>(2ull * (p / capacity));
    while (detail::turn_of(detail::load_relaxed(slot)) != turn) {  // the last lap's taker
      if (detail::load_volatile(&ctl->stop) != kAsyncRunning) return false;
    }
    // What this thread wrote before, visible with the item.
    detail::store_release(slot, detail::slot_value(turn + 1u, item));
    return true;
  }
  /// Pushes one item with one atomic.
  __device__ __forceinline__ bool push(uint32_t item) const {
    return write(atomicAdd(&ctl->tail, 1ull), 0u, item);
  }
  /// n slots for this thread, one atomic (none when n == 0).
  __device__ __forceinline__ wl_index_t reserve_thread(uint32_t n) const {
    return n != 0 ? atomicAdd(&ctl->tail, static_cast<unsigned long long>(n)) : 0ull;
  }
  /// n slots for each converged lane, one atomic per warp.
  __device__ __forceinline__ wl_index_t reserve_warp(uint32_t n) const {
    return warp_atomic_add(__activemask(), &ctl->tail, n);
  }
  __device__ __forceinline__ wl_index_t reserve_warp(unsigned mask, uint32_t n) const {
    return warp_atomic_add(mask, &ctl->tail, n);
  }
  /// One slot for each converged lane, one atomic per warp (nvcc aggregates the plain
  /// atomic: see Worklist::reserve_warp_one).
  __device__ __forceinline__ wl_index_t reserve_warp_one() const {
    return atomicAdd(&ctl->tail, 1ull);
  }
  /// n slots for each thread of the block, one atomic per block (every thread calls it).
  template <int BLOCK_THREADS>
  __device__ __forceinline__ wl_index_t reserve_block(uint32_t n) const {
    return block_atomic_add<BLOCK_THREADS>(&ctl->tail, n);
  }
  /// reserve_block(flag ? 1 : 0), by ballots (every thread calls it).
  template <int BLOCK_THREADS>
  __device__ __forceinline__ wl_index_t reserve_block_one(bool flag) const {
    return block_atomic_add_one<BLOCK_THREADS>(&ctl->tail, flag);
  }

  /// Whether the last launch stopped on an overflow or a bad item (after the
  /// launch, or after the grid barrier that follows the call in a control kernel).
  __device__ __forceinline__ bool overflowed() const { return detail::load_volatile(&ctl->stop) != kAsyncRunning; }

  // ---- consumers (every thread of the block together)

  /// One trip's items for the block. `processed`: this thread processed an item in the
  /// block's previous trip; `carry`: it kept one of the items it pushed in that trip as its
  /// next item (a continuation, which skips the queue). Counts the block's previous items as
  /// finished and its carried ones as new, claims items for the threads that carry none (at
  /// most that many, at most what exists; it waits for work only when no thread of the block
  /// carries an item), and returns how many items the block has in this trip, carried and
  /// claimed (0: the queue is quiescent or stopped; leave the loop). A thread that carries no
  /// item takes virtual index *first + *rank if *rank < *claimed.
  template <int BLOCK_THREADS>
  __device__ __forceinline__ uint32_t claim_block(uint32_t n_in, bool processed, bool carry, unsigned long long* first,
                                                  uint32_t* rank, uint32_t* claimed) const {
    __shared__ unsigned long long claimed_first;
    __shared__ uint32_t claimed_n;
    __shared__ bool leave;
    // Barriers too: the previous items' pushes are reserved and written.
    const int n_processed = __syncthreads_count(processed);
    const int n_carry = __syncthreads_count(carry);
    uint32_t r = threadIdx.x;
    if (n_carry != 0) {  // the same in every thread
      uint32_t needy = 0;
      r = block_exclusive_sum<BLOCK_THREADS, uint32_t>(carry ? 0u : 1u, needy);
    }
    if (threadIdx.x == 0) {
      // The same in every block; pushers read it (relaxed: a plain store would race).
      if (detail::load_volatile(&ctl->n_in) != n_in) detail::store_relaxed(&ctl->n_in, n_in);
      // Finished count, net of the carried items, which stay units of work: one atomic, so
      // that the two never appear apart (modulo 2^64; quiescence compares for equality).
      const long long net = static_cast<long long>(n_processed) - n_carry;
      if (net != 0) {
        __threadfence();
        atomicAdd(&ctl->finished, static_cast<unsigned long long>(net));
      }
      const unsigned long long room = static_cast<unsigned long long>(BLOCK_THREADS - n_carry);
      const unsigned long long deadline = detail::load_volatile(&ctl->deadline);
      const unsigned long long limit = detail::load_volatile(&ctl->claim_limit);
      unsigned int pause = 32;
      uint32_t n = 0;
      unsigned long long at = 0;
      bool yield = false;
      while (room != 0 && detail::load_volatile(&ctl->stop) == kAsyncRunning) {
        if (deadline != 0ull && global_ns() >= deadline) {  // a yield: claim nothing more
          yield = true;
          break;
        }
        const unsigned long long h = detail::load_volatile(&ctl->head);
        if (limit != 0ull && h >= limit) {  // a yield: the launch claimed what it may
          yield = true;
          break;
        }
        const unsigned long long total = n_in + detail::load_volatile(&ctl->tail);
        if (h < total) {
          unsigned long long want = total - h < room ? total - h : room;
          if (limit != 0ull && want > limit - h) want = limit - h;
          if (atomicCAS(&ctl->head, h, h + want) == h) {
            n = static_cast<uint32_t>(want);
            at = h;
            break;
          }
          continue;
        }
        if (n_carry != 0) break;  // the block has work of its own: do not wait
        // Nothing to claim: quiescent if everything that exists has finished.
        const unsigned long long f = detail::load_volatile(&ctl->finished);
        __threadfence();
        if (f == n_in + detail::load_volatile(&ctl->tail)) break;
        __nanosleep(pause);
        pause = pause < 1024 ? pause * 2 : pause;
      }
      // A yield leaves with the block's carried items, which its threads push first.
      leave = yield || detail::load_volatile(&ctl->stop) != kAsyncRunning || n + n_carry == 0;
      claimed_n = n;
      claimed_first = at;
    }
    __syncthreads();
    *first = claimed_first;
    *rank = r;
    *claimed = claimed_n;
    return leave ? 0u : claimed_n + static_cast<uint32_t>(n_carry);
  }

  /// The item at virtual index i (claimed by this thread): the input worklist's,
  /// or the queue's once its pusher wrote it (the slot is then emptied for the next
  /// lap). Returns false, with nothing taken, when the queue stopped meanwhile.
  /// (claim_block returns 0 at a yield with items carried: their threads push them, so
  /// that drain_into finds them among the unclaimed.)
  __device__ __forceinline__ bool take(const Worklist& in, uint32_t n_in, unsigned long long i, uint32_t* item) const {
    IRGL_QUEUE_DELAY(1);
    if (i < n_in) {
      *item = in.pop(static_cast<uint32_t>(i));
      return true;
    }
    const unsigned long long p = detail::load_volatile(&ctl->base) + (i - n_in);
    unsigned long long* slot = slots + (p % capacity);
    const uint32_t turn = static_cast<uint32_t>(2ull * (p / capacity));
    unsigned long long v;
    while (detail::turn_of(v = detail::load_acquire(slot)) != turn + 1u) {  // the pusher's writes, seen after
      if (detail::load_volatile(&ctl->stop) != kAsyncRunning) return false;
    }
    *item = static_cast<uint32_t>(v);
    detail::store_relaxed(slot, detail::slot_value(turn + 2u, kEmptySlot));  // the next lap's turn
    return true;
  }

  /// After the block's last claim: the last block of the grid to leave moves the
  /// ring's base past this launch's items and resets the counters for the next
  /// launch (`stop` stays for the host's report).
  __device__ __forceinline__ void leave_block() const {
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();  // this block's writes, before its exit
      if (atomicAdd(&ctl->exited, 1u) == gridDim.x - 1) {
        __threadfence();  // acquire: every block's writes before its exit
        const unsigned long long tail = ctl->tail;
        // What a yield left unclaimed (nothing when the queue went quiescent).
        ctl->left_first = ctl->head;
        ctl->left_end = ctl->n_in + tail;
        ctl->left_base = ctl->base;
        ctl->left_n_in = ctl->n_in;
        ctl->pushed = tail;
        ctl->base += tail;
        ctl->head = 0ull;
        ctl->tail = 0ull;
        ctl->finished = 0ull;
        ctl->exited = 0u;
        ctl->deadline = 0ull;
        ctl->claim_limit = 0ull;
        __threadfence();
      }
    }
  }

  // ---- after a launch that may have yielded (a control kernel's threads, after the grid
  // barrier that follows the launch: every block has left it)

  /// How many items the last launch left unclaimed.
  __device__ __forceinline__ unsigned long long left() const {
    return detail::load_volatile(&ctl->left_end) - detail::load_volatile(&ctl->left_first);
  }

  /// Every thread of the grid: writes the items the last launch left unclaimed, in order,
  /// to `out` from slot 0 (out must be empty, with room for left(): the queue's capacity
  /// is the lists'), and empties their ring slots for the next lap. The leader (the grid's
  /// first thread) sets out's count. Not after an overflow (a reserved slot may never have
  /// been written). A grid barrier must follow before out is read.
  __device__ __forceinline__ void drain_into(const Worklist& in, const Worklist& out) const {
    const unsigned long long first = detail::load_volatile(&ctl->left_first);
    const unsigned long long end = detail::load_volatile(&ctl->left_end);
    const unsigned long long base = detail::load_volatile(&ctl->left_base);
    const unsigned long long n_in = detail::load_volatile(&ctl->left_n_in);
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = first + blockIdx.x * blockDim.x + threadIdx.x; i < end; i += stride) {
      uint32_t item;
      if (i < n_in) {
        item = in.pop(static_cast<uint32_t>(i));
      } else {
        const unsigned long long p = base + (i - n_in);
        unsigned long long* slot = slots + (p % capacity);
        const uint32_t turn = static_cast<uint32_t>(2ull * (p / capacity));
        item = static_cast<uint32_t>(detail::load_relaxed(slot));  // full: its pusher wrote it before the barrier
        detail::store_relaxed(slot, detail::slot_value(turn + 2u, kEmptySlot));
      }
      out.write(0ull, static_cast<uint32_t>(i - first), item);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) out.ctl->count = end - first;
  }

  /// Counts node n's first pop since the last clear_seen (a thread that pops it). The
  /// threads of a warp that pop together add their count in one atomic: a round that reaches
  /// a million nodes would otherwise queue a million atomics on one word (5 ms measured).
  __device__ __forceinline__ void count_first(uint32_t n) const {
    if (nseen == 0u) return;  // a view that does not count (counting(false))
    const unsigned active = __activemask();
    const bool fresh = n < nseen && seen[n] == 0u;  // a stale cached 0 only counts a node twice
    if (fresh) seen[n] = 1u;
    const unsigned fresh_lanes = __ballot_sync(active, fresh);
    if (fresh_lanes != 0u && (threadIdx.x & 31u) == static_cast<unsigned>(__ffs(active) - 1)) {
      atomicAdd(&ctl->first_pops, static_cast<unsigned long long>(__popc(fresh_lanes)));
    }
  }
  /// This view, counting first pops only if `on`: the switch counts a round in rounds only
  /// while its items fit the grid's threads (a larger round is not measured).
  __device__ __forceinline__ AsyncQueue counting(bool on) const {
    AsyncQueue q = *this;
    if (!on) q.nseen = 0u;
    return q;
  }
  /// Every thread of the grid: forgets which nodes were popped and zeroes the count. A grid
  /// barrier must follow before the next pop.
  __device__ __forceinline__ void clear_seen() const {
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nseen; i += stride) seen[i] = 0u;
    if (blockIdx.x == 0 && threadIdx.x == 0) ctl->first_pops = 0ull;
  }
  __device__ __forceinline__ unsigned long long first_pops() const { return detail::load_volatile(&ctl->first_pops); }

 private:
  __device__ __forceinline__ void halt(unsigned int why, uint32_t item) const {
    if (atomicCAS(&ctl->stop, static_cast<unsigned int>(kAsyncRunning), why) == kAsyncRunning) {
      ctl->bad_item = item;
    }
  }
};

/// Host owner of an asynchronous queue: the ring (all empty) and its counters.
class HostAsyncQueue {
 public:
  HostAsyncQueue() = default;
  /// `nodes`: a byte per node for counting first pops (count_first; 0: none).
  explicit HostAsyncQueue(uint32_t capacity, uint32_t nodes = 0) : slots_(capacity), ctl_(1), seen_(nodes) {
    reset();
    IRGL_CHECK(cudaStreamSynchronize(0));
  }

  AsyncQueue view() const {
    AsyncQueue q;
    q.slots = const_cast<unsigned long long*>(slots_.data());
    q.ctl = const_cast<AsyncQueueCtl*>(ctl_.data());
    q.capacity = static_cast<uint32_t>(slots_.size());
    q.seen = const_cast<uint8_t*>(seen_.data());
    q.nseen = static_cast<uint32_t>(seen_.size());
    return q;
  }
  uint32_t capacity() const { return static_cast<uint32_t>(slots_.size()); }

  /// Empties every slot for lap 0 (turn 0) and zeroes the counters (for a new run;
  /// asynchronous).
  void reset(cudaStream_t stream = 0) {
    slots_.zero(stream);
    ctl_.zero(stream);
    seen_.zero(stream);
  }

  /// After a launch of asynchronous kernel `kernel`: reports an overflow or a
  /// pushed value that is not a node (one line) and exits 1. Synchronous.
  void check_overflow(const char* kernel) const {
    AsyncQueueCtl c;
    ctl_.download(&c, 1);
    if (c.stop == kAsyncOverflow) {
      fatal("%s (more than %" PRIu32 " items waiting in its asynchronous queue)",
            worklist_overflow_message(kernel, capacity(), c.pushed > capacity() ? c.pushed : capacity() + 1ull).c_str(),
            capacity());
    }
    if (c.stop == kAsyncBadItem) {
      fatal("kernel %s pushed %" PRIu32 ", which is not a node, to its asynchronous queue", kernel, c.bad_item);
    }
  }

 private:
  DeviceArray<unsigned long long> slots_;
  DeviceArray<AsyncQueueCtl> ctl_;
  DeviceArray<uint8_t> seen_;
};

}  // namespace irgl
