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
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
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
  Cluster(const HostGraph& whole, int gpus)
      : whole_(whole), n_(gpus), starts_(balanced_ranges(whole, static_cast<uint32_t>(gpus))),
        mirrors_(gpus), slots_(gpus), comms_(gpus) {
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

  /// Each part's mirrors' global ids, published while the parts are built.
  std::vector<std::vector<uint32_t>>& mirrors() { return mirrors_; }
  ncclComm_t comm(int rank) const { return comms_[rank]; }

 private:
  const HostGraph& whole_;
  int n_;
  std::vector<uint32_t> starts_;
  std::vector<std::vector<uint32_t>> mirrors_;
  std::vector<uint64_t> slots_;
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

/// out[i] = prop[rindex[i]]: the masters that other parts mirror, in their mirror order.
template <class T>
__global__ void gather_kernel(T* out, const T* prop, const uint32_t* rindex, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    out[i] = prop[rindex[i]];
  }
}

/// Keeps the items of `in` that are masters (< masters) in `keep`; flags the mirrors pushed.
template <class Unused = void>
__global__ void split_kernel(Worklist in, Worklist keep, uint8_t* flags, uint32_t masters, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t item = in.pop(i);
    if (item < masters) {
      keep.push(item);
    } else {
      flags[item - masters] = 1u;
    }
  }
}

/// Pushes the masters that other parts flagged (pushed as their mirrors).
template <class Unused = void>
__global__ void receive_kernel(Worklist wl, const uint8_t* flags, const uint32_t* rindex, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    if (flags[i] != 0u) wl.push(rindex[i]);
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
  /// (except for Sum) the masters copied to their mirrors (a collective).
  template <class T>
  void exchange(DeviceArray<T>& a, Merge merge) {
    if (parts() == 1 || merge == Merge::None) return;
    begin_timing();
    T* prop = a.data();
    T* sent = reinterpret_cast<T*>(shadow(a.data(), recv_total_ * sizeof(T)));
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
  /// here as mirrors) leave `wl` and are pushed to their owners' `wl` (a collective).
  void deliver(HostWorklist& wl, const char* kernel) {
    if (parts() == 1) return;
    begin_timing();
    const uint32_t n = wl.size();
    if (n != 0) {
      if (keep_.capacity() != wl.capacity()) keep_ = HostWorklist(wl.capacity());
      keep_.clear();
      detail::split_kernel<><<<detail::grid_for(n), 256>>>(wl.view(), keep_.view(), flags_.data(), masters_, n);
      IRGL_CHECK_LAUNCH("irgl::detail::split_kernel");
      wl.swap(keep_);
    }
    const ncclComm_t comm = c_.comm(rank_);
    IRGL_NCCL_CHECK(ncclGroupStart());
    for (int q = 0; q < parts(); ++q) {
      if (q == rank_) continue;
      if (send_cnt_[q] != 0)
        IRGL_NCCL_CHECK(ncclSend(flags_.data() + send_off_[q], send_cnt_[q], ncclUint8, q, comm, 0));
      if (recv_cnt_[q] != 0)
        IRGL_NCCL_CHECK(ncclRecv(rflags_.data() + recv_off_[q], recv_cnt_[q], ncclUint8, q, comm, 0));
    }
    IRGL_NCCL_CHECK(ncclGroupEnd());
    bytes_ += mirror_ids_.size();
    flags_.zero(0);
    if (recv_total_ != 0) {
      detail::receive_kernel<><<<detail::grid_for(recv_total_), 256>>>(wl.view(), rflags_.data(), rindex_.data(), recv_total_);
      IRGL_CHECK_LAUNCH("irgl::detail::receive_kernel");
    }
    end_timing();
    wl.check_overflow(kernel);
  }

  /// Before a run: the copies last sent zero (as the properties), no flags, no statistics.
  void reset() {
    for (auto& s : shadows_) s.second.zero(0);
    flags_.zero(0);
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
    PartGraph pg = part_graph(whole(), starts, rank_);
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
    mirror_ids_dev_ = DeviceArray<uint32_t>(mirror_ids_);
    flags_ = DeviceArray<uint8_t>(mirror_ids_.size());
    flags_.zero(0);
    rflags_ = DeviceArray<uint8_t>(recv_total_);
  }

  /// The copies of `prop`'s masters last sent to the other parts (zero at first, as the
  /// properties are).
  uint8_t* shadow(const void* prop, size_t bytes) {
    auto it = shadows_.find(prop);
    if (it == shadows_.end()) {
      it = shadows_.emplace(prop, DeviceArray<uint8_t>(bytes)).first;
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
  std::unordered_map<const void*, DeviceArray<uint8_t>> shadows_;
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
