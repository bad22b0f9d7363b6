// irgl/grid_items.cuh -- items of a nested ForAll handed to the whole grid (the `gd` policy).
//
// A block-scheduled loop runs each item inside the block of its owner thread: a hub of a
// million edges keeps one block busy for a million iterations while the rest of the grid
// has finished. Under `gd`, an item of at least `grid_threshold` iterations is published
// instead, and after its last trip every block of the launch takes chunks of the published
// items until none is left; then the table is emptied for the next launch. Only
// a loop that ends its item and reduces nothing may do so (the compiler checks): nothing of
// the item waits for the iterations. For each such loop the generated code declares one
// `GridItems` table and, per value the iterations read (the first iteration, the closure),
// one array of kGridItems elements indexed by the same slot; the file declares the
// threshold `irgl_grid_min` (grid_min_trips, 0: off for the graph loaded), uniform over every
// launch:
//
//   owner thread:  slot = irgl::grid_publish(t, trips);      // kGridItems when full
//                  if (slot < kGridItems) { begin[slot] = ...; irgl::grid_ready(t, slot); }
//                  else { ... the block's next scheduler takes the item ... }
//   every block, after its last trip (uniform code), when irgl_grid_min != 0:
//                  thread 0: irgl::grid_claim<CHUNK>(t, slot, first)   // slot kGridItems: none left
//                            and, on a launch with fewer items than blocks, when none is left:
//                            irgl::grid_wait_for_owners<CHUNK>(t, slot, first, arrived)
//                  ... the block runs iterations [first, min(first + CHUNK, trips)) of slot ...
//   a kernel launched from the host, every block once done with the table, thread 0:
//                  irgl::grid_leave(t)   // the last block out resets the table
//   a control kernel, in the grid barrier after the call, its last arrival:
//                  irgl::grid_reset(t)
//
// The arrays are read with irgl::load_coherent (past L1: a control kernel reuses the slots
// in its next call, and another multiprocessor wrote them).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "graph.cuh"

