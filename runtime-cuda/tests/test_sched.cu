// Scheduler building blocks: block_exclusive_scan against a host prefix sum (random and
// large counts, every block size the compiler allows in steps), and owner_of against a
// linear search, with empty ranges between; items_per_block's shares cover every item.
// irgl-test: racecheck
#include <irgl/runtime.cuh>

#include <random>
#include <vector>

#include "test_util.cuh"

namespace {

template <int BLOCK>
__global__ void scan_kernel(const unsigned long long* in, unsigned long long* out, unsigned long long* totals) {
  __shared__ unsigned long long scratch[BLOCK / 32];
  const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
  unsigned long long total;
  out[i] = irgl::block_exclusive_scan<BLOCK>(in[i], scratch, total);
  // Twice in a row: the scratch space must be reusable right away.
  unsigned long long again;
  const unsigned long long second = irgl::block_exclusive_scan<BLOCK>(in[i] + 1, scratch, again);
  if (second != out[i] + threadIdx.x || again != total + BLOCK) out[i] = ~0ull;
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

template <int BLOCK>
__global__ void owner_kernel(const unsigned long long* offsets, const unsigned long long* ks, uint32_t* owners,
                             unsigned n) {
  __shared__ unsigned long long s[BLOCK];
  s[threadIdx.x] = offsets[threadIdx.x];
  __syncthreads();
  for (unsigned i = threadIdx.x; i < n; i += BLOCK) owners[i] = irgl::owner_of<BLOCK>(s, ks[i]);
}

template <int BLOCK>
void check_scan(uint64_t max_count, unsigned seed) {
  const unsigned blocks = 7;
  std::mt19937_64 rng(seed);
  std::vector<unsigned long long> in(BLOCK * blocks);
  for (auto& x : in) x = rng() % (max_count + 1);
  irgl::DeviceArray<unsigned long long> din(in), dout(in.size()), dtot(blocks);
  scan_kernel<BLOCK><<<blocks, BLOCK>>>(din.data(), dout.data(), dtot.data());
  IRGL_CHECK_LAUNCH("scan_kernel");
  const auto out = dout.to_host();
  const auto tot = dtot.to_host();
  for (unsigned b = 0; b < blocks; ++b) {
    unsigned long long sum = 0;
    for (unsigned t = 0; t < static_cast<unsigned>(BLOCK); ++t) {
      EXPECT_EQ(out[b * BLOCK + t], sum);
      sum += in[b * BLOCK + t];
    }
    EXPECT_EQ(tot[b], sum);
  }
}

TEST(scan_small_counts) {
  check_scan<32>(3, 1);
  check_scan<256>(3, 2);
  check_scan<1024>(3, 3);
}

TEST(scan_counts_beyond_32_bits) {
  check_scan<128>(1ull << 40, 4);
  check_scan<256>(0xffffffffull, 5);
}

TEST(owner_of_skips_empty_ranges) {
  constexpr int B = 256;
  std::mt19937 rng(9);
  std::vector<unsigned long long> offsets(B);
  unsigned long long sum = 0;
  for (int i = 0; i < B; ++i) {
    offsets[i] = sum;
    sum += (rng() % 3 == 0) ? 0 : rng() % 40;  // a third of the threads own nothing
  }
  std::vector<unsigned long long> ks(sum);
  for (unsigned long long k = 0; k < sum; ++k) ks[k] = k;
  irgl::DeviceArray<unsigned long long> doff(offsets), dks(ks);
  irgl::DeviceArray<uint32_t> downers(ks.size());
  owner_kernel<B><<<1, B>>>(doff.data(), dks.data(), downers.data(), static_cast<unsigned>(ks.size()));
  IRGL_CHECK_LAUNCH("owner_kernel");
  const auto owners = downers.to_host();
  for (unsigned long long k = 0; k < sum; ++k) {
    // The owner's range holds k and is not empty.
    const uint32_t o = owners[k];
    const unsigned long long end = o + 1 < static_cast<uint32_t>(B) ? offsets[o + 1] : sum;
    EXPECT(offsets[o] <= k && k < end);
  }
}

// Every item of a trip lands in exactly one (block, slot) of the spread mapping the
// generated outer loops use, and the shares are BLOCK once the items fill the grid.
TEST(items_per_block_covers_every_item) {
  constexpr uint32_t B = 256;
  EXPECT_EQ((irgl::items_per_block<B>(1000000ull, 100u)), B);
  EXPECT_EQ((irgl::items_per_block<B>(25600ull, 100u)), B);
  EXPECT_EQ((irgl::items_per_block<B>(0ull, 100u)), 1u);
  EXPECT_EQ((irgl::items_per_block<B>(284ull, 284u)), 1u);
  EXPECT_EQ((irgl::items_per_block<B>(4347ull, 1056u)), 5u);
  for (unsigned long long total : {1ull, 7ull, 284ull, 4347ull, 25599ull, 70000ull}) {
    for (uint32_t blocks : {1u, 3u, 132u, 1056u}) {
      const uint32_t per = irgl::items_per_block<B>(total, blocks);
      const uint32_t gap = B / per;
      std::vector<int> seen(total, 0);
      for (unsigned long long base = 0; base < total; base += static_cast<unsigned long long>(per) * blocks) {
        for (uint32_t b = 0; b < blocks; ++b) {
          for (uint32_t t = 0; t < B; ++t) {
            const uint32_t slot = t / gap;
            const unsigned long long i = base + static_cast<unsigned long long>(b) * per + slot;
            if (t % gap == 0 && slot < per && i < total) ++seen[i];
          }
        }
      }
      for (unsigned long long i = 0; i < total; ++i) {
        if (seen[i] != 1) {
          EXPECT_EQ(seen[i], 1);
          std::fprintf(stderr, "  total %llu, blocks %u, item %llu\n", total, blocks, i);
          return;
        }
      }
    }
  }
}

}  // namespace

int main() {
  RUN(items_per_block_covers_every_item);
  if (irgl_test::host_only()) return irgl_test::finish();
  RUN(scan_small_counts);
  RUN(scan_counts_beyond_32_bits);
  RUN(owner_of_skips_empty_ranges);
  return irgl_test::finish();
}
