// Grid barrier tests: a multi-phase kernel in which each phase reads what
// other blocks wrote in the previous one; block arrival counting across a
// barrier; a barrier's action (grid_sync_then) and the control kernels'
// reduction flag (RoundFlag) over many rounds with one barrier each; residency
// computation; an outlined BFS Iterate (worklists swapped on the device, grid
// barrier between rounds) checked against a CPU BFS; items handed to the grid by
// an owner that publishes late (gd: every block helps, every iteration runs
// once); and the "cannot make kernel K resident" error.
#include <irgl/runtime.cuh>

#include <queue>
#include <vector>

#include "test_util.cuh"

using irgl_test::hash32;

namespace {

constexpr int kThreads = 256;

/// Phase p reads a[(i + shift_p) mod total] written by another block in
/// phase p-1 (double-buffered), and writes f(value, p).
__global__ void phases(uint32_t* a, uint32_t* b, uint32_t phases_n) {
  const uint32_t total = gridDim.x * blockDim.x;
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = i;
  for (uint32_t p = 1; p <= phases_n; ++p) {
    irgl::grid_sync();
    uint32_t* src = (p & 1u) ? a : b;
    uint32_t* dst = (p & 1u) ? b : a;
    const uint32_t shift = (blockDim.x * (1 + p % 7) + p) % total;  // lands in another block
    dst[i] = src[(i + shift) % total] * 3u + p;
  }
}

/// Every block increments a counter; after the barrier every thread must see all arrivals.
__global__ void arrivals(unsigned int* counter, unsigned int* bad) {
  if (threadIdx.x == 0) atomicAdd(counter, 1u);
  irgl::grid_sync();
  if (*reinterpret_cast<volatile unsigned int*>(counter) != gridDim.x) atomicAdd(bad, 1u);
}

/// Rounds of one barrier each, as an outlined loop with a reduction runs them: a
/// new reduction (no write), the contributions, a barrier whose action counts the
/// round, then every thread reads the count and the result, and goes straight on
/// to the next round's contributions (to the flag's other word). Any rounds have
/// one true value when r % 3 != 0; All rounds one false value when r % 3 == 1.
__global__ void flag_rounds(unsigned int* words, unsigned int* count, unsigned int* bad, uint32_t rounds) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t total = gridDim.x * blockDim.x;
  irgl::RoundFlag flag{words};
  for (uint32_t r = 0; r < rounds; ++r) {
    const irgl::Reduce kind = r % 2 == 0 ? irgl::Reduce::Any : irgl::Reduce::All;
    flag.start(kind);
    const uint32_t special = (r * 7919u) % total;
    const bool value = kind == irgl::Reduce::Any ? (r % 3 != 0 && tid == special) : !(r % 3 == 1 && tid == special);
    flag.contribute(kind, value);
    irgl::grid_sync_then([&] { *count += 1u; });
    const bool expected = kind == irgl::Reduce::Any ? r % 3 != 0 : r % 3 != 1;
    if (flag.result() != expected || *reinterpret_cast<volatile unsigned int*>(count) != r + 1) atomicAdd(bad, 1u);
  }
}

constexpr uint32_t kInf = 0xffffffffu;

/// Outlined Iterate: BFS over worklists entirely on the device.
__global__ void bfs_outlined(irgl::Graph g, uint32_t* level, irgl::Worklist in, irgl::Worklist out,
                             uint32_t* rounds) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t stride = gridDim.x * blockDim.x;
  uint32_t lvl = 0;
  while (true) {
    const uint32_t n = in.size();  // read after a barrier: the same in every thread
    if (n == 0 || out.overflowed()) break;
    ++lvl;
    for (uint32_t i = tid; i < n; i += stride) {
      const uint32_t u = in.pop(i);
      for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
        const uint32_t v = g.dst(e);
        if (atomicCAS(&level[v], kInf, lvl) == kInf) out.push(v);
      }
    }
    irgl::grid_sync();
    const irgl::Worklist t = in;  // swap (every thread, uniformly)
    in = out;
    out = t;
    if (tid == 0) out.reset();
    irgl::grid_sync();
  }
  if (tid == 0) *rounds = lvl;
}

__device__ irgl::GridItems late_table;

