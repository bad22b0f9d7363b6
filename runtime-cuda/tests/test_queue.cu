// Asynchronous queue tests: a binary tree of tasks grown from a few input items
// (every task processed exactly once, whatever the grid, resident or not, and
// whichever reservation the pushes use), a ring much smaller than the number of
// tasks, counters reset for the next launch, overflow and a bad item stopping
// every block (no hang) with the host's one-line errors.
// (No racecheck marker: racecheck does not finish on kernels that spin on global memory in
// the ten minutes of a run; the generated asynchronous programs are racechecked instead.)
#include <vector>

#include "queue_tasks.cuh"
#include "test_util.cuh"

namespace {

using namespace queue_tasks;

/// Pushes one bad item (the empty-slot value) from the first task.
__global__ void __launch_bounds__(kBlock) push_bad(irgl::Worklist in, irgl::AsyncQueue q) {
  const uint32_t n_in = in.size();
  uint32_t claimed = 0, rank = 0;
  unsigned long long first = 0;
  bool processed = false;
  while (q.claim_block<kBlock>(n_in, processed, false, &first, &rank, &claimed) != 0u) {
    uint32_t x = 0;
    processed = rank < claimed && q.take(in, n_in, first + rank, &x);
    if (processed) q.push(x == 0u ? irgl::kEmptySlot : x);
  }
  q.leave_block();
}

/// Runs `grow` over the roots 0..roots-1 and checks that every task ran once.
void grow_once(uint32_t n, uint32_t roots, uint32_t stride, uint32_t blocks, int how, irgl::HostAsyncQueue& q) {
  irgl::HostWorklist in(roots);
  std::vector<uint32_t> items(roots);
  for (uint32_t i = 0; i < roots; ++i) items[i] = i;
  in.assign(items);
  irgl::DeviceArray<uint32_t> seen(n);
  seen.zero();
  const unsigned long long base_before = ring_state(q).ctl.base;
  grow<<<blocks, kBlock>>>(in.view(), q.view(), n, stride, how, seen.data());
  IRGL_CHECK_LAUNCH("grow");
  IRGL_CHECK(cudaDeviceSynchronize());
  const std::vector<uint32_t> s = seen.to_host();
  uint32_t wrong = 0;
  for (uint32_t x = 0; x < n; ++x) wrong += s[x] != 1u;
  EXPECT_EQ(wrong, 0u);
  const RingState r = ring_state(q);
  const irgl::AsyncQueueCtl& c = r.ctl;
  EXPECT_EQ(c.stop, static_cast<unsigned int>(irgl::kAsyncRunning));
  EXPECT_EQ(c.head, 0ull);  // reset by the last block out
  EXPECT_EQ(c.tail, 0ull);
  EXPECT_EQ(c.exited, 0u);
  if (how == kKeep || how == kKeepAny) {
    EXPECT(c.pushed < static_cast<unsigned long long>(n - roots) || n == roots);  // kept ones skip the queue
  } else {
    EXPECT_EQ(c.pushed, static_cast<unsigned long long>(n - roots));
  }
  EXPECT_EQ(c.base, base_before + c.pushed);  // the next launch starts past these items
  EXPECT_EQ(r.full, 0u);                      // every slot emptied again
}

TEST(tree_every_task_once) {
  const uint32_t n = irgl_test::scale(1u << 20);
  for (int how = 0; how < kReserveKinds; ++how) {
    irgl::HostAsyncQueue q(n);
    grow_once(n, 1, 0, 264, how, q);
    grow_once(n, 1000 < n ? 1000 : n, 0, 264, how, q);  // the same queue again: counters were reset
  }
}

TEST(chains_small_ring) {
  // 4096 chains (at most 4096 items wait) in a ring far smaller than the tasks: slots are
  // reused many times.
  const uint32_t n = irgl_test::scale(1u << 20);
  irgl::HostAsyncQueue q(1u << 13);
  for (int how = 0; how < kReserveKinds; ++how) grow_once(n, 4096, 4096, 132, how, q);
}

TEST(tree_any_grid) {
  // One block, and far more blocks than stay resident: no residency needed.
  const uint32_t n = irgl_test::scale(1u << 16);
  irgl::HostAsyncQueue q(n);
  grow_once(n, 1, 0, 1, kPush, q);
  grow_once(n, 3, 0, 20000, kBlockWide, q);
  grow_once(n, 3, 0, 1, kKeepAny, q);
}

TEST(empty_input_ends_at_once) {
  irgl::HostAsyncQueue q(64);
  irgl::HostWorklist in(4);  // empty
  irgl::DeviceArray<uint32_t> seen(4);
  seen.zero();
  grow<<<8, kBlock>>>(in.view(), q.view(), 4, 0, kPush, seen.data());
  IRGL_CHECK_LAUNCH("grow");
  IRGL_CHECK(cudaDeviceSynchronize());
  const std::vector<uint32_t> s = seen.to_host();
  EXPECT_EQ(s[0] + s[1] + s[2] + s[3], 0u);
  q.check_overflow("grow");
}

TEST(overflow_stops_every_block) {
  const irgl_test::ChildResult r = irgl_test::run_child("overflow-child");
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: worklist overflow in kernel grow: capacity 16 items"));
  EXPECT(irgl_test::contains(r.output, "asynchronous queue"));
  EXPECT_EQ(irgl_test::count_lines(r.output), 1);
}

TEST(bad_item_stops_every_block) {
  const irgl_test::ChildResult r = irgl_test::run_child("bad-child");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, std::string("error: kernel push_bad pushed 4294967295, which is not a node, to its "
                                  "asynchronous queue\n"));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "overflow-child") {
    // A wide tree (every task has two children) in a ring of 16: more than 16 wait.
    irgl::HostAsyncQueue q(16);
    irgl::HostWorklist in(1);
    in.assign(std::vector<uint32_t>{0u});
    irgl::DeviceArray<uint32_t> seen(1u << 16);
    seen.zero();
    grow<<<64, kBlock>>>(in.view(), q.view(), 1u << 16, 0, kPush, seen.data());
    IRGL_CHECK_LAUNCH("grow");
    q.check_overflow("grow");
    return 0;  // not reached
  }
  if (argc > 1 && std::string(argv[1]) == "bad-child") {
    irgl::HostAsyncQueue q(64);
    irgl::HostWorklist in(4);
    in.assign(std::vector<uint32_t>{0u, 1u, 2u, 3u});
    push_bad<<<4, kBlock>>>(in.view(), q.view());
    IRGL_CHECK_LAUNCH("push_bad");
    q.check_overflow("push_bad");
    return 0;  // not reached
  }
  if (irgl_test::host_only()) return irgl_test::finish();
  RUN(tree_every_task_once);
  RUN(chains_small_ring);
  RUN(tree_any_grid);
  RUN(empty_input_ends_at_once);
  RUN(overflow_stops_every_block);
  RUN(bad_item_stops_every_block);
  return irgl_test::finish();
}
