// irgl/timer.cuh -- a CUDA-event timer.
//
//     irgl::GpuTimer t; t.start(); ...launches...; t.stop(); float ms = t.elapsed_ms();
// elapsed_ms() waits for the stop event. Times are device-side (the work
// queued on `stream` between start and stop).
#pragma once

#include <cuda_runtime.h>

#include "check.cuh"

namespace irgl {

class GpuTimer {
 public:
  GpuTimer() {
    IRGL_CHECK(cudaEventCreate(&start_));
    IRGL_CHECK(cudaEventCreate(&stop_));
  }
  ~GpuTimer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  void start(cudaStream_t stream = 0) {
    stream_ = stream;
    IRGL_CHECK(cudaEventRecord(start_, stream));
  }
  void stop() { IRGL_CHECK(cudaEventRecord(stop_, stream_)); }
  /// Milliseconds between start() and stop(); waits for stop().
  float elapsed_ms() const {
    IRGL_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.f;
    IRGL_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  cudaStream_t stream_ = 0;
};

}  // namespace irgl