/// Rounds of one item of `trips` iterations, owned by block `r % gridDim.x`, which
/// publishes it only after waiting `delay_ns`: the other blocks have no item and reach their
/// help loop first. Every block then takes chunks (grid_claim, then grid_wait_for_owners, as
/// the generated help loop does); `runs` counts each iteration, `by_owner` those the owner's
/// block ran.
__global__ void late_owner(uint32_t trips, uint32_t rounds, unsigned long long delay_ns, uint32_t* runs,
                           unsigned int* by_owner, unsigned int* bad) {
  constexpr uint32_t kChunk = 4u * kThreads;
  __shared__ uint32_t slot_s, first_s, arrived_s;
  for (uint32_t r = 0; r < rounds; ++r) {
    const uint32_t owner = r % gridDim.x;
    if (blockIdx.x == owner && threadIdx.x == 0) {
      const unsigned long long until = irgl::global_ns() + delay_ns;
      while (irgl::global_ns() < until) {
      }
      const uint32_t slot = irgl::grid_publish(late_table, trips);
      if (slot != 0u) atomicAdd(bad, 1u);
      irgl::grid_ready(late_table, slot);
    }
    if (threadIdx.x == 0) arrived_s = 0u;
    __syncthreads();
    for (;;) {
      if (threadIdx.x == 0) {
        irgl::grid_claim<kChunk>(late_table, slot_s, first_s);
        if (slot_s == irgl::kGridItems) irgl::grid_wait_for_owners<kChunk>(late_table, slot_s, first_s, arrived_s);
      }
      __syncwarp();
      __syncthreads();
      const uint32_t slot = slot_s, first = first_s;
      __syncthreads();
      if (slot == irgl::kGridItems) break;
      const uint32_t end = trips - first < kChunk ? trips : first + kChunk;
      for (uint32_t k = first + threadIdx.x; k < end; k += blockDim.x) {
        atomicAdd(&runs[k], 1u);
        if (blockIdx.x == owner) atomicAdd(by_owner, 1u);
      }
    }
    irgl::grid_sync_then([] { irgl::grid_reset(late_table); });
  }
}

TEST(multi_phase) {
  int resident = 0;
  std::string why;
  EXPECT(irgl::cooperative_residency(phases, kThreads, 0, &resident, &why));
  EXPECT(resident > 0);
  const uint32_t nphases = 9;
  for (int want : {0, 3, 1 << 20}) {  // all resident blocks; few; more than resident (clamped)
    const int max_total = resident * kThreads;
    irgl::DeviceArray<uint32_t> a(max_total, 0u), b(max_total, 0u);
    const int blocks = irgl::launch_cooperative("phases", phases, want, kThreads, 0, 0, a.data(), b.data(), nphases);
    IRGL_CHECK_LAUNCH("phases");
    EXPECT(blocks >= 1 && blocks <= resident);
    if (want > 0 && want <= resident) EXPECT_EQ(blocks, want);
    if (want <= 0 || want > resident) EXPECT_EQ(blocks, resident);
    const uint32_t total = uint32_t(blocks) * kThreads;
    std::vector<uint32_t> x(total), y(total);
    for (uint32_t i = 0; i < total; ++i) x[i] = i;
    for (uint32_t p = 1; p <= nphases; ++p) {
      const uint32_t shift = (kThreads * (1 + p % 7) + p) % total;
      for (uint32_t i = 0; i < total; ++i) y[i] = x[(i + shift) % total] * 3u + p;
      std::swap(x, y);
    }
    std::vector<uint32_t> got(total);
    ((nphases & 1u) ? b : a).download(got.data(), total);
    EXPECT(got == x);
  }
}

TEST(arrivals_visible_after_barrier) {
  irgl::DeviceArray<unsigned int> counter(1, 0u), bad(1, 0u);
  const int blocks = irgl::launch_cooperative("arrivals", arrivals, 0, 128, 0, 0, counter.data(), bad.data());
  IRGL_CHECK_LAUNCH("arrivals");
  EXPECT_EQ(counter.to_host()[0], unsigned(blocks));
  EXPECT_EQ(bad.to_host()[0], 0u);
}

TEST(barrier_actions_and_round_flags) {
  for (int blocks : {0, 1, 5}) {  // all resident blocks; one; a few
    irgl::DeviceArray<unsigned int> words(2, 0u), count(1, 0u), bad(1, 0u);
    const uint32_t rounds = 600;
    irgl::launch_cooperative("flag_rounds", flag_rounds, blocks, kThreads, 0, 0, words.data(), count.data(),
                             bad.data(), rounds);
    IRGL_CHECK_LAUNCH("flag_rounds");
    EXPECT_EQ(count.to_host()[0], rounds);
    EXPECT_EQ(bad.to_host()[0], 0u);
  }
}

