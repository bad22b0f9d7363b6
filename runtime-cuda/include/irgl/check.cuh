// irgl/check.cuh -- error checking for CUDA calls and kernel launches.
//
// Every error ends the program with exit status 1 after printing ONE line
//     error: <file>:<line>: <what failed>: <cudaGetErrorString> (<cudaGetErrorName>)
// on stderr.
//
//   IRGL_CHECK(call)            check the cudaError_t returned by `call`.
//   IRGL_CHECK_LAUNCH("name")   after a kernel launch: check cudaGetLastError();
//                               when IRGL_SYNC_CHECK is defined (debug mode) also
//                               synchronize the device so that faults inside the
//                               kernel are reported at this launch.
//   irgl::fatal(fmt, ...)       print "error: <formatted>" and exit(1).
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

namespace irgl {

/// Prints `error: <message>` as one line on stderr and exits with status 1.
[[noreturn]] inline void vfatal(const char* fmt, va_list ap) {
  std::fflush(stdout);
  std::fputs("error: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::exit(1);
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
[[noreturn]] inline void fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfatal(fmt, ap);
}

namespace detail {

inline void check_call(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) {
    fatal("%s:%d: %s failed: %s (%s)", file, line, call, cudaGetErrorString(err),
          cudaGetErrorName(err));
  }
}

inline void check_launch(const char* kernel, const char* file, int line) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    fatal("%s:%d: launch of kernel %s failed: %s (%s)", file, line, kernel,
          cudaGetErrorString(err), cudaGetErrorName(err));
  }
#if defined(IRGL_SYNC_CHECK)
  err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    fatal("%s:%d: kernel %s failed: %s (%s)", file, line, kernel, cudaGetErrorString(err),
          cudaGetErrorName(err));
  }
#endif
}

}  // namespace detail
}  // namespace irgl

/// Checks the cudaError_t of `call`; on failure prints file:line, the call text
/// and the CUDA error string, and exits with status 1.
#define IRGL_CHECK(call) ::irgl::detail::check_call((call), #call, __FILE__, __LINE__)

/// Checks the last launch (cudaGetLastError) of the kernel named `kernel_name`
/// (a C string). With IRGL_SYNC_CHECK defined, also synchronizes the device.
#define IRGL_CHECK_LAUNCH(kernel_name) ::irgl::detail::check_launch((kernel_name), __FILE__, __LINE__)
