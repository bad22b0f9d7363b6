// Worklist tests: push/pop under contention, overflow (with a guard region),
// reserve_thread / reserve_warp (divergent lanes, different n) / reserve_block
// and reserve_block_one,
// WorklistSet, and the overflow error message and exit status.
// irgl-test: racecheck   (reserve_block uses shared memory)
#include <irgl/runtime.cuh>

#include <algorithm>
#include <numeric>
#include <vector>

#include "test_util.cuh"

using irgl::Worklist;
using irgl::wl_index_t;
using irgl_test::hash32;

namespace {

constexpr uint32_t kGuard = 4096;
constexpr uint32_t kPoison = 0xDEADBEEFu;

/// A worklist view over a buffer with a guard region after `capacity`, all
/// poisoned, so that tests can check that nothing is written past capacity.
struct GuardedWorklist {
  irgl::DeviceArray<uint32_t> buf;
  irgl::DeviceArray<irgl::WorklistCtl> ctl;
  uint32_t capacity;
  explicit GuardedWorklist(uint32_t cap) : buf(size_t(cap) + kGuard, kPoison), ctl(1), capacity(cap) { ctl.zero(); }
  Worklist view() {
    Worklist w;
    w.items = buf.data();
    w.ctl = ctl.data();
    w.capacity = capacity;
    return w;
  }
  irgl::WorklistCtl control() const {
    irgl::WorklistCtl c;
    ctl.download(&c, 1);
    return c;
  }
  std::vector<uint32_t> all() const { return buf.to_host(); }
};

/// Number of guard words changed.
size_t guard_damage(const std::vector<uint32_t>& all, uint32_t capacity) {
  size_t bad = 0;
  for (size_t i = capacity; i < all.size(); ++i) bad += all[i] != kPoison;
  return bad;
}

// ---------------------------------------------------------------- kernels

__global__ void push_range(Worklist wl, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) wl.push(i);
}

__global__ void pop_double(Worklist wl, uint32_t* out) {
  const uint32_t n = wl.size();
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2u * wl.pop(i);
}

__host__ __device__ uint32_t count_thread(uint32_t tid, uint32_t salt, uint32_t maxn) {
  return hash32(tid * 2654435761u + salt) % (maxn + 1);
}
__host__ __device__ uint32_t item_of(uint32_t tid, uint32_t i) { return tid * 128u + i; }

__global__ void thread_reserve(Worklist wl, uint32_t nthreads, uint32_t maxn) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  const uint32_t n = count_thread(tid, 1, maxn);
  const wl_index_t start = wl.reserve_thread(n);
  for (uint32_t i = 0; i < n; ++i) wl.write(start, i, item_of(tid, i));
}

/// Divergent reserve_warp: only some lanes take part, each with its own n.
__global__ void warp_reserve_divergent(Worklist wl, uint32_t nthreads, uint32_t maxn) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  if (hash32(tid) % 3 != 0) {
    const uint32_t n = count_thread(tid, 2, maxn);
    const wl_index_t start = wl.reserve_warp(n);
    for (uint32_t i = 0; i < n; ++i) wl.write(start, i, item_of(tid, i));
  }
}

/// Two different branches of one warp both push; lanes of a branch aggregate separately.
__global__ void warp_reserve_two_branches(Worklist wl, uint32_t nthreads, uint32_t maxn) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  const uint32_t n = count_thread(tid, 3, maxn);
  if (tid & 1u) {
    const wl_index_t start = wl.reserve_warp(n);
    for (uint32_t i = 0; i < n; ++i) wl.write(start, i, item_of(tid, i));
  } else if (hash32(tid) & 4u) {
    const wl_index_t start = wl.reserve_warp(n);
    for (uint32_t i = n; i-- > 0;) wl.write(start, i, item_of(tid, i));
  }
}