TEST(residency_matches_occupancy) {
  int per_sm = 0, sms = 0, dev = 0;
  IRGL_CHECK(cudaGetDevice(&dev));
  IRGL_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  IRGL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, 512, 0));
  int resident = 0;
  std::string why;
  EXPECT(irgl::cooperative_residency(phases, 512, 0, &resident, &why));
  EXPECT_EQ(resident, per_sm * sms);
  // Too much dynamic shared memory: no block fits, a reason is given.
  EXPECT(!irgl::cooperative_residency(phases, 512, size_t(1) << 22, &resident, &why));
  EXPECT(!why.empty());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // nothing sticky left behind
}

TEST(outlined_bfs) {
  // A random graph with a few components.
  const uint32_t n = 20000;
  irgl::HostGraph h;
  h.nnodes = n;
  h.row_start.assign(n + 1, 0);
  for (uint32_t u = 0; u < n; ++u) {
    const uint32_t deg = (u % 1000 == 999) ? 0 : hash32(u) % 6;
    for (uint32_t k = 0; k < deg; ++k) h.edge_dst.push_back(hash32(u * 13 + k) % (n - n / 10));  // last 10% unreachable
    h.row_start[u + 1] = static_cast<uint32_t>(h.edge_dst.size());
  }
  h.nedges = static_cast<uint32_t>(h.edge_dst.size());
  const uint32_t src = 1;
  std::vector<uint32_t> want(n, kInf);
  std::queue<uint32_t> q;
  want[src] = 0;
  q.push(src);
  uint32_t max_level = 0;
  while (!q.empty()) {
    const uint32_t u = q.front();
    q.pop();
    for (uint32_t e = h.row_start[u]; e < h.row_start[u + 1]; ++e) {
      const uint32_t v = h.edge_dst[e];
      if (want[v] == kInf) {
        want[v] = want[u] + 1;
        max_level = std::max(max_level, want[v]);
        q.push(v);
      }
    }
  }
  irgl::DeviceGraph g(h);
  irgl::DeviceArray<uint32_t> level(n, kInf), rounds(1, 0u);
  const uint32_t zero = 0;
  level.upload(&zero, 1, src);
  irgl::WorklistSet ws(n);
  ws.in().assign(std::vector<uint32_t>{src});
  irgl::launch_cooperative("bfs_outlined", bfs_outlined, 0, kThreads, 0, 0, g.view(), level.data(), ws.in().view(),
                           ws.out().view(), rounds.data());
  IRGL_CHECK_LAUNCH("bfs_outlined");
  EXPECT(level.to_host() == want);
  EXPECT_EQ(rounds.to_host()[0], max_level + 1);  // the last round finds nothing new
}

TEST(late_owner_gets_help) {
  // An item of 2^20 iterations published 200 us after the other blocks reached their help
  // loop, in 8 rounds: every iteration runs once a round, and the owner's block runs a small
  // share (alone it would run all of them).
  const uint32_t trips = irgl_test::scale(1u << 20), rounds = 8;
  irgl::DeviceArray<uint32_t> runs(trips, 0u);
  irgl::DeviceArray<unsigned int> by_owner(1, 0u), bad(1, 0u);
  const int blocks = irgl::launch_cooperative("late_owner", late_owner, 0, kThreads, 0, 0, trips, rounds,
                                              200000ull, runs.data(), by_owner.data(), bad.data());
  IRGL_CHECK_LAUNCH("late_owner");
  const std::vector<uint32_t> r = runs.to_host();
  uint32_t wrong = 0;
  for (uint32_t k = 0; k < trips; ++k) wrong += r[k] != rounds;
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(bad.to_host()[0], 0u);
  EXPECT(blocks > 1);
  EXPECT(by_owner.to_host()[0] < static_cast<unsigned int>(rounds) * trips / 4u);
}

TEST(not_resident_error) {
  const irgl_test::ChildResult r = irgl_test::run_child("not-resident-child");
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: cannot make kernel huge_smem resident for a grid barrier: "));
  EXPECT_EQ(irgl_test::count_lines(r.output), 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "not-resident-child") {
    irgl::DeviceArray<unsigned int> c(1, 0u), b(1, 0u);
    irgl::launch_cooperative("huge_smem", arrivals, 0, 128, size_t(1) << 22, 0, c.data(), b.data());
    return 0;  // not reached
  }
  RUN(multi_phase);
  RUN(arrivals_visible_after_barrier);
  RUN(barrier_actions_and_round_flags);
  RUN(residency_matches_occupancy);
  RUN(outlined_bfs);
  RUN(late_owner_gets_help);
  RUN(not_resident_error);
  return irgl_test::finish();
}
