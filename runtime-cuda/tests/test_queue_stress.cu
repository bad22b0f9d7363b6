// Stress test of the asynchronous queue near a full ring (irgl/queue.cuh): rings of 1 to
// 4096 slots, grids of 1 block to every resident block, every kind of reservation, with and
// without continuations, trees (many items wait) and chains (few wait), and random delays
// injected where a pusher has reserved its slot but not written it and where a thread has
// claimed an item but not taken it (IRGL_QUEUE_DELAY). Every run must either process every
// task exactly once, or stop with the overflow error having processed none twice, and end
// within a time limit: a lost item would hang its taker, a duplicated one count twice. Runs
// that cannot overflow (a single chain, a ring as large as the tree) must complete.
// irgl-test: no-sanitizer
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

/// The seed of this run's delays (0: none), and the delay itself: a quarter of the calls
/// sleep up to 4 us, depending on the seed, the thread, the clock and the site.
__device__ unsigned int stress_seed;
__device__ inline void stress_delay(int where);
#define IRGL_QUEUE_DELAY(where) stress_delay(where)

#include "queue_tasks.cuh"
#include "test_util.cuh"

__device__ inline void stress_delay(int where) {
  const unsigned int seed = *static_cast<volatile unsigned int*>(&stress_seed);
  if (seed == 0u) return;
  unsigned int h = seed ^ (threadIdx.x * 0x9E3779B9u) ^ (blockIdx.x * 0x85EBCA6Bu) ^
                   static_cast<unsigned int>(clock64()) ^ (static_cast<unsigned int>(where) * 0xC2B2AE35u);
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  if ((h & 3u) == 0u) __nanosleep(h >> 20);
}

