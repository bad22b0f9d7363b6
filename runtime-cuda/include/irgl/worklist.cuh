// irgl/worklist.cuh -- worklists of u32 items, with cooperative pushes.
//
// Device view: irgl::Worklist (trivially copyable; pass it by value to kernels).
//   items[capacity]  the items
//   ctl->count       u64 number of slots reserved so far (may exceed capacity)
//   ctl->overflow    set to 1 when some push/write fell beyond capacity
//
// OVERFLOW POLICY. Every reservation takes slots from `count` with atomicAdd.
// A slot >= capacity is never written: the write is dropped and the overflow
// flag is set. `count` keeps counting past capacity, so after the kernel the
// host knows how many items were pushed at least (pushes of later kernels in
// the same run are lost too), and reports
//   error: worklist overflow in kernel K: capacity C items, at least M pushed;
//          rerun with --wl-capacity <bigger>
// (one line) and exits 1 through WorklistSet/HostWorklist::check_overflow.
// There is never an out-of-bounds write. size() is min(count, capacity).
//
// Pushes, as used by the compiler's cooperative conversion:
//   wl.push(item)                    one atomic per item
//   start = wl.reserve_thread(n)     one atomic for n items of this thread
//   start = wl.reserve_warp(n)       one atomic per warp: the *active* lanes
//                                    (__activemask), each with its own n
//   start = wl.reserve_warp_one()    reserve_warp(1u), aggregated by nvcc
//   start = wl.reserve_block<B>(n)   one atomic per block; ALL threads of the
//                                    1-D block of B threads must call it
//   start = wl.reserve_block_one<B>(flag)   reserve_block(flag ? 1 : 0), by
//                                    ballots; no atomic when no flag is set
//   wl.write(start, taskid, item)    the do_push: stores at start + taskid,
//                                    for taskid in [0, n), no atomics
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "array.cuh"
#include "block.cuh"
#include "check.cuh"
#include "warp.cuh"

namespace irgl {

/// Index of a worklist slot; 64-bit so that the count can run past capacity
/// without wrapping.
using wl_index_t = unsigned long long;

/// Device-side control block of a worklist.
struct WorklistCtl {
  unsigned long long count;  ///< slots reserved so far (may exceed capacity)
  unsigned int overflow;     ///< 1 once a write fell beyond capacity
  unsigned int pad;
};

/// Device view of a worklist. Cheap to copy; does not own memory.
struct Worklist {
  uint32_t* items = nullptr;
  WorklistCtl* ctl = nullptr;
  uint32_t capacity = 0;

  /// Number of valid items: min(count, capacity). Meant for a worklist that no
  /// thread pushes to during the kernel (the input worklist), or, in a control
  /// kernel, one that nothing pushes to since the last grid barrier: a plain
  /// load, which the compiler may share between the reads of one interval.
  __device__ __forceinline__ uint32_t size() const {
    const unsigned long long c = ctl->count;
    return c < capacity ? static_cast<uint32_t>(c) : capacity;
  }
  /// The item at `index`. Precondition: index < size().
  __device__ __forceinline__ uint32_t pop(uint32_t index) const { return items[index]; }

  /// Stores `item` at slot start + taskid, or sets the overflow flag (and
  /// stores nothing) when that slot is >= capacity. Returns whether it stored.
  __device__ __forceinline__ bool write(wl_index_t start, uint32_t taskid, uint32_t item) const {
    const wl_index_t slot = start + taskid;
    if (slot < capacity) {
      items[slot] = item;
      return true;
    }
    ctl->overflow = 1u;
    return false;
  }

  /// Pushes one item with one atomic. Returns false on overflow.
  __device__ __forceinline__ bool push(uint32_t item) const {
    return write(atomicAdd(&ctl->count, 1ull), 0, item);
  }

  /// Reserves n consecutive slots for this thread with one atomic (none when
  /// n == 0) and returns the first; write(start, i, item) for i in [0, n).
  __device__ __forceinline__ wl_index_t reserve_thread(uint32_t n) const {
    return n != 0 ? atomicAdd(&ctl->count, static_cast<unsigned long long>(n)) : 0ull;
  }

  /// Reserves n slots for each active lane with one atomic per warp. Lanes may
  /// pass different n (0 too). Call it from any (divergent) code: the lanes
  /// that are converged here (__activemask()) aggregate together.
  /// Returns this lane's first slot; write(start, i, item) for i in [0, n).
  __device__ __forceinline__ wl_index_t reserve_warp(uint32_t n) const {
    const unsigned mask = __activemask();
    return warp_atomic_add(mask, &ctl->count, n);
  }

