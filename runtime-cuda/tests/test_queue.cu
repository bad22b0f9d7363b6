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

/// The queue's deadline, `ns` from now on the device's clock (0: none), and its claim limit.
__global__ void set_yield(irgl::AsyncQueue q, unsigned long long ns, unsigned long long limit) {
  q.ctl->deadline = ns == 0 ? 0ull : irgl::global_ns() + ns;
  q.ctl->claim_limit = limit;
}

/// What the last launch left unclaimed, into `out` (empty), by every thread of the grid.
__global__ void drain(irgl::AsyncQueue q, irgl::Worklist in, irgl::Worklist out) { q.drain_into(in, out); }

/// Pops every item of `in` and counts the nodes popped for the first time.
__global__ void count_pops(irgl::Worklist in, irgl::AsyncQueue q) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < in.size(); i += gridDim.x * blockDim.x) {
    q.count_first(in.pop(i));
  }
}

__global__ void clear_seen(irgl::AsyncQueue q) { q.clear_seen(); }

/// Grows the tree (or chains) from `roots` in launches that yield after `budget_ns` each (or
/// once they claimed `limit` items):
/// what a launch leaves unclaimed is drained into the next launch's input, until a launch
/// leaves nothing (the last ones without a deadline, so that the test ends). Every task must
/// run exactly once over all the launches, and the ring be empty, counters reset.
void grow_yielding(uint32_t n, uint32_t roots, uint32_t stride, uint32_t blocks, int how, unsigned long long budget_ns,
                   unsigned long long limit, uint32_t* yields_seen) {
  irgl::HostAsyncQueue q(n > 4096 ? n : 4096);
  irgl::HostWorklist a(n), b(n);
  std::vector<uint32_t> items(roots);
  for (uint32_t i = 0; i < roots; ++i) items[i] = i;
  a.assign(items);
  irgl::HostWorklist* in = &a;
  irgl::HostWorklist* out = &b;
  irgl::DeviceArray<uint32_t> seen(n);
  seen.zero();
  uint32_t launches = 0;
  while (in->size() != 0) {
    out->clear();
    // Yielding launches first; past 200 of them, none (a slow machine still ends).
    const bool yields = launches < 200;
    set_yield<<<1, 1>>>(q.view(), yields ? budget_ns : 0ull, yields ? limit : 0ull);
    grow<<<blocks, kBlock>>>(in->view(), q.view(), n, stride, how, seen.data(), roots);
    IRGL_CHECK_LAUNCH("grow");
    drain<<<64, 256>>>(q.view(), in->view(), out->view());
    IRGL_CHECK_LAUNCH("drain");
    IRGL_CHECK(cudaDeviceSynchronize());
    const RingState r = ring_state(q);
    EXPECT_EQ(r.ctl.stop, static_cast<unsigned int>(irgl::kAsyncRunning));
    EXPECT_EQ(r.full, 0u);  // the drain emptied what the launch left
    EXPECT_EQ(r.ctl.deadline, 0ull);  // reset by the last block out
    EXPECT_EQ(r.ctl.claim_limit, 0ull);
    if (yields && limit != 0ull) EXPECT(r.ctl.left_first <= limit);  // claimed at most the limit
    EXPECT_EQ(static_cast<unsigned long long>(out->size()), r.ctl.left_end - r.ctl.left_first);
    if (out->size() != 0) ++*yields_seen;
    std::swap(in, out);
    ++launches;
  }
  const std::vector<uint32_t> s = seen.to_host();
  uint32_t wrong = 0;
  for (uint32_t x = 0; x < n; ++x) wrong += s[x] != 1u;
  EXPECT_EQ(wrong, 0u);
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

TEST(yields_leave_every_task_to_a_later_launch) {
  // Trees (many tasks wait) and chains (few), every reservation kind, continuations too,
  // launches that yield after 2 to 50 us of claims or a few thousand tasks: no task lost or
  // run twice.
  const uint32_t n = irgl_test::scale(1u << 18);
  uint32_t yields = 0;
  for (int how = 0; how < kReserveKinds; ++how) {
    for (unsigned long long budget : {2000ull, 10000ull, 50000ull}) {
      grow_yielding(n, 1, 0, 132, how, budget, 0ull, &yields);
      grow_yielding(n, 64, 64, 132, how, budget, 0ull, &yields);
    }
    // A claim limit and no deadline: each launch claims a few thousand tasks.
    grow_yielding(n, 1, 0, 132, how, 0ull, 5000ull, &yields);
    grow_yielding(n, 64, 64, 20, how, 0ull, 700ull, &yields);
  }
  EXPECT(yields > 0u);  // some launch did yield with tasks left
}

TEST(first_pops_count_each_node_once) {
  const uint32_t n = irgl_test::scale(1u << 16);
  irgl::HostAsyncQueue q(64, n);
  irgl::HostWorklist in(n);
  std::vector<uint32_t> items(n);
  for (uint32_t i = 0; i < n; ++i) items[i] = (i * 7919u) % n;  // every node once, scattered
  in.assign(items);
  irgl::AsyncQueueCtl c;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass finds every node seen
    count_pops<<<32, 256>>>(in.view(), q.view());
    IRGL_CHECK_LAUNCH("count_pops");
    IRGL_CHECK(cudaMemcpy(&c, q.view().ctl, sizeof c, cudaMemcpyDeviceToHost));
    EXPECT_EQ(c.first_pops, static_cast<unsigned long long>(n));
  }
  clear_seen<<<8, 256>>>(q.view());
  count_pops<<<32, 256>>>(in.view(), q.view());
  IRGL_CHECK_LAUNCH("count_pops");
  IRGL_CHECK(cudaMemcpy(&c, q.view().ctl, sizeof c, cudaMemcpyDeviceToHost));
  EXPECT_EQ(c.first_pops, static_cast<unsigned long long>(n));  // counted again from zero
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
  RUN(yields_leave_every_task_to_a_later_launch);
  RUN(first_pops_count_each_node_once);
  RUN(empty_input_ends_at_once);
  RUN(overflow_stops_every_block);
  RUN(bad_item_stops_every_block);
  return irgl_test::finish();
}