/// Lanes with different trip counts push one conditional item per iteration
/// (the agg_warp(1) pattern of the paper), so lanes of a warp reach
/// reserve_warp at different iterations.
/// `one`: with reserve_warp_one() instead of reserve_warp(1).
__global__ void warp_reserve_loop(Worklist wl, uint32_t nthreads, bool one) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  const uint32_t trips = hash32(tid) % 9;
  for (uint32_t i = 0; i < trips; ++i) {
    if (hash32(tid ^ (i * 0x9e3779b9u)) & 1u) {
      const wl_index_t start = one ? wl.reserve_warp_one() : wl.reserve_warp(1);
      wl.write(start, 0, item_of(tid, i));
    }
  }
}

template <int B>
__global__ void block_reserve(Worklist wl, uint32_t nthreads, uint32_t maxn) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  // All threads call (also those past nthreads, with n = 0; and whole blocks of zeros).
  const bool zero_block = blockIdx.x % 5 == 4;
  const uint32_t n = (tid < nthreads && !zero_block) ? count_thread(tid, 4, maxn) : 0u;
  const wl_index_t start = wl.reserve_block<B>(n);
  for (uint32_t i = 0; i < n; ++i) wl.write(start, i, item_of(tid, i));
  // Second call in a row: checks that the shared memory is safely reused.
  const uint32_t n2 = (tid < nthreads && !zero_block) ? (hash32(tid) & 1u) : 0u;
  const wl_index_t start2 = wl.reserve_block<B>(n2);
  if (n2) wl.write(start2, 0, item_of(tid, 100));
}

/// Whether thread `tid` pushes in trip `t` of block_reserve_one: every third trip
/// no thread does (reserve_block_one's early return), then sparse, then dense.
__host__ __device__ bool flag_of(uint32_t tid, uint32_t t) {
  const uint32_t h = hash32(tid ^ (t * 0x9e3779b9u));
  return t % 3 == 1 ? false : t % 3 == 2 ? (h & 15u) == 0 : (h & 1u) != 0;
}

/// Trips of reserve_block_one in a row (the valid flags of the compiler's block
/// pushes), so that its shared memory is reused at once; threads past nthreads
/// take part with no flag.
template <int B>
__global__ void block_reserve_one(Worklist wl, uint32_t nthreads, uint32_t trips) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (uint32_t t = 0; t < trips; ++t) {
    const bool flag = tid < nthreads && flag_of(tid, t);
    const wl_index_t at = wl.reserve_block_one<B>(flag);
    if (flag) wl.write(at, 0, item_of(tid, t));
  }
}

__global__ void copy_plus_one(Worklist in, Worklist out) {
  const uint32_t n = in.size();
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out.push(in.pop(i) + 1);
}

// ---------------------------------------------------------------- helpers

std::vector<uint32_t> expected_items(uint32_t nthreads, uint32_t salt, uint32_t maxn, bool (*take)(uint32_t)) {
  std::vector<uint32_t> v;
  for (uint32_t t = 0; t < nthreads; ++t) {
    if (take != nullptr && !take(t)) continue;
    const uint32_t n = count_thread(t, salt, maxn);
    for (uint32_t i = 0; i < n; ++i) v.push_back(item_of(t, i));
  }
  std::sort(v.begin(), v.end());
  return v;
}

/// Checks that the first count slots hold exactly `want` (as a multiset), no overflow, guard intact.
void check_exact(GuardedWorklist& g, std::vector<uint32_t> want) {
  IRGL_CHECK(cudaDeviceSynchronize());
  const irgl::WorklistCtl c = g.control();
  EXPECT_EQ(c.count, (unsigned long long)want.size());
  EXPECT_EQ(c.overflow, 0u);
  std::vector<uint32_t> all = g.all();
  EXPECT_EQ(guard_damage(all, g.capacity), size_t(0));
  if (c.count > g.capacity) return;
  std::vector<uint32_t> got(all.begin(), all.begin() + c.count);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT(got == want);
  // Slots past count were not written either.
  size_t written_after = 0;
  for (size_t i = c.count; i < g.capacity; ++i) written_after += all[i] != kPoison;
  EXPECT_EQ(written_after, size_t(0));
}

