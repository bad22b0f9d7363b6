// Node splitting (irgl/split.cuh):
//  - split_degree_auto: a star (a hub of 100000 edges, 100000 leaves of one) splits at the top
//    of the tallest bin of the degree histogram, raised to 32 and to ceil(E / threads); equal
//    degrees, a share above the largest degree and a graph without edges split nothing;
//  - split_degree_flag: auto, off, a number, and one message naming --split-degree for each bad
//    value ("", 0, negative, trailing junk, 2^32 - 1);
//  - split_nodes on a hand graph (degrees 0, 5, 10, 3, 11): the exact owner and first tables,
//    the split count and the parts; kSplitNone and a degree at or above every node's give the
//    identity (no tables); too many parts for 32-bit ids is an error; for every degree, the
//    parts of each node (read through a host mirror of Split::node/begin/end) cover its edges
//    exactly once, in order, each of at most the degree;
//  - describe_split's text;
//  - the device: a kernel over all the parts of a star with other nodes hits every edge once,
//    from the part of the node that owns it, no part longer than the degree, and each part's
//    node, begin and end are the host mirror's; also with nothing split.
// The host parts run without a GPU with IRGL_TEST_HOST_ONLY=1.
// Built twice: with 32-bit edge indices and with IRGL_EDGE64 (test_split_edge64).
// irgl-test: edge64
#include <irgl/runtime.cuh>
#include <irgl/split.cuh>

#include <algorithm>
#include <string>
#include <vector>

#include "test_util.cuh"

using irgl::edge_t;
using irgl::kSplitNone;
using irgl_test::hash32;

