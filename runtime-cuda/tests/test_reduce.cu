// Any/All reduction tests: all-false, all-true, one-true/one-false, no
// contributions, divergent contributions, and contribute(kind, v).
#include <irgl/runtime.cuh>

#include <vector>

#include "test_util.cuh"

using irgl::Reduce;
using irgl::ReduceFlag;

namespace {

enum Pattern { AllFalse = 0, AllTrue = 1, OneTrue = 2, OneFalse = 3 };

__device__ bool value_of(int pattern, uint32_t tid, uint32_t special) {
  switch (pattern) {
    case AllFalse: return false;
    case AllTrue: return true;
    case OneTrue: return tid == special;
    default: return tid != special;
  }
}

/// Threads with tid % every == phase contribute (divergent); every = 0: nobody contributes.
__global__ void contribute(ReduceFlag f, Reduce kind, int pattern, uint32_t n, uint32_t special, uint32_t every,
                           uint32_t phase) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n || every == 0) return;
  if (tid % every == phase) {
    const bool v = value_of(pattern, tid, special);
    if (kind == Reduce::Any) {
      f.contribute_any(v);
    } else {
      f.contribute_all(v);
    }
  }
}

__global__ void contribute_kind(ReduceFlag f, Reduce kind, int pattern, uint32_t n, uint32_t special) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) f.contribute(kind, value_of(pattern, tid, special));
}

bool run(Reduce kind, int pattern, uint32_t n, uint32_t special, uint32_t every, uint32_t phase) {
  irgl::HostReduceFlag f;
  f.reset(kind);
  contribute<<<(n + 255) / 256, 256>>>(f.view(), kind, pattern, n, special, every, phase);
  IRGL_CHECK_LAUNCH("contribute");
  return f.read();
}

const uint32_t kN = irgl_test::scale(1u << 20);

TEST(any_all_false) { EXPECT_EQ(run(Reduce::Any, AllFalse, kN, 0, 1, 0), false); }
TEST(any_all_true) { EXPECT_EQ(run(Reduce::Any, AllTrue, kN, 0, 1, 0), true); }
TEST(any_one_true) {
  for (uint32_t special : {0u, 31u, kN / 3, kN - 1}) EXPECT_EQ(run(Reduce::Any, OneTrue, kN, special, 1, 0), true);
}
TEST(any_none) { EXPECT_EQ(run(Reduce::Any, AllTrue, kN, 0, 0, 0), false); }
TEST(all_all_true) { EXPECT_EQ(run(Reduce::All, AllTrue, kN, 0, 1, 0), true); }
TEST(all_all_false) { EXPECT_EQ(run(Reduce::All, AllFalse, kN, 0, 1, 0), false); }
TEST(all_one_false) {
  for (uint32_t special : {0u, 31u, kN / 3, kN - 1}) EXPECT_EQ(run(Reduce::All, OneFalse, kN, special, 1, 0), false);
}
TEST(all_none) { EXPECT_EQ(run(Reduce::All, AllFalse, kN, 0, 0, 0), true); }

TEST(divergent_lanes) {
  // Only lanes with tid % 3 == 1 contribute; the special thread is (not) among them.
  EXPECT_EQ(run(Reduce::Any, OneTrue, kN, 3 * 100 + 1, 3, 1), true);
  EXPECT_EQ(run(Reduce::Any, OneTrue, kN, 3 * 100 + 2, 3, 1), false);
  EXPECT_EQ(run(Reduce::All, OneFalse, kN, 3 * 100 + 1, 3, 1), false);
  EXPECT_EQ(run(Reduce::All, OneFalse, kN, 3 * 100 + 2, 3, 1), true);
}

TEST(contribute_by_kind_and_reset) {
  irgl::HostReduceFlag f;
  const uint32_t n = 100000;
  f.reset(Reduce::Any);
  contribute_kind<<<(n + 255) / 256, 256>>>(f.view(), Reduce::Any, OneTrue, n, 777);
  IRGL_CHECK_LAUNCH("contribute_kind");
  EXPECT_EQ(f.read(), true);
  f.reset(Reduce::Any);  // reset clears the previous result
  EXPECT_EQ(f.read(), false);
  f.reset(Reduce::All);
  EXPECT_EQ(f.read(), true);
  contribute_kind<<<(n + 255) / 256, 256>>>(f.view(), Reduce::All, OneFalse, n, 777);
  IRGL_CHECK_LAUNCH("contribute_kind");
  EXPECT_EQ(f.read(), false);
}

}  // namespace

int main() {
  RUN(any_all_false);
  RUN(any_all_true);
  RUN(any_one_true);
  RUN(any_none);
  RUN(all_all_true);
  RUN(all_all_false);
  RUN(all_one_false);
  RUN(all_none);
  RUN(divergent_lanes);
  RUN(contribute_by_kind_and_reset);
  return irgl_test::finish();
}
