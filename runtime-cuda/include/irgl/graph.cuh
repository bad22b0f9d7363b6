// irgl/graph.cuh -- Galois .gr (version 1) loader and the device graph view.
//
// File layout, little-endian:
//   offset 0   u64 version (= 1)
//   offset 8   u64 edge-data size (0: no edge values, 4: u32 edge values)
//   offset 16  u64 N (nodes)
//   offset 24  u64 E (edges)
//   offset 32  u64 out_index[N]  END offset of each node's edges
//              u32 dst[E]
//              4 bytes of padding when E is odd
//              u32 edge_data[E]  when the edge-data size is 4
// Everything is validated (see read_gr): file size against the header,
// version, edge-data size, N below 2^32 - 1 and E within edge_t, offsets
// monotone and <= E, last offset == E, every dst < N. With edge-data size 0 and E odd, the
// padding may also be missing (files written by some tools end after dst).
//
// Host:   irgl::HostGraph g = irgl::load_gr(path);   // exits 1 with "error: ..." on a bad file
//         irgl::DeviceGraph dg(g);                    // uploads; frees on destruction
//         kernel<<<...>>>(dg.view());
// Device: Graph::begin(n), end(n), degree(n), dst(e), data(e).
// Loading and uploading are not part of an algorithm's timing.
//
// Edge indices (edge_t) are 32-bit, or 64-bit where the program is compiled with
// IRGL_EDGE64 defined (irglc builds so for graphs of more than 2^32 - 1 edges). Node
// ids are 32-bit either way, and so is a node's degree.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "array.cuh"
#include "check.cuh"
#include "file.cuh"

namespace irgl {

/// An edge index (and an edge count): 64-bit in a build with IRGL_EDGE64, else 32-bit.
#if defined(IRGL_EDGE64)
using edge_t = unsigned long long;
#else
using edge_t = uint32_t;
#endif

/// The most edges a graph may have in this build.
constexpr uint64_t kMaxEdges = static_cast<edge_t>(~edge_t(0));

/// Device view of a CSR graph. Cheap to copy; does not own memory.
struct Graph {
  uint32_t nnodes = 0;
  edge_t nedges = 0;
  const edge_t* row_start = nullptr;    ///< nnodes + 1 entries; edges of n are [row_start[n], row_start[n+1])
  const uint32_t* edge_dst = nullptr;   ///< nedges entries
  const uint32_t* edge_data = nullptr;  ///< nedges entries, or null when the graph has no edge values

  // The topology never changes while a program runs: read it through the read-only data
  // cache (ld.global.nc), which also lets the compiler move these loads past stores.
  __device__ __forceinline__ edge_t begin(uint32_t n) const { return __ldg(row_start + n); }
  __device__ __forceinline__ edge_t end(uint32_t n) const { return __ldg(row_start + n + 1); }
  __device__ __forceinline__ uint32_t degree(uint32_t n) const { return static_cast<uint32_t>(end(n) - begin(n)); }
  __device__ __forceinline__ uint32_t dst(edge_t e) const { return __ldg(edge_dst + e); }
  /// Edge value of e. Precondition: edge_data != nullptr.
  __device__ __forceinline__ uint32_t data(edge_t e) const { return edge_data[e]; }
};

/// Device view of a graph's in-edges (its transpose). The in-edges of node n are the
/// positions [begin(n), end(n)), in increasing order of their source; src(k) is the source of
/// in-edge k, edge_of(k) its id among the out-edges (for edge properties; only when the
/// program asked for the ids). Cheap to copy; does not own memory.
struct InEdges {
  const edge_t* start = nullptr;     ///< nnodes + 1 entries
  const uint32_t* source = nullptr;  ///< nedges entries
  const edge_t* edge_id = nullptr;   ///< nedges entries, or null