/// Overflow: flag set, count = all reservations, only valid distinct items below capacity, guard intact.
void check_overflowed(GuardedWorklist& g, uint64_t want_count, const std::vector<uint32_t>& universe) {
  IRGL_CHECK(cudaDeviceSynchronize());
  const irgl::WorklistCtl c = g.control();
  EXPECT_EQ(c.count, (unsigned long long)want_count);
  EXPECT_EQ(c.overflow, 1u);
  std::vector<uint32_t> all = g.all();
  EXPECT_EQ(guard_damage(all, g.capacity), size_t(0));
  std::vector<uint32_t> got(all.begin(), all.begin() + g.capacity);
  std::sort(got.begin(), got.end());
  EXPECT(std::adjacent_find(got.begin(), got.end()) == got.end());  // distinct
  EXPECT(std::includes(universe.begin(), universe.end(), got.begin(), got.end()));
}

// ---------------------------------------------------------------- tests

TEST(push_contention_1M) {
  const uint32_t n = irgl_test::scale(1000000);
  GuardedWorklist g(n);
  push_range<<<1024, 256>>>(g.view(), n);
  IRGL_CHECK_LAUNCH("push_range");
  std::vector<uint32_t> want(n);
  std::iota(want.begin(), want.end(), 0u);
  check_exact(g, want);
  // pop: every item read back by index.
  irgl::DeviceArray<uint32_t> out(n, 0u);
  pop_double<<<512, 256>>>(g.view(), out.data());
  IRGL_CHECK_LAUNCH("pop_double");
  std::vector<uint32_t> all = g.all(), o = out.to_host();
  bool ok = true;
  for (uint32_t i = 0; i < n; ++i) ok &= o[i] == 2u * all[i];
  EXPECT(ok);
}

TEST(push_overflow_guard) {
  const uint32_t cap = 1000, n = 50000;
  GuardedWorklist g(cap);
  push_range<<<64, 256>>>(g.view(), n);
  IRGL_CHECK_LAUNCH("push_range");
  std::vector<uint32_t> universe(n);
  std::iota(universe.begin(), universe.end(), 0u);
  check_overflowed(g, n, universe);
}

TEST(reserve_thread_random) {
  const uint32_t nt = irgl_test::scale(100000), maxn = 7;
  const auto want = expected_items(nt, 1, maxn, nullptr);
  GuardedWorklist g(static_cast<uint32_t>(want.size()));  // exactly full: no overflow
  thread_reserve<<<(nt + 255) / 256, 256>>>(g.view(), nt, maxn);
  IRGL_CHECK_LAUNCH("thread_reserve");
  check_exact(g, want);
}

TEST(reserve_thread_overflow) {
  const uint32_t nt = 20000, maxn = 7;
  const auto want = expected_items(nt, 1, maxn, nullptr);
  GuardedWorklist g(static_cast<uint32_t>(want.size() / 3));
  thread_reserve<<<(nt + 255) / 256, 256>>>(g.view(), nt, maxn);
  IRGL_CHECK_LAUNCH("thread_reserve");
  check_overflowed(g, want.size(), want);
}

TEST(reserve_warp_divergent) {
  const uint32_t nt = irgl_test::scale(100000);
  for (uint32_t maxn : {1u, 5u, 40u}) {  // 1: the ballot fast path; 5, 40: the scan
    const auto want = expected_items(nt, 2, maxn, [](uint32_t t) { return hash32(t) % 3 != 0; });
    GuardedWorklist g(static_cast<uint32_t>(want.size()) + 17);
    warp_reserve_divergent<<<(nt + 127) / 128, 128>>>(g.view(), nt, maxn);
    IRGL_CHECK_LAUNCH("warp_reserve_divergent");
    check_exact(g, want);
  }
}

TEST(reserve_warp_two_branches) {
  const uint32_t nt = 50000, maxn = 6;
  const auto want =
      expected_items(nt, 3, maxn, [](uint32_t t) { return (t & 1u) != 0 || (hash32(t) & 4u) != 0; });
  GuardedWorklist g(static_cast<uint32_t>(want.size()));
  warp_reserve_two_branches<<<(nt + 255) / 256, 256>>>(g.view(), nt, maxn);
  IRGL_CHECK_LAUNCH("warp_reserve_two_branches");
  check_exact(g, want);
}

