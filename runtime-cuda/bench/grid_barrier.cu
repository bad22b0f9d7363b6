// grid_barrier.cu -- the cost of one grid barrier (irgl::grid_sync) on this GPU, with the grid
// an outlined control kernel gets: every block of 256 threads that can be resident. It is the
// yardstick of iteration outlining: an outlined round costs at least one or two barriers.
//
//   grid_barrier [barriers] [repeats] [blocks] [tail]
//
// Defaults: 10000 barriers, 10 repeats, every resident block (blocks 0), tail 0. With tail T,
// the first block reads a 16 KiB table T times between barriers (reads that hit in its
// multiprocessor's L1) while the other blocks wait at the barrier: the round of a control
// kernel whose last block still works, and what the waiting costs it.
//
// Prints one JSON line: {"gpu": ..., "blocks": B, "threads": 256, "barriers": N, "tail": T,
// "repeats": R, "median_ms": T, "us_per_barrier": U}.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "irgl/check.cuh"
#include "irgl/grid.cuh"

namespace {

constexpr int kThreads = 256;

constexpr int kTable = 4096;  // words: 16 KiB

__global__ void __launch_bounds__(kThreads) barriers(int n, int tail, const unsigned int* table, unsigned int* sink) {
  unsigned int x = 0;
  for (int i = 0; i < n; ++i) {
    if (blockIdx.x == 0) {
      for (int t = 0; t < tail; ++t) x += table[(x + threadIdx.x + 32u * t) % kTable];
    }
    irgl::grid_sync();
    x += static_cast<unsigned int>(i);
  }
  if (x == 1u) *sink = x;  // keeps the loop; never true for n > 2
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 10;
  const int want_blocks = argc > 3 ? std::atoi(argv[3]) : 0;
  const int tail = argc > 4 ? std::atoi(argv[4]) : 0;
  if (n <= 2 || repeats <= 0 || want_blocks < 0 || tail < 0) {
    std::fprintf(stderr, "usage: grid_barrier [barriers > 2] [repeats > 0] [blocks >= 0] [tail >= 0]\n");
    return 1;
  }
  unsigned int* sink = nullptr;
  unsigned int* table = nullptr;
  IRGL_CHECK(cudaMalloc(&sink, sizeof *sink));
  IRGL_CHECK(cudaMalloc(&table, kTable * sizeof *table));
  IRGL_CHECK(cudaMemset(table, 0, kTable * sizeof *table));
  int blocks = irgl::launch_cooperative("barriers", barriers, want_blocks, kThreads, 0, 0, n, tail, table, sink);  // warm-up
  IRGL_CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  IRGL_CHECK(cudaEventCreate(&start));
  IRGL_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(repeats);
  for (int i = 0; i < repeats; ++i) {
    IRGL_CHECK(cudaEventRecord(start));
    blocks = irgl::launch_cooperative("barriers", barriers, want_blocks, kThreads, 0, 0, n, tail, table, sink);
    IRGL_CHECK(cudaEventRecord(stop));
    IRGL_CHECK(cudaEventSynchronize(stop));
    IRGL_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  std::sort(ms.begin(), ms.end());
  const double median = repeats % 2 ? ms[repeats / 2] : (ms[repeats / 2 - 1] + ms[repeats / 2]) / 2.0;
  cudaDeviceProp prop;
  IRGL_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "{\"gpu\": \"%s\", \"blocks\": %d, \"threads\": %d, \"barriers\": %d, \"tail\": %d, \"repeats\": %d, \"median_ms\": %.4f, "
      "\"us_per_barrier\": %.3f}\n",
      prop.name, blocks, kThreads, n, tail, repeats, median, 1000.0 * median / n);
  return 0;
}
