// Tests of irgl/ops.cuh: every atomic overload under contention (the exact total or extreme
// comes out), the old value each returns, and the min/max/abs built-ins.
#include <irgl/runtime.cuh>

#include <vector>

#include "test_util.cuh"

namespace {

constexpr uint32_t N = 1u << 16;

template <class T>
__global__ void add_all(T* acc, T v, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) irgl::atomic_add(acc, v);
}

template <class T>
__global__ void sub_all(T* acc, T v, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) irgl::atomic_sub(acc, v);
}

template <class T>
__global__ void min_max_all(T* lo, T* hi, uint32_t n, T offset) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const T v = static_cast<T>(i) + offset;
    irgl::atomic_min(lo, v);
    irgl::atomic_max(hi, v);
  }
}

/// Every thread exchanges its id in; the olds plus the final value are a permutation.
template <class T>
__global__ void exch_all(T* slot, T* olds, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    olds[i] = irgl::atomic_exch(slot, static_cast<T>(i + 1));
  }
}

/// A CAS loop increment: the total is exact.
template <class T>
__global__ void cas_increment(T* acc, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    T old = *acc;
    while (true) {
      const T seen = irgl::atomic_cas(acc, old, static_cast<T>(old + 1));
      if (seen == old) break;
      old = seen;
    }
  }
}

template <class T>
T run_add(T start, T v) {
  irgl::DeviceArray<T> acc(1);
  acc.upload(&start, 1);
  add_all<<<64, 256>>>(acc.data(), v, N);
  IRGL_CHECK_LAUNCH("add_all");
  T out;
  acc.download(&out, 1);
  return out;
}

template <class T>
T run_sub(T start, T v) {
  irgl::DeviceArray<T> acc(1);
  acc.upload(&start, 1);
  sub_all<<<64, 256>>>(acc.data(), v, N);
  IRGL_CHECK_LAUNCH("sub_all");
  T out;
  acc.download(&out, 1);
  return out;
}

template <class T>
void check_min_max(T offset) {
  irgl::DeviceArray<T> lo(1), hi(1);
  T big = static_cast<T>(offset + static_cast<T>(N) * 2), small = static_cast<T>(offset - 1);
  lo.upload(&big, 1);
  hi.upload(&small, 1);
  min_max_all<<<64, 256>>>(lo.data(), hi.data(), N, offset);
  IRGL_CHECK_LAUNCH("min_max_all");
  T a, b;
  lo.download(&a, 1);
  hi.download(&b, 1);
  EXPECT_EQ(a, offset);
  EXPECT_EQ(b, static_cast<T>(offset + static_cast<T>(N - 1)));
}

template <class T>
void check_exch() {
  irgl::DeviceArray<T> slot(1), olds(N);
  slot.zero();
  exch_all<<<64, 256>>>(slot.data(), olds.data(), N);
  IRGL_CHECK_LAUNCH("exch_all");
  auto o = olds.to_host();
  T last;
  slot.download(&last, 1);
  std::vector<int> seen(N + 1, 0);
  for (auto v : o) seen[static_cast<size_t>(v)]++;
  seen[static_cast<size_t>(last)]++;
  bool ok = true;
  for (uint32_t i = 0; i <= N; ++i) ok &= seen[i] == 1;
  EXPECT(ok);
}

template <class T>
void check_cas() {
  irgl::DeviceArray<T> acc(1);
  acc.zero();
  cas_increment<<<64, 256>>>(acc.data(), N);
  IRGL_CHECK_LAUNCH("cas_increment");
  T out;
  acc.download(&out, 1);
  EXPECT_EQ(out, static_cast<T>(N));
}

}  // namespace

TEST(atomic_add_every_type) {
  EXPECT_EQ(run_add<unsigned int>(5u, 3u), 5u + 3u * N);
  EXPECT_EQ(run_add<int>(-7, -2), -7 - 2 * static_cast<int>(N));
  EXPECT_EQ(run_add<unsigned long long>(1ull << 40, 3ull), (1ull << 40) + 3ull * N);
  EXPECT_EQ(run_add<long long>(-(1ll << 40), -3ll), -(1ll << 40) - 3ll * N);
  EXPECT_EQ(run_add<float>(0.0f, 0.5f), 0.5f * N);  // exact in binary
  EXPECT_EQ(run_add<double>(1.0, 0.25), 1.0 + 0.25 * N);
}

TEST(atomic_sub_every_type) {
  EXPECT_EQ(run_sub<unsigned int>(10u * N, 3u), 7u * N);
  EXPECT_EQ(run_sub<int>(0, 2), -2 * static_cast<int>(N));
  EXPECT_EQ(run_sub<unsigned long long>(1ull << 40, 3ull), (1ull << 40) - 3ull * N);
  EXPECT_EQ(run_sub<long long>(5ll, 7ll), 5ll - 7ll * N);
  EXPECT_EQ(run_sub<float>(0.0f, 0.5f), -0.5f * N);
  EXPECT_EQ(run_sub<double>(0.0, 0.25), -0.25 * N);
}

TEST(atomic_min_max) {
  check_min_max<unsigned int>(100u);
  check_min_max<int>(-1000);
  check_min_max<unsigned long long>(1ull << 40);
  check_min_max<long long>(-(1ll << 40));
}

TEST(atomic_exch_and_cas) {
  check_exch<unsigned int>();
  check_exch<int>();
  check_exch<unsigned long long>();
  check_exch<long long>();
  check_cas<unsigned int>();
  check_cas<int>();
  check_cas<unsigned long long>();
  check_cas<long long>();
}

TEST(builtins) {
  EXPECT_EQ(irgl::min_of(3, -4), -4);
  EXPECT_EQ(irgl::max_of(3u, 4u), 4u);
  EXPECT_EQ(irgl::abs_of(-5ll), 5ll);
  EXPECT_EQ(irgl::abs_of(2.5f), 2.5f);
}

int main() {
  RUN(atomic_add_every_type);
  RUN(atomic_sub_every_type);
  RUN(atomic_min_max);
  RUN(atomic_exch_and_cas);
  RUN(builtins);
  return irgl_test::finish();
}
