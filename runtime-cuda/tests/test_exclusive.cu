// Exclusive tests: random overlapping element sets (with duplicates); in
// every round no two successful threads share an element, at least one
// pending thread succeeds, and rounds repeat until all are done; per-element
// counters incremented non-atomically inside come out exact.
#include <irgl/runtime.cuh>

#include <algorithm>
#include <vector>

#include "test_util.cuh"

using irgl_test::hash32;

namespace {

constexpr uint32_t kMaxSet = 4;

__host__ __device__ uint32_t set_size(uint32_t tid) { return 1 + hash32(tid * 7 + 1) % kMaxSet; }
__host__ __device__ uint32_t set_elem(uint32_t tid, uint32_t k, uint32_t universe) {
  return hash32(tid * 31 + k * 977 + 5) % universe;  // duplicates within a set happen
}

__global__ void round_kernel(unsigned int* marks, unsigned int* occupancy, uint32_t* counter, uint8_t* done,
                             unsigned int* round_successes, unsigned int* violations, uint32_t nthreads,
                             uint32_t universe) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads || done[tid]) return;
  uint32_t ids[kMaxSet];
  const uint32_t n = set_size(tid);
  for (uint32_t k = 0; k < n; ++k) ids[k] = set_elem(tid, k, universe);
  if (irgl::exclusive_acquire(marks, ids, n)) {
    for (uint32_t k = 0; k < n; ++k) {
      if (k > 0 && ids[k] == ids[k - 1]) continue;
      if (atomicAdd(&occupancy[ids[k]], 1u) != 0u) atomicAdd(violations, 1u);  // someone else inside
    }
    for (uint32_t k = 0; k < n; ++k) {
      if (k > 0 && ids[k] == ids[k - 1]) continue;
      counter[ids[k]] += 1;  // non-atomic: exact only under mutual exclusion
    }
    for (uint32_t k = 0; k < n; ++k) {
      if (k > 0 && ids[k] == ids[k - 1]) continue;
      atomicSub(&occupancy[ids[k]], 1u);
    }
    irgl::exclusive_release(marks, ids, n);
    done[tid] = 1;
    atomicAdd(round_successes, 1u);
  }
}

void run_rounds(uint32_t nthreads, uint32_t universe) {
  irgl::DeviceArray<unsigned int> marks(universe, 0u), occupancy(universe, 0u), succ(1), viol(1, 0u);
  irgl::DeviceArray<uint32_t> counter(universe, 0u);
  irgl::DeviceArray<uint8_t> done(nthreads, uint8_t(0));
  uint32_t pending = nthreads, rounds = 0, rounds_without_success = 0;
  while (pending > 0 && rounds < 100000) {
    succ.zero();
    round_kernel<<<(nthreads + 127) / 128, 128>>>(marks.data(), occupancy.data(), counter.data(), done.data(),
                                                 succ.data(), viol.data(), nthreads, universe);
    IRGL_CHECK_LAUNCH("round_kernel");
    unsigned int s = 0;
    succ.download(&s, 1);
    rounds_without_success += s == 0;
    pending -= std::min(s, pending);
    ++rounds;
  }
  EXPECT_EQ(pending, 0u);
  EXPECT_EQ(rounds_without_success, 0u);  // at least one success in every round
  unsigned int v = 1;
  viol.download(&v, 1);
  EXPECT_EQ(v, 0u);
  std::vector<uint32_t> want(universe, 0);
  for (uint32_t t = 0; t < nthreads; ++t) {
    uint32_t ids[kMaxSet];
    const uint32_t n = set_size(t);
    for (uint32_t k = 0; k < n; ++k) ids[k] = set_elem(t, k, universe);
    std::sort(ids, ids + n);
    for (uint32_t k = 0; k < n; ++k) {
      if (k == 0 || ids[k] != ids[k - 1]) want[ids[k]] += 1;
    }
  }
  EXPECT(counter.to_host() == want);
  auto m = marks.to_host();
  EXPECT(std::all_of(m.begin(), m.end(), [](unsigned int x) { return x == 0; }));  // all released
  std::printf("     %u threads, %u elements: %u rounds\n", nthreads, universe, rounds);
}

TEST(sort_ids_host) {
  uint32_t a[6] = {5, 1, 5, 0, 9, 1};
  irgl::sort_ids(a, 6);
  EXPECT((std::vector<uint32_t>(a, a + 6) == std::vector<uint32_t>{0, 1, 1, 5, 5, 9}));
  uint32_t b[1] = {3};
  irgl::sort_ids(b, 1);
  EXPECT_EQ(b[0], 3u);
}

TEST(heavy_conflicts) { run_rounds(irgl_test::scale(1u << 14), 64); }
TEST(tiny_universe) { run_rounds(irgl_test::scale(4096), 5); }
TEST(moderate_conflicts) { run_rounds(irgl_test::scale(1u << 17), 1u << 14); }

}  // namespace

int main() {
  RUN(sort_ids_host);
  RUN(heavy_conflicts);
  RUN(tiny_universe);
  RUN(moderate_conflicts);
  return irgl_test::finish();
}