  /// reserve_warp(1u): one slot for each active lane, one atomic per warp. Written as the
  /// plain atomic, which nvcc (sm_70 and later) aggregates over the lanes that run it, the
  /// address being the same in all: a vote, one atomic by the lowest lane, a shuffle of the
  /// base, each lane's rank by a popcount. That is warp_atomic_add's reservation without
  /// its synchronizing shuffle, whose divergence check costs in divergent loops (bfs with
  /// serial nested loops 1.2x slower with it on an H100; docs/optimizations.md).
  __device__ __forceinline__ wl_index_t reserve_warp_one() const {
    return atomicAdd(&ctl->count, 1ull);
  }

  /// Like reserve_warp, but with an explicit mask. Precondition: exactly the
  /// lanes of `mask` call it together.
  __device__ __forceinline__ wl_index_t reserve_warp(unsigned mask, uint32_t n) const {
    return warp_atomic_add(mask, &ctl->count, n);
  }

  /// Reserves n slots for each thread of the block with one atomic per block.
  /// PRECONDITION: the block is 1-D with BLOCK_THREADS threads and ALL its
  /// threads call this from non-divergent code (it contains __syncthreads()).
  template <int BLOCK_THREADS>
  __device__ __forceinline__ wl_index_t reserve_block(uint32_t n) const {
    return block_atomic_add<BLOCK_THREADS>(&ctl->count, n);
  }

  /// reserve_block(flag ? 1 : 0), cheaper (block_atomic_add_one): the block's
  /// pushes of one trip, each thread's valid flag. Same precondition.
  template <int BLOCK_THREADS>
  __device__ __forceinline__ wl_index_t reserve_block_one(bool flag) const {
    return block_atomic_add_one<BLOCK_THREADS>(&ctl->count, flag);
  }

  /// Whether some push or write of this run overflowed. For a control kernel,
  /// after the grid barrier that follows the pushes (plain loads, as size()).
  __device__ __forceinline__ bool overflowed() const {
    const unsigned int flag = ctl->overflow;
    const unsigned long long c = ctl->count;
    return (flag != 0u) | (c > capacity);
  }

  /// Empties the worklist from the device (for outlined iteration loops).
  /// Precondition: one thread calls it, nothing pushes to or pops from this
  /// worklist concurrently, and a grid barrier follows before any other use.
  /// The overflow flag is kept so that the host can still report it.
  __device__ __forceinline__ void reset() const { ctl->count = 0ull; }

  /// Empties the worklist and clears its overflow flag from the device, as the
  /// host's clear() does (for outlined iteration loops, which stop at the first
  /// overflow). Precondition: one thread calls it, nothing pushes to or pops from
  /// this worklist concurrently, and a grid barrier follows before any other use.
  __device__ __forceinline__ void clear_device() const {
    ctl->count = 0ull;
    ctl->overflow = 0u;
  }
};

/// "error: worklist overflow in kernel K: capacity C items, at least M pushed; rerun with --wl-capacity <bigger>"
/// without the "error: " prefix.
inline std::string worklist_overflow_message(const char* kernel, uint64_t capacity, uint64_t pushed) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "worklist overflow in kernel %s: capacity %" PRIu64 " items, at least %" PRIu64
                " pushed; rerun with --wl-capacity <bigger>",
                kernel, capacity, pushed);
  return buf;
}

namespace detail {
/// items[i] = i for i < n (a template, so that every program may hold one).
template <class T>
__global__ void iota_kernel(T* items, T n) {
  for (T i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) items[i] = i;
}
}  // namespace detail

/// Host owner of one worklist: the item buffer and its control block.
class HostWorklist {
 public:
  HostWorklist() = default;
  /// Allocates a worklist for `capacity` items, empty.
  explicit HostWorklist(uint32_t capacity) : items_(capacity), ctl_(1) { clear(); IRGL_CHECK(cudaStreamSynchronize(0)); }

  /// The device view.
  Worklist view() const {
    Worklist w;
    w.items = const_cast<uint32_t*>(items_.data());
    w.ctl = const_cast<WorklistCtl*>(ctl_.data());
    w.capacity = capacity();
    return w;
  }
  uint32_t capacity() const { return static_cast<uint32_t>(items_.size()); }

