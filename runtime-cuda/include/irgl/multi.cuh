// irgl/multi.cuh -- partitioned execution over the GPUs of one host (docs/multi-gpu.md).
//
// A program built with `irglc compile --multi-gpu on` runs one host thread per GPU, each
// with that GPU current, each running the same orchestration (`main`) over its own part of
// the graph. Every decision `main` takes is global (the sum of the worklists' sizes, the
// reductions of all GPUs), so the threads take the same branches and meet at the same
// exchanges.
//
// The partition is the one `irglc graph partition` prints (irgl_graph::partition): part p
// owns the contiguous node range starts[p]..starts[p+1] (its masters) balanced by nodes plus
// out-edges, and every out-edge of them. Its local graph numbers its masters first (global id
// minus starts[p]), then its mirrors (the remote heads of its edges) in increasing global id;
// mirrors have no out-edges, and kernels run over the masters only.
//
// After a kernel writes a property that crosses parts, Part::exchange:
//   1. sends each part's mirrors to the master's part (one contiguous run of mirrors per
//      pair of parts, since ranges are contiguous and mirrors sorted), which merges every
//      mirror that changed since the last exchange into its master (min, max, or, and, a
//      store of a launch-uniform value), or adds them all (sum; the mirrors reset to 0);
//   2. copies the masters back to their mirrors (not for a sum, whose mirrors hold additions).
// Part::deliver sends the items a kernel pushed that are other parts' masters to their
// owners, as a flag per mirror. Both go through NCCL, one ncclSend/ncclRecv per pair of
// parts in one group, on the default stream (ordered with the kernels).
//
// The data of the exchanges lines up without tables on the sending side: part p's mirrors
// of part q's masters are local ids masters + [send_off[q], send_off[q] + send_cnt[q]);
// part q lists, for each of them in the same order, its master's local id (its `rindex`
// segment for p). NVLink multicast stays off (NCCL_NVLS_ENABLE=0 unless set).
#pragma once

#include <nccl.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "array.cuh"
#include "check.cuh"
#include "graph.cuh"
#include "ops.cuh"
#include "reduce.cuh"
#include "worklist.cuh"

#define IRGL_NCCL_CHECK(call)                                                                    \
  do {                                                                                           \
    const ncclResult_t irgl_nccl_r_ = (call);                                                    \
    if (irgl_nccl_r_ != ncclSuccess)                                                             \
      ::irgl::fatal("%s:%d: %s failed: %s", __FILE__, __LINE__, #call,                           \
                    ncclGetErrorString(irgl_nccl_r_));                                           \
  } while (0)

namespace irgl {

/// How a property's mirrors are merged into their masters (Part::exchange).
enum class Merge { Min, Max, Sum, Or, And, Uniform, Copy, None };

/// How a round's pushes reach the GPU that owns the item (Part::deliver; irgl_ir's
/// PushDelivery): `Once`, each GPU's list holds each of its masters at most once (the kernels
/// that pop them do the same work on a second pass over an item); `Counted`, every push.
enum class Delivery { Once, Counted };

/// A node that a part holds neither as master nor as mirror.
constexpr uint32_t kNoNode = 0xffffffffu;

/// Part p starts at the first node whose nodes-plus-edges prefix reaches p / parts of the
/// total (irgl_graph::partition::balanced_ranges); parts + 1 entries, parts may be empty.
inline std::vector<uint32_t> balanced_ranges(const HostGraph& g, uint32_t parts) {
  parts = parts < 1 ? 1 : parts;
  auto weight = [&](uint32_t v) { return static_cast<uint64_t>(v) + static_cast<uint64_t>(g.row_start[v]); };
  const uint64_t total = weight(g.nnodes);
  std::vector<uint32_t> starts{0};
  for (uint32_t p = 1; p < parts; ++p) {
    const uint64_t target =
        static_cast<uint64_t>(static_cast<unsigned __int128>(total) * p / parts);
    uint32_t lo = starts.back(), hi = g.nnodes;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (weight(mid) < target) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    starts.push_back(lo);
  }
  starts.push_back(g.nnodes);
  return starts;
}

/// A graph held as parts (`irglc graph gen rmat --parts N -o FOLDER`, docs/graphs.md): part p
/// is FOLDER/part-p.gr (its masters, then its mirrors; the masters' out-edges with local ids,
/// sorted; mirrors have none) and FOLDER/part-p.mirrors (the mirrors' global ids, 32-bit
/// little-endian, increasing). Each GPU reads its own part: the host never holds the whole
/// graph's edges, only its offsets (load_input).
struct PartFiles {
  std::string folder;            // empty: the input is one .gr file, partitioned at load
  std::vector<uint32_t> starts;  // part p's masters are starts[p] .. starts[p + 1]
  // What parts.json records of the graph: every arc has its reverse; no self-loops and no
  // repeated edges.
  bool symmetric = false, simple = false;

  int parts() const { return folder.empty() ? 0 : static_cast<int>(starts.size()) - 1; }
  std::string graph(int p) const { return folder + "/part-" + std::to_string(p) + ".gr"; }
  std::string mirrors(int p) const { return folder + "/part-" + std::to_string(p) + ".mirrors"; }
};

namespace detail {

/// Where the value of a `"key": VALUE` of the JSON text `json` starts, from `from` on, or
/// npos (the generator's own record, written by irglc; any spacing).
inline size_t json_value(const std::string& json, const char* key, size_t from = 0) {
  const std::string quoted = std::string("\"") + key + "\"";
  for (size_t at = json.find(quoted, from); at != std::string::npos; at = json.find(quoted, at + 1)) {
    size_t i = at + quoted.size();
    while (i < json.size() && std::isspace(static_cast<unsigned char>(json[i]))) ++i;
    if (i >= json.size() || json[i] != ':') continue;
    ++i;
    while (i < json.size() && std::isspace(static_cast<unsigned char>(json[i]))) ++i;
    return i;
  }
  return std::string::npos;
}

/// Whether some `"key"` of `json` is `true`.
inline bool json_true(const std::string& json, const char* key) {
  for (size_t i = json_value(json, key); i != std::string::npos; i = json_value(json, key, i))
    if (json.compare(i, 4, "true") == 0) return true;
  return false;
}

/// The unsigned integer of the first `"key": N` in `json`, or false.
inline bool json_number(const std::string& json, const char* key, uint64_t& out) {
  for (size_t i = json_value(json, key); i != std::string::npos; i = json_value(json, key, i)) {
    if (i < json.size() && std::isdigit(static_cast<unsigned char>(json[i]))) {
      out = std::strtoull(json.c_str() + i, nullptr, 10);
      return true;
    }
  }
  return false;
}

/// The bytes of file `path`, or false with `error` set.
inline bool read_file(const std::string& path, std::string& out, std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    error = grfmt("%s: cannot open: %s", path.c_str(), std::strerror(errno));
    return false;
  }
  FileCloser closer{f};
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, got);
  if (std::ferror(f)) {
    error = grfmt("%s: read error", path.c_str());
    return false;
  }
  return true;
}

}  // namespace detail

