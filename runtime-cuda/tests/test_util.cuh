// runtime-cuda/tests/test_util.cuh -- a tiny test harness for the runtime tests.
//
//   TEST(name) { EXPECT(cond); EXPECT_EQ(a, b); }
//   int main(int argc, char** argv) { RUN(name); ...; return irgl_test::finish(); }
// finish() prints exactly "N passed, M failed" (N, M: test cases) as the last
// line and returns non-zero when some test failed. A failing EXPECT prints
// file:line and the expression on stderr and marks the current test failed.
//
// run_child("mode") re-runs this test binary (/proc/self/exe) with the
// argument "mode", capturing its stdout+stderr and exit status: used to check
// the one-line `error: ...` messages and exit status of fatal paths.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace irgl_test {

struct State {
  int passed = 0, failed = 0;
  bool current_ok = true;
  const char* current = "";
};
inline State& state() {
  static State s;
  return s;
}

inline void fail(const std::string& what, const char* file, int line) {
  state().current_ok = false;
  std::fprintf(stderr, "FAIL %s: %s:%d: %s\n", state().current, file, line, what.c_str());
}

template <class A, class B>
void expect_eq(const A& a, const B& b, const char* ea, const char* eb, const char* file, int line) {
  if (!(a == b)) {
    std::ostringstream os;
    os << ea << " == " << eb << " (" << a << " vs " << b << ")";
    fail(os.str(), file, line);
  }
}

inline void run(const char* name, void (*fn)()) {
  state().current = name;
  state().current_ok = true;
  fn();
  if (state().current_ok) {
    ++state().passed;
    std::printf("ok   %s\n", name);
  } else {
    ++state().failed;
    std::printf("FAIL %s\n", name);
  }
  std::fflush(stdout);
}

inline int finish() {
  std::printf("%d passed, %d failed\n", state().passed, state().failed);
  std::fflush(stdout);
  return state().failed == 0 ? 0 : 1;
}

/// Whether the device parts should be skipped (IRGL_TEST_HOST_ONLY=1, for
/// checking host-only tests on a machine without a GPU).
inline bool host_only() {
  const char* e = std::getenv("IRGL_TEST_HOST_ONLY");
  return e != nullptr && e[0] == '1';
}

/// n, or n / 16 (at least 1) under a sanitizer (IRGL_TEST_SANITIZE=1, set by
/// scripts/runtime-tests), where every memory access is instrumented.
inline uint32_t scale(uint32_t n) {
  const char* e = std::getenv("IRGL_TEST_SANITIZE");
  if (e == nullptr || e[0] != '1') return n;
  return n / 16 > 0 ? n / 16 : 1;
}

struct ChildResult {
  int status = -1;  ///< exit status, or -1 if it did not exit normally
  std::string output;
};

/// Runs this binary again with `args` (shell words), capturing stdout+stderr.
inline ChildResult run_child(const std::string& args) {
  ChildResult r;
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return r;
  self[len] = '\0';
  const std::string cmd = "'" + std::string(self) + "' " + args + " 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
  return r;
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
inline bool starts_with(const std::string& s, const std::string& part) { return s.rfind(part, 0) == 0; }
inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// A 32-bit hash (lowbias32), the same on host and device, for reproducible
/// per-thread "random" choices.
__host__ __device__ inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

}  // namespace irgl_test

#define TEST(name) static void name()
#define RUN(name) ::irgl_test::run(#name, name)
#define EXPECT(cond)                                              \
  do {                                                            \
    if (!(cond)) ::irgl_test::fail(#cond, __FILE__, __LINE__);    \
  } while (0)
#define EXPECT_EQ(a, b) ::irgl_test::expect_eq((a), (b), #a, #b, __FILE__, __LINE__)