namespace {

using namespace queue_tasks;

/// What one run showed.
enum class Verdict { kComplete, kOverflow, kLost, kDuplicated, kHung, kBadCounters };

struct Shape {
  const char* name;
  uint32_t n, roots, stride;
  bool may_overflow;  ///< whether more items than the ring holds can wait
};

/// Runs `grow` once under a watchdog and judges it.
Verdict run_once(const Shape& shape, uint32_t capacity, uint32_t blocks, int how, unsigned int seed,
                 cudaStream_t stream, cudaStream_t side, unsigned int* host_stop) {
  irgl::HostAsyncQueue q(capacity);
  irgl::HostWorklist in(shape.roots);
  std::vector<uint32_t> items(shape.roots);
  for (uint32_t i = 0; i < shape.roots; ++i) items[i] = i;
  in.assign(items);
  irgl::DeviceArray<uint32_t> seen(shape.n);
  seen.zero();
  IRGL_CHECK(cudaMemcpyToSymbol(stress_seed, &seed, sizeof seed));
  IRGL_CHECK(cudaDeviceSynchronize());
  grow<<<blocks, kBlock, 0, stream>>>(in.view(), q.view(), shape.n, shape.stride, how, seen.data());
  IRGL_CHECK_LAUNCH("grow");
  // The watchdog: 20 s for a run of a few thousand tasks is a hang; then the host stops
  // the queue itself (every wait watches `stop`) to get the GPU back.
  const auto start = std::chrono::steady_clock::now();
  bool hung = false;
  cudaError_t e;
  while ((e = cudaStreamQuery(stream)) == cudaErrorNotReady) {
    if (!hung && std::chrono::steady_clock::now() - start > std::chrono::seconds(20)) {
      hung = true;
      IRGL_CHECK(cudaMemcpyAsync(&q.view().ctl->stop, host_stop, sizeof *host_stop, cudaMemcpyHostToDevice, side));
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(40)) {
      std::printf("FAIL: a run of grow does not end even when stopped: the GPU is stuck\n");
      std::fflush(stdout);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  IRGL_CHECK(e);
  if (hung) return Verdict::kHung;
  const std::vector<uint32_t> s = seen.to_host();
  uint32_t zero = 0, many = 0;
  for (uint32_t x = 0; x < shape.n; ++x) {
    zero += s[x] == 0u;
    many += s[x] > 1u;
  }
  const RingState r = ring_state(q);
  if (many != 0) return Verdict::kDuplicated;
  if (r.ctl.stop == irgl::kAsyncOverflow) return Verdict::kOverflow;
  if (r.ctl.stop != irgl::kAsyncRunning) return Verdict::kBadCounters;
  if (zero != 0) return Verdict::kLost;
  const bool kept = how == kKeep || how == kKeepAny;
  const unsigned long long pushed = shape.n - shape.roots;
  if (r.ctl.head != 0 || r.ctl.tail != 0 || r.ctl.exited != 0 || r.full != 0 || r.ctl.base != r.ctl.pushed ||
      (kept ? r.ctl.pushed > pushed : r.ctl.pushed != pushed)) {
    return Verdict::kBadCounters;
  }
  return Verdict::kComplete;
}

TEST(every_task_once_or_overflow_never_lost_duplicated_or_hung) {
  int device = 0, sms = 0, per_sm = 0;
  IRGL_CHECK(cudaGetDevice(&device));
  IRGL_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  IRGL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grow, kBlock, 0));
  const uint32_t resident = static_cast<uint32_t>(sms * per_sm);
  const Shape shapes[] = {
      {"tree", 3000, 1, 0, true},        // a wide tree: many items wait
      {"chains", 3000, 64, 64, true},    // 64 chains: at most 64 wait
      {"one-chain", 600, 1, 1, false},   // one chain: at most one waits
  };
  const uint32_t capacities[] = {1, 2, 3, 5, 8, 16, 31, 64, 127, 128, 255, 256, 257, 1000, 4096};
  const uint32_t grids[] = {1, 2, 5, static_cast<uint32_t>(sms), resident};
  const unsigned int seeds[] = {0u, 0x1234567u, 0x89abcdefu};
  cudaStream_t stream, side;
  IRGL_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  IRGL_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  unsigned int* host_stop = nullptr;
  IRGL_CHECK(cudaMallocHost(&host_stop, sizeof *host_stop));
  *host_stop = irgl::kAsyncOverflow;
  int counts[6] = {0, 0, 0, 0, 0, 0};
  int runs = 0, wrongly_overflowed = 0;
  for (const Shape& shape : shapes) {
    for (uint32_t capacity : capacities) {
      for (uint32_t blocks : grids) {
        for (int how = 0; how < kReserveKinds; ++how) {
          for (unsigned int seed : seeds) {
            const Verdict v = run_once(shape, capacity, blocks, how, seed, stream, side, host_stop);
            ++runs;
            ++counts[static_cast<int>(v)];
            // A ring that holds every item that can wait never overflows.
            const bool must_complete = !shape.may_overflow || capacity >= shape.n;
            if (v == Verdict::kOverflow && must_complete) ++wrongly_overflowed;
            if (v != Verdict::kComplete && v != Verdict::kOverflow) {
              static const char* names[] = {"complete", "overflow", "LOST", "DUPLICATED", "HUNG", "BAD COUNTERS"};
              std::printf("  %s: %s, capacity %u, %u blocks, %s, seed %#x\n", names[static_cast<int>(v)],
                          shape.name, capacity, blocks, reserve_name(how), seed);
            }
            if (v == Verdict::kOverflow && must_complete) {
              std::printf("  WRONG OVERFLOW: %s, capacity %u, %u blocks, %s, seed %#x\n", shape.name, capacity,
                          blocks, reserve_name(how), seed);
            }
          }
        }
      }
    }
  }
  std::printf("  %d runs: %d complete, %d overflowed (allowed), %d lost, %d duplicated, %d hung, %d bad counters\n",
              runs, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]);
  std::fflush(stdout);
  EXPECT(runs >= 3000);
  EXPECT_EQ(counts[0] + counts[1], runs);
  EXPECT_EQ(wrongly_overflowed, 0);
  EXPECT(counts[0] > runs / 2);  // most complete: the test is not all overflows
  IRGL_CHECK(cudaFreeHost(host_stop));
  IRGL_CHECK(cudaStreamDestroy(side));
  IRGL_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main() {
  if (irgl_test::host_only()) return irgl_test::finish();
  RUN(every_task_once_or_overflow_never_lost_duplicated_or_hung);
  return irgl_test::finish();
}