/// The input of a partitioned run. A .gr file is read whole (each GPU's part cut from it); a
/// folder of parts gives the whole graph's sizes and offsets only (`edge_dst` and
/// `edge_data` empty: main's queries of degrees work, nothing reads the whole graph's edges),
/// from each part's header and its masters' offsets, and `files` lists the parts. On any
/// problem prints "error: <message>" and exits 1.
inline HostGraph load_input(const std::string& path, PartFiles& files) {
  files = PartFiles();
  if (!is_parts_folder(path)) return load_gr(path);
  files.folder = path;
  std::string manifest, error;
  if (!detail::read_file(path + "/parts.json", manifest, error)) fatal("%s", error.c_str());
  // Its record of the graph (`symmetric`, `simple`), or, in a folder written before those,
  // of the generation.
  files.symmetric = detail::json_true(manifest, "symmetric") || detail::json_true(manifest, "symmetrize");
  files.simple = detail::json_true(manifest, "simple") ||
                 (detail::json_true(manifest, "drop_self_loops") &&
                  (files.symmetric || detail::json_true(manifest, "dedup")));
  HostGraph g;
  g.row_start.push_back(0);
  files.starts.push_back(0);
  bool first = true;
  for (int p = 0;; ++p) {
    const std::string gr = files.graph(p), mirrors = files.mirrors(p);
    std::FILE* f = std::fopen(gr.c_str(), "rb");
    if (f == nullptr) {
      if (errno == ENOENT && p > 0) break;
      fatal("%s: cannot open: %s", gr.c_str(), std::strerror(errno));
    }
    detail::FileCloser closer{f};
    uint64_t hdr[4];
    if (!detail::read_exact(f, hdr, sizeof hdr) || hdr[0] != 1 || (hdr[1] != 0 && hdr[1] != 4))
      fatal("%s: byte offset 0: expected a .gr version 1 header", gr.c_str());
    const uint64_t n = hdr[2], m = hdr[3];
    struct stat st;
    if (stat(mirrors.c_str(), &st) != 0) fatal("%s: cannot stat: %s", mirrors.c_str(), std::strerror(errno));
    const uint64_t nmirrors = static_cast<uint64_t>(st.st_size) / 4;
    if (static_cast<uint64_t>(st.st_size) % 4 != 0 || nmirrors > n)
      fatal("%s: %llu bytes: expected a 4-byte global id for each of at most %llu mirrors", mirrors.c_str(),
            static_cast<unsigned long long>(st.st_size), static_cast<unsigned long long>(n));
    const uint64_t masters = n - nmirrors;
    if (first) {
      g.has_edge_data = hdr[1] == 4;
    } else if (g.has_edge_data != (hdr[1] == 4)) {
      fatal("%s: byte offset 8: edge-data size %llu, but part 0 has %d", gr.c_str(),
            static_cast<unsigned long long>(hdr[1]), g.has_edge_data ? 4 : 0);
    }
    first = false;
    if (static_cast<uint64_t>(g.nnodes) + masters > UINT32_MAX - 1ull)
      fatal("%s: the parts hold more nodes than 32-bit ids give", path.c_str());
    if (static_cast<uint64_t>(g.nedges) + m > kMaxEdges)
      fatal("%s: the parts hold more than %llu edges, what this build's edge indices hold; build the program "
            "with 64-bit edge indices (nvcc -DIRGL_EDGE64)",
            path.c_str(), static_cast<unsigned long long>(kMaxEdges));
    // The masters' end offsets (mirrors have no edges: the last master's end is E).
    std::vector<uint64_t> ends(masters);
    if (masters != 0 && !detail::read_exact(f, ends.data(), masters * 8))
      fatal("%s: byte offset 32: expected %llu offsets, found end of file", gr.c_str(),
            static_cast<unsigned long long>(masters));
    uint64_t prev = 0;
    for (uint64_t v = 0; v < masters; ++v) {
      if (ends[v] < prev || ends[v] > m)
        fatal("%s: byte offset %llu: offsets must rise to E = %llu", gr.c_str(),
              static_cast<unsigned long long>(32 + 8 * v), static_cast<unsigned long long>(m));
      prev = ends[v];
      g.row_start.push_back(static_cast<edge_t>(g.nedges + ends[v]));
    }
    if (prev != m)
      fatal("%s: its mirrors have edges (the masters' offsets end at %llu of %llu): not a part of a folder of parts",
            gr.c_str(), static_cast<unsigned long long>(prev), static_cast<unsigned long long>(m));
    g.nnodes += static_cast<uint32_t>(masters);
    g.nedges += static_cast<edge_t>(m);
    files.starts.push_back(g.nnodes);
  }
  uint64_t nodes = 0, edges = 0;
  if (!detail::json_number(manifest, "nodes", nodes) || !detail::json_number(manifest, "edges", edges))
    fatal("%s/parts.json: expected the graph's `nodes` and `edges`", path.c_str());
  if (nodes != g.nnodes || edges != static_cast<uint64_t>(g.nedges))
    fatal("%s/parts.json: %llu nodes and %llu edges, but its parts hold %u nodes and %llu edges", path.c_str(),
          static_cast<unsigned long long>(nodes), static_cast<unsigned long long>(edges), g.nnodes,
          static_cast<unsigned long long>(g.nedges));
  return g;
}

/// The GPUs a run uses: `asked` (0: every visible GPU), at most the visible ones.
inline int gpus_to_use(uint64_t asked, const char* program) {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    fatal("no CUDA GPU available to run %s (%s)", program,
          err != cudaSuccess ? cudaGetErrorString(err) : "the driver reports none");
  }
  if (asked > static_cast<uint64_t>(devices)) {
    fatal("--gpus %llu: this machine has %d GPU%s", static_cast<unsigned long long>(asked), devices,
          devices == 1 ? "" : "s");
  }
  return asked == 0 ? devices : static_cast<int>(asked);
}

/// Whether the input is symmetric: a .gr file by its edges, a folder of parts by what
/// parts.json records (the parts' edges are read by their GPUs only).
inline bool input_is_symmetric(const HostGraph& g, const PartFiles& files, std::string& why) {
  if (files.parts() == 0) return is_symmetric(g, why);
  why = files.folder + "/parts.json does not record it symmetric";
  return files.symmetric;
}

/// Whether the input has no self-loops and no repeated edges, as input_is_symmetric.
inline bool input_is_simple(const HostGraph& g, const PartFiles& files, std::string& why) {
  if (files.parts() == 0) return is_simple(g, why);
  why = files.folder + "/parts.json does not record it simple";
  return files.simple;
}

/// The GPUs a run over `files` uses: one a part (`asked` must be 0 or that many), or as
/// gpus_to_use for a .gr file.
inline int gpus_for_input(uint64_t asked, const PartFiles& files, const char* program) {
  const int parts = files.parts();
  if (parts == 0) return gpus_to_use(asked, program);
  if (asked != 0 && asked != static_cast<uint64_t>(parts))
    fatal("--gpus %llu: %s is in %d part%s, one a GPU: run on %d (or generate it with --parts %llu)",
          static_cast<unsigned long long>(asked), files.folder.c_str(), parts, parts == 1 ? "" : "s", parts,
          static_cast<unsigned long long>(asked));
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  if (devices < parts)
    fatal("%s is in %d part%s, one a GPU, but this machine has %d GPU%s", files.folder.c_str(), parts,
          parts == 1 ? "" : "s", devices, devices == 1 ? "" : "s");
  return parts;
}

/// One part's share of a graph, built on the host: its masters (global ids first ..
/// first + masters), its graph (masters, then mirrors; the masters' out-edges with local
/// destinations; mirrors have none) and its mirrors' global ids, increasing.
struct PartGraph {
  uint32_t first = 0, masters = 0;
  HostGraph local;
  std::vector<uint32_t> mirrors;
};

