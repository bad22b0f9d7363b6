// irgl/switch.cuh -- the switch between rounds and asynchrony of an outlined loop.
//
// A worklist kernel that may run either way (irglc's `--async-switch on`: monotone, its
// rounds mergeable) is compiled twice, in rounds and asynchronous (irgl/queue.cuh), and the
// control kernel that repeats it keeps the switch's choice in registers, the same in every
// thread: the way, and for rounds how many the epoch has left. At the end of each epoch one
// thread (a grid barrier's last arrival) calls step(), which measures and chooses the next
// epoch's way; every thread reads it after the barrier. A round costs the switch nothing.
//
// The measure is the time per first pop: the device's clock over the nodes the launches
// popped for the first time since the control began (AsyncQueue::count_first). Both ways
// compute the same fixpoint; what differs is how much work each does per node it reaches
// (asynchrony redoes a node that a later, better value reaches again; rounds wait at a
// barrier for their slowest item) and how long each waits. A span of launches in one way is
// an epoch: as many rounds as the last epoch's round time fits in the epoch's time, or one
// asynchronous launch, which yields when its time is up (AsyncQueue's deadline) or once it
// has claimed as many items as the grid has threads, and leaves what it did not claim to the
// next launch. While the next round has more items than the grid has threads, rounds run:
// such a round's barrier costs little beside its work.
//
// A round in rounds counts its first pops only while its items fit the grid's threads: one
// that reaches a million nodes would pay for counting them, and needs no measure (rounds run
// anyway). It ends its epoch unmeasured, and a trial waits for a measured epoch.
//
// At each epoch's end the way with the lower cost in its last epoch wins; the other is tried
// again after 1, 2, 4, ... 64 epochs of the winner (so that a phase change is seen, and a way
// that keeps losing is tried ever more rarely), in an epoch a quarter as long. An epoch in
// which no node was popped for the first time (the last corrections of a label-correcting
// loop) has no cost to compare: rounds win such ties, as they do each round's corrections
// once where asynchrony may redo them. Epochs lengthen with the run (a sixteenth of it so
// far), so the switching costs a bounded share of long runs. Measured: docs/optimizations.md,
// *Switching as the program runs*.
//
// `forced` pins one way (the program's --async-switch rounds|async); the counts describe the
// run for its record.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "queue.cuh"

// The switch's steps: on the device in the control kernel, on the host in its test.
#define IRGL_SWITCH_FN __host__ __device__ __forceinline__

namespace irgl {

enum SwitchMode : uint32_t { kSwitchRounds = 0u, kSwitchAsync = 1u };
enum SwitchForce : uint32_t { kSwitchAuto = 0u, kSwitchForceRounds = 1u, kSwitchForceAsync = 2u };

/// The switch's state: set by the host before the control kernel, changed by its step(), read
/// back for the run's record. Lives in the control's state block.
struct AsyncSwitch {
  /// The cost of an epoch that reached no node for the first time.
  static constexpr double kNoProgress = 1e300;
  /// Rounds in the first epoch, before a round's time is known.
  static constexpr uint32_t kFirstRounds = 8;

  uint32_t forced = kSwitchAuto;  ///< SwitchForce
  uint32_t epoch_us = 20;         ///< the shortest epoch
  uint32_t mode = kSwitchRounds;  ///< the next launch's way
  uint32_t left = kFirstRounds;   ///< rounds in the next epoch (in rounds)
  uint32_t exploring = 0;         ///< the epoch under way tries the way that lost last
  uint32_t gap = 1;               ///< epochs of the winner before the loser is tried again
  uint32_t since = 0;             ///< epochs of the winner since the loser was last tried
  uint32_t epoch_rounds = kFirstRounds;  ///< rounds the epoch under way was given
  unsigned long long started = 0;      ///< the control's start (global_ns)
  unsigned long long epoch_start = 0;  ///< the epoch's start
  unsigned long long epoch_first = 0;  ///< first pops before the epoch
  double round_ns = 0.0;               ///< a round's time in the last epoch of rounds (0: none yet)
  double cost[2] = {-1.0, -1.0};       ///< ns per first pop in each way's last epoch (< 0: none since the frontier was small)
  // What the run did.
  unsigned long long rounds = 0;       ///< launches in rounds
  unsigned long long async_calls = 0;  ///< asynchronous launches
  unsigned long long yields = 0;       ///< of which left items unclaimed
  unsigned long long ns[2] = {0, 0};   ///< time in each way
  unsigned long long switches = 0;     ///< changes of way
  unsigned long long unswitched = 0;   ///< control launches in rounds only (add_unswitched)

  /// The host, before the control kernel.
  void init(uint32_t force, uint32_t epoch) {
    *this = AsyncSwitch{};
    forced = force;
    epoch_us = epoch == 0 ? 1u : epoch;
    mode = force == kSwitchForceAsync ? kSwitchAsync : kSwitchRounds;
  }

#ifdef __CUDACC__
  /// The way of the next launch, and the rounds of the next epoch: every thread reads them
  /// after the barrier whose action stepped (the control kernel keeps them in registers, and
  /// counts the rounds down itself, so that a round costs the switch no load).
  __device__ __forceinline__ uint32_t next() const { return *reinterpret_cast<const volatile uint32_t*>(&mode); }
  __device__ __forceinline__ uint32_t rounds_next() const { return *reinterpret_cast<const volatile uint32_t*>(&left); }

  /// One thread, before the first launch: the clock starts.
  IRGL_SWITCH_FN void start(unsigned long long now) {
    started = now;
    epoch_start = now;
    epoch_first = 0;
  }