  /// Empties it and clears its overflow flag (asynchronous on `stream`).
  void clear(cudaStream_t stream = 0) { ctl_.zero(stream); }

  /// Downloads the control block (count and overflow flag). Synchronous.
  WorklistCtl control() const {
    WorklistCtl c;
    ctl_.download(&c, 1);
    return c;
  }
  /// Number of valid items, min(count, capacity) (one small download).
  uint32_t size() const {
    const WorklistCtl c = control();
    return c.count < capacity() ? static_cast<uint32_t>(c.count) : capacity();
  }
  /// Whether a push overflowed; *pushed (if given) receives the count.
  bool overflowed(uint64_t* pushed = nullptr) const {
    const WorklistCtl c = control();
    if (pushed != nullptr) *pushed = c.count;
    return c.overflow != 0u || c.count > capacity();
  }
  /// Reports an overflow as a one-line error naming `kernel` and exits 1.
  void check_overflow(const char* kernel) const {
    uint64_t pushed = 0;
    if (overflowed(&pushed)) fatal("%s", worklist_overflow_message(kernel, capacity(), pushed).c_str());
  }

  /// Replaces the contents with n host items (n <= capacity, else fatal).
  void assign(const uint32_t* host, uint32_t n) {
    if (n > capacity()) {
      fatal("%s", worklist_overflow_message("<initial>", capacity(), n).c_str());
    }
    items_.upload(host, n);
    WorklistCtl c{n, 0u, 0u};
    ctl_.upload(&c, 1);
  }
  void assign(const std::vector<uint32_t>& host) { assign(host.data(), static_cast<uint32_t>(host.size())); }
  /// Replaces the contents with the items 0, 1, ..., n - 1, written on the device (n <=
  /// capacity, else fatal).
  void assign_range(uint32_t n) {
    if (n > capacity()) {
      fatal("%s", worklist_overflow_message("<initial>", capacity(), n).c_str());
    }
    if (n != 0) {
      const uint32_t blocks = (n + 255) / 256 < 65535u ? (n + 255) / 256 : 65535u;
      detail::iota_kernel<uint32_t><<<blocks, 256>>>(items_.data(), n);
      IRGL_CHECK_LAUNCH("irgl::detail::iota_kernel");
    }
    WorklistCtl c{n, 0u, 0u};
    ctl_.upload(&c, 1);
  }
  /// Downloads the valid items.
  std::vector<uint32_t> to_host() const {
    std::vector<uint32_t> v(size());
    items_.download(v.data(), v.size());
    return v;
  }

  void swap(HostWorklist& o) noexcept {
    std::swap(items_, o.items_);
    std::swap(ctl_, o.ctl_);
  }

 private:
  DeviceArray<uint32_t> items_;
  DeviceArray<WorklistCtl> ctl_;
};

// RETRY BACKOFF. A kernel compiled with --retry-backoff takes `chunk`, the
// number of consecutive input items each thread processes at a time (1 in its
// launches without backoff: strided, one item a thread). Its launches with
// backoff (its retry rounds) pass backoff_chunk(size, C, S, threads): every
// item to one thread below S items; else C items, or with kChunkAuto one run
// per thread of the resident grid (a blocked distribution: as many items as
// each thread has, so no fewer threads than without backoff).

/// `chunk` of backoff_chunk: a blocked distribution over the grid's threads.
constexpr uint32_t kChunkAuto = 0u;

/// The items a thread takes at a time in a launch with backoff of `items` items on a grid
/// of `threads` threads (at most): see RETRY BACKOFF above. At least 1.
__host__ __device__ __forceinline__ uint32_t backoff_chunk(uint32_t items, uint32_t chunk,
                                                           uint32_t serial_below,
                                                           uint64_t threads) {
  if (items < serial_below) return items > 0u ? items : 1u;
  if (chunk != kChunkAuto) return chunk;
  if (threads == 0u || items <= threads) return 1u;
  return static_cast<uint32_t>((items + threads - 1u) / threads);
}

/// The number of chunks of `chunk` (> 0) items that cover `items` items.
template <class T>
__host__ __device__ __forceinline__ T chunks_of(T items, uint32_t chunk) {
  return items / chunk + (items % chunk != 0u ? 1u : 0u);
}