/// Part `rank` of `g` split at `starts` (balanced_ranges). Linear in the part's edges plus
/// the graph's nodes / 64: the remote heads are marked in a bit per node, and a mirror's
/// local id is its rank among the marks.
inline PartGraph part_graph(const HostGraph& g, const std::vector<uint32_t>& starts, int rank) {
  PartGraph p;
  p.first = starts[rank];
  p.masters = starts[rank + 1] - p.first;
  const uint32_t first = p.first, end = p.first + p.masters;
  const edge_t lo = g.row_start[first], hi = g.row_start[end];
  std::vector<uint64_t> seen((static_cast<uint64_t>(g.nnodes) + 63) / 64, 0);
  for (edge_t e = lo; e < hi; ++e) {
    const uint32_t d = g.edge_dst[e];
    if (d < first || d >= end) seen[d / 64] |= 1ull << (d % 64);
  }
  // The marks of the words before each word (`before`), then those below a node in its word.
  std::vector<uint32_t> before(seen.size());
  for (uint64_t w = 0; w < seen.size(); ++w) {
    before[w] = static_cast<uint32_t>(p.mirrors.size());
    for (uint64_t bits = seen[w]; bits != 0; bits &= bits - 1)
      p.mirrors.push_back(static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits)));
  }
  const uint32_t nmirrors = static_cast<uint32_t>(p.mirrors.size());
  if (static_cast<uint64_t>(p.masters) + nmirrors >= kNoNode)
    fatal("part %d of the graph has %u masters and %u mirrors: more than 32-bit ids hold", rank, p.masters, nmirrors);
  HostGraph& l = p.local;
  l.nnodes = p.masters + nmirrors;
  l.nedges = hi - lo;
  l.has_edge_data = g.has_edge_data;
  l.row_start.resize(static_cast<size_t>(l.nnodes) + 1);
  for (uint32_t v = 0; v <= p.masters; ++v) l.row_start[v] = g.row_start[first + v] - lo;
  for (uint32_t v = p.masters + 1; v <= l.nnodes; ++v) l.row_start[v] = hi - lo;
  l.edge_dst.resize(l.nedges);
  for (edge_t e = lo; e < hi; ++e) {
    const uint32_t d = g.edge_dst[e];
    l.edge_dst[e - lo] =
        d >= first && d < end
            ? d - first
            : p.masters + before[d / 64] +
                  static_cast<uint32_t>(__builtin_popcountll(seen[d / 64] & ((1ull << (d % 64)) - 1)));
  }
  if (g.has_edge_data) l.edge_data.assign(g.edge_data.begin() + lo, g.edge_data.begin() + hi);
  return p;
}

/// Part `rank` of a folder of parts, read from its files, checked against the ranges.
inline PartGraph read_part(const PartFiles& files, int rank) {
  PartGraph p;
  p.first = files.starts[rank];
  p.masters = files.starts[rank + 1] - p.first;
  std::string error;
  if (!read_gr(files.graph(rank), p.local, error)) fatal("%s", error.c_str());
  std::string raw;
  if (!detail::read_file(files.mirrors(rank), raw, error)) fatal("%s", error.c_str());
  p.mirrors.resize(raw.size() / 4);
  std::memcpy(p.mirrors.data(), raw.data(), p.mirrors.size() * 4);
  if (static_cast<uint64_t>(p.masters) + p.mirrors.size() != p.local.nnodes)
    fatal("%s: %u nodes, but the part has %u masters and %zu mirrors", files.graph(rank).c_str(), p.local.nnodes,
          p.masters, p.mirrors.size());
  const uint32_t end = files.starts.back();
  for (size_t i = 0; i < p.mirrors.size(); ++i) {
    const uint32_t m = p.mirrors[i];
    if (m >= end || (m >= p.first && m - p.first < p.masters) || (i > 0 && m <= p.mirrors[i - 1]))
      fatal("%s: mirror %zu is %u: mirrors are other parts' nodes, increasing", files.mirrors(rank).c_str(), i, m);
  }
  return p;
}

/// How part `rank` exchanges with each other part q: it sends its mirrors of q's masters,
/// local ids masters + [send_off[q], send_off[q] + send_cnt[q]) (contiguous: mirrors are
/// sorted, ranges contiguous); it receives q's mirrors of its masters into
/// [recv_off[q], recv_off[q] + recv_cnt[q]) of a buffer, `rindex` giving the local id of the
/// master each stands for (in q's mirror order, so the two sides line up).
struct ExchangePlan {
  std::vector<uint64_t> send_off, send_cnt, recv_off, recv_cnt;
  std::vector<uint32_t> rindex;
};

/// Part `rank`'s plan, from every part's mirrors (PartGraph::mirrors).
inline ExchangePlan exchange_plan(const std::vector<uint32_t>& starts,
                                  const std::vector<std::vector<uint32_t>>& mirrors, int rank) {
  const int n = static_cast<int>(mirrors.size());
  ExchangePlan x;
  x.send_off.assign(n, 0);
  x.send_cnt.assign(n, 0);
  x.recv_off.assign(n, 0);
  x.recv_cnt.assign(n, 0);
  const std::vector<uint32_t>& mine = mirrors[rank];
  const uint32_t first = starts[rank], end = starts[rank + 1];
  for (int q = 0; q < n; ++q) {
    if (q == rank) continue;
    const auto a = std::lower_bound(mine.begin(), mine.end(), starts[q]);
    const auto b = std::lower_bound(mine.begin(), mine.end(), starts[q + 1]);
    x.send_off[q] = static_cast<uint64_t>(a - mine.begin());
    x.send_cnt[q] = static_cast<uint64_t>(b - a);
    const std::vector<uint32_t>& theirs = mirrors[q];
    const auto ra = std::lower_bound(theirs.begin(), theirs.end(), first);
    const auto rb = std::lower_bound(theirs.begin(), theirs.end(), end);
    x.recv_off[q] = x.rindex.size();
    x.recv_cnt[q] = static_cast<uint64_t>(rb - ra);
    for (auto it = ra; it != rb; ++it) x.rindex.push_back(*it - first);
  }
  return x;
}

class Part;

/// What the threads of one run share: the whole graph, the node ranges, the NCCL
/// communicators, and a barrier with a slot per thread for the collectives of `main`.
class Cluster {
 public:
  /// Over `whole` cut at balanced ranges, or over the parts of `files` (one a GPU; `whole`
  /// then holds the sizes and offsets only, load_input).
  Cluster(const HostGraph& whole, int gpus, const PartFiles& files = PartFiles())
      : whole_(whole), files_(files), n_(gpus),
        starts_(files.parts() != 0 ? files.starts : balanced_ranges(whole, static_cast<uint32_t>(gpus))),
        mirrors_(gpus), slots_(gpus), comms_(gpus) {
    if (files.parts() != 0 && files.parts() != gpus)
      fatal("internal error: %d GPUs for %d parts", gpus, files.parts());
    // NVLink multicast stays off unless the environment says otherwise.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    if (n_ > 1) {
      std::vector<int> devices(n_);
      for (int i = 0; i < n_; ++i) devices[i] = i;
      IRGL_NCCL_CHECK(ncclCommInitAll(comms_.data(), n_, devices.data()));
    }
  }
  ~Cluster() {
    if (n_ > 1)
      for (ncclComm_t c : comms_) (void)ncclCommDestroy(c);
  }
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  int size() const { return n_; }
  const HostGraph& whole() const { return whole_; }
  const PartFiles& files() const { return files_; }
  const std::vector<uint32_t>& starts() const { return starts_; }
  /// The part that owns global node `v`.
  int owner(uint32_t v) const {
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), v) - starts_.begin()) - 1;
  }

  /// Runs body(part) on one host thread per GPU, that GPU current, and returns when every
  /// thread has.
  void run(const std::function<void(Part&)>& body);

  /// Every thread waits until all have arrived.
  void barrier() {
    std::unique_lock<std::mutex> lock(mutex_);
    const uint64_t generation = generation_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation_ != generation; });
    }
  }

  /// Every thread's `value` (of at most 8 bytes), in rank order; a collective.
  template <class T>
  std::vector<T> all_gather(int rank, T value) {
    static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable<T>::value,
                  "all_gather takes scalars");
    uint64_t word = 0;
    std::memcpy(&word, &value, sizeof value);
    slots_[rank] = word;
    barrier();
    std::vector<T> out(n_);
    for (int i = 0; i < n_; ++i) std::memcpy(&out[i], &slots_[i], sizeof(T));
    barrier();  // no thread writes its slot again before every thread has read them
    return out;
  }

  /// The counts each thread sends to each other (`to[q]`: for part q); returns those sent
  /// to `rank` (`from[q]`: by part q); a collective.
  std::vector<uint64_t> all_to_all(int rank, const std::vector<uint64_t>& to) {
    if (matrix_.size() != static_cast<size_t>(n_) * n_) {
      barrier();  // every thread is here before one resizes
      if (rank == 0) matrix_.assign(static_cast<size_t>(n_) * n_, 0);
      barrier();
    }
    for (int q = 0; q < n_; ++q) matrix_[static_cast<size_t>(rank) * n_ + q] = to[q];
    barrier();
    std::vector<uint64_t> from(n_);
    for (int q = 0; q < n_; ++q) from[q] = matrix_[static_cast<size_t>(q) * n_ + rank];
    barrier();  // no thread writes its row again before every thread has read its column
    return from;
  }

  /// Each part's mirrors' global ids, published while the parts are built.
  std::vector<std::vector<uint32_t>>& mirrors() { return mirrors_; }
  ncclComm_t comm(int rank) const { return comms_[rank]; }

 private:
  const HostGraph& whole_;
  const PartFiles files_;
  int n_;
  std::vector<uint32_t> starts_;
  std::vector<std::vector<uint32_t>> mirrors_;
  std::vector<uint64_t> slots_;
  std::vector<uint64_t> matrix_;  // all_to_all: row r holds part r's counts for each part
  std::vector<ncclComm_t> comms_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
};

