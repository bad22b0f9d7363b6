// irgl/split.cuh -- node splitting: the graph's nodes as parts of at most D out-edges.
//
// A node of more than D out-edges is cut into ceil(degree / D) parts of consecutive edges,
// each of at most D; every other node is one part. Its first part stands for the node, in
// node order; its further parts (only they have table entries: a node and a first edge)
// are spread evenly among the first parts, one every `stride` ids, so that the parts of a
// hub land in different blocks of a loop over the parts (contiguous, they would give one
// block the whole hub again). With K further parts among N nodes, stride = (N + K) / K:
// ids q * stride + stride - 1 (q < K) are the further parts, every other id v is the first
// part of node v - min(v / stride, K). A graph with nothing to split is the identity.
//
// D comes from the degree histogram (split_degree_auto): the top of its tallest bin, as the
// node-splitting paper chooses it, but never above a block's even share of the edges (a part
// should not keep one block busy after the others), nor below a thread's share (more parts
// than the GPU has threads buy nothing) or 32 (a warp's worth of edges).
//
// Host:   uint32_t d; std::string err;
//         irgl::split_degree_flag("auto", hg, threads, block, d, err);  // --split-degree
//         irgl::HostSplit hs; irgl::split_nodes(hg, d, hs, err);
//         irgl::DeviceSplit ds(hs, dg.view());
// Device: Split::node(v), begin(v), end(v) of part v < count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "array.cuh"
#include "graph.cuh"

namespace irgl {

/// The degree that means nothing is split.
constexpr uint32_t kSplitNone = 0xffffffffu;

/// Device view of the parts. Cheap to copy; does not own memory.
struct Split {
  uint32_t count = 0;             ///< parts: N plus K further parts of the split nodes
  uint32_t extra = 0;             ///< K (0: nothing split, part v is node v)
  uint32_t stride = 1;            ///< further part q is id q * stride + stride - 1
  uint32_t degree = kSplitNone;   ///< D: the most edges a part has
  const edge_t* row_start = nullptr;  ///< the graph's
  const uint32_t* owner = nullptr;    ///< K entries: the node of further part q
  const edge_t* first = nullptr;      ///< K entries: the first edge of further part q

