// check.cuh, array.cuh, timer.cuh and warp.cuh helpers: DeviceArray fill /
// upload / download / move for several types, an asynchronous upload of pageable
// memory behind a running kernel, DeviceScalar, GpuTimer,
// nth_set_bit and warp_exclusive_sum, and the one-line errors and exit status
// of IRGL_CHECK and IRGL_CHECK_LAUNCH.
#include <irgl/runtime.cuh>

#include <vector>

#include "test_util.cuh"

using irgl_test::contains;

namespace {

__global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}
__global__ void noop() {}

/// Every lane with (hash(lane+salt) & 3) != 0 takes part; writes its exclusive sum and the total.
__global__ void warp_scan(uint32_t salt, unsigned long long* excl, unsigned long long* total) {
  const uint32_t t = threadIdx.x;
  if (irgl_test::hash32(t + salt) & 3u) {
    const unsigned mask = __activemask();
    unsigned long long tot = 0;
    excl[t] = irgl::warp_exclusive_sum<unsigned long long>(mask, t * 1000ull + salt, &tot);
    total[t] = tot;
  }
}

/// Checked indices (local.cuh): thread t reads p[t] through checked_index over n elements,
/// writes what it read, and checks a list of ids; `out` gets the index each got back.
__global__ void checked(const uint32_t* p, uint32_t n, uint64_t* out, irgl::DeviceError* e) {
  const uint32_t t = threadIdx.x;
  const uint64_t i = irgl::checked_index(t, n, e, 0x18005u);
  out[t] = i + 1000u * (p[i] == (i == t ? t : 0u) ? 0u : 1u);
  if (t == 0) {
    uint32_t ids[4] = {1, n + 7, 2, n + 9};
    uint32_t (&checked_ids)[4] = irgl::checked_ids(ids, 4, n, e, 0x28006u);
    out[blockDim.x] = checked_ids[0] + 10u * checked_ids[1] + 100u * checked_ids[2] + 1000u * checked_ids[3];
  }
}

TEST(checked_indices_record_the_first_violation) {
  const uint32_t n = 40, threads = 64;
  std::vector<uint32_t> h(n);
  for (uint32_t i = 0; i < n; ++i) h[i] = i;
  irgl::DeviceArray<uint32_t> p(h);
  irgl::DeviceArray<uint64_t> out(threads + 1);
  irgl::DeviceArray<irgl::DeviceError> e(1);
  e.zero();
  checked<<<1, threads>>>(p.data(), n, out.data(), e.data());
  IRGL_CHECK_LAUNCH("checked");
  IRGL_CHECK(cudaDeviceSynchronize());
  const std::vector<uint64_t> o = out.to_host();
  uint32_t wrong = 0;
  for (uint32_t t = 0; t < threads; ++t) wrong += o[t] != (t < n ? t : 0u);  // element 0 past the end
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(o[threads], 1ull + 0u + 200u + 0u);  // the ids past the end replaced by 0
  irgl::DeviceError got{};
  e.download(&got, 1);
  // One violation is recorded, with its own index: a thread's (40..63) or an id's.
  const bool thread_error = got.code == 0x18005u && got.index >= n && got.index < threads;
  const bool id_error = got.code == 0x28006u && (got.index == n + 7 || got.index == n + 9);
  EXPECT(thread_error || id_error);
}

TEST(device_array_types) {
  irgl::DeviceArray<float> f(1000, 0.25f);
  auto hf = f.to_host();
  EXPECT(std::all_of(hf.begin(), hf.end(), [](float x) { return x == 0.25f; }));
  std::vector<float> up(1000);
  for (int i = 0; i < 1000; ++i) up[i] = i * 0.5f;
  f.upload(up);
  EXPECT(f.to_host() == up);
  float part[3];
  f.download(part, 3, 10);
  EXPECT(part[0] == 5.0f && part[2] == 6.0f);
  irgl::DeviceArray<uint64_t> u(77, 0x123456789abcdefull);
  auto hu = u.to_host();
  EXPECT(std::all_of(hu.begin(), hu.end(), [](uint64_t x) { return x == 0x123456789abcdefull; }));
  irgl::DeviceArray<bool> b(5, true);
  auto hb = b.to_host();
  EXPECT((hb == std::vector<uint8_t>{1, 1, 1, 1, 1}));
  b.zero();
  hb = b.to_host();
  EXPECT((hb == std::vector<uint8_t>{0, 0, 0, 0, 0}));
  irgl::DeviceArray<double> big(3000000, -1.5);  // several fill blocks
  auto hd = big.to_host();
  EXPECT(hd.front() == -1.5 && hd.back() == -1.5);
  irgl::DeviceArray<int> empty(0);
  EXPECT(empty.data() == nullptr && empty.size() == 0);
  empty.fill(3);
  EXPECT(empty.to_host().empty());
}

TEST(device_array_move) {
  irgl::DeviceArray<int> a(10, 7);
  int* p = a.data();
  irgl::DeviceArray<int> b(std::move(a));
  EXPECT(b.data() == p && b.size() == 10);
  EXPECT(a.data() == nullptr && a.size() == 0);
  irgl::DeviceArray<int> c;
  c = std::move(b);
  EXPECT(c.data() == p);
  EXPECT_EQ(c.to_host()[9], 7);
  irgl::DeviceScalar<uint32_t> s(41);
  EXPECT_EQ(s.get(), 41u);
  s.set(42);
  EXPECT_EQ(s.get(), 42u);
}