namespace detail {

/// *p = min(*p, v) (kLess) or max(*p, v), atomically: the hardware's for integers, a
/// compare-and-swap loop for floating point.
template <bool kLess, class T>
__device__ __forceinline__ void atomic_extreme(T* p, T v) {
  if constexpr (std::is_floating_point<T>::value) {
    using U = typename std::conditional<sizeof(T) == 8, unsigned long long, unsigned int>::type;
    U* w = reinterpret_cast<U*>(p);
    U old = *w, seen;
    T cur;
    do {
      seen = old;
      std::memcpy(&cur, &seen, sizeof cur);
      if (!(kLess ? v < cur : v > cur)) return;
      U next;
      std::memcpy(&next, &v, sizeof next);
      old = atomicCAS(w, seen, next);
    } while (old != seen);
  } else if constexpr (sizeof(T) == 8 || sizeof(T) == 4) {
    // The CUDA overloads: int, unsigned int, long long, unsigned long long.
    using S = typename std::conditional<sizeof(T) == 8, long long, int>::type;
    using U = typename std::conditional<sizeof(T) == 8, unsigned long long, unsigned int>::type;
    using W = typename std::conditional<std::is_signed<T>::value, S, U>::type;
    if constexpr (kLess) {
      atomicMin(reinterpret_cast<W*>(p), static_cast<W>(v));
    } else {
      atomicMax(reinterpret_cast<W*>(p), static_cast<W>(v));
    }
  } else if (kLess ? v < *p : v > *p) {
    *p = v;  // bool: a min is an and, a max an or, whose racing stores agree
  }
}

template <class T>
__device__ __forceinline__ void atomic_sum_any(T* p, T v) {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    atomicAdd(p, v);
  } else if constexpr (sizeof(T) == 8) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (sizeof(T) == 4) {
    atomicAdd(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
  } else {
    if (v) *p = v;  // bool: a sum of flags is their or
  }
}

template <class T>
__device__ __forceinline__ void atomic_bits_any(T* p, T v, bool is_or) {
  if constexpr (std::is_integral<T>::value && sizeof(T) == 8) {
    auto* w = reinterpret_cast<unsigned long long*>(p);
    if (is_or) atomicOr(w, static_cast<unsigned long long>(v));
    else atomicAnd(w, static_cast<unsigned long long>(v));
  } else if constexpr (std::is_integral<T>::value && sizeof(T) == 4) {
    auto* w = reinterpret_cast<unsigned int*>(p);
    if (is_or) atomicOr(w, static_cast<unsigned int>(v));
    else atomicAnd(w, static_cast<unsigned int>(v));
  } else if constexpr (std::is_same<T, bool>::value) {
    if (is_or ? v : !v) *p = v;  // racing stores of one value
  }
}

/// Merges the received mirrors `in` into the masters `rindex[i]` of `prop`: each one that
/// differs from what this part last sent for it (`sent`), or every one for a sum.
template <class T>
__global__ void merge_kernel(T* prop, const T* in, const T* sent, const uint32_t* rindex, uint64_t n,
                             Merge merge) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const T v = in[i];
    T* p = prop + rindex[i];
    if (merge == Merge::Sum) {
      atomic_sum_any(p, v);
      continue;
    }
    if (v == sent[i]) continue;  // that GPU did not change its copy
    switch (merge) {
      case Merge::Min: atomic_extreme<true>(p, v); break;
      case Merge::Max: atomic_extreme<false>(p, v); break;
      case Merge::Or: atomic_bits_any(p, v, true); break;
      case Merge::And: atomic_bits_any(p, v, false); break;
      case Merge::Uniform: *p = v; break;  // every GPU stored the launch's one value
      default: break;
    }
  }
}

/// Whether two values have the same bits (a float's -0.0 and 0.0 differ; a NaN equals itself).
template <class T>
__device__ __forceinline__ bool same_bits(const T& a, const T& b) {
  using U = typename std::conditional<
      sizeof(T) == 8, unsigned long long,
      typename std::conditional<sizeof(T) == 4, unsigned int,
                                typename std::conditional<sizeof(T) == 2, unsigned short, unsigned char>::type>::type>::type;
  static_assert(sizeof(U) == sizeof(T), "a property of 1, 2, 4 or 8 bytes");
  U x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

/// Applies one copy `v` of a mirror to its master `*p` by `merge`, as merge_kernel does.
template <class T>
__device__ __forceinline__ void merge_one(T* p, T v, Merge merge) {
  switch (merge) {
    case Merge::Min: atomic_extreme<true>(p, v); break;
    case Merge::Max: atomic_extreme<false>(p, v); break;
    case Merge::Sum: atomic_sum_any(p, v); break;
    case Merge::Or: atomic_bits_any(p, v, true); break;
    case Merge::And: atomic_bits_any(p, v, false); break;
    case Merge::Uniform: *p = v; break;
    default: break;
  }
}

/// Update tracking: the entries i of [0, n) whose value (prop[i], or prop[rindex[i]]) differs
/// from last[i] (from zero where `last` is null) are written as (i, value) pairs to out_idx
/// and out_val, at positions taken from `*count`, one atomic per block and tile; with
/// `update_last` such a last[i] becomes the value. `prop`, `rindex` and `last` point at the
/// range's first entry.
template <class T>
__global__ void compact_kernel(const T* prop, const uint32_t* rindex, T* last, bool update_last, uint64_t n,
                               uint32_t* out_idx, T* out_val, unsigned long long* count) {
  __shared__ uint32_t warp_base[32];
  __shared__ unsigned long long block_base;
  const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  for (uint64_t start = blockIdx.x * uint64_t(blockDim.x); start < n; start += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t i = start + threadIdx.x;
    bool changed = false;
    T v{};
    if (i < n) {
      v = rindex != nullptr ? prop[rindex[i]] : prop[i];
      changed = !same_bits(v, last != nullptr ? last[i] : T{});
      if (changed && update_last) last[i] = v;
    }
    const uint32_t ballot = __ballot_sync(0xffffffffu, changed);
    if (lane == 0) warp_base[warp] = __popc(ballot);
    __syncthreads();
    if (threadIdx.x == 0) {
      uint32_t total = 0;
      for (uint32_t w = 0; w < blockDim.x / 32; ++w) {
        const uint32_t c = warp_base[w];
        warp_base[w] = total;
        total += c;
      }
      block_base = total != 0 ? atomicAdd(count, static_cast<unsigned long long>(total)) : 0ull;
    }
    __syncthreads();
    if (changed) {
      const uint64_t k = block_base + warp_base[warp] + __popc(ballot & ((1u << lane) - 1u));
      out_idx[k] = static_cast<uint32_t>(i);
      out_val[k] = v;
    }
    __syncthreads();  // warp_base and block_base are reused by the next tile
  }
}

/// Received mirrors' pairs: each value merged into its master prop[rindex[idx]].
template <class T>
__global__ void merge_pairs_kernel(T* prop, const uint32_t* rindex, const uint32_t* idx, const T* val, uint64_t n,
                                   Merge merge) {
  for (uint64_t k = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; k < n;
       k += uint64_t(gridDim.x) * blockDim.x) {
    merge_one(prop + rindex[idx[k]], val[k], merge);
  }
}

/// Received masters' pairs: each value stored to its mirror, and to the mirror's last copy.
template <class T>
__global__ void store_pairs_kernel(T* mirrors, T* last, const uint32_t* idx, const T* val, uint64_t n) {
  for (uint64_t k = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; k < n;
       k += uint64_t(gridDim.x) * blockDim.x) {
    mirrors[idx[k]] = val[k];
    last[idx[k]] = val[k];
  }
}

/// out[i] = prop[rindex[i]]: the masters that other parts mirror, in their mirror order.
template <class T>
__global__ void gather_kernel(T* out, const T* prop, const uint32_t* rindex, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    out[i] = prop[rindex[i]];
  }
}