namespace irgl {

/// Items one loop can hand to the grid per launch; an owner that finds the table full keeps
/// its item in the block.
constexpr uint32_t kGridItems = 1024;

struct GridItems {
  uint32_t count;                    // slots taken; may pass kGridItems (those were refused)
  uint32_t left;                     // blocks that have finished taking chunks
  uint32_t arrived;                  // blocks done with their own trips (grid_wait_for_owners)
  uint32_t trips[kGridItems];        // each published item's trip count
  uint32_t ready[kGridItems];        // 1 once the slot's values are written
  unsigned long long claimed[kGridItems];  // iterations handed out so far
};

/// The smallest trip count a launch on `g` hands to the grid, for `irgl_grid_min` (set once
/// when the program loads its graph): more than a block's even share of the graph's edges
/// over the blocks the GPU keeps resident (`sms` multiprocessors of 2048 threads), and at
/// least 16 x `block` (four chunks), so that only an item that would keep one block busy
/// after the others are done leaves it. 0 (gd off: no publishing, no taking) when no node
/// has that many edges: a graph without hubs pays nothing for the policy.
inline uint32_t grid_min_trips(const HostGraph& g, uint32_t block, uint32_t sms) {
  const uint64_t resident = static_cast<uint64_t>(sms) * (2048u / block);
  const uint64_t share = g.nedges / (resident == 0 ? 1 : resident);
  const uint64_t floor = 16ull * block;
  const uint64_t t = share > floor ? share : floor;
  uint64_t widest = 0;
  for (uint64_t n = 0; n < g.nnodes; ++n) widest = std::max<uint64_t>(widest, g.row_start[n + 1] - g.row_start[n]);
  return widest < t || t > 0xffffffffull ? 0u : static_cast<uint32_t>(t);
}

/// The program's `--grid-min` flag: `auto` (grid_min_trips), `off` (0) or a trip count of at
/// least 1. False, with `error` set, for anything else.
inline bool grid_min_flag(const std::string& arg, const HostGraph& g, uint32_t block, uint32_t sms,
                          uint32_t& out, std::string& error) {
  if (arg == "auto") {
    out = grid_min_trips(g, block, sms);
    return true;
  }
  if (arg == "off") {
    out = 0;
    return true;
  }
  char* end = nullptr;
  const unsigned long long v = std::strtoull(arg.c_str(), &end, 10);
  if (arg.empty() || *end != '\0' || v == 0 || v > 0xffffffffull) {
    error = "--grid-min " + arg + ": auto, off or a trip count from 1 to 4294967295";
    return false;
  }
  out = static_cast<uint32_t>(v);
  return true;
}

/// Takes a slot for an item of `trips` iterations (any thread); kGridItems when the table is
/// full. The caller writes the slot's values, then calls grid_ready.
__device__ __forceinline__ uint32_t grid_publish(GridItems& t, uint32_t trips) {
  const uint32_t slot = atomicAdd(&t.count, 1u);
  if (slot >= kGridItems) return kGridItems;
  t.trips[slot] = trips;
  return slot;
}

/// Makes the slot's values visible to every block, then the slot claimable.
__device__ __forceinline__ void grid_ready(GridItems& t, uint32_t slot) {
  __threadfence();
  atomicExch(&t.ready[slot], 1u);
}

/// One thread of a block: the next `CHUNK` iterations of some published item not yet handed
/// out, as its slot and first iteration; slot = kGridItems when none is left.
template <uint32_t CHUNK>
__device__ __forceinline__ void grid_claim(GridItems& t, uint32_t& slot, uint32_t& first) {
  const uint32_t published = *reinterpret_cast<volatile uint32_t*>(&t.count);
  const uint32_t n = published < kGridItems ? published : kGridItems;
  for (uint32_t s = 0; s < n; ++s) {
    if (*reinterpret_cast<volatile uint32_t*>(&t.ready[s]) == 0u) continue;  // its owner takes it
    const uint32_t trips = *reinterpret_cast<volatile uint32_t*>(&t.trips[s]);
    if (*reinterpret_cast<volatile unsigned long long*>(&t.claimed[s]) >= trips) continue;
    const unsigned long long k = atomicAdd(&t.claimed[s], static_cast<unsigned long long>(CHUNK));
    if (k < trips) {
      __threadfence();  // the slot's values, written before it was ready
      slot = s;
      first = static_cast<uint32_t>(k);
      return;
    }
  }
  slot = kGridItems;
  first = 0;
}

/// One thread of a block whose own trips are done, after grid_claim found nothing: waits
/// until every block of the launch is done with its trips, taking a chunk as soon as one is
/// published (slot < kGridItems on return), before it gives up (slot kGridItems: none left
/// and none to come). An owner publishes its item only when its trip reaches the loop, and
/// on a small frontier the blocks without items of their own reach their help loop first,
/// find the table empty and would leave the item to its owner's block alone (measured on a
/// star of degree 1 M, a hub alone in the first round: 0.17 to 7 ms run by run,
/// docs/optimizations.md, *An owner that publishes late*). `arrived` (0 at first, the block's
/// own, in shared memory) says whether this block counted itself done. It does nothing unless
/// every block of the grid runs at once (a cooperative launch: a control kernel's); the
/// generated code calls it only where the launch has fewer items than the grid has blocks,
/// so that some block has none. Not inlined: the help loop's code stays what ptxas allocated
/// registers for before (a few more inlined lines moved kcore's control kernel by 1.5x).
template <uint32_t CHUNK>
__device__ __noinline__ void grid_wait_for_owners(GridItems& t, uint32_t& slot, uint32_t& first, uint32_t& arrived) {
  if (!cooperative_groups::this_grid().is_valid()) return;
  if (arrived == 0u) {
    arrived = 1u;
    __threadfence();  // what this block published, before its arrival
    atomicAdd(&t.arrived, 1u);
  }
  unsigned int pause = 32;
  for (;;) {
    const uint32_t done = *reinterpret_cast<volatile uint32_t*>(&t.arrived);
    __threadfence();  // every publish before those arrivals, seen by the claim below
    grid_claim<CHUNK>(t, slot, first);
    if (slot != kGridItems || done >= gridDim.x) return;
    __nanosleep(pause);
    pause = pause < 1024 ? pause * 2 : pause;
  }
}

/// One thread, once every block of the launch is done with the table: empties it for the
/// next launch (the slots published, the count, the blocks counted out).
__device__ __forceinline__ void grid_reset(GridItems& t) {
  const uint32_t published = *reinterpret_cast<volatile uint32_t*>(&t.count);
  const uint32_t n = published < kGridItems ? published : kGridItems;
  for (uint32_t s = 0; s < n; ++s) {
    t.ready[s] = 0u;
    t.claimed[s] = 0ull;
  }
  t.count = 0u;
  t.left = 0u;
  t.arrived = 0u;
}

/// One thread of each block of a kernel launched from the host, after the block took its
/// last chunk: the last block of the launch resets the table (every published item was
/// handed out, and every block is done). A control kernel resets its tables in the grid
/// barrier after the call instead (the last arrival runs grid_reset): one atomic on one
/// word per block is what a grid barrier costs, about 1.7 us a call on an H200.
__device__ __forceinline__ void grid_leave(GridItems& t) {
  __threadfence();
  if (atomicAdd(&t.left, 1u) != gridDim.x - 1u) return;
  grid_reset(t);
  __threadfence();
}

}  // namespace irgl