  __device__ __forceinline__ edge_t begin(uint32_t n) const { return __ldg(start + n); }
  __device__ __forceinline__ edge_t end(uint32_t n) const { return __ldg(start + n + 1); }
  __device__ __forceinline__ uint32_t degree(uint32_t n) const { return static_cast<uint32_t>(end(n) - begin(n)); }
  __device__ __forceinline__ uint32_t src(edge_t k) const { return __ldg(source + k); }
  __device__ __forceinline__ edge_t edge_of(edge_t k) const { return __ldg(edge_id + k); }
};

/// A graph in host memory (CSR).
struct HostGraph {
  uint32_t nnodes = 0;
  edge_t nedges = 0;
  bool has_edge_data = false;       ///< the file's edge-data size was 4
  std::vector<edge_t> row_start;    ///< nnodes + 1 entries
  std::vector<uint32_t> edge_dst;   ///< nedges entries
  std::vector<uint32_t> edge_data;  ///< nedges entries when has_edge_data, else empty
};

namespace detail {

inline std::string grfmt(const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
inline std::string grfmt(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

struct FileCloser {
  std::FILE* f;
  ~FileCloser() {
    if (f != nullptr) std::fclose(f);
  }
};

inline bool read_exact(std::FILE* f, void* dst, size_t bytes) { return std::fread(dst, 1, bytes, f) == bytes; }

/// Runs f(lo, hi) over [0, n) split into one range per core (at most 32), each on its own
/// thread; small n on the calling thread alone.
template <class F>
void parallel_ranges(uint64_t n, F f) {
  const unsigned cores = std::thread::hardware_concurrency();
  const uint64_t parts = n < (1u << 20) ? 1 : std::min<uint64_t>(cores == 0 ? 1 : cores, 32);
  if (parts <= 1) {
    f(uint64_t{0}, n);
    return;
  }
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < parts; ++t) threads.emplace_back(f, n * t / parts, n * (t + 1) / parts);
  for (std::thread& t : threads) t.join();
}

/// Reads `count` elements of `size` bytes at byte `offset` of file `fd` into `dst`, on every
/// core (the file's pages are read in parallel). False on a read error or a short file.
inline bool read_parallel(int fd, void* dst, uint64_t count, uint64_t size, uint64_t offset) {
  std::atomic<bool> ok{true};
  parallel_ranges(count, [&](uint64_t lo, uint64_t hi) {
    char* out = static_cast<char*>(dst) + lo * size;
    uint64_t left = (hi - lo) * size, at = offset + lo * size;
    while (left > 0) {
      const ssize_t got = ::pread(fd, out, std::min<uint64_t>(left, 1ull << 30), static_cast<off_t>(at));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ok = false;
        return;
      }
      out += got, at += static_cast<uint64_t>(got), left -= static_cast<uint64_t>(got);
    }
  });
  return ok;
}

/// The first index in [0, n) where bad(i) holds, searched on every core; n when none does.
template <class Bad>
uint64_t first_bad(uint64_t n, Bad bad) {
  std::atomic<uint64_t> first{n};
  parallel_ranges(n, [&](uint64_t lo, uint64_t hi) {
    for (uint64_t i = lo; i < hi && i < first.load(std::memory_order_relaxed); ++i) {
      if (bad(i)) {
        uint64_t seen = first.load();
        while (i < seen && !first.compare_exchange_weak(seen, i)) {
        }
        return;
      }
    }
  });
  return first;
}

/// Sorts each node's list of `g` by destination (its edge data with it) where it is not
/// sorted, on every core: programs may rely on sorted lists (docs/language.md), which every
/// file irglc writes has, and a file from elsewhere may not. Ties keep their order.
inline void sort_lists(HostGraph& g) {
  const edge_t* rs = g.row_start.data();
  uint32_t* dst = g.edge_dst.data();
  uint32_t* data = g.has_edge_data ? g.edge_data.data() : nullptr;
  parallel_ranges(g.nnodes, [&](uint64_t lo, uint64_t hi) {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (uint64_t u = lo; u < hi; ++u) {
      const edge_t b = rs[u], e = rs[u + 1];
      if (std::is_sorted(dst + b, dst + e)) continue;
      if (data == nullptr) {
        std::stable_sort(dst + b, dst + e);
        continue;
      }
      pairs.clear();
      for (edge_t i = b; i < e; ++i) pairs.emplace_back(dst[i], data[i]);
      std::stable_sort(pairs.begin(), pairs.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      for (edge_t i = b; i < e; ++i) dst[i] = pairs[i - b].first, data[i] = pairs[i - b].second;
    }
  });
}

}  // namespace detail

/// Reads and validates a .gr file. Returns true and fills `g` on success;
/// otherwise returns false with `error` set to a one-line message
/// "<path>: byte offset <O>: expected <what>, found <what>" (or, when the file
/// cannot be opened or read, "<path>: cannot open: <reason>"). Never exits.
inline bool read_gr(const std::string& path, HostGraph& g, std::string& error) {
  using detail::grfmt;
  const char* p = path.c_str();
  g = HostGraph();
  std::FILE* f = std::fopen(p, "rb");
  if (f == nullptr) {
    error = grfmt("%s: cannot open: %s", p, std::strerror(errno));
    return false;
  }
  detail::FileCloser closer{f};
  struct stat st;
  if (fstat(fileno(f), &st) != 0) {
    error = grfmt("%s: cannot stat: %s", p, std::strerror(errno));
    return false;
  }
  const uint64_t fsize = static_cast<uint64_t>(st.st_size);
  uint64_t hdr[4];
  if (fsize < sizeof hdr) {
    error = grfmt("%s: byte offset %" PRIu64 ": expected a 32-byte header, found end of file (file is %" PRIu64
                  " bytes)",
                  p, fsize, fsize);
    return false;
  }
  if (!detail::read_exact(f, hdr, sizeof hdr)) {
    error = grfmt("%s: byte offset 0: read error", p);
    return false;
  }
  const uint64_t version = hdr[0], esz = hdr[1], n = hdr[2], m = hdr[3];
  if (version != 1) {
    error = grfmt("%s: byte offset 0: expected version 1, found %" PRIu64, p, version);
    return false;
  }
  if (esz != 0 && esz != 4) {
    error = grfmt("%s: byte offset 8: expected edge-data size 0 or 4, found %" PRIu64, p, esz);
    return false;
  }
  if (n > UINT32_MAX - 1ull) {  // row_start has n + 1 u32 entries indexed by u32
    error = grfmt("%s: byte offset 16: expected a node count below 2^32 - 1, found %" PRIu64, p, n);
    return false;
  }
  if (m > kMaxEdges) {
    error = grfmt("%s: byte offset 24: the graph has %" PRIu64 " edges, more than this build's 32-bit edge indices "
                  "hold (%" PRIu64 "); build the program with 64-bit edge indices (irglc builds so by itself for "
                  "such a graph; nvcc -DIRGL_EDGE64)",
                  p, m, kMaxEdges);
    return false;
  }
  const uint64_t off_index = 32;
  const uint64_t off_dst = off_index + 8 * n;
  const uint64_t pad = (m % 2 == 1) ? 4 : 0;
  const uint64_t off_data = off_dst + 4 * m + pad;
  const uint64_t expected = off_data + esz * m;
  if (fsize != expected) {
    if (esz == 0 && pad != 0 && fsize == expected - 4) {
      // tolerated: no padding after dst when there is no edge data
    } else if (fsize < expected) {
      error = grfmt("%s: byte offset %" PRIu64 ": expected %" PRIu64 " bytes for %" PRIu64 " nodes and %" PRIu64
                    " edges with edge-data size %" PRIu64 ", found end of file (file is truncated)",
                    p, fsize, expected, n, m, esz);
      return false;
    } else {
      error = grfmt("%s: byte offset %" PRIu64 ": expected end of file after %" PRIu64 " nodes and %" PRIu64
                    " edges with edge-data size %" PRIu64 ", found %" PRIu64 " more bytes",
                    p, expected, n, m, esz, fsize - expected);
      return false;
    }
  }
  g.nnodes = static_cast<uint32_t>(n);
  g.nedges = static_cast<edge_t>(m);
  g.has_edge_data = esz == 4;
  g.row_start.resize(n + 1);
  g.row_start[0] = 0;
  {
    std::vector<uint64_t> chunk(std::min<uint64_t>(n, 1u << 16));
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n;) {
      const uint64_t k = std::min<uint64_t>(chunk.size(), n - i);
      if (!detail::read_exact(f, chunk.data(), k * 8)) {
        error = grfmt("%s: byte offset %" PRIu64 ": read error", p, off_index + 8 * i);
        return false;
      }
      for (uint64_t j = 0; j < k; ++j, ++i) {
        const uint64_t v = chunk[j];
        if (v < prev) {
          error = grfmt("%s: byte offset %" PRIu64 ": expected out_index[%" PRIu64 "] >= %" PRIu64
                        " (offsets must not decrease), found %" PRIu64,
                        p, off_index + 8 * i, i, prev, v);
          return false;
        }
        if (v > m) {
          error = grfmt("%s: byte offset %" PRIu64 ": expected out_index[%" PRIu64 "] <= E = %" PRIu64
                        ", found %" PRIu64,
                        p, off_index + 8 * i, i, m, v);
          return false;
        }
        g.row_start[i + 1] = static_cast<edge_t>(v);
        prev = v;
      }
    }
    if (prev != m) {
      if (n == 0) {
        error = grfmt("%s: byte offset 24: expected 0 edges in a graph with 0 nodes, found %" PRIu64, p, m);
      } else {
        error = grfmt("%s: byte offset %" PRIu64 ": expected out_index[%" PRIu64 "] = E = %" PRIu64
                      " (the last end offset), found %" PRIu64,
                      p, off_index + 8 * (n - 1), n - 1, m, prev);
      }
      return false;
    }
  }
  // The edges are read and checked on every core (a graph of billions of edges: seconds).
  g.edge_dst.resize(m);
  if (m != 0 && !detail::read_parallel(fileno(f), g.edge_dst.data(), m, 4, off_dst)) {
    error = grfmt("%s: byte offset %" PRIu64 ": read error", p, off_dst);
    return false;
  }
  const uint32_t* dst = g.edge_dst.data();
  const uint64_t e = detail::first_bad(m, [&](uint64_t i) { return dst[i] >= n; });
  if (e < m) {
    error = grfmt("%s: byte offset %" PRIu64 ": expected dst[%" PRIu64 "] < N = %" PRIu64 ", found %" PRIu32, p,
                  off_dst + 4 * e, e, n, dst[e]);
    return false;
  }
  if (esz == 4) {
    g.edge_data.resize(m);
    if (m != 0 && !detail::read_parallel(fileno(f), g.edge_data.data(), m, 4, off_data)) {
      error = grfmt("%s: byte offset %" PRIu64 ": read error", p, off_data);
      return false;
    }
  }
  detail::sort_lists(g);
  return true;
}

namespace detail {

/// A 64-bit mix of one arc (splitmix64's finalizer): the arcs' fingerprint sums it.
inline uint64_t arc_hash(uint32_t u, uint32_t v) {
  uint64_t x = (static_cast<uint64_t>(u) << 32) | v;
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/// Whether v's (sorted) list holds u.
inline bool has_arc(const HostGraph& g, uint32_t v, uint32_t u) {
  const uint32_t* b = g.edge_dst.data() + g.row_start[v];
  const uint32_t* e = g.edge_dst.data() + g.row_start[v + 1];
  return std::binary_search(b, e, u);
}

}  // namespace detail

/// Whether every arc u -> v of `g` has its reverse v -> u as often (a program that declares
/// `graph g : symmetric` needs it): the sum of a hash of every arc against the sum over the
/// reversed arcs, one pass on every core, equal for a symmetric graph and unequal otherwise
/// but for a 64-bit collision. When it is not, `why` names an arc without its reverse (found
/// by a search, lists sorted). Reads the lists sorted, as read_gr leaves them.
inline bool is_symmetric(const HostGraph& g, std::string& why) {
  std::atomic<uint64_t> balance{0};
  detail::parallel_ranges(g.nnodes, [&](uint64_t lo, uint64_t hi) {
    uint64_t sum = 0;
    for (uint64_t u = lo; u < hi; ++u)
      for (edge_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
        const uint32_t v = g.edge_dst[e];
        sum += detail::arc_hash(static_cast<uint32_t>(u), v) - detail::arc_hash(v, static_cast<uint32_t>(u));
      }
    balance += sum;
  });
  if (balance == 0) return true;
  for (uint32_t u = 0; u < g.nnodes; ++u)
    for (edge_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
      const uint32_t v = g.edge_dst[e];
      if (!detail::has_arc(g, v, u)) {
        why = detail::grfmt("the edge %u -> %u has no reverse", u, v);
        return false;
      }
    }
  why = "some edge is there more often than its reverse";
  return false;
}

/// Whether `g` has no self-loop and no arc twice (a program that declares `graph g : simple`
/// needs it): each sorted list strictly increasing and without its own node, on every core.
/// When not, `why` names the first node at fault and what.
inline bool is_simple(const HostGraph& g, std::string& why) {
  const uint64_t bad = detail::first_bad(g.nnodes, [&](uint64_t u) {
    for (edge_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
      if (g.edge_dst[e] == u) return true;
      if (e > g.row_start[u] && g.edge_dst[e] == g.edge_dst[e - 1]) return true;
    }
    return false;
  });
  if (bad == g.nnodes) return true;
  for (edge_t e = g.row_start[bad]; e < g.row_start[bad + 1]; ++e) {
    if (g.edge_dst[e] == bad) {
      why = detail::grfmt("node %llu has a self-loop", static_cast<unsigned long long>(bad));
      return false;
    }
  }
  why = detail::grfmt("node %llu has an edge twice", static_cast<unsigned long long>(bad));
  return false;
}

/// Whether `path` is a folder of parts (`irglc graph gen rmat --parts N -o FOLDER`): a
/// folder with a parts.json (irgl/multi.cuh reads it).
inline bool is_parts_folder(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  return stat((path + "/parts.json").c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// Reads a .gr file; on any problem prints "error: <message>" and exits 1.
inline HostGraph load_gr(const std::string& path) {
  if (is_parts_folder(path))
    fatal("%s is a folder of parts: a program reads one only when built for several GPUs "
          "(irglc compile --multi-gpu on), one part a GPU",
          path.c_str());
  HostGraph g;
  std::string error;
  if (!read_gr(path, g, error)) fatal("%s", error.c_str());
  return g;
}

/// Writes `g` as a .gr version 1 file (with padding; edge-data size 4 when
/// g.has_edge_data), whole or not at all (irgl/file.cuh). Returns false with
/// `error` set on failure.
inline bool write_gr(const std::string& path, const HostGraph& g, std::string& error) {
  WholeFile file(path);
  std::FILE* f = file.get();
  if (f == nullptr) {
    error = path + ": cannot create: " + std::strerror(errno);
    return false;
  }
  const uint64_t hdr[4] = {1, g.has_edge_data ? 4u : 0u, g.nnodes, g.nedges};
  bool ok = std::fwrite(hdr, sizeof hdr, 1, f) == 1;
  for (uint64_t i = 0; ok && i < g.nnodes; ++i) {
    const uint64_t v = g.row_start[i + 1];
    ok = std::fwrite(&v, 8, 1, f) == 1;
  }
  if (ok && g.nedges != 0) ok = std::fwrite(g.edge_dst.data(), 4, g.nedges, f) == g.nedges;
  const uint32_t zero = 0;
  if (ok && g.nedges % 2 == 1) ok = std::fwrite(&zero, 4, 1, f) == 1;
  if (ok && g.has_edge_data && g.nedges != 0) ok = std::fwrite(g.edge_data.data(), 4, g.nedges, f) == g.nedges;
  if (!ok || !file.commit()) {
    error = path + ": write error: " + std::strerror(errno);
    return false;
  }
  return true;
}

/// The share of a warp's lanes busy when each thread walks one node's edges alone, nodes
/// taken 32 at a time in order: edges / (32 x the sum over each 32 consecutive nodes of their
/// largest degree); 1 for a graph without edges. `irglc graph info` prints the same figure.
inline double warp_efficiency(const HostGraph& g) {
  uint64_t lanes = 0;
  for (uint64_t start = 0; start < g.nnodes; start += 32) {
    const uint64_t end = std::min<uint64_t>(start + 32, g.nnodes);
    uint64_t widest = 0;
    for (uint64_t n = start; n < end; ++n) widest = std::max<uint64_t>(widest, g.row_start[n + 1] - g.row_start[n]);
    lanes += 32ull * widest;
  }
  return lanes == 0 ? 1.0 : static_cast<double>(g.nedges) / static_cast<double>(lanes);
}

/// Whether a program with serial versions of its kernels (irglc's `--adapt`) runs them on
/// `g`: its mean degree is below `below_degree` and its warp efficiency at least
/// `efficiency_percent` percent. `why` gets the figures, for the run record.
inline bool serial_inner_loops(const HostGraph& g, uint32_t below_degree, uint32_t efficiency_percent,
                               std::string& why) {
  const double mean = g.nnodes == 0 ? 0.0 : static_cast<double>(g.nedges) / g.nnodes;
  const double efficiency = warp_efficiency(g);
  const bool serial = mean < below_degree && efficiency * 100.0 >= efficiency_percent;
  why = detail::grfmt("%s: mean degree %.2f (serial below %u), warp efficiency %.0f%% (serial from %u%%)",
                      serial ? "serial" : "scheduled", mean, below_degree, efficiency * 100.0,
                      efficiency_percent);
  return serial;
}

/// Device copy of a HostGraph (RAII: freed on destruction).
class DeviceGraph {
 public:
  DeviceGraph() = default;
  explicit DeviceGraph(const HostGraph& g)
      : nnodes_(g.nnodes), nedges_(g.nedges), row_start_(g.row_start), edge_dst_(g.edge_dst) {
    if (g.has_edge_data) edge_data_ = DeviceArray<uint32_t>(g.edge_data);
    has_edge_data_ = g.has_edge_data;
  }
  /// The device view. edge_data is null when the graph has no edge values.
  Graph view() const {
    Graph v;
    v.nnodes = nnodes_;
    v.nedges = nedges_;
    v.row_start = row_start_.data();
    v.edge_dst = edge_dst_.data();
    v.edge_data = has_edge_data_ ? edge_data_.data() : nullptr;
    return v;
  }

 private:
  uint32_t nnodes_ = 0;
  edge_t nedges_ = 0;
  bool has_edge_data_ = false;
  DeviceArray<edge_t> row_start_;
  DeviceArray<uint32_t> edge_dst_, edge_data_;
};

/// The in-edges of a graph in host memory (see InEdges).
struct HostInEdges {
  std::vector<edge_t> start;     ///< nnodes + 1 entries
  std::vector<uint32_t> source;  ///< nedges entries
  std::vector<edge_t> edge_id;   ///< nedges entries when asked for, else empty
};

/// The transpose of `g` by a counting sort (linear in the graph): each node's in-edges in
/// increasing order of source, and with `ids` each in-edge's out-edge id.
inline HostInEdges transpose(const HostGraph& g, bool ids) {
  HostInEdges t;
  t.start.assign(static_cast<size_t>(g.nnodes) + 1, 0);
  for (edge_t e = 0; e < g.nedges; ++e) ++t.start[g.edge_dst[e] + 1];
  for (uint32_t n = 0; n < g.nnodes; ++n) t.start[n + 1] += t.start[n];
  std::vector<edge_t> next(t.start.begin(), t.start.end() - 1);
  t.source.resize(g.nedges);
  if (ids) t.edge_id.resize(g.nedges);
  for (uint32_t u = 0; u < g.nnodes; ++u) {
    for (edge_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
      const edge_t k = next[g.edge_dst[e]]++;
      t.source[k] = u;
      if (ids) t.edge_id[k] = e;
    }
  }
  return t;
}

/// A graph's in-edges on the device. `shared`: the graph is symmetric (the program requires
/// it) and no edge ids are needed, so the in-edges are the graph's own CSR and nothing is
/// built or copied.
class DeviceInEdges {
 public:
  DeviceInEdges() = default;
  DeviceInEdges(const HostGraph& g, const DeviceGraph& dg, bool shared, bool ids) {
    if (shared) {
      const Graph v = dg.view();
      view_.start = v.row_start;
      view_.source = v.edge_dst;
      return;
    }
    const HostInEdges t = transpose(g, ids);
    start_ = DeviceArray<edge_t>(t.start);
    source_ = DeviceArray<uint32_t>(t.source);
    if (ids) edge_id_ = DeviceArray<edge_t>(t.edge_id);
    view_.start = start_.data();
    view_.source = source_.data();
    view_.edge_id = ids ? edge_id_.data() : nullptr;
  }
  InEdges view() const { return view_; }

 private:
  DeviceArray<edge_t> start_, edge_id_;
  DeviceArray<uint32_t> source_;
  InEdges view_;
};

}  // namespace irgl