  /// Part v as further part `q` (true), or as the first part of node `q` (false).
  __device__ __forceinline__ bool further(uint32_t v, uint32_t& q) const {
    if (extra == 0) {
      q = v;
      return false;
    }
    const uint32_t k = v / stride;
    if (k < extra && v - k * stride == stride - 1) {
      q = k;
      return true;
    }
    q = v - (k < extra ? k : extra);
    return false;
  }
  __device__ __forceinline__ uint32_t node(uint32_t v) const {
    uint32_t q;
    return further(v, q) ? __ldg(owner + q) : q;
  }
  __device__ __forceinline__ edge_t begin(uint32_t v) const {
    uint32_t q;
    return further(v, q) ? __ldg(first + q) : __ldg(row_start + q);
  }
  __device__ __forceinline__ edge_t end(uint32_t v) const {
    uint32_t q;
    const bool f = further(v, q);
    const edge_t b = f ? __ldg(first + q) : __ldg(row_start + q);
    const edge_t last = __ldg(row_start + (f ? __ldg(owner + q) : q) + 1);
    return last - b > degree ? b + degree : last;
  }
};

/// The parts in host memory.
struct HostSplit {
  uint32_t nnodes = 0;
  uint32_t degree = kSplitNone;
  uint32_t split = 0;           ///< nodes cut into more than one part
  std::vector<uint32_t> owner;  ///< the further parts' nodes
  std::vector<edge_t> first;    ///< and first edges
  uint64_t count() const { return nnodes + owner.size(); }
  /// Further part q's id is q * stride() + stride() - 1 (Split::stride).
  uint32_t stride() const {
    return owner.empty() ? 1u : static_cast<uint32_t>(count() / owner.size());
  }
};

/// The split degree of `g` from its histogram of out-degrees (100 bins of equal width up to
/// the largest degree): the top of the bin with the most nodes, at most a block's share of the
/// edges over the resident grid (E / (threads / block)), and at least ceil(E / threads) and
/// 32. kSplitNone when no node has more out-edges than that, or when the tallest bin is the
/// last (the most nodes have about the largest degree: nothing stands out to split).
inline uint32_t split_degree_auto(const HostGraph& g, uint64_t threads, uint32_t block) {
  constexpr uint64_t kBins = 100;
  uint64_t widest = 0;
  for (uint64_t n = 0; n < g.nnodes; ++n) widest = std::max<uint64_t>(widest, g.row_start[n + 1] - g.row_start[n]);
  if (widest == 0) return kSplitNone;
  std::vector<uint64_t> bins(kBins, 0);
  for (uint64_t n = 0; n < g.nnodes; ++n) {
    const uint64_t d = g.row_start[n + 1] - g.row_start[n];
    // Bin b holds the degrees in (b * widest / kBins, (b + 1) * widest / kBins]; 0 joins bin 0.
    const uint64_t b = d == 0 ? 0 : (d * kBins - 1) / widest;
    ++bins[std::min(b, kBins - 1)];
  }
  const uint64_t tallest = static_cast<uint64_t>(std::max_element(bins.begin(), bins.end()) - bins.begin());
  const uint64_t top = ((tallest + 1) * widest + kBins - 1) / kBins;
  if (top >= widest) return kSplitNone;  // the most nodes have about the largest degree: no hub
  const uint64_t t = threads == 0 ? 1 : threads;
  const uint64_t blocks = std::max<uint64_t>(1, t / std::max<uint32_t>(block, 1));
  const uint64_t least = std::max<uint64_t>((static_cast<uint64_t>(g.nedges) + t - 1) / t, 32);
  const uint64_t most = std::max<uint64_t>((static_cast<uint64_t>(g.nedges) + blocks - 1) / blocks, least);
  const uint64_t d = std::min(std::max(top, least), most);
  return d >= widest || d >= kSplitNone ? kSplitNone : static_cast<uint32_t>(d);
}

/// The program's `--split-degree` flag: `auto` (split_degree_auto over `threads` in blocks of
/// `block`), `off` (kSplitNone) or a degree of at least 1. False, with `error` set, for anything
/// else.
inline bool split_degree_flag(const std::string& arg, const HostGraph& g, uint64_t threads, uint32_t block,
                              uint32_t& out, std::string& error) {
  if (arg == "auto") {
    out = split_degree_auto(g, threads, block);
    return true;
  }
  if (arg == "off") {
    out = kSplitNone;
    return true;
  }
  char* end = nullptr;
  const unsigned long long v = std::strtoull(arg.c_str(), &end, 10);
  if (arg.empty() || arg[0] < '0' || arg[0] > '9' || *end != '\0' || v == 0 || v >= kSplitNone) {
    error = "--split-degree " + arg + ": auto, off or a degree from 1 to 4294967294";
    return false;
  }
  out = static_cast<uint32_t>(v);
  return true;
}

/// Cuts the nodes of `g` of more than `degree` out-edges into parts. False, with `error` set,
/// for a degree of 0 or when the parts would not fit 32-bit ids (a degree too small for the
/// graph).
inline bool split_nodes(const HostGraph& g, uint32_t degree, HostSplit& s, std::string& error) {
  s = HostSplit{};
  s.nnodes = g.nnodes;
  s.degree = degree;
  if (degree == kSplitNone) return true;
  if (degree == 0) {
    error = "--split-degree 0: a part has at least one edge";
    return false;
  }
  uint64_t extra = 0;
  for (uint64_t n = 0; n < g.nnodes; ++n) {
    const uint64_t d = g.row_start[n + 1] - g.row_start[n];
    if (d > degree) {
      extra += (d - 1) / degree;  // parts beyond the first
      ++s.split;
    }
  }
  if (extra + g.nnodes >= 0xffffffffull) {
    error = "--split-degree " + std::to_string(degree) + " cuts the graph into " + std::to_string(extra + g.nnodes) +
            " parts, more than 32-bit ids hold: give a larger degree";
    return false;
  }
  if (s.split == 0) {
    s.degree = kSplitNone;  // nothing to cut: the identity
    return true;
  }
  s.owner.reserve(extra);
  s.first.reserve(extra);
  for (uint32_t n = 0; n < g.nnodes; ++n) {
    const edge_t b = g.row_start[n], e = g.row_start[n + 1];
    if (e - b <= degree) continue;
    for (edge_t f = b + degree; f < e; f += degree) {
      s.owner.push_back(n);
      s.first.push_back(f);
      if (e - f <= degree) break;  // the last part (and no overflow of f past e)
    }
  }
  return true;
}

/// What the run's record says of the split: "none (--split-degree FLAG)" or "degree D: K nodes
/// into P parts (--split-degree FLAG)".
inline std::string describe_split(const HostSplit& s, const std::string& flag) {
  char buf[160];
  if (s.degree == kSplitNone) {
    std::snprintf(buf, sizeof buf, "none (--split-degree %s)", flag.c_str());
  } else {
    std::snprintf(buf, sizeof buf, "degree %u: %u nodes into %llu parts (--split-degree %s)", s.degree, s.split,
                  static_cast<unsigned long long>(s.split + s.owner.size()), flag.c_str());
  }
  return buf;
}

/// The parts on the device; frees them on destruction.
class DeviceSplit {
 public:
  DeviceSplit() = default;
  DeviceSplit(const HostSplit& s, const Graph& g) : owner_(s.owner), first_(s.first) {
    view_.count = static_cast<uint32_t>(s.count());
    view_.extra = static_cast<uint32_t>(s.owner.size());
    view_.stride = s.stride();
    view_.degree = s.degree;
    view_.row_start = g.row_start;
    view_.owner = owner_.data();
    view_.first = first_.data();
  }
  Split view() const { return view_; }

 private:
  DeviceArray<uint32_t> owner_;
  DeviceArray<edge_t> first_;
  Split view_;
};

}  // namespace irgl