/// Whether this call set bit `v` of `seen` (false: it was set already).
__device__ inline bool first_mark(uint32_t* seen, uint32_t v) {
  const uint32_t bit = 1u << (v & 31u);
  return (atomicOr(&seen[v >> 5], bit) & bit) == 0u;
}

/// Keeps the items of `in` that are masters (< masters) in `keep`, each once where `seen` is
/// given (a bit per master, clear); marks the mirrors pushed: a flag each, or with `counts` a
/// count of their pushes.
template <class Unused = void>
__global__ void split_kernel(Worklist in, Worklist keep, uint8_t* flags, uint32_t* counts, uint32_t* seen,
                             uint32_t masters, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t item = in.pop(i);
    if (item < masters) {
      if (seen == nullptr || first_mark(seen, item)) keep.push(item);
    } else if (counts != nullptr) {
      atomicAdd(&counts[item - masters], 1u);
    } else {
      flags[item - masters] = 1u;
    }
  }
}

/// Pushes the masters that other parts pushed as their mirrors: once each where `seen` is
/// given (flagged, and not yet in the list), or as often as `counts` says.
template <class Unused = void>
__global__ void receive_kernel(Worklist wl, const uint8_t* flags, const uint32_t* counts, uint32_t* seen,
                               const uint32_t* rindex, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    if (counts != nullptr) {
      for (uint32_t c = counts[i]; c != 0u; --c) wl.push(rindex[i]);
    } else if (flags[i] != 0u && (seen == nullptr || first_mark(seen, rindex[i]))) {
      wl.push(rindex[i]);
    }
  }
}

inline uint32_t grid_for(uint64_t n) {
  const uint64_t blocks = (n + 255) / 256;
  return static_cast<uint32_t>(blocks < 1 ? 1 : (blocks > 4096 ? 4096 : blocks));
}

}  // namespace detail

/// One GPU's part of a partitioned run: its local graph, the exchange plan with the other
/// parts, and the collectives of `main`. Built and used on that GPU's thread only.
class Part {
 public:
  Part(Cluster& c, int rank) : c_(c), rank_(rank) { build(); }
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;

  int rank() const { return rank_; }
  int parts() const { return c_.size(); }
  /// The whole graph (its sizes, and `main`'s queries of it).
  const HostGraph& whole() const { return c_.whole(); }
  /// This part's graph: its masters, then its mirrors.
  const HostGraph& local() const { return local_; }
  /// Its masters: the nodes its kernels run over.
  uint32_t masters() const { return masters_; }
  /// The global id of its first master, and of its first edge.
  uint32_t first() const { return first_; }
  /// The global id of each mirror, on the GPU.
  const uint32_t* mirror_ids() const { return mirror_ids_dev_.data(); }
  edge_t first_edge() const { return whole().row_start[first_]; }

  /// The local id of global node `v` here (master or mirror), or kNoNode.
  uint32_t local_id(uint32_t v) const {
    if (v >= first_ && v - first_ < masters_) return v - first_;
    const auto it = std::lower_bound(mirror_ids_.begin(), mirror_ids_.end(), v);
    if (it != mirror_ids_.end() && *it == v) return masters_ + static_cast<uint32_t>(it - mirror_ids_.begin());
    return kNoNode;
  }
  /// The items of `global` that this part owns, as local ids.
  std::vector<uint32_t> owned_items(const std::vector<uint32_t>& global) const {
    std::vector<uint32_t> out;
    for (uint32_t v : global)
      if (v >= first_ && v - first_ < masters_) out.push_back(v - first_);
    return out;
  }

  /// The sum of every part's `v` (a collective).
  uint64_t sum(uint64_t v) {
    uint64_t total = 0;
    for (uint64_t x : c_.all_gather(rank_, v)) total += x;
    return total;
  }
  /// A global after a kernel that updated it on every GPU by `merge`'s atomic (a collective):
  /// each GPU started the launch from `before` (the same everywhere) and holds `mine`; a sum
  /// adds every GPU's additions to `before`, the other merges combine the values.
  template <class T>
  T combine(T before, T mine, Merge merge) {
    const std::vector<T> all = c_.all_gather(rank_, mine);
    T out = merge == Merge::Sum ? before : all[0];
    for (const T& x : all) {
      switch (merge) {
        case Merge::Sum: out = static_cast<T>(out + (x - before)); break;
        case Merge::Min: out = x < out ? x : out; break;
        case Merge::Max: out = x > out ? x : out; break;
        case Merge::Or:
        case Merge::And:
          if constexpr (std::is_integral<T>::value) {
            out = static_cast<T>(merge == Merge::Or ? (out | x) : (out & x));
            break;
          }
          [[fallthrough]];
        default: fatal("internal error: merge %d of a global", static_cast<int>(merge));
      }
    }
    return out;
  }
  /// The reduction (Any/All) of every part's flag (a collective).
  bool reduce(const HostReduceFlag& flag) {
    const std::vector<uint8_t> all = c_.all_gather<uint8_t>(rank_, flag.read() ? 1u : 0u);
    const bool any = std::any_of(all.begin(), all.end(), [](uint8_t b) { return b != 0u; });
    const bool every = std::all_of(all.begin(), all.end(), [](uint8_t b) { return b != 0u; });
    return flag.kind() == Reduce::Any ? any : every;
  }

  /// `main`'s read of global node `v` of a node property: its master's value (a collective).
  template <class T>
  T read(const DeviceArray<T>& a, uint64_t v) {
    check_node(v, whole().nnodes, "a node property's index in main");
    const int owner = c_.owner(static_cast<uint32_t>(v));
    T mine{};
    if (owner == rank_) a.download(&mine, 1, v - first_);
    return c_.all_gather(rank_, mine)[owner];
  }
  /// `main`'s store to global node `v` of a node property: its master, then (for a property
  /// other GPUs copy, `merge` not Sum or None) every mirror with it (a collective).
  template <class T>
  void write(DeviceArray<T>& a, uint64_t v, T value, Merge merge) {
    check_node(v, whole().nnodes, "a node property's index in main");
    if (c_.owner(static_cast<uint32_t>(v)) == rank_) a.upload(&value, 1, v - first_);
    if (merge != Merge::Sum && merge != Merge::None) exchange(a, Merge::Copy);
  }