TEST(reserve_warp_loop_conditional) {
  const uint32_t nt = 50000;
  std::vector<uint32_t> want;
  for (uint32_t t = 0; t < nt; ++t) {
    const uint32_t trips = hash32(t) % 9;
    for (uint32_t i = 0; i < trips; ++i) {
      if (hash32(t ^ (i * 0x9e3779b9u)) & 1u) want.push_back(item_of(t, i));
    }
  }
  for (bool one : {false, true}) {
    GuardedWorklist g(static_cast<uint32_t>(want.size()));
    warp_reserve_loop<<<(nt + 255) / 256, 256>>>(g.view(), nt, one);
    IRGL_CHECK_LAUNCH("warp_reserve_loop");
    check_exact(g, want);
  }
}

TEST(reserve_warp_overflow) {
  const uint32_t nt = 30000, maxn = 5;
  const auto want = expected_items(nt, 2, maxn, [](uint32_t t) { return hash32(t) % 3 != 0; });
  GuardedWorklist g(static_cast<uint32_t>(want.size() / 2));
  warp_reserve_divergent<<<(nt + 127) / 128, 128>>>(g.view(), nt, maxn);
  IRGL_CHECK_LAUNCH("warp_reserve_divergent");
  check_overflowed(g, want.size(), want);
}

TEST(reserve_block_random) {
  const uint32_t nt = irgl_test::scale(100000), maxn = 8;
  constexpr int B = 256;
  const uint32_t blocks = (nt + B - 1) / B;
  std::vector<uint32_t> want;
  for (uint32_t t = 0; t < nt; ++t) {
    if ((t / B) % 5 == 4) continue;
    const uint32_t n = count_thread(t, 4, maxn);
    for (uint32_t i = 0; i < n; ++i) want.push_back(item_of(t, i));
    if (hash32(t) & 1u) want.push_back(item_of(t, 100));
  }
  GuardedWorklist g(static_cast<uint32_t>(want.size()));
  block_reserve<B><<<blocks, B>>>(g.view(), nt, maxn);
  IRGL_CHECK_LAUNCH("block_reserve<256>");
  check_exact(g, want);
}

TEST(reserve_block_overflow) {
  const uint32_t nt = 30000, maxn = 8;
  constexpr int B = 128;
  std::vector<uint32_t> want;
  for (uint32_t t = 0; t < nt; ++t) {
    if ((t / B) % 5 == 4) continue;
    const uint32_t n = count_thread(t, 4, maxn);
    for (uint32_t i = 0; i < n; ++i) want.push_back(item_of(t, i));
    if (hash32(t) & 1u) want.push_back(item_of(t, 100));
  }
  std::sort(want.begin(), want.end());
  GuardedWorklist g(static_cast<uint32_t>(want.size() / 4));
  block_reserve<B><<<(nt + B - 1) / B, B>>>(g.view(), nt, maxn);
  IRGL_CHECK_LAUNCH("block_reserve<128>");
  check_overflowed(g, want.size(), want);
}

