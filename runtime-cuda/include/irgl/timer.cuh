// irgl/timer.cuh -- a CUDA-event timer.
//
//     irgl::GpuTimer t; t.start(); ...launches...; t.stop(); float ms = t.elapsed_ms();
// elapsed_ms() waits for the stop event. Times are device-side (the work
// queued on `stream` between start and stop).
//
//     irgl::KernelTimes kt; kt.enabled = true;
//     kt.begin("k"); k<<<...>>>(...); kt.end();   ... more launches ...
//     std::vector<irgl::KernelTime> sums = kt.collect();
// collect() waits for the launches and returns each kernel's summed time and launch count
// (in the order of first launch), then forgets them. Disabled, begin/end do nothing.
// add() records times measured otherwise: the calls inside a control kernel, which
// grid.cuh's timed_call_start/timed_call_end measure on the device.
#pragma once

#include <string>
#include <utility>
#include <vector>

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

/// One kernel's launches in a run: their summed device time.
struct KernelTime {
  std::string name;
  double ms = 0.0;
  uint64_t launches = 0;
};

/// Per-kernel device times (`--kernel-times`): a pair of events on the default stream around
/// each launch. Events are reused across collect() calls.
class KernelTimes {
 public:
  bool enabled = false;

  KernelTimes() = default;
  KernelTimes(const KernelTimes&) = delete;
  KernelTimes& operator=(const KernelTimes&) = delete;
  ~KernelTimes() {
    for (cudaEvent_t e : pool_) (void)cudaEventDestroy(e);
  }

  /// Marks the start of a launch of `name` (a string that outlives the run).
  void begin(const char* name) {
    if (!enabled) return;
    Span s{name, event(), event()};
    IRGL_CHECK(cudaEventRecord(s.start, 0));
    spans_.push_back(s);
  }

  /// Marks the end of the launch begun last.
  void end() {
    if (!enabled || spans_.empty()) return;
    IRGL_CHECK(cudaEventRecord(spans_.back().stop, 0));
  }

  /// Records `launches` runs of `name` that took `ms` in all, measured elsewhere.
  void add(std::string name, double ms, uint64_t launches) {
    if (!enabled || launches == 0) return;
    added_.push_back(KernelTime{std::move(name), ms, launches});
  }

  std::vector<KernelTime> collect() {
    std::vector<KernelTime> out;
    auto entry = [&](const std::string& name) -> KernelTime& {
      size_t i = 0;
      while (i < out.size() && out[i].name != name) ++i;
      if (i == out.size()) out.push_back(KernelTime{name, 0.0, 0});
      return out[i];
    };
    for (const Span& s : spans_) {
      IRGL_CHECK(cudaEventSynchronize(s.stop));
      float ms = 0.f;
      IRGL_CHECK(cudaEventElapsedTime(&ms, s.start, s.stop));
      KernelTime& k = entry(s.name);
      k.ms += ms;
      k.launches += 1;
    }
    for (const KernelTime& a : added_) {
      KernelTime& k = entry(a.name);
      k.ms += a.ms;
      k.launches += a.launches;
    }
    spans_.clear();
    added_.clear();
    used_ = 0;
    return out;
  }

 private:
  struct Span {
    const char* name;
    cudaEvent_t start;
    cudaEvent_t stop;
  };

  cudaEvent_t event() {
    if (used_ == pool_.size()) {
      cudaEvent_t e;
      IRGL_CHECK(cudaEventCreate(&e));
      pool_.push_back(e);
    }
    return pool_[used_++];
  }

  std::vector<Span> spans_;
  std::vector<KernelTime> added_;
  std::vector<cudaEvent_t> pool_;
  size_t used_ = 0;
};

}  // namespace irgl