  /// After a kernel wrote `a`: its mirrors merged into their masters by `merge`, then
  /// (except for Sum) the masters copied back to their mirrors (a collective). Where a pair
  /// of parts shares many mirrors (kTrackedBytes), only the copies that changed are sent
  /// (update tracking, `send_changed`); otherwise every mirror, each time.
  template <class T>
  void exchange(DeviceArray<T>& a, Merge merge) {
    if (parts() == 1 || merge == Merge::None) return;
    begin_timing();
    T* prop = a.data();
    T* sent = reinterpret_cast<T*>(shadow(sent_, a.data(), recv_total_ * sizeof(T)));
    if (tracked(sizeof(T))) {
      exchange_tracked(prop, sent, merge);
      end_timing();
      return;
    }
    const ncclComm_t comm = c_.comm(rank_);
    if (merge != Merge::Copy) {
      T* in = reinterpret_cast<T*>(scratch(recv_total_ * sizeof(T)));
      IRGL_NCCL_CHECK(ncclGroupStart());
      for (int q = 0; q < parts(); ++q) {
        if (q == rank_) continue;
        if (send_cnt_[q] != 0)
          IRGL_NCCL_CHECK(ncclSend(prop + masters_ + send_off_[q], send_cnt_[q] * sizeof(T), ncclUint8, q, comm, 0));
        if (recv_cnt_[q] != 0)
          IRGL_NCCL_CHECK(ncclRecv(in + recv_off_[q], recv_cnt_[q] * sizeof(T), ncclUint8, q, comm, 0));
      }
      IRGL_NCCL_CHECK(ncclGroupEnd());
      bytes_ += static_cast<uint64_t>(mirror_ids_.size()) * sizeof(T);
      if (recv_total_ != 0) {
        detail::merge_kernel<T><<<detail::grid_for(recv_total_), 256>>>(prop, in, sent, rindex_.data(), recv_total_, merge);
        IRGL_CHECK_LAUNCH("irgl::detail::merge_kernel");
      }
      if (merge == Merge::Sum) {
        // A mirror holds this GPU's additions since the last exchange.
        if (!mirror_ids_.empty())
          IRGL_CHECK(cudaMemsetAsync(prop + masters_, 0, mirror_ids_.size() * sizeof(T), 0));
        end_timing();
        return;
      }
    }
    if (recv_total_ != 0) {
      detail::gather_kernel<T><<<detail::grid_for(recv_total_), 256>>>(sent, prop, rindex_.data(), recv_total_);
      IRGL_CHECK_LAUNCH("irgl::detail::gather_kernel");
    }
    IRGL_NCCL_CHECK(ncclGroupStart());
    for (int q = 0; q < parts(); ++q) {
      if (q == rank_) continue;
      if (recv_cnt_[q] != 0)
        IRGL_NCCL_CHECK(ncclSend(sent + recv_off_[q], recv_cnt_[q] * sizeof(T), ncclUint8, q, comm, 0));
      if (send_cnt_[q] != 0)
        IRGL_NCCL_CHECK(ncclRecv(prop + masters_ + send_off_[q], send_cnt_[q] * sizeof(T), ncclUint8, q, comm, 0));
    }
    IRGL_NCCL_CHECK(ncclGroupEnd());
    bytes_ += recv_total_ * sizeof(T);
    end_timing();
  }

  /// After kernel `kernel` pushed to `wl`: the items that are other parts' masters (pushed
  /// here as mirrors) leave `wl` and are pushed to their owners' `wl` (a collective). With
  /// Delivery::Once each master is in the list at most once afterwards (its own pushes and
  /// every other part's merged); with Counted as often as all parts pushed it.
  void deliver(HostWorklist& wl, Delivery delivery, const char* kernel) {
    // One part: nothing to send, but Once still drops the list's repeated items.
    if (parts() == 1 && delivery == Delivery::Counted) return;
    begin_timing();
    const bool once = delivery == Delivery::Once;
    uint32_t* seen = nullptr;
    if (once) {
      const uint64_t words = (static_cast<uint64_t>(masters_) + 31) / 32;
      if (seen_.size() != words) {
        seen_ = DeviceArray<uint32_t>(words);
        seen_.zero(0);
      }
      seen = seen_.data();
    } else if (counts_.size() != mirror_ids_.size() || rcounts_.size() != recv_total_) {
      counts_ = DeviceArray<uint32_t>(mirror_ids_.size());
      counts_.zero(0);
      rcounts_ = DeviceArray<uint32_t>(recv_total_);
    }
    uint32_t* counts = once ? nullptr : counts_.data();
    const uint32_t n = wl.size();
    if (n != 0) {
      if (keep_.capacity() != wl.capacity()) keep_ = HostWorklist(wl.capacity());
      keep_.clear();
      detail::split_kernel<><<<detail::grid_for(n), 256>>>(wl.view(), keep_.view(), flags_.data(), counts, seen,
                                                           masters_, n);
      IRGL_CHECK_LAUNCH("irgl::detail::split_kernel");
      wl.swap(keep_);
    }
    // A flag per mirror, or a 32-bit count.
    uint8_t* out = once ? flags_.data() : reinterpret_cast<uint8_t*>(counts_.data());
    uint8_t* in = once ? rflags_.data() : reinterpret_cast<uint8_t*>(rcounts_.data());
    const uint64_t unit = once ? 1 : sizeof(uint32_t);
    if (parts() > 1) {
      const ncclComm_t comm = c_.comm(rank_);
      IRGL_NCCL_CHECK(ncclGroupStart());
      for (int q = 0; q < parts(); ++q) {
        if (q == rank_) continue;
        if (send_cnt_[q] != 0)
          IRGL_NCCL_CHECK(ncclSend(out + send_off_[q] * unit, send_cnt_[q] * unit, ncclUint8, q, comm, 0));
        if (recv_cnt_[q] != 0)
          IRGL_NCCL_CHECK(ncclRecv(in + recv_off_[q] * unit, recv_cnt_[q] * unit, ncclUint8, q, comm, 0));
      }
      IRGL_NCCL_CHECK(ncclGroupEnd());
      bytes_ += mirror_ids_.size() * unit;
    }
    if (once) {
      flags_.zero(0);
    } else {
      counts_.zero(0);
    }
    if (recv_total_ != 0) {
      detail::receive_kernel<><<<detail::grid_for(recv_total_), 256>>>(
          wl.view(), once ? rflags_.data() : nullptr, once ? nullptr : rcounts_.data(), seen, rindex_.data(), recv_total_);
      IRGL_CHECK_LAUNCH("irgl::detail::receive_kernel");
    }
    if (once) seen_.zero(0);
    end_timing();
    wl.check_overflow(kernel);
  }

  /// Before a run: the copies last sent zero (as the properties), no flags, no statistics.
  void reset() {
    for (auto& s : sent_) s.second.zero(0);
    for (auto& s : last_) s.second.zero(0);
    flags_.zero(0);
    counts_.zero(0);
    seen_.zero(0);
    bytes_ = 0;
    calls_ = 0;
    pending_.clear();
  }

  /// Starts a run's clock on every GPU at once (a collective).
  void begin_run() {
    IRGL_CHECK(cudaDeviceSynchronize());
    c_.barrier();
    t0_ = std::chrono::steady_clock::now();
  }
  /// Ends it: the milliseconds from begin_run until every GPU finished (a collective).
  double end_run() {
    IRGL_CHECK(cudaDeviceSynchronize());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    double most = 0.0;
    for (double x : c_.all_gather(rank_, ms)) most = std::max(most, x);
    return most;
  }
  /// Update tracking from this many bytes of a property's mirrors that a pair of parts shares
  /// (kTrackedBytes by default; 0: always; tests use it). Every part must be given the same.
  void track_from(uint64_t bytes) { tracked_bytes_ = bytes; }

