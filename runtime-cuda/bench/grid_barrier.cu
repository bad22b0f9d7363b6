// grid_barrier.cu -- the cost of one grid barrier (irgl::grid_sync) on this GPU, with the grid
// an outlined control kernel gets: every block of 256 threads that can be resident. It is the
// yardstick of iteration outlining: an outlined round costs at least one or two barriers.
//
//   grid_barrier [barriers] [repeats] [blocks] [tail] [mode]
//
// Defaults: 10000 barriers, 10 repeats, every resident block (blocks 0), tail 0. With tail T,
// the first block reads a 16 KiB table T times between barriers (reads that hit in its
// multiprocessor's L1) while the other blocks wait at the barrier: the round of a control
// kernel whose last block still works, and what the waiting costs it. Mode: flat (irgl::grid_sync,
// the default) or then (irgl::grid_sync_then with an action of one addition). A first run
// checks the barrier: every block reads another's write from before it ("bad": the reads that
// missed it; must be 0), and with `then` the action's count (one per barrier).
//
// Prints one JSON line: {"gpu": ..., "blocks": B, "threads": 256, "barriers": N, "tail": T,
// "repeats": R, "mode": M, "bad": K, "median_ms": T, "us_per_barrier": U}.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "irgl/check.cuh"
#include "irgl/grid.cuh"

namespace {

constexpr int kThreads = 256;

constexpr int kTable = 4096;  // words: 16 KiB

/// The barrier measured: grid_sync (flat) or grid_sync_then (then, its action one addition).
enum class Mode { Flat, Then };

template <Mode M>
__device__ __forceinline__ void barrier(unsigned int* count) {
  if constexpr (M == Mode::Flat) irgl::grid_sync();
  if constexpr (M == Mode::Then) irgl::grid_sync_then([&] { *count += 1u; });
}

/// n barriers; with `check`, every block writes its round before each barrier and reads another block's
/// after it, counting in *bad the reads that show an older round (a barrier that let a block through early).
template <Mode M>
__global__ void __launch_bounds__(kThreads)
    barriers(int n, int tail, const unsigned int* table, unsigned int* sink, unsigned int* marks, int check,
             unsigned int* count, unsigned int* bad) {
  unsigned int x = 0;
  for (int i = 0; i < n; ++i) {
    if (blockIdx.x == 0) {
      for (int t = 0; t < tail; ++t) x += table[(x + threadIdx.x + 32u * t) % kTable];
    }
    if (check && threadIdx.x == 0) marks[blockIdx.x] = static_cast<unsigned int>(i) + 1u;
    barrier<M>(count);
    if (check && threadIdx.x == 0) {
      const unsigned int other = (blockIdx.x * 7u + 1u) % gridDim.x;
      if (*reinterpret_cast<volatile unsigned int*>(&marks[other]) < static_cast<unsigned int>(i) + 1u) atomicAdd(bad, 1u);
    }
    x += static_cast<unsigned int>(i);
  }
  if (x == 1u) *sink = x;  // keeps the loop; never true for n > 2
}

using Kernel = void (*)(int, int, const unsigned int*, unsigned int*, unsigned int*, int, unsigned int*,
                        unsigned int*);

struct Named {
  const char* name;
  Kernel kernel;
};

const Named kModes[] = {{"flat", barriers<Mode::Flat>}, {"then", barriers<Mode::Then>}};

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 10;
  const int want_blocks = argc > 3 ? std::atoi(argv[3]) : 0;
  const int tail = argc > 4 ? std::atoi(argv[4]) : 0;
  const char* mode = argc > 5 ? argv[5] : "flat";
  const Named* chosen = nullptr;
  for (const Named& m : kModes) {
    if (std::strcmp(m.name, mode) == 0) chosen = &m;
  }
  if (n <= 2 || repeats <= 0 || want_blocks < 0 || tail < 0 || chosen == nullptr) {
    std::fprintf(stderr,
                 "usage: grid_barrier [barriers > 2] [repeats > 0] [blocks >= 0] [tail >= 0] "
                 "[flat|then]\n");
    return 1;
  }
  unsigned int* sink = nullptr;
  unsigned int* table = nullptr;
  unsigned int* marks = nullptr;
  unsigned int* words = nullptr;  // count, bad
  IRGL_CHECK(cudaMalloc(&sink, sizeof *sink));
  IRGL_CHECK(cudaMalloc(&table, kTable * sizeof *table));
  IRGL_CHECK(cudaMemset(table, 0, kTable * sizeof *table));
  IRGL_CHECK(cudaMalloc(&marks, 65536 * sizeof *marks));
  IRGL_CHECK(cudaMemset(marks, 0, 65536 * sizeof *marks));
  IRGL_CHECK(cudaMalloc(&words, 2 * sizeof *words));
  IRGL_CHECK(cudaMemset(words, 0, 2 * sizeof *words));
  // Warm-up, checked.
  int blocks = irgl::launch_cooperative("barriers", chosen->kernel, want_blocks, kThreads, 0, 0, n, tail, table, sink,
                                        marks, 1, words, words + 1);
  IRGL_CHECK(cudaDeviceSynchronize());
  unsigned int checked[2] = {0, 0};  // the action's count, the reads that missed a write
  IRGL_CHECK(cudaMemcpy(checked, words, sizeof checked, cudaMemcpyDeviceToHost));
  unsigned int bad = checked[1];
  if (std::strcmp(chosen->name, "then") == 0 && checked[0] != static_cast<unsigned int>(n)) {
    std::fprintf(stderr, "grid_barrier: the action ran %u times in %d barriers\n", checked[0], n);
    bad += 1u;
  }
  cudaEvent_t start, stop;
  IRGL_CHECK(cudaEventCreate(&start));
  IRGL_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(repeats);
  for (int i = 0; i < repeats; ++i) {
    IRGL_CHECK(cudaEventRecord(start));
    blocks = irgl::launch_cooperative("barriers", chosen->kernel, want_blocks, kThreads, 0, 0, n, tail, table, sink,
                                      marks, 0, words, words + 1);
    IRGL_CHECK(cudaEventRecord(stop));
    IRGL_CHECK(cudaEventSynchronize(stop));
    IRGL_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  std::sort(ms.begin(), ms.end());
  const double median = repeats % 2 ? ms[repeats / 2] : (ms[repeats / 2 - 1] + ms[repeats / 2]) / 2.0;
  cudaDeviceProp prop;
  IRGL_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "{\"gpu\": \"%s\", \"blocks\": %d, \"threads\": %d, \"barriers\": %d, \"tail\": %d, \"repeats\": %d, "
      "\"mode\": \"%s\", \"bad\": %u, \"median_ms\": %.4f, \"us_per_barrier\": %.3f}\n",
      prop.name, blocks, kThreads, n, tail, repeats, chosen->name, bad, median, 1000.0 * median / n);
  return bad == 0 ? 0 : 1;
}
