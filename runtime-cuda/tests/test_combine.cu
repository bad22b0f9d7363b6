// Reductions over a nested ForAll's iterations (irgl/combine.cuh): for every combiner and
// type (`or` and `and` over sparse bits), each block's threads fold values into owners' slots
// in shared memory the three ways the schedulers do (group_combine per aligned group of 2..32
// lanes, then one update per group; segmented_combine over runs of equal owners, then one
// atomic per run; combine_atomic from every thread), and every slot is compared with the
// combination computed on the host.
// irgl-test: racecheck
#include <irgl/runtime.cuh>

#include <vector>

#include "test_util.cuh"

namespace {

constexpr int kBlock = 256;

/// Thread `tid`'s value: spread over the type's range, negative for signed types, small
/// integers for floats (exact sums).
template <class T>
__host__ __device__ T value_of(uint32_t tid, uint32_t seed) {
  const uint32_t x = irgl_test::hash32(tid * 7919u + seed);
  if constexpr (std::is_same<T, bool>::value) {
    return (x % 7u) != 0u;  // mostly true: `all` is false somewhere, `any` true
  } else if constexpr (std::is_floating_point<T>::value) {
    return static_cast<T>(static_cast<int>(x % 64u) - 20);
  } else if constexpr (std::is_signed<T>::value) {
    return static_cast<T>(static_cast<long long>(x) - 2147483648ll) * static_cast<T>(sizeof(T) == 8 ? 3 : 1);
  } else {
    return static_cast<T>(x) * static_cast<T>(sizeof(T) == 8 ? 1000003u : 1u);
  }
}

/// Thread `tid`'s value under combiner `C`: for `or` two bits of the type's width (and for
/// `and` all bits but two), so that a slot's combination is neither all ones nor zero.
template <irgl::Combiner C, class T>
__host__ __device__ T value_for(uint32_t tid, uint32_t seed) {
  if constexpr (C == irgl::Combiner::Or || C == irgl::Combiner::And) {
    const uint32_t x = irgl_test::hash32(tid * 7919u + seed);
    constexpr uint32_t kBits = sizeof(T) * 8;
    using U = typename std::make_unsigned<T>::type;
    const U bits = static_cast<U>((U(1) << (x % kBits)) | (U(1) << ((x >> 8) % kBits)));
    return static_cast<T>(C == irgl::Combiner::Or ? bits : static_cast<U>(~bits));
  } else {
    return value_of<T>(tid, seed);
  }
}

/// The owner (0..kBlock-1) of thread `tid`'s value: runs of consecutive threads, as the
/// fine-grained scheduler's iterations are, of lengths 1 to 40 (`way` 1), or the slot of the
/// thread's aligned group of `width` (`way` 0), or any slot (`way` 2).
__host__ __device__ uint32_t owner_of(uint32_t tid, int way, int width) {
  if (way == 0) return (tid / width) % kBlock;
  if (way == 1) {
    uint32_t start = 0, owner = 0;
    for (;;) {
      const uint32_t len = 1u + irgl_test::hash32(owner + 77u) % 40u;
      if (tid < start + len) return owner % kBlock;
      start += len;
      ++owner;
    }
  }
  return irgl_test::hash32(tid + 5u) % kBlock;
}

template <irgl::Combiner C, class T, int WIDTH>
__global__ void fold(T* out, uint32_t seed, int way) {
  __shared__ irgl::slot_t<T> slots[kBlock];
  slots[threadIdx.x] = static_cast<irgl::slot_t<T>>(value_for<C, T>(threadIdx.x + 100000u, seed));
  __syncthreads();
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = value_for<C, T>(tid, seed);
  const uint32_t o = owner_of(tid, way, WIDTH);
  if (way == 0) {
    const T group = irgl::group_combine<C, WIDTH>(v);
    // Groups of one block share slots with the groups of the same index: atomics.
    if ((threadIdx.x & (WIDTH - 1)) == 0) irgl::combine_atomic<C, T>(&slots[o], group);
  } else if (way == 1) {
    bool tail;
    const T run = irgl::segmented_combine<C>(v, o, tail);
    if (tail) irgl::combine_atomic<C, T>(&slots[o], run);
  } else {
    irgl::combine_atomic<C, T>(&slots[o], v);
  }
  __syncthreads();
  out[blockIdx.x * kBlock + threadIdx.x] = static_cast<T>(slots[threadIdx.x]);
}

template <irgl::Combiner C, class T, int WIDTH>
void check(int way, uint32_t blocks, uint32_t seed) {
  irgl::DeviceArray<T> out(blocks * kBlock);
  fold<C, T, WIDTH><<<blocks, kBlock>>>(out.data(), seed, way);
  IRGL_CHECK_LAUNCH("fold");
  const auto got = out.to_host();
  for (uint32_t b = 0; b < blocks; ++b) {
    std::vector<T> want(kBlock);
    for (uint32_t s = 0; s < kBlock; ++s) want[s] = value_for<C, T>(s + 100000u, seed);
    for (uint32_t t = 0; t < kBlock; ++t) {
      const uint32_t tid = b * kBlock + t;
      const uint32_t o = owner_of(tid, way, WIDTH);
      want[o] = irgl::combine<C, T>(want[o], value_for<C, T>(tid, seed));
    }
    for (uint32_t s = 0; s < kBlock; ++s) {
      if (!(static_cast<T>(got[b * kBlock + s]) == want[s])) {
        EXPECT(static_cast<T>(got[b * kBlock + s]) == want[s]);
        std::fprintf(stderr, "  combiner %d, width %d, way %d, block %u, slot %u\n", static_cast<int>(C), WIDTH,
                     way, b, s);
        return;
      }
    }
  }
}

template <irgl::Combiner C, class T>
void check_all() {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    check<C, T, 2>(0, 8, seed);
    check<C, T, 4>(0, 8, seed);
    check<C, T, 8>(0, 8, seed);
    check<C, T, 16>(0, 8, seed);
    check<C, T, 32>(0, 8, seed);
    check<C, T, 32>(1, 8, seed);
    check<C, T, 32>(2, 8, seed);
  }
}