namespace {

/// A graph whose node n has deg[n] out-edges (to arbitrary nodes).
irgl::HostGraph graph_of_degrees(const std::vector<uint32_t>& deg) {
  irgl::HostGraph g;
  g.nnodes = static_cast<uint32_t>(deg.size());
  g.row_start.assign(deg.size() + 1, 0);
  for (uint32_t n = 0; n < g.nnodes; ++n) {
    for (uint32_t k = 0; k < deg[n]; ++k) g.edge_dst.push_back((n + k + 1) % g.nnodes);
    g.row_start[n + 1] = static_cast<edge_t>(g.edge_dst.size());
  }
  g.nedges = static_cast<edge_t>(g.edge_dst.size());
  return g;
}

/// A star: node 0 has an edge to each of `leaves` leaves, each leaf one edge back to node 0.
std::vector<uint32_t> star_degrees(uint32_t leaves) {
  std::vector<uint32_t> deg(leaves + 1, 1);
  deg[0] = leaves;
  return deg;
}

// The host mirror of Split::node, begin and end (the same expressions, host tables).
bool part_further(const irgl::HostSplit& s, uint32_t v, uint32_t& q) {
  const uint32_t extra = static_cast<uint32_t>(s.owner.size()), stride = s.stride();
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
uint32_t part_node(const irgl::HostGraph& g, const irgl::HostSplit& s, uint32_t v) {
  (void)g;
  uint32_t q;
  return part_further(s, v, q) ? s.owner[q] : q;
}
edge_t part_begin(const irgl::HostGraph& g, const irgl::HostSplit& s, uint32_t v) {
  uint32_t q;
  return part_further(s, v, q) ? s.first[q] : g.row_start[q];
}
edge_t part_end(const irgl::HostGraph& g, const irgl::HostSplit& s, uint32_t v) {
  const edge_t b = part_begin(g, s, v);
  const edge_t last = g.row_start[part_node(g, s, v) + 1];
  return last - b > s.degree ? b + s.degree : last;
}

/// The number of problems with the parts of `s` over `g`: every id names a node; each node
/// has exactly one first part (an id that is no further part), and its parts, in the order of
/// their first edges, start with that one and cover its edges exactly once, each non-empty (but
/// the one part of a node without edges) and of at most `s.degree` edges; the further parts are
/// in node order in the tables and spread one every `stride` ids; a node has ceil(degree / D)
/// parts.
uint64_t part_problems(const irgl::HostGraph& g, const irgl::HostSplit& s) {
  uint64_t bad = 0;
  if (s.nnodes != g.nnodes || s.owner.size() != s.first.size()) return 1;
  std::vector<std::vector<std::pair<edge_t, edge_t>>> parts(g.nnodes);
  std::vector<uint32_t> firsts(g.nnodes, 0);
  uint64_t further = 0;
  for (uint64_t v64 = 0; v64 < s.count(); ++v64) {
    const uint32_t v = static_cast<uint32_t>(v64);
    uint32_t q;
    const bool is_further = part_further(s, v, q);
    const uint32_t n = part_node(g, s, v);
    if (n >= g.nnodes || (is_further && q >= s.owner.size())) {
      ++bad;
      continue;
    }
    if (is_further) {
      ++further;
      bad += q > 0 && s.owner[q] < s.owner[q - 1];  // in node order
    } else {
      ++firsts[n];
      bad += part_begin(g, s, v) != g.row_start[n];  // a first part starts the node
    }
    parts[n].push_back({part_begin(g, s, v), part_end(g, s, v)});
  }
  bad += further != s.owner.size();
  for (uint32_t n = 0; n < g.nnodes; ++n) {
    const uint64_t degree = g.row_start[n + 1] - g.row_start[n];
    bad += firsts[n] != 1;
    std::sort(parts[n].begin(), parts[n].end());
    edge_t next = g.row_start[n];
    for (const auto& [b, e] : parts[n]) {
      bad += b != next;                                  // no gap, no overlap
      bad += e < b || e > g.row_start[n + 1];            // within the node
      bad += e == b && degree != 0;                      // empty only for a node without edges
      bad += static_cast<uint64_t>(e - b) > s.degree;    // at most D
      next = e;
    }
    bad += next != g.row_start[n + 1];  // every edge covered
    const uint64_t want = s.degree == kSplitNone || degree <= s.degree ? 1 : (degree + s.degree - 1) / s.degree;
    bad += parts[n].size() != want;
  }
  return bad;
}

/// split_degree_auto's rule, written out: the top of the tallest bin, at least a thread's
/// share of the edges and 32, at most a block's share (over threads / block blocks).
uint32_t expected_degree(uint64_t top, uint64_t edges, uint64_t threads, uint64_t block) {
  const uint64_t least = std::max<uint64_t>((edges + threads - 1) / threads, 32);
  const uint64_t blocks = std::max<uint64_t>(threads / block, 1);
  const uint64_t most = std::max<uint64_t>((edges + blocks - 1) / blocks, least);
  return static_cast<uint32_t>(std::min(std::max(top, least), most));
}

/// The star's degree is the top of the tallest bin (bin 0, the leaves: 100000 / 100 = 1000)
/// within a thread's share of the edges (and 32) and a block's share; nothing once the
/// thread's share reaches the hub's degree.
TEST(auto_degree_of_a_star) {
  const irgl::HostGraph g = graph_of_degrees(star_degrees(100000));
  EXPECT_EQ(g.nedges, edge_t(200000));
  for (uint64_t threads : {uint64_t(1) << 20, uint64_t(200000), uint64_t(1000), uint64_t(100), uint64_t(3)}) {
    const uint32_t d = irgl::split_degree_auto(g, threads, 256);
    const uint64_t share = (200000 + threads - 1) / threads;
    EXPECT(d < 100000u);
    EXPECT(d >= 32u);
    EXPECT(d >= share);
    EXPECT_EQ(d, expected_degree(1000, 200000, threads, 256));
  }
  EXPECT_EQ(irgl::split_degree_auto(g, 1u << 20, 256), 49u);     // a block's share of 4096 blocks
  EXPECT_EQ(irgl::split_degree_auto(g, 200000, 256), 257u);      // of 781 blocks
  EXPECT_EQ(irgl::split_degree_auto(g, 1000, 256), 1000u);       // the tallest bin's top
  EXPECT_EQ(irgl::split_degree_auto(g, 3, 256), 66667u);         // a thread's share
  // A share of 100000 or more edges (2 threads: exactly the hub's degree): nothing to split.
  EXPECT_EQ(irgl::split_degree_auto(g, 2, 256), kSplitNone);
  EXPECT_EQ(irgl::split_degree_auto(g, 1, 256), kSplitNone);
  EXPECT_EQ(irgl::split_degree_auto(g, 0, 256), kSplitNone);  // no threads counts as one
  // A small star: the top of the tallest bin (10) is raised to a warp's 32.
  EXPECT_EQ(irgl::split_degree_auto(graph_of_degrees(star_degrees(1000)), 1u << 20, 256), 32u);
}

/// Equal degrees fill one bin whose top is the largest degree; a share of the edges above the
/// largest degree splits nothing; nor does a graph without edges (or nodes).
TEST(auto_degree_that_splits_nothing) {
  EXPECT_EQ(irgl::split_degree_auto(graph_of_degrees(std::vector<uint32_t>(1000, 40)), 1u << 20, 256), kSplitNone);
  EXPECT_EQ(irgl::split_degree_auto(graph_of_degrees(std::vector<uint32_t>(1000, 5000)), 1u << 20, 256), kSplitNone);
  // Degrees 1 to 200 (E = 20100); 16 threads: a share of 1257 edges, above 200.
  std::vector<uint32_t> ramp(200);
  for (uint32_t n = 0; n < 200; ++n) ramp[n] = n + 1;
  const irgl::HostGraph r = graph_of_degrees(ramp);
  EXPECT((r.nedges + 15) / 16 > 200);
  EXPECT_EQ(irgl::split_degree_auto(r, 16, 256), kSplitNone);
  EXPECT(irgl::split_degree_auto(r, 1u << 20, 256) != kSplitNone);  // with many threads it splits (at 32)
  EXPECT_EQ(irgl::split_degree_auto(r, 1u << 20, 256), 32u);
  EXPECT_EQ(irgl::split_degree_auto(graph_of_degrees(std::vector<uint32_t>(10, 0)), 1u << 20, 256), kSplitNone);
  EXPECT_EQ(irgl::split_degree_auto(graph_of_degrees({}), 1u << 20, 256), kSplitNone);
}

/// --split-degree: auto is split_degree_auto, off is kSplitNone, a number is itself; anything
/// else is one message naming the flag and its value.
TEST(split_degree_flag) {
  const irgl::HostGraph g = graph_of_degrees(star_degrees(100000));
  uint32_t d = 0;
  std::string err;
  EXPECT(irgl::split_degree_flag("auto", g, 1u << 20, 256, d, err));
  EXPECT_EQ(d, irgl::split_degree_auto(g, 1u << 20, 256));
  EXPECT_EQ(d, 49u);
  EXPECT(irgl::split_degree_flag("auto", g, 1, 256, d, err));
  EXPECT_EQ(d, kSplitNone);
  EXPECT(irgl::split_degree_flag("off", g, 1u << 20, 256, d, err));
  EXPECT_EQ(d, kSplitNone);
  EXPECT(irgl::split_degree_flag("7", g, 1u << 20, 256, d, err));
  EXPECT_EQ(d, 7u);
  EXPECT(irgl::split_degree_flag("1", g, 1u << 20, 256, d, err));
  EXPECT_EQ(d, 1u);
  EXPECT(irgl::split_degree_flag("4294967294", g, 1u << 20, 256, d, err));
  EXPECT_EQ(d, 4294967294u);
  EXPECT(err.empty());
  for (const char* bad : {"", "0", "-3", "12x", "4294967295", "99999999999999999999", "Auto", "x", " 5", "+5", "\t7"}) {
    err.clear();
    EXPECT(!irgl::split_degree_flag(bad, g, 1u << 20, 256, d, err));
    EXPECT_EQ(err, "--split-degree " + std::string(bad) + ": auto, off or a degree from 1 to 4294967294");
  }
}

/// Degrees 0, 5, 10, 3, 11 (edges [0,0) [0,5) [5,15) [15,18) [18,29)) at degree 4: nodes 1, 2
/// and 4 are cut, into 2, 3 and 3 parts; the five further parts, in node order in the tables,
/// take every second id.
TEST(split_nodes_tables) {
  const irgl::HostGraph g = graph_of_degrees({0, 5, 10, 3, 11});
  EXPECT((g.row_start == std::vector<edge_t>{0, 0, 5, 15, 18, 29}));
  irgl::HostSplit s;
  std::string err;
  EXPECT(irgl::split_nodes(g, 4, s, err));
  EXPECT(err.empty());
  EXPECT_EQ(s.nnodes, 5u);
  EXPECT_EQ(s.degree, 4u);
  EXPECT_EQ(s.split, 3u);
  EXPECT((s.owner == std::vector<uint32_t>{1, 2, 2, 4, 4}));
  EXPECT((s.first == std::vector<edge_t>{4, 9, 13, 22, 26}));
  EXPECT_EQ(s.count(), uint64_t(10));
  // The parts through the host mirror of the device's view: node, [begin, end). Five further
  // parts among five nodes: stride 2, the further parts at the odd ids.
  EXPECT_EQ(s.stride(), 2u);
  const std::vector<uint32_t> nodes = {0, 1, 1, 2, 2, 2, 3, 4, 4, 4};
  const std::vector<edge_t> begins = {0, 4, 0, 9, 5, 13, 15, 22, 18, 26};
  const std::vector<edge_t> ends = {0, 5, 4, 13, 9, 15, 18, 26, 22, 29};
  for (uint32_t v = 0; v < 10; ++v) {
    EXPECT_EQ(part_node(g, s, v), nodes[v]);
    EXPECT_EQ(part_begin(g, s, v), begins[v]);
    EXPECT_EQ(part_end(g, s, v), ends[v]);
  }
  EXPECT_EQ(part_problems(g, s), uint64_t(0));
  EXPECT_EQ(irgl::describe_split(s, "4"), "degree 4: 3 nodes into 8 parts (--split-degree 4)");

  // Degree 1: a part per edge.
  EXPECT(irgl::split_nodes(g, 1, s, err));
  EXPECT_EQ(s.split, 3u + 1u);  // node 3 (3 edges) too
  EXPECT_EQ(s.count(), uint64_t(5 + 4 + 9 + 2 + 10));
  EXPECT_EQ(part_problems(g, s), uint64_t(0));
  EXPECT_EQ(irgl::describe_split(s, "1"), "degree 1: 4 nodes into 29 parts (--split-degree 1)");
}

/// kSplitNone splits nothing and builds no tables; a degree at or above every node's degree is
/// the identity too, and says so (degree reset to kSplitNone). A previous split is forgotten.
TEST(split_nodes_identity) {
  const irgl::HostGraph g = graph_of_degrees({0, 5, 10, 3, 11});
  irgl::HostSplit s;
  std::string err;
  for (uint32_t degree : {kSplitNone, 11u, 12u, 1000u, kSplitNone - 1}) {
    EXPECT(irgl::split_nodes(g, 4, s, err));  // something to forget
    EXPECT(irgl::split_nodes(g, degree, s, err));
    EXPECT_EQ(s.nnodes, 5u);
    EXPECT_EQ(s.degree, kSplitNone);
    EXPECT_EQ(s.split, 0u);
    EXPECT(s.owner.empty());
    EXPECT(s.first.empty());
    EXPECT_EQ(s.count(), uint64_t(5));
    EXPECT_EQ(part_problems(g, s), uint64_t(0));
    for (uint32_t v = 0; v < 5; ++v) {
      EXPECT_EQ(part_node(g, s, v), v);
      EXPECT_EQ(part_begin(g, s, v), g.row_start[v]);
      EXPECT_EQ(part_end(g, s, v), g.row_start[v + 1]);
    }
  }
  EXPECT(err.empty());
  EXPECT(irgl::split_nodes(g, 10, s, err));  // just node 4 (11 edges)
  EXPECT_EQ(s.degree, 10u);
  EXPECT_EQ(s.split, 1u);
  EXPECT((s.owner == std::vector<uint32_t>{4}));
  EXPECT((s.first == std::vector<edge_t>{28}));
  EXPECT_EQ(part_problems(g, s), uint64_t(0));
}

/// Every degree from 1 to past the largest over graphs with many shapes (a star, runs of equal
/// degrees, degrees at and around multiples of the split degree, nodes without edges): each
/// node's parts cover its edges exactly once, in order, each of at most the degree.
TEST(split_nodes_covers_every_edge_once) {
  std::vector<uint32_t> deg = star_degrees(3000);
  for (uint32_t n = 0; n < 2000; ++n) deg.push_back(hash32(n) % 8 == 0 ? 0 : hash32(n * 7 + 1) % 70);
  for (uint32_t k = 0; k < 64; ++k) deg.push_back(k);
  const irgl::HostGraph g = graph_of_degrees(deg);
  irgl::HostSplit s;
  std::string err;
  for (uint32_t degree = 1; degree <= 80; ++degree) {
    EXPECT(irgl::split_nodes(g, degree, s, err));
    EXPECT_EQ(s.degree, degree);  // the hub (3000 edges) is always cut
    EXPECT_EQ(part_problems(g, s), uint64_t(0));
  }
  for (uint32_t degree : {100u, 1000u, 2999u, 3000u, 3001u, kSplitNone}) {
    EXPECT(irgl::split_nodes(g, degree, s, err));
    EXPECT_EQ(part_problems(g, s), uint64_t(0));
    EXPECT_EQ(s.count(), uint64_t(g.nnodes) + (degree >= 3000 ? 0 : (3000 + degree - 1) / degree - 1));
  }
  EXPECT(err.empty());
}

/// Parts past 32-bit ids: one node of 2^32 - 1 edges at degree 1 would be 2^32 - 1 parts (the
/// tables are never built, and split_nodes reads only row_start).
TEST(split_nodes_too_many_parts) {
  irgl::HostGraph g;
  g.nnodes = 1;
  g.nedges = static_cast<edge_t>(0xffffffffull);
  g.row_start = {0, static_cast<edge_t>(0xffffffffull)};
  irgl::HostSplit s;
  std::string err;
  EXPECT(!irgl::split_nodes(g, 1, s, err));
  EXPECT_EQ(err, "--split-degree 1 cuts the graph into 4294967295 parts, more than 32-bit ids hold: give a larger degree");
}

/// A degree of 0 (no part could hold an edge) is an error, not a division by zero.
TEST(split_nodes_degree_zero) {
  irgl::HostGraph g;
  g.nnodes = 2;
  g.nedges = 3;
  g.row_start = {0, 3, 3};
  g.edge_dst = {1, 1, 1};
  irgl::HostSplit s;
  std::string err;
  EXPECT(!irgl::split_nodes(g, 0, s, err));
  EXPECT_EQ(err, "--split-degree 0: a part has at least one edge");
}

/// The run's record: "none (...)" when nothing is split, else the degree, the nodes cut and
/// their parts; the flag as given.
TEST(describe_split) {
  irgl::HostSplit s;
  EXPECT_EQ(irgl::describe_split(s, "off"), "none (--split-degree off)");
  const irgl::HostGraph g = graph_of_degrees({0, 5, 10, 3, 11});
  std::string err;
  EXPECT(irgl::split_nodes(g, 100, s, err));
  EXPECT_EQ(irgl::describe_split(s, "100"), "none (--split-degree 100)");
  EXPECT(irgl::split_nodes(g, 5, s, err));  // nodes 2 (2 parts) and 4 (3 parts)
  EXPECT_EQ(irgl::describe_split(s, "auto"), "degree 5: 2 nodes into 5 parts (--split-degree auto)");
  const irgl::HostGraph star = graph_of_degrees(star_degrees(100000));
  uint32_t d = 0;
  EXPECT(irgl::split_degree_flag("auto", star, 1000, 256, d, err));
  EXPECT(irgl::split_nodes(star, d, s, err));
  EXPECT_EQ(irgl::describe_split(s, "auto"), "degree 1000: 1 nodes into 100 parts (--split-degree auto)");
}

/// Each thread walks parts as the generated code does: every edge of part v, counted; the
/// part's node recorded on each of its edges; the longest part; and the part's node and range.
__global__ void walk_parts(irgl::Split s, unsigned int* hits, uint32_t* node_of_edge, unsigned int* maxlen,
                           uint32_t* nodes, edge_t* begins, edge_t* ends) {
  for (uint32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < s.count; v += gridDim.x * blockDim.x) {
    const uint32_t n = s.node(v);
    const edge_t b = s.begin(v), end = s.end(v);
    for (edge_t e = b; e < end; ++e) {
      atomicAdd(&hits[e], 1u);
      node_of_edge[e] = n;
    }
    atomicMax(maxlen, static_cast<unsigned int>(end - b));
    nodes[v] = n;
    begins[v] = b;
    ends[v] = end;
  }
}

/// A star of 5000 leaves and 3000 nodes of 0 to 39 edges (and some of 6 to 15), split at 7,
/// 1, 32, auto and not at all, walked on the device.
TEST(device_parts_cover_every_edge_once) {
  if (irgl_test::host_only()) return;
  std::vector<uint32_t> deg = star_degrees(5000);
  for (uint32_t n = 0; n < 3000; ++n) deg.push_back(hash32(n + 12345) % 40);
  for (uint32_t k = 6; k <= 15; ++k) deg.push_back(k);
  irgl::HostGraph hg;  // by hand: CSR of deg, destinations anywhere
  hg.nnodes = static_cast<uint32_t>(deg.size());
  hg.row_start.assign(deg.size() + 1, 0);
  for (uint32_t n = 0; n < hg.nnodes; ++n) {
    for (uint32_t k = 0; k < deg[n]; ++k) hg.edge_dst.push_back(hash32(n * 41 + k) % hg.nnodes);
    hg.row_start[n + 1] = static_cast<edge_t>(hg.edge_dst.size());
  }
  hg.nedges = static_cast<edge_t>(hg.edge_dst.size());
  const uint32_t nedges = static_cast<uint32_t>(hg.nedges);
  std::vector<uint32_t> want_node(nedges);
  for (uint32_t n = 0; n < hg.nnodes; ++n)
    for (edge_t e = hg.row_start[n]; e < hg.row_start[n + 1]; ++e) want_node[e] = n;

  irgl::DeviceGraph dg(hg);
  const uint32_t automatic = irgl::split_degree_auto(hg, 4096, 32);
  EXPECT_EQ(automatic, expected_degree(50, hg.nedges, 4096, 32));  // the tallest bin's top: 5000 / 100
  EXPECT_EQ(automatic, 50u);
  for (uint32_t degree : {7u, 1u, 32u, automatic, kSplitNone}) {
    irgl::HostSplit hs;
    std::string err;
    EXPECT(irgl::split_nodes(hg, degree, hs, err));
    EXPECT_EQ(hs.degree, degree);
    EXPECT_EQ(part_problems(hg, hs), uint64_t(0));
    irgl::DeviceSplit ds(hs, dg.view());
    const irgl::Split s = ds.view();
    EXPECT_EQ(uint64_t(s.count), hs.count());
    EXPECT_EQ(uint64_t(s.extra), uint64_t(hs.owner.size()));
    EXPECT_EQ(s.stride, hs.stride());
    EXPECT_EQ(s.degree, degree);
    if (degree == kSplitNone) EXPECT_EQ(s.count, hg.nnodes);
    irgl::DeviceArray<unsigned int> hits(nedges, 0u), maxlen(1, 0u);
    irgl::DeviceArray<uint32_t> node_of_edge(nedges, 0xffffffffu), nodes(s.count, 0xffffffffu);
    irgl::DeviceArray<edge_t> begins(s.count, edge_t(0)), ends(s.count, edge_t(0));
    walk_parts<<<(s.count + 255) / 256, 256>>>(s, hits.data(), node_of_edge.data(), maxlen.data(), nodes.data(),
                                              begins.data(), ends.data());
    IRGL_CHECK_LAUNCH("walk_parts");
    const std::vector<unsigned int> h = hits.to_host();
    const std::vector<uint32_t> owner = node_of_edge.to_host();
    uint32_t not_once = 0, wrong_node = 0;
    for (uint32_t e = 0; e < nedges; ++e) {
      not_once += h[e] != 1u;
      wrong_node += owner[e] != want_node[e];
    }
    EXPECT_EQ(not_once, 0u);
    EXPECT_EQ(wrong_node, 0u);
    const unsigned int longest = maxlen.to_host()[0];
    EXPECT(longest <= degree);
    EXPECT_EQ(longest, std::min(degree, 5000u));  // the hub's parts are full
    const std::vector<uint32_t> n = nodes.to_host();
    const std::vector<edge_t> b = begins.to_host(), e = ends.to_host();
    uint32_t mirror_differs = 0;  // the device's view against the host mirror
    for (uint32_t v = 0; v < s.count; ++v)
      mirror_differs += n[v] != part_node(hg, hs, v) || b[v] != part_begin(hg, hs, v) || e[v] != part_end(hg, hs, v);
    EXPECT_EQ(mirror_differs, 0u);
  }
}

}  // namespace

int main() {
  RUN(auto_degree_of_a_star);
  RUN(auto_degree_that_splits_nothing);
  RUN(split_degree_flag);
  RUN(split_nodes_tables);
  RUN(split_nodes_identity);
  RUN(split_nodes_covers_every_edge_once);
  RUN(split_nodes_too_many_parts);
  RUN(split_nodes_degree_zero);
  RUN(describe_split);
  RUN(device_parts_cover_every_edge_once);
  return irgl_test::finish();
}
