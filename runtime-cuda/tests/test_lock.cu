// Lock tests: the divergence-free blocking pattern under heavy contention (a
// counter incremented non-atomically inside the critical section gives the
// exact total), and the try-once Atomic ... Else form.
#include <irgl/runtime.cuh>

#include <vector>

#include "test_util.cuh"

namespace {

struct Guarded {
  uint32_t count;     // incremented non-atomically under the lock
  uint32_t checksum;  // sum of thread ids, also non-atomic
};

/// Each thread takes lock tid % nlocks `reps` times with the blocking pattern.
__global__ void blocking(unsigned int* locks, Guarded* data, uint32_t nthreads, uint32_t nlocks, uint32_t reps) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  const uint32_t l = tid % nlocks;
  for (uint32_t r = 0; r < reps; ++r) {
    bool done = false;
    while (!done) {
      if (irgl::try_lock(locks, l)) {
        Guarded g = data[l];
        g.count += 1;
        g.checksum += tid;
        data[l] = g;
        irgl::unlock(locks, l);
        done = true;
      }
    }
  }
}

/// Atomic ... Else: each thread tries once.
__global__ void try_once(unsigned int* locks, Guarded* data, unsigned int* successes, unsigned int* failures,
                         uint32_t nthreads, uint32_t nlocks) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  const uint32_t l = tid % nlocks;
  if (irgl::try_lock(locks, l)) {
    data[l].count += 1;
    data[l].checksum += tid;
    irgl::unlock(locks, l);
    atomicAdd(&successes[l], 1u);
  } else {
    atomicAdd(&failures[l], 1u);
  }
}

void run_blocking(uint32_t nthreads, uint32_t nlocks, uint32_t reps) {
  irgl::DeviceArray<unsigned int> locks(nlocks, 0u);
  irgl::DeviceArray<Guarded> data(nlocks);
  data.zero();
  blocking<<<(nthreads + 255) / 256, 256>>>(locks.data(), data.data(), nthreads, nlocks, reps);
  IRGL_CHECK_LAUNCH("blocking");
  std::vector<Guarded> got(nlocks);
  data.download(got.data(), nlocks);
  std::vector<uint32_t> want_count(nlocks, 0), want_sum(nlocks, 0);
  for (uint32_t t = 0; t < nthreads; ++t) {
    want_count[t % nlocks] += reps;
    want_sum[t % nlocks] += t * reps;
  }
  uint32_t bad = 0;
  for (uint32_t l = 0; l < nlocks; ++l) bad += got[l].count != want_count[l] || got[l].checksum != want_sum[l];
  EXPECT_EQ(bad, 0u);
  auto lk = locks.to_host();
  uint32_t held = 0;
  for (auto v : lk) held += v != 0;
  EXPECT_EQ(held, 0u);  // every lock released
}

TEST(one_lock_all_threads) { run_blocking(irgl_test::scale(1u << 16), 1, 1); }
TEST(few_locks_many_threads) { run_blocking(irgl_test::scale(1u << 18), 7, 2); }
TEST(lanes_of_a_warp_share_a_lock) { run_blocking(irgl_test::scale(1u << 16), 2, 3); }  // lanes 0,2,4.. contend in-warp
TEST(many_locks) { run_blocking(irgl_test::scale(1u << 20), 4099, 1); }

TEST(try_once_else) {
  const uint32_t nthreads = irgl_test::scale(1u << 18), nlocks = 5;
  irgl::DeviceArray<unsigned int> locks(nlocks, 0u), succ(nlocks, 0u), fail(nlocks, 0u);
  irgl::DeviceArray<Guarded> data(nlocks);
  data.zero();
  try_once<<<(nthreads + 255) / 256, 256>>>(locks.data(), data.data(), succ.data(), fail.data(), nthreads, nlocks);
  IRGL_CHECK_LAUNCH("try_once");
  std::vector<Guarded> got(nlocks);
  data.download(got.data(), nlocks);
  auto s = succ.to_host(), f = fail.to_host();
  for (uint32_t l = 0; l < nlocks; ++l) {
    EXPECT(s[l] >= 1u);                           // the first to try a free lock gets it
    EXPECT_EQ(s[l] + f[l], nthreads / nlocks + (l < nthreads % nlocks ? 1u : 0u));
    EXPECT_EQ(got[l].count, s[l]);                // the Else path never touched the data
  }
}

}  // namespace

int main() {
  RUN(one_lock_all_threads);
  RUN(few_locks_many_threads);
  RUN(lanes_of_a_warp_share_a_lock);
  RUN(many_locks);
  RUN(try_once_else);
  return irgl_test::finish();
}