/// reserve_block_one: the multiset, and each block's items of a trip in
/// consecutive slots in thread order.
template <int B>
void block_one_case(uint32_t nt, uint32_t trips) {
  std::vector<uint32_t> want;
  for (uint32_t tid = 0; tid < nt; ++tid) {
    for (uint32_t t = 0; t < trips; ++t) {
      if (flag_of(tid, t)) want.push_back(item_of(tid, t));
    }
  }
  GuardedWorklist g(static_cast<uint32_t>(want.size()));
  block_reserve_one<B><<<(nt + B - 1) / B, B>>>(g.view(), nt, trips);
  IRGL_CHECK_LAUNCH("block_reserve_one");
  check_exact(g, want);
  const std::vector<uint32_t> all = g.all();
  // Slot order: a (block, trip) group is contiguous and ascending in thread.
  std::vector<uint64_t> seen;
  for (size_t i = 0; i < want.size(); ++i) {
    const uint32_t tid = all[i] / 128u, t = all[i] % 128u;
    const uint64_t group = (uint64_t(tid / B) << 32) | t;
    if (i > 0) {
      const uint32_t ptid = all[i - 1] / 128u, pt = all[i - 1] % 128u;
      const uint64_t pgroup = (uint64_t(ptid / B) << 32) | pt;
      if (pgroup == group) {
        EXPECT(ptid < tid);
        continue;
      }
    }
    seen.push_back(group);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT(std::adjacent_find(seen.begin(), seen.end()) == seen.end());  // each group once
}

TEST(reserve_block_one_trips) {
  block_one_case<256>(irgl_test::scale(50000), 12);
  block_one_case<128>(1000, 9);  // a partial last block
  block_one_case<1024>(5000, 7);
}

TEST(worklist_set_swap) {
  irgl::WorklistSet ws(1000);
  std::vector<uint32_t> init = {5, 7, 11, 13};
  ws.in().assign(init);
  EXPECT_EQ(ws.in().size(), 4u);
  EXPECT_EQ(ws.out().size(), 0u);
  copy_plus_one<<<4, 64>>>(ws.in().view(), ws.out().view());
  IRGL_CHECK_LAUNCH("copy_plus_one");
  ws.check_overflow("copy_plus_one");
  ws.swap();
  EXPECT_EQ(ws.out().size(), 0u);
  std::vector<uint32_t> got = ws.in().to_host();
  std::sort(got.begin(), got.end());
  EXPECT(got == (std::vector<uint32_t>{6, 8, 12, 14}));
  ws.clear();
  EXPECT_EQ(ws.in().size(), 0u);
  uint64_t pushed = 99;
  EXPECT(!ws.in().overflowed(&pushed));
  EXPECT_EQ(pushed, 0u);
}

TEST(worklist_set_permute) {
  // Each list holds its starting role as its one item; after permute(from), role r holds from[r].
  const uint32_t perms[6][3] = {{0, 1, 2}, {1, 0, 2}, {2, 1, 0}, {0, 2, 1}, {1, 2, 0}, {2, 0, 1}};
  for (const auto& from : perms) {
    irgl::WorklistSet ws(16);
    ws.in().assign(std::vector<uint32_t>{0});
    ws.out().assign(std::vector<uint32_t>{1});
    ws.retry().assign(std::vector<uint32_t>{2});
    ws.permute(from);
    EXPECT(ws.in().to_host() == std::vector<uint32_t>{from[0]});
    EXPECT(ws.out().to_host() == std::vector<uint32_t>{from[1]});
    EXPECT(ws.retry().to_host() == std::vector<uint32_t>{from[2]});
  }
}

TEST(worklist_capacity_fits_memory) {
  // A capacity the user gave is kept (at most 2^32 - 1); the default bound where it fits.
  EXPECT_EQ(irgl::worklist_capacity(5000, 10, 12), 5000u);
  EXPECT_EQ(irgl::worklist_capacity(uint64_t{1} << 40, 10, 12), 0xffffffffu);
  EXPECT_EQ(irgl::worklist_capacity(0, 100000, 12), 100000u);
  EXPECT_EQ(irgl::worklist_capacity(0, uint64_t{1} << 40, 0), 0xffffffffu);
  // A bound that does not fit: what fits, less the reserve.
  size_t free_bytes = 0, total_bytes = 0;
  IRGL_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const uint64_t mib = uint64_t{1} << 20;
  const uint32_t fits = irgl::worklist_capacity(0, 0xffffffffull, mib);
  EXPECT(fits >= 1024u);
  EXPECT(fits < 0xffffffffu);
  EXPECT(static_cast<uint64_t>(fits) * mib <= free_bytes - total_bytes / 16);
  // No retry list in a program that never retries.
  irgl::WorklistSet ws(16, /*retry=*/false);
  EXPECT_EQ(ws.in().capacity(), 16u);
  EXPECT_EQ(ws.out().capacity(), 16u);
  EXPECT_EQ(ws.retry().capacity(), 0u);
  EXPECT_EQ(ws.retry().size(), 0u);
}

TEST(device_bytes_counted) {
  const size_t before = irgl::device_bytes_peak();
  const size_t live = irgl::detail::device_bytes_live;
  {
    irgl::DeviceArray<uint32_t> a(size_t{64} << 20);  // 256 MiB
    EXPECT_EQ(irgl::detail::device_bytes_live, live + (size_t{256} << 20));
  }
  EXPECT_EQ(irgl::detail::device_bytes_live, live);
  EXPECT(irgl::device_bytes_peak() >= live + (size_t{256} << 20));
  EXPECT(irgl::device_bytes_peak() >= before);
}

TEST(backoff_chunks) {
  EXPECT_EQ(irgl::backoff_chunk(1000u, 4u, 32u, 64u), 4u);
  EXPECT_EQ(irgl::backoff_chunk(32u, 4u, 32u, 64u), 4u);   // at the threshold: in runs
  EXPECT_EQ(irgl::backoff_chunk(31u, 4u, 32u, 64u), 31u);  // below it: one thread takes all
  EXPECT_EQ(irgl::backoff_chunk(0u, 4u, 32u, 64u), 1u);    // never a chunk of 0
  EXPECT_EQ(irgl::backoff_chunk(5u, 8u, 0u, 64u), 8u);     // 0: never serial
  // Auto: one run per thread, 1 while there are no more items than threads.
  EXPECT_EQ(irgl::backoff_chunk(64u, irgl::kChunkAuto, 32u, 64u), 1u);
  EXPECT_EQ(irgl::backoff_chunk(65u, irgl::kChunkAuto, 32u, 64u), 2u);
  EXPECT_EQ(irgl::backoff_chunk(1000u, irgl::kChunkAuto, 32u, 64u), 16u);
  EXPECT_EQ(irgl::backoff_chunk(0xffffffffu, irgl::kChunkAuto, 0u, 270336u), 15888u);
  EXPECT_EQ(irgl::chunks_of(0u, 4u), 0u);
  EXPECT_EQ(irgl::chunks_of(8u, 4u), 2u);
  EXPECT_EQ(irgl::chunks_of(9u, 4u), 3u);
  EXPECT_EQ(irgl::chunks_of(0xffffffffu, 2u), 0x80000000u);  // no overflow near the top
  EXPECT_EQ(irgl::chunks_of(uint64_t{1} << 40, 1024u), uint64_t{1} << 30);
  // Auto runs cover every item with at most `threads` runs.
  for (uint32_t items : {1u, 63u, 64u, 65u, 1000u, 4097u}) {
    const uint32_t c = irgl::backoff_chunk(items, irgl::kChunkAuto, 0u, 64u);
    EXPECT(irgl::chunks_of(items, c) <= 64u);
    EXPECT(static_cast<uint64_t>(c) * 64u >= items);
  }
}

TEST(overflow_message) {
  EXPECT_EQ(irgl::worklist_overflow_message("bfs_kernel", 1000, 50000),
            std::string("worklist overflow in kernel bfs_kernel: capacity 1000 items, at least 50000 pushed; "
                        "rerun with --wl-capacity <bigger>"));
  const irgl_test::ChildResult r = irgl_test::run_child("overflow-child");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, std::string("error: worklist overflow in kernel push_range: capacity 100 items, at least 5000 "
                                  "pushed; rerun with --wl-capacity <bigger>\n"));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "overflow-child") {
    irgl::WorklistSet ws(100);
    push_range<<<8, 128>>>(ws.out().view(), 5000);
    IRGL_CHECK_LAUNCH("push_range");
    ws.check_overflow("push_range");
    return 0;  // not reached
  }
  RUN(backoff_chunks);
  RUN(push_contention_1M);
  RUN(push_overflow_guard);
  RUN(reserve_thread_random);
  RUN(reserve_thread_overflow);
  RUN(reserve_warp_divergent);
  RUN(reserve_warp_two_branches);
  RUN(reserve_warp_loop_conditional);
  RUN(reserve_warp_overflow);
  RUN(reserve_block_random);
  RUN(reserve_block_overflow);
  RUN(reserve_block_one_trips);
  RUN(worklist_set_swap);
  RUN(worklist_set_permute);
  RUN(worklist_capacity_fits_memory);
  RUN(device_bytes_counted);
  RUN(overflow_message);
  return irgl_test::finish();
}