template <class T>
void check_numbers() {
  check_all<irgl::Combiner::Sum, T>();
  check_all<irgl::Combiner::Min, T>();
  check_all<irgl::Combiner::Max, T>();
}

template <class T>
void check_bits() {
  check_all<irgl::Combiner::Or, T>();
  check_all<irgl::Combiner::And, T>();
}

TEST(identities) {
  EXPECT_EQ((irgl::identity<irgl::Combiner::Sum, int>()), 0);
  EXPECT_EQ((irgl::identity<irgl::Combiner::Min, unsigned>()), 0xffffffffu);
  EXPECT_EQ((irgl::identity<irgl::Combiner::Max, long long>()), (-9223372036854775807ll - 1));
  EXPECT((irgl::identity<irgl::Combiner::Min, double>() > 1e308));
  EXPECT((irgl::identity<irgl::Combiner::Max, float>() < -3e38f));
  EXPECT(!(irgl::identity<irgl::Combiner::Any, bool>()));
  EXPECT((irgl::identity<irgl::Combiner::All, bool>()));
  EXPECT_EQ((irgl::identity<irgl::Combiner::Or, unsigned long long>()), 0ull);
  EXPECT_EQ((irgl::identity<irgl::Combiner::And, unsigned>()), 0xffffffffu);
  EXPECT_EQ((irgl::identity<irgl::Combiner::And, int>()), -1);
}

TEST(u32) { check_numbers<unsigned>(); }
TEST(i32) { check_numbers<int>(); }
TEST(u64) { check_numbers<unsigned long long>(); }
TEST(i64) { check_numbers<long long>(); }
TEST(f32) { check_numbers<float>(); }
TEST(f64) { check_numbers<double>(); }
TEST(bits) {
  check_bits<unsigned>();
  check_bits<int>();
  check_bits<unsigned long long>();
  check_bits<long long>();
}
TEST(flags) {
  check_all<irgl::Combiner::Any, bool>();
  check_all<irgl::Combiner::All, bool>();
}

}  // namespace

int main() {
  RUN(identities);
  if (irgl_test::host_only()) return irgl_test::finish();
  RUN(u32);
  RUN(i32);
  RUN(u64);
  RUN(i64);
  RUN(f32);
  RUN(f64);
  RUN(flags);
  RUN(bits);
  return irgl_test::finish();
}