// upload_async stages pageable memory on return: the source may change (or go out of scope)
// while a kernel before the copy still runs, and the copy lands after that kernel.
__global__ void add_to(int* p, int n, int v) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) p[i] += v;
}

TEST(device_array_upload_async_behind_a_kernel) {
  int clock_khz = 0, dev = 0;
  IRGL_CHECK(cudaGetDevice(&dev));
  IRGL_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  irgl::DeviceArray<int> a(64, 1);
  add_to<<<1, 64>>>(a.data(), 64, 1);  // before the copy: its result is overwritten
  spin<<<1, 1>>>(static_cast<long long>(clock_khz) * 2);  // >= 2 ms
  IRGL_CHECK_LAUNCH("spin");
  {
    std::vector<int> src(64);
    for (int i = 0; i < 64; ++i) src[i] = 100 + i;
    a.upload_async(src.data(), 32, 0, 16);
    for (int& x : src) x = -1;  // changed before the copy can have run
  }
  add_to<<<1, 64>>>(a.data(), 64, 1000);  // after the copy, in stream order
  IRGL_CHECK_LAUNCH("add_to");
  const auto h = a.to_host();
  bool ok = true;
  for (int i = 0; i < 64; ++i) {
    const int want = (i >= 16 && i < 48 ? 100 + (i - 16) : 2) + 1000;
    ok = ok && h[static_cast<size_t>(i)] == want;
  }
  EXPECT(ok);
}

TEST(timer) {
  int clock_khz = 0, dev = 0;
  IRGL_CHECK(cudaGetDevice(&dev));
  IRGL_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  irgl::GpuTimer t;
  t.start();
  spin<<<1, 1>>>(static_cast<long long>(clock_khz) * 5);  // >= 5 ms at the max clock
  IRGL_CHECK_LAUNCH("spin");
  t.stop();
  const float ms = t.elapsed_ms();
  std::printf("     spin: %.3f ms (>= 5 expected)\n", ms);
  EXPECT(ms >= 4.5f && ms < 5000.f);
}

TEST(nth_set_bit_host) {
  bool ok = true;
  for (uint32_t i = 0; i < 20000; ++i) {
    const unsigned mask = irgl_test::hash32(i) | (i == 0 ? 0xffffffffu : 0u);
    unsigned k = 0;
    for (unsigned b = 0; b < 32; ++b) {
      if (mask >> b & 1u) ok &= irgl::nth_set_bit(mask, k++) == b;
    }
  }
  EXPECT(ok);
}

TEST(warp_exclusive_sum_partial_masks) {
  for (uint32_t salt = 0; salt < 50; ++salt) {
    irgl::DeviceArray<unsigned long long> ex(32, ~0ull), tot(32, ~0ull);
    warp_scan<<<1, 32>>>(salt, ex.data(), tot.data());
    IRGL_CHECK_LAUNCH("warp_scan");
    auto e = ex.to_host(), t = tot.to_host();
    unsigned long long run = 0, total = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      if (irgl_test::hash32(l + salt) & 3u) total += l * 1000ull + salt;
    }
    for (uint32_t l = 0; l < 32; ++l) {
      if (irgl_test::hash32(l + salt) & 3u) {
        EXPECT_EQ(e[l], run);
        EXPECT_EQ(t[l], total);
        run += l * 1000ull + salt;
      } else {
        EXPECT_EQ(e[l], ~0ull);
      }
    }
  }
}

TEST(check_errors_exit) {
  irgl_test::ChildResult r = irgl_test::run_child("check-child");
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: "));
  EXPECT(contains(r.output, "test_check.cu:"));
  EXPECT(contains(r.output, "cudaMalloc(&p, size_t(1) << 60) failed: out of memory (cudaErrorMemoryAllocation)"));
  EXPECT_EQ(irgl_test::count_lines(r.output), 1);
  r = irgl_test::run_child("launch-child");
  std::printf("     launch-child said: %s", r.output.c_str());
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: "));
  EXPECT(contains(r.output, "test_check.cu:"));
  EXPECT(contains(r.output, ": launch of kernel noop failed: "));
  EXPECT_EQ(irgl_test::count_lines(r.output), 1);
  r = irgl_test::run_child("alloc-child");
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: cannot allocate 1152921504606846976 bytes of device memory"));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "check-child") {
    void* p = nullptr;
    IRGL_CHECK(cudaMalloc(&p, size_t(1) << 60));
    return 0;
  }
  if (mode == "launch-child") {
    noop<<<1, 4096>>>();  // too many threads per block
    IRGL_CHECK_LAUNCH("noop");
    return 0;
  }
  if (mode == "alloc-child") {
    irgl::DeviceArray<uint8_t> a(size_t(1) << 60);
    return 0;
  }
  RUN(checked_indices_record_the_first_violation);
  RUN(device_array_types);
  RUN(device_array_move);
  RUN(device_array_upload_async_behind_a_kernel);
  RUN(timer);
  RUN(nth_set_bit_host);
  RUN(warp_exclusive_sum_partial_masks);
  RUN(check_errors_exit);
  return irgl_test::finish();
}