  /// The bytes this part sent in the run's exchanges, their number, and their GPU time.
  uint64_t bytes_sent() const { return bytes_; }
  uint64_t exchanges() const { return calls_; }
  double exchange_ms() {
    double ms = 0.0;
    for (auto& e : pending_) {
      float x = 0.f;
      IRGL_CHECK(cudaEventSynchronize(e.second));
      IRGL_CHECK(cudaEventElapsedTime(&x, e.first, e.second));
      ms += x;
    }
    return ms;
  }
  Cluster& cluster() { return c_; }

  /// Copies this part's masters of a node property to `out + first()` (the whole graph's
  /// array), or of an edge property to `out + first_edge()`.
  template <class T, class U>
  void gather_nodes(const T* device, U* out) const {
    static_assert(sizeof(T) == sizeof(U), "same element size");
    if (masters_ != 0)
      IRGL_CHECK(cudaMemcpy(out + first_, device, masters_ * sizeof(T), cudaMemcpyDeviceToHost));
  }
  template <class T, class U>
  void gather_edges(const T* device, U* out) const {
    static_assert(sizeof(T) == sizeof(U), "same element size");
    if (local_.nedges != 0)
      IRGL_CHECK(cudaMemcpy(out + first_edge(), device, local_.nedges * sizeof(T), cudaMemcpyDeviceToHost));
  }

  ~Part() {
    for (auto& e : events_) {
      (void)cudaEventDestroy(e.first);
      (void)cudaEventDestroy(e.second);
    }
  }

 private:
  void build() {
    const auto& starts = c_.starts();
    PartGraph pg = c_.files().parts() != 0 ? read_part(c_.files(), rank_) : part_graph(whole(), starts, rank_);
    first_ = pg.first;
    masters_ = pg.masters;
    local_ = std::move(pg.local);
    mirror_ids_ = std::move(pg.mirrors);
    // The exchange plan, from every part's mirrors.
    c_.mirrors()[rank_] = mirror_ids_;
    c_.barrier();
    ExchangePlan plan = exchange_plan(starts, c_.mirrors(), rank_);
    c_.barrier();  // every part has read the others' mirrors
    send_off_ = std::move(plan.send_off);
    send_cnt_ = std::move(plan.send_cnt);
    recv_off_ = std::move(plan.recv_off);
    recv_cnt_ = std::move(plan.recv_cnt);
    recv_total_ = plan.rindex.size();
    rindex_ = DeviceArray<uint32_t>(plan.rindex);
    uint64_t largest = 0;
    for (uint64_t c : send_cnt_) largest = std::max(largest, c);
    for (uint64_t c : c_.all_gather(rank_, largest)) largest_range_ = std::max(largest_range_, c);
    changed_ = DeviceArray<unsigned long long>(static_cast<size_t>(parts()));
    connect();
    mirror_ids_dev_ = DeviceArray<uint32_t>(mirror_ids_);
    flags_ = DeviceArray<uint8_t>(mirror_ids_.size());
    flags_.zero(0);
    rflags_ = DeviceArray<uint8_t>(recv_total_);
  }

  /// A byte to and from every other part: NCCL connects a pair of GPUs at their first
  /// send, tens of milliseconds each, which would otherwise fall in the first run's time.
  void connect() {
    if (parts() == 1) return;
    DeviceArray<uint8_t> byte(static_cast<size_t>(2 * parts()));
    const ncclComm_t comm = c_.comm(rank_);
    IRGL_NCCL_CHECK(ncclGroupStart());
    for (int q = 0; q < parts(); ++q) {
      if (q == rank_) continue;
      IRGL_NCCL_CHECK(ncclSend(byte.data() + q, 1, ncclUint8, q, comm, 0));
      IRGL_NCCL_CHECK(ncclRecv(byte.data() + parts() + q, 1, ncclUint8, q, comm, 0));
    }
    IRGL_NCCL_CHECK(ncclGroupEnd());
    IRGL_CHECK(cudaStreamSynchronize(0));
  }

  /// Pairs of parts that share this many bytes of a property's mirrors or more send only the
  /// copies that changed; below it a whole range costs about what counting them does.
  static constexpr uint64_t kTrackedBytes = 1ull << 20;
  /// A received range that came whole (send_changed).
  static constexpr uint64_t kWhole = ~0ull;

  bool tracked(size_t element_bytes) const { return largest_range_ * element_bytes >= tracked_bytes_; }

  /// exchange() with update tracking: the mirrors that changed since the last exchange (for
  /// a sum, the nonzero ones) go to their owners and are merged; then the masters that changed
  /// since they were last sent go to their mirrors.
  template <class T>
  void exchange_tracked(T* prop, T* sent, Merge merge) {
    const uint64_t mirrors = mirror_ids_.size();
    T* last = reinterpret_cast<T*>(shadow(last_, prop, mirrors * sizeof(T)));
    const uint64_t most = std::max<uint64_t>(mirrors, recv_total_);
    const size_t idx_bytes = (most * sizeof(uint32_t) + 15) / 16 * 16;
    const size_t val_bytes = (most * sizeof(T) + 15) / 16 * 16;
    if (pairs_.size() < 2 * (idx_bytes + val_bytes)) pairs_ = DeviceArray<uint8_t>(2 * (idx_bytes + val_bytes));
    uint32_t* out_idx = reinterpret_cast<uint32_t*>(pairs_.data());
    T* out_val = reinterpret_cast<T*>(pairs_.data() + idx_bytes);
    uint32_t* in_idx = reinterpret_cast<uint32_t*>(pairs_.data() + idx_bytes + val_bytes);
    T* in_val = reinterpret_cast<T*>(pairs_.data() + 2 * idx_bytes + val_bytes);
    if (merge != Merge::Copy) {
      T* in = reinterpret_cast<T*>(scratch(recv_total_ * sizeof(T)));
      const std::vector<uint64_t> got =
          send_changed<T>(prop + masters_, nullptr, merge == Merge::Sum ? nullptr : last, false, send_off_,
                          send_cnt_, prop + masters_, recv_off_, recv_cnt_, in, out_idx, out_val, in_idx, in_val);
      for (int q = 0; q < parts(); ++q) {
        if (q == rank_ || recv_cnt_[q] == 0) continue;
        const uint64_t o = recv_off_[q];
        if (got[q] == kWhole) {
          detail::merge_kernel<T><<<detail::grid_for(recv_cnt_[q]), 256>>>(prop, in + o, sent + o, rindex_.data() + o,
                                                                           recv_cnt_[q], merge);
          IRGL_CHECK_LAUNCH("irgl::detail::merge_kernel");
        } else if (got[q] != 0) {
          detail::merge_pairs_kernel<T><<<detail::grid_for(got[q]), 256>>>(prop, rindex_.data() + o, in_idx + o,
                                                                           in_val + o, got[q], merge);
          IRGL_CHECK_LAUNCH("irgl::detail::merge_pairs_kernel");
        }
      }
      if (merge == Merge::Sum) {
        // A mirror holds this GPU's additions since the last exchange.
        if (mirrors != 0) IRGL_CHECK(cudaMemsetAsync(prop + masters_, 0, mirrors * sizeof(T), 0));
        return;
      }
    }
    const std::vector<uint64_t> got = send_changed<T>(prop, rindex_.data(), sent, true, recv_off_, recv_cnt_, sent,
                                                      send_off_, send_cnt_, prop + masters_, out_idx, out_val,
                                                      in_idx, in_val);
    for (int q = 0; q < parts(); ++q) {
      if (q == rank_ || send_cnt_[q] == 0) continue;
      const uint64_t o = send_off_[q];
      if (got[q] == kWhole) {
        IRGL_CHECK(cudaMemcpyAsync(last + o, prop + masters_ + o, send_cnt_[q] * sizeof(T), cudaMemcpyDeviceToDevice, 0));
      } else if (got[q] != 0) {
        detail::store_pairs_kernel<T><<<detail::grid_for(got[q]), 256>>>(prop + masters_ + o, last + o, in_idx + o,
                                                                         in_val + o, got[q]);
        IRGL_CHECK_LAUNCH("irgl::detail::store_pairs_kernel");
      }
    }
  }