/// The capacity of each worklist of a program whose user set none (`requested` 0): `bound`
/// items, what a round can push by the program's shape, where that fits; else what fits
/// the device memory free now, less a reserve (a sixteenth of the device's memory, at least
/// 256 MiB) for what is allocated later, at `bytes_per_item` bytes an item over all lists
/// and the task queue, with a note on stderr (a round that pushes more stops with the
/// overflow error, which names --wl-capacity). A requested capacity is kept as it is. At
/// most 2^32 - 1 (items are counted in u32).
inline uint32_t worklist_capacity(uint64_t requested, uint64_t bound, uint64_t bytes_per_item) {
  const uint64_t most = 0xffffffffull;
  if (requested != 0) return static_cast<uint32_t>(requested < most ? requested : most);
  uint64_t items = bound < most ? bound : most;
  size_t free_bytes = 0, total_bytes = 0;
  if (bytes_per_item == 0 || cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return static_cast<uint32_t>(items);
  const uint64_t reserve = total_bytes / 16 > (256ull << 20) ? total_bytes / 16 : (256ull << 20);
  const uint64_t room = free_bytes > reserve ? (free_bytes - reserve) / bytes_per_item : 0;
  if (items > room) {
    const uint64_t fits = room > 1024 ? room : 1024;
    std::fprintf(stderr,
                 "note: worklists of %" PRIu64 " items each (of the %" PRIu64
                 " a round may push at most: %.1f GiB, with %.1f GiB of the GPU free); a round "
                 "that pushes more stops with an overflow error\n",
                 fits, items, static_cast<double>(items * bytes_per_item) / (1ull << 30),
                 static_cast<double>(free_bytes) / (1ull << 30));
    items = fits;
  }
  return static_cast<uint32_t>(items);
}

/// The worklists of one Iterate/Pipe: `in` (popped), `out` (pushed) and
/// `retry` (Retry/Respawn items), all of the same capacity; `retry` holds none
/// in a program that never retries.
class WorklistSet {
 public:
  explicit WorklistSet(uint32_t capacity, bool retry = true)
      : in_(capacity), out_(capacity), retry_(retry ? capacity : 0u) {}

  HostWorklist& in() { return in_; }
  HostWorklist& out() { return out_; }
  HostWorklist& retry() { return retry_; }
  uint32_t capacity() const { return in_.capacity(); }

  /// Makes `out` the new `in` and empties the new `out` (asynchronously on `stream`).
  void swap(cudaStream_t stream = 0) {
    in_.swap(out_);
    out_.clear(stream);
  }
  /// Makes `retry` the new `in` and empties the new `retry`.
  void swap_retry(cudaStream_t stream = 0) {
    in_.swap(retry_);
    retry_.clear(stream);
  }
  /// Empties all three.
  void clear(cudaStream_t stream = 0) {
    in_.clear(stream);
    out_.clear(stream);
    retry_.clear(stream);
  }
  /// After kernel `kernel` ran: if `out` or `retry` overflowed, prints the
  /// one-line overflow error and exits 1. Synchronizes with the device.
  void check_overflow(const char* kernel) const {
    out_.check_overflow(kernel);
    retry_.check_overflow(kernel);
  }
  /// The same over all three lists: after an outlined loop (a control kernel),
  /// which stops at the first overflow wherever the worklists were swapped.
  void check_overflow_any(const char* kernel) const {
    in_.check_overflow(kernel);
    out_.check_overflow(kernel);
    retry_.check_overflow(kernel);
  }

  /// After a control kernel swapped the worklists on the device: role r (0 in,
  /// 1 out, 2 retry) is now played by the list that had role from[r] when the
  /// kernel started. Precondition: `from` is a permutation of {0, 1, 2}.
  void permute(const uint32_t from[3]) {
    HostWorklist* lists[3] = {&in_, &out_, &retry_};
    uint32_t holds[3] = {0, 1, 2};  // the starting role of the list now at each role
    for (uint32_t r = 0; r < 3; ++r) {
      uint32_t j = r;
      while (j < 3 && holds[j] != from[r]) ++j;
      if (j == 3) fatal("internal error: worklist permutation {%u, %u, %u}", from[0], from[1], from[2]);
      if (j != r) {
        lists[r]->swap(*lists[j]);
        std::swap(holds[r], holds[j]);
      }
    }
  }

 private:
  HostWorklist in_, out_, retry_;
};

}  // namespace irgl
