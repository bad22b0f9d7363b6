// The switch between rounds and asynchrony (irgl/switch.cuh), stepped on the host with the
// values a control kernel would pass: the rounds an epoch ran and their time, the way each
// measure chooses, trials and their lengths, pinned ways, and the run's record.
// irgl-test: host-only
#include <irgl/runtime.cuh>
#include <irgl/switch.cuh>

#include <string>

#include "test_util.cuh"

using irgl::AsyncQueueCtl;
using irgl::AsyncSwitch;

namespace {

constexpr unsigned long long kGrid = 1000;  // the control kernel's threads
constexpr unsigned long long kEpochNs = 20000;  // --switch-epoch 20

AsyncSwitch started(uint32_t force = irgl::kSwitchAuto) {
  AsyncSwitch sw;
  sw.init(force, 20);
  sw.start(0);
  return sw;
}

/// A round with more items than the grid's threads ends its epoch unmeasured after one round
/// of the eight it was given: the epoch counts one round, and a round's time is that round's.
TEST(unmeasured_round_ends_its_epoch_with_the_rounds_it_ran) {
  AsyncSwitch sw = started();
  AsyncQueueCtl q{};
  EXPECT_EQ(sw.left, AsyncSwitch::kFirstRounds);
  sw.step(1000, 0, false, 100000, kGrid, &q, false, AsyncSwitch::kFirstRounds - 1u);
  EXPECT_EQ(sw.rounds, 1ull);
  EXPECT(sw.round_ns == 1000.0);
  EXPECT_EQ(sw.mode, static_cast<uint32_t>(irgl::kSwitchRounds));
  // The next epoch: as many rounds of 1 us as the 20 us epoch fits.
  EXPECT_EQ(sw.epoch_rounds, 20u);
  EXPECT_EQ(sw.left, 20u);
  EXPECT(sw.cost[irgl::kSwitchRounds] < 0.0);  // unmeasured
  // Three more large rounds, each its own unmeasured epoch.
  for (int i = 0; i < 3; ++i) sw.step(2000 + 1000ull * i, 0, false, 100000, kGrid, &q, false, 19u);
  EXPECT_EQ(sw.rounds, 4ull);
  EXPECT_EQ(sw.switches, 0ull);
}

/// A measured epoch of rounds is compared with asynchrony, never tried: a trial follows, a
/// quarter-length epoch that yields at its deadline or after a grid's worth of claims.
TEST(a_measured_epoch_of_rounds_tries_asynchrony) {
  AsyncSwitch sw = started();
  AsyncQueueCtl q{};
  sw.step(8000, 80, false, 10, kGrid, &q, true, 0u);
  EXPECT_EQ(sw.rounds, 8ull);
  EXPECT(sw.round_ns == 1000.0);
  EXPECT(sw.cost[irgl::kSwitchRounds] == 100.0);  // 8 us over 80 first pops
  EXPECT_EQ(sw.mode, static_cast<uint32_t>(irgl::kSwitchAsync));
  EXPECT_EQ(sw.exploring, 1u);
  EXPECT_EQ(sw.switches, 1ull);
  EXPECT_EQ(q.deadline, 8000ull + kEpochNs);
  EXPECT_EQ(q.claim_limit, kGrid);
}

/// The trial's cost decides: cheaper asynchrony stays, dearer goes back to rounds and is tried
/// again after twice as many epochs.
TEST(the_cheaper_way_stays_and_the_loser_is_tried_ever_more_rarely) {
  {
    AsyncSwitch sw = started();
    AsyncQueueCtl q{};
    sw.step(8000, 80, false, 10, kGrid, &q, true, 0u);
    sw.step(18000, 280, false, 10, kGrid, &q, true, 0u);  // 10 us over 200: 50 ns a pop
    EXPECT_EQ(sw.async_calls, 1ull);
    EXPECT_EQ(sw.mode, static_cast<uint32_t>(irgl::kSwitchAsync));
    EXPECT_EQ(sw.exploring, 0u);
    EXPECT_EQ(sw.gap, 1u);
    EXPECT_EQ(sw.ns[irgl::kSwitchAsync], 10000ull);
    EXPECT_EQ(sw.ns[irgl::kSwitchRounds], 8000ull);
  }
  {
    AsyncSwitch sw = started();
    AsyncQueueCtl q{};
    sw.step(8000, 80, false, 10, kGrid, &q, true, 0u);
    sw.step(28000, 100, true, 10, kGrid, &q, true, 0u);  // 20 us over 20: 1000 ns a pop
    EXPECT_EQ(sw.yields, 1ull);
    EXPECT_EQ(sw.mode, static_cast<uint32_t>(irgl::kSwitchRounds));
    EXPECT_EQ(sw.gap, 2u);
    EXPECT_EQ(sw.switches, 2ull);
    EXPECT_EQ(sw.epoch_rounds, 20u);  // a full epoch of 1 us rounds
  }
}

/// An epoch that reaches no node for the first time is no progress; rounds win the tie. A
/// large next round runs in rounds whatever was measured.
TEST(no_progress_and_large_rounds_go_to_rounds) {
  AsyncSwitch sw = started();
  AsyncQueueCtl q{};
  sw.step(8000, 80, false, 10, kGrid, &q, true, 0u);     // rounds measured: try asynchrony
  sw.step(28000, 80, false, 10, kGrid, &q, true, 0u);    // the trial reached nothing new
  EXPECT(sw.cost[irgl::kSwitchAsync] == AsyncSwitch::kNoProgress);
  EXPECT_EQ(sw.mode, static_cast<uint32_t>(irgl::kSwitchRounds));
  AsyncSwitch big = started();
  big.step(8000, 80, false, 10, kGrid, &q, true, 0u);    // trying asynchrony
  big.step(9000, 500, false, 5000, kGrid, &q, true, 0u); // cheap, but the next round is large
  EXPECT_EQ(big.mode, static_cast<uint32_t>(irgl::kSwitchRounds));
  EXPECT(big.cost[irgl::kSwitchAsync] < 0.0);
  EXPECT_EQ(big.exploring, 0u);
}

/// A pinned way never changes; pinned asynchrony runs each launch to quiescence.
TEST(a_pinned_way_stays) {
  AsyncQueueCtl q{};
  AsyncSwitch rounds = started(irgl::kSwitchForceRounds);
  rounds.step(8000, 80, false, 10, kGrid, &q, true, 0u);
  rounds.step(9000, 80, false, 10, kGrid, &q, false, 15u);
  EXPECT_EQ(rounds.mode, static_cast<uint32_t>(irgl::kSwitchRounds));
  AsyncSwitch async = started(irgl::kSwitchForceAsync);
  EXPECT_EQ(async.mode, static_cast<uint32_t>(irgl::kSwitchAsync));
  async.step(8000, 80, false, 10, kGrid, &q, true, 0u);
  EXPECT_EQ(async.mode, static_cast<uint32_t>(irgl::kSwitchAsync));
  EXPECT_EQ(q.deadline, 0ull);
  EXPECT_EQ(q.claim_limit, 0ull);
  EXPECT_EQ(rounds.switches + async.switches, 0ull);
}

/// The record: the rounds run, those of the epoch under way included, and a control launched
/// in rounds only.
TEST(the_record_counts_the_rounds_run) {
  AsyncSwitch sw = started();
  AsyncQueueCtl q{};
  sw.step(1000, 0, false, 100000, kGrid, &q, false, AsyncSwitch::kFirstRounds - 1u);
  sw.finish(4000, 17u);  // 3 of the epoch's 20 rounds ran
  EXPECT_EQ(sw.rounds, 4ull);
  EXPECT_EQ(sw.ns[irgl::kSwitchRounds], 4000ull);
  AsyncSwitch run;
  run.init(irgl::kSwitchAuto, 20);
  run.add(sw);
  EXPECT_EQ(run.report(4.0),
            std::string("auto: 4 rounds, 0 asynchronous launches (0 yielded), 0.000 of 4.000 ms asynchronous, 0 switches"));
  AsyncSwitch large;
  large.init(irgl::kSwitchAuto, 20);
  large.add_unswitched();
  EXPECT(irgl_test::contains(large.report(1.0), "the switch not launched"));
}

}  // namespace

int main() {
  RUN(unmeasured_round_ends_its_epoch_with_the_rounds_it_ran);
  RUN(a_measured_epoch_of_rounds_tries_asynchrony);
  RUN(the_cheaper_way_stays_and_the_loser_is_tried_ever_more_rarely);
  RUN(no_progress_and_large_rounds_go_to_rounds);
  RUN(a_pinned_way_stays);
  RUN(the_record_counts_the_rounds_run);
  return irgl_test::finish();
}