  /// One step of a tracked exchange. For each other part q, the entries of my range for it
  /// ([off[q], off[q] + cnt[q]) of `values`, read through `rindex` where given) that differ
  /// from `last` are compacted into (position in the range, value) pairs at out_idx/out_val +
  /// off[q]; after an all-to-all of their numbers, each pair of parts sends those pairs, or
  /// the whole range (`dense + off[q]`) where that is fewer bytes, and receives the same for
  /// its range from q ([roff[q], roff[q] + rcnt[q])): pairs at in_idx/in_val + roff[q], a
  /// whole range at `dense_in + roff[q]`. Returns the pairs received from each part, kWhole
  /// for a whole range.
  template <class T>
  std::vector<uint64_t> send_changed(const T* values, const uint32_t* rindex, T* last, bool update_last,
                                     const std::vector<uint64_t>& off, const std::vector<uint64_t>& cnt,
                                     const T* dense, const std::vector<uint64_t>& roff,
                                     const std::vector<uint64_t>& rcnt, T* dense_in, uint32_t* out_idx, T* out_val,
                                     uint32_t* in_idx, T* in_val) {
    auto as_pairs = [](uint64_t pairs, uint64_t range) {
      return pairs * (sizeof(uint32_t) + sizeof(T)) < range * sizeof(T);
    };
    changed_.zero(0);
    for (int q = 0; q < parts(); ++q) {
      if (q == rank_ || cnt[q] == 0) continue;
      const uint64_t o = off[q];
      detail::compact_kernel<T><<<detail::grid_for(cnt[q]), 256>>>(
          rindex != nullptr ? values : values + o, rindex != nullptr ? rindex + o : nullptr,
          last != nullptr ? last + o : nullptr, update_last, cnt[q], out_idx + o, out_val + o, changed_.data() + q);
      IRGL_CHECK_LAUNCH("irgl::detail::compact_kernel");
    }
    std::vector<unsigned long long> counted(static_cast<size_t>(parts()));
    changed_.download(counted.data(), counted.size());
    const std::vector<uint64_t> to(counted.begin(), counted.end());
    const std::vector<uint64_t> from = c_.all_to_all(rank_, to);
    std::vector<uint64_t> got(static_cast<size_t>(parts()), 0);
    const ncclComm_t comm = c_.comm(rank_);
    IRGL_NCCL_CHECK(ncclGroupStart());
    for (int q = 0; q < parts(); ++q) {
      if (q == rank_) continue;
      if (cnt[q] != 0) {
        if (!as_pairs(to[q], cnt[q])) {
          IRGL_NCCL_CHECK(ncclSend(dense + off[q], cnt[q] * sizeof(T), ncclUint8, q, comm, 0));
          bytes_ += cnt[q] * sizeof(T);
        } else if (to[q] != 0) {
          IRGL_NCCL_CHECK(ncclSend(out_idx + off[q], to[q] * sizeof(uint32_t), ncclUint8, q, comm, 0));
          IRGL_NCCL_CHECK(ncclSend(out_val + off[q], to[q] * sizeof(T), ncclUint8, q, comm, 0));
          bytes_ += to[q] * (sizeof(uint32_t) + sizeof(T));
        }
      }
      if (rcnt[q] != 0) {
        if (!as_pairs(from[q], rcnt[q])) {
          IRGL_NCCL_CHECK(ncclRecv(dense_in + roff[q], rcnt[q] * sizeof(T), ncclUint8, q, comm, 0));
          got[q] = kWhole;
        } else if (from[q] != 0) {
          IRGL_NCCL_CHECK(ncclRecv(in_idx + roff[q], from[q] * sizeof(uint32_t), ncclUint8, q, comm, 0));
          IRGL_NCCL_CHECK(ncclRecv(in_val + roff[q], from[q] * sizeof(T), ncclUint8, q, comm, 0));
          got[q] = from[q];
        }
      }
    }
    IRGL_NCCL_CHECK(ncclGroupEnd());
    return got;
  }

  /// The copies of `prop` kept in `shadows` (sent_: its masters' values last sent to the
  /// other parts; last_: its mirrors' values last received), zero at first as the properties
  /// are.
  uint8_t* shadow(std::unordered_map<const void*, DeviceArray<uint8_t>>& shadows, const void* prop, size_t bytes) {
    auto it = shadows.find(prop);
    if (it == shadows.end()) {
      it = shadows.emplace(prop, DeviceArray<uint8_t>(bytes)).first;
      it->second.zero(0);
    }
    return it->second.data();
  }
  uint8_t* scratch(size_t bytes) {
    if (scratch_.size() < bytes) scratch_ = DeviceArray<uint8_t>(bytes);
    return scratch_.data();
  }
  void begin_timing() {
    if (calls_ >= events_.size()) {
      cudaEvent_t a, b;
      IRGL_CHECK(cudaEventCreate(&a));
      IRGL_CHECK(cudaEventCreate(&b));
      events_.emplace_back(a, b);
    }
    IRGL_CHECK(cudaEventRecord(events_[calls_].first, 0));
  }
  void end_timing() {
    IRGL_CHECK(cudaEventRecord(events_[calls_].second, 0));
    pending_.push_back(events_[calls_]);
    ++calls_;
  }

  Cluster& c_;
  int rank_;
  uint32_t first_ = 0, masters_ = 0;
  HostGraph local_;
  std::vector<uint32_t> mirror_ids_;
  std::vector<uint64_t> send_off_, send_cnt_, recv_off_, recv_cnt_;
  uint64_t recv_total_ = 0;
  DeviceArray<uint32_t> rindex_, mirror_ids_dev_;
  DeviceArray<uint8_t> flags_, rflags_, scratch_;
  DeviceArray<uint32_t> counts_, rcounts_;  // Delivery::Counted: pushes per mirror, sent and received
  DeviceArray<uint32_t> seen_;              // Delivery::Once: a bit per master already in the list
  // Per property: the masters' values last sent to each remote mirror (sent_), and each
  // mirror's value last received (last_, update tracking only).
  std::unordered_map<const void*, DeviceArray<uint8_t>> sent_, last_;
  DeviceArray<unsigned long long> changed_;  // update tracking: the pairs compacted for each part
  DeviceArray<uint8_t> pairs_;               // update tracking: pairs to send and received
  uint64_t largest_range_ = 0;               // the most mirrors any pair of parts shares
  uint64_t tracked_bytes_ = kTrackedBytes;
  HostWorklist keep_;
  uint64_t bytes_ = 0, calls_ = 0;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> events_, pending_;
  std::chrono::steady_clock::time_point t0_;
};

inline void Cluster::run(const std::function<void(Part&)>& body) {
  std::vector<std::thread> threads;
  for (int rank = 0; rank < n_; ++rank) {
    threads.emplace_back([this, rank, &body] {
      IRGL_CHECK(cudaSetDevice(rank));
      Part part(*this, rank);
      body(part);
      IRGL_CHECK(cudaDeviceSynchronize());
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace irgl