  /// One thread, at the end of an epoch (a grid barrier's last arrival after the launch that
  /// ended it: every block is done with it): `first` nodes popped for the first time so far,
  /// `yielded` whether the launch (an asynchronous one) left items unclaimed, `next_items` the
  /// items the next launch pops, `grid_threads` the control kernel's threads, `measured`
  /// whether the epoch counted its first pops (an epoch of rounds ends unmeasured at a round
  /// with more items than the grid has threads: such rounds are not counted), and
  /// `rounds_left` the epoch's rounds not run (in rounds: one that ends unmeasured ends early,
  /// and its rounds and round time are those it ran). Chooses the next launch's way; for an
  /// asynchronous one sets the queue's deadline and claim limit. Also callable on the host
  /// (runtime-cuda/tests/test_switch.cu).
  IRGL_SWITCH_FN void step(unsigned long long now, unsigned long long first, bool yielded,
                           unsigned long long next_items, unsigned long long grid_threads, AsyncQueueCtl* queue,
                           bool measured, uint32_t rounds_left) {
    const uint32_t was = mode;
    const unsigned long long elapsed = now - epoch_start;
    if (was == kSwitchRounds) {
      const uint32_t ran = epoch_rounds > rounds_left ? epoch_rounds - rounds_left : 1u;
      rounds += ran;
      round_ns = static_cast<double>(elapsed) / static_cast<double>(ran);
    } else {
      ++async_calls;
      yields += yielded ? 1u : 0u;
    }
    ns[was] += elapsed;
    const unsigned long long gained = first - epoch_first;
    // Unmeasured: no cost known. No node reached for the first time: no progress to measure,
    // and rounds win the tie.
    cost[was] = !measured    ? -1.0
                : gained == 0 ? kNoProgress
                              : static_cast<double>(elapsed) / static_cast<double>(gained);
    epoch_start = now;
    epoch_first = first;
    const unsigned long long base = static_cast<unsigned long long>(epoch_us) * 1000ull;
    const unsigned long long run = now - started;
    const unsigned long long full = base > run / 16 ? base : run / 16;
    const unsigned long long trial = base > run / 64 ? base : run / 64;
    uint32_t want = was;
    const uint32_t other = was ^ 1u;
    if (forced != kSwitchAuto) {
      want = forced == kSwitchForceAsync ? kSwitchAsync : kSwitchRounds;
    } else if (next_items > grid_threads) {
      // A round fills the grid: its barrier costs little beside its work, and asynchrony would
      // only add its queue's costs. Rounds, and asynchrony untried until the frontier shrinks.
      want = kSwitchRounds;
      exploring = 0;
      cost[kSwitchAsync] = -1.0;
    } else if (exploring) {
      // The trial of the way that lost last: it stays if it is cheaper now.
      exploring = 0;
      since = 0;
      if (cost[was] < cost[other] || (cost[was] == cost[other] && was == kSwitchRounds)) {
        gap = 1;
      } else {
        want = other;
        gap = gap < 64 ? gap * 2 : gap;
      }
    } else if (cost[was] >= 0.0 && (cost[other] < 0.0 || cost[was] > cost[other] || ++since >= gap)) {
      // Never tried, cheaper when last measured, or not tried for a while: try it, once this
      // way's cost is known to compare the trial with.
      want = other;
      exploring = 1;
      since = 0;
    }
    if (want != was) ++switches;
    mode = want;
    const unsigned long long length = exploring ? trial : full;
    if (want == kSwitchAsync) {
      // Pinned to asynchrony, a launch runs until the queue is quiescent; else it yields when
      // its time is up or once it has claimed a grid's worth of items (a trial on a frontier
      // that grew must not run a whole round's worth of work through the queue).
      queue->deadline = forced == kSwitchAuto ? now + length : 0ull;
      queue->claim_limit = forced == kSwitchAuto ? grid_threads : 0ull;
    } else {
      const double r = round_ns > 0.0 ? static_cast<double>(length) / round_ns : kFirstRounds;
      epoch_rounds = r < 1.0 ? 1u : r > 1048576.0 ? 1048576u : static_cast<uint32_t>(r);
      left = epoch_rounds;
    }
  }

  /// One thread, when the control ends: the epoch under way, `rounds_left` of its rounds not
  /// run, counted in the record.
  IRGL_SWITCH_FN void finish(unsigned long long now, uint32_t rounds_left) {
    if (mode == kSwitchRounds && epoch_rounds >= rounds_left) rounds += epoch_rounds - rounds_left;
    ns[mode] += now - epoch_start;
  }
#endif

  /// Adds what another control kernel's switch did (a run may launch the loop several times).
  void add(const AsyncSwitch& o) {
    forced = o.forced;
    rounds += o.rounds;
    async_calls += o.async_calls;
    yields += o.yields;
    ns[0] += o.ns[0];
    ns[1] += o.ns[1];
    switches += o.switches;
    unswitched += o.unswitched;
  }

  /// A control launched in rounds only, without the switch: on a grid chosen by the graph,
  /// the graph's rounds are large (its mean degree at or above the grid's threshold).
  void add_unswitched() { ++unswitched; }

  /// For the run's record: how the launches ran.
  std::string report(double run_ms) const {
    char text[256];
    if (unswitched != 0 && rounds + async_calls == 0) {
      return "rounds: large rounds on this graph (mean degree at or above the grid's threshold), the switch not launched";
    }
    const char* how = forced == kSwitchForceRounds ? "rounds (--async-switch)"
                      : forced == kSwitchForceAsync ? "asynchronous (--async-switch)"
                                                    : "auto";
    std::snprintf(text, sizeof text,
                  "%s: %llu rounds, %llu asynchronous launches (%llu yielded), %.3f of %.3f ms asynchronous, %llu switches",
                  how, rounds, async_calls, yields, static_cast<double>(ns[kSwitchAsync]) / 1e6, run_ms, switches);
    return text;
  }
};

}  // namespace irgl
