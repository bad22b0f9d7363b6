// IRGL_SYNC_CHECK (debug mode): IRGL_CHECK_LAUNCH synchronizes, so a fault
// inside a kernel is reported at its launch, naming the kernel.
#define IRGL_SYNC_CHECK 1
#include <irgl/runtime.cuh>

#include "test_util.cuh"

namespace {

__global__ void fine(int* p) { p[threadIdx.x] = static_cast<int>(threadIdx.x); }
__global__ void trapper() { __trap(); }

TEST(good_kernel_passes) {
  irgl::DeviceArray<int> a(32, 0);
  fine<<<1, 32>>>(a.data());
  IRGL_CHECK_LAUNCH("fine");
  EXPECT_EQ(a.to_host()[31], 31);
}

TEST(fault_reported_at_launch) {
  const irgl_test::ChildResult r = irgl_test::run_child("trap-child");
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: "));
  EXPECT(irgl_test::contains(r.output, "test_sync_check.cu:"));
  EXPECT(irgl_test::contains(r.output, ": kernel trapper failed: "));
  EXPECT_EQ(irgl_test::count_lines(r.output), 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "trap-child") {
    trapper<<<1, 1>>>();
    IRGL_CHECK_LAUNCH("trapper");
    return 0;
  }
  RUN(good_kernel_passes);
  RUN(fault_reported_at_launch);
  return irgl_test::finish();
}
