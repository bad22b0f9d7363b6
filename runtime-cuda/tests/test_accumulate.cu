// Aggregated additions (irgl/accumulate.cuh): warp_add from converged and divergent lanes,
// block_add from every thread, for each integer type, with negative values and zero sums;
// every result is compared with the sum computed on the host. warp_fetch_add as a
// reservation: the ranges [old, old + amount) the threads get must tile the counter's
// growth exactly, whatever lanes aggregated together.
// irgl-test: racecheck
#include <irgl/runtime.cuh>

#include <algorithm>
#include <utility>
#include <vector>

#include "test_util.cuh"

namespace {

/// The value thread `tid` adds: mixed signs for the signed types (wraps for the unsigned).
template <class T>
__host__ __device__ T value_of(uint32_t tid, uint32_t seed) {
  const uint32_t x = tid * 2654435761u + seed;
  return static_cast<T>(static_cast<long long>(x % 1000u) - (seed % 2u == 0u ? 0 : 500));
}

/// Threads with tid % every == phase add (divergent when every > 1) at warp level.
template <class T>
__global__ void warp_adds(T* sum, uint32_t n, uint32_t every, uint32_t phase, uint32_t seed) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n && tid % every == phase) irgl::warp_add(sum, value_of<T>(tid, seed));
}

/// Every thread of every block calls block_add; threads past n add 0.
template <class T>
__global__ void block_adds(T* sum, uint32_t n, uint32_t seed) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  irgl::block_add<256>(sum, tid < n ? value_of<T>(tid, seed) : T(0));
  irgl::block_add<256>(sum, tid < n ? value_of<T>(tid, seed + 2) : T(0));  // the shared words reused
}

/// Threads with tid % every == phase reserve `amount` (0 for every fifth thread) from a
/// counter that starts at `start`, at warp level, and record what they got.
template <class T>
__global__ void warp_fetch_adds(T* counter, T* got, T* amount, uint32_t n, uint32_t every, uint32_t phase,
                                uint32_t seed) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n || tid % every != phase) return;
  const T a = tid % 5u == 0u ? T(0) : static_cast<T>(value_of<T>(tid, seed * 2u) % 1000);
  amount[tid] = a;
  got[tid] = irgl::warp_fetch_add(counter, a);
}

template <class T>
void check_fetch_adds(uint32_t n, uint32_t every, uint32_t seed) {
  const T start = static_cast<T>(12345);
  const uint32_t phase = 1u % every;
  irgl::DeviceArray<T> counter(1), got(n), amount(n);
  counter.upload(&start, 1, 0);
  warp_fetch_adds<T><<<(n + 255) / 256, 256>>>(counter.data(), got.data(), amount.data(), n, every, phase, seed);
  IRGL_CHECK_LAUNCH("warp_fetch_adds");
  const std::vector<T> g = got.to_host(), a = amount.to_host();
  std::vector<std::pair<T, T>> ranges;  // (old, amount) of the threads that reserved
  for (uint32_t t = 0; t < n; ++t)
    if (t % every == phase) ranges.emplace_back(g[t], a[t]);
  std::sort(ranges.begin(), ranges.end());
  T next = start;
  bool tiled = true;
  for (const auto& [old, amt] : ranges) {
    tiled = tiled && old == next;
    next = static_cast<T>(next + amt);
  }
  EXPECT(tiled);
  EXPECT_EQ(counter.to_host()[0], next);
}

template <class T>
T host_sum(uint32_t n, uint32_t every, uint32_t phase, uint32_t seed) {
  T s = 0;
  for (uint32_t t = 0; t < n; ++t)
    if (t % every == phase) s = static_cast<T>(s + value_of<T>(t, seed));
  return s;
}

template <class T>
void check_type() {
  irgl::DeviceArray<T> sum(1);
  for (uint32_t seed : {1u, 2u}) {
    for (uint32_t n : {1u, 31u, 1000u, irgl_test::scale(1u << 20)}) {
      for (uint32_t every : {1u, 3u, 32u}) {
        sum.zero();
        warp_adds<T><<<(n + 255) / 256, 256>>>(sum.data(), n, every, 1u % every, seed);
        IRGL_CHECK_LAUNCH("warp_adds");
        EXPECT_EQ(sum.to_host()[0], host_sum<T>(n, every, 1u % every, seed));
      }
      for (uint32_t every : {1u, 3u, 32u}) check_fetch_adds<T>(n, every, seed);
      sum.zero();
      block_adds<T><<<(n + 255) / 256, 256>>>(sum.data(), n, seed);
      IRGL_CHECK_LAUNCH("block_adds");
      EXPECT_EQ(sum.to_host()[0], static_cast<T>(host_sum<T>(n, 1, 0, seed) + host_sum<T>(n, 1, 0, seed + 2)));
    }
  }
}

TEST(u32) { check_type<unsigned int>(); }
TEST(i32) { check_type<int>(); }
TEST(u64) { check_type<unsigned long long>(); }
TEST(i64) { check_type<long long>(); }

}  // namespace

int main() {
  RUN(u32);
  RUN(i32);
  RUN(u64);
  RUN(i64);
  return irgl_test::finish();
}
