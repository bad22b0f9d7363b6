// copy_bandwidth.cu -- the device-to-device copy bandwidth of this GPU: the yardstick of the
// push benchmark's traffic floor (bytes a push kernel must move / this bandwidth).
//
//   copy_bandwidth [MiB] [repeats]   (default 1024 MiB, 10 repeats)
//
// Prints one JSON line: {"gpu": ..., "bytes": N, "repeats": R, "median_ms": T, "gb_per_s": B},
// where B counts each byte copied twice (read and written), as a kernel's traffic would.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                      \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "error: %s: %s\n", #x, cudaGetErrorString(e_));            \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 10;
  if (mib == 0 || repeats <= 0) {
    std::fprintf(stderr, "usage: copy_bandwidth [MiB > 0] [repeats > 0]\n");
    return 1;
  }
  const size_t bytes = mib << 20;
  void* a = nullptr;
  void* b = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemset(a, 1, bytes));
  CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));  // warm-up
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(repeats);
  for (int i = 0; i < repeats; ++i) {
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  std::sort(ms.begin(), ms.end());
  const double median = repeats % 2 ? ms[repeats / 2] : (ms[repeats / 2 - 1] + ms[repeats / 2]) / 2.0;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("{\"gpu\": \"%s\", \"bytes\": %zu, \"repeats\": %d, \"median_ms\": %.4f, \"gb_per_s\": %.1f}\n",
              prop.name, bytes, repeats, median, 2.0 * bytes / (median * 1e6));
  return 0;
}
