// .gr loader tests: round trip of valid files (with/without edge data, odd and
// even E, with and without the padding), rejection of bad files with the
// right message (truncated, truncated header, dst >= N, bad version, bad
// edge-data size, decreasing offsets, last offset != E, trailing bytes, a
// missing file), load_gr's exit status, and the device view.
// The host parts run without a GPU with IRGL_TEST_HOST_ONLY=1.
// Built twice: with 32-bit edge indices and with IRGL_EDGE64 (test_graph_edge64).
// irgl-test: edge64
#include <irgl/runtime.cuh>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.cuh"

using irgl_test::contains;

namespace {

std::string tmp_path(const char* name) { return "/tmp/irgl-test-" + std::to_string(getpid()) + "-" + name + ".gr"; }

/// Writes raw bytes (the test builds files by hand, independently of write_gr).
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) irgl::fatal("cannot create %s", path.c_str());
  if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

struct Builder {
  std::vector<uint8_t> b;
  void u64(uint64_t v) { for (int i = 0; i < 8; ++i) b.push_back(uint8_t(v >> (8 * i))); }
  void u32(uint32_t v) { for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i))); }
};

/// A graph file: 5 nodes, given edges; padding and edge data as asked.
std::vector<uint8_t> make_file(uint64_t version, uint64_t esz, uint64_t n, const std::vector<uint64_t>& out_index,
                               const std::vector<uint32_t>& dst, const std::vector<uint32_t>& data, bool pad) {
  Builder w;
  w.u64(version);
  w.u64(esz);
  w.u64(n);
  w.u64(dst.size());
  for (uint64_t v : out_index) w.u64(v);
  for (uint32_t v : dst) w.u32(v);
  if (pad && dst.size() % 2 == 1) w.u32(0);
  for (uint32_t v : data) w.u32(v);
  return w.b;
}

// Node 0 -> 1,2; 1 -> 2; 2 -> (none); 3 -> 0,4,1; 4 -> 3   (7 edges: odd)
const std::vector<uint64_t> kIndex = {2, 3, 3, 6, 7};
const std::vector<uint32_t> kDst = {1, 2, 2, 0, 4, 1, 3};
const std::vector<uint32_t> kData = {10, 20, 30, 40, 50, 60, 70};
// As read: node 3's list sorted, its edge data with it.
const std::vector<uint32_t> kDstSorted = {1, 2, 2, 0, 1, 4, 3};
const std::vector<uint32_t> kDataSorted = {10, 20, 30, 40, 60, 50, 70};

bool load(const std::string& path, irgl::HostGraph& g, std::string& err) { return irgl::read_gr(path, g, err); }

std::string expect_error(const std::vector<uint8_t>& bytes, const char* name) {
  const std::string p = tmp_path(name);
  write_bytes(p, bytes);
  irgl::HostGraph g;
  std::string err;
  const bool ok = load(p, g, err);
  EXPECT(!ok);
  EXPECT(irgl_test::starts_with(err, p + ": "));  // names the file
  EXPECT(err.find('\n') == std::string::npos);   // one line
  std::remove(p.c_str());
  if (ok) return "";
  std::printf("     %s\n", err.substr(p.size() + 2).c_str());
  return err.substr(p.size() + 2);
}

TEST(valid_weighted_odd) {
  const std::string p = tmp_path("valid");
  write_bytes(p, make_file(1, 4, 5, kIndex, kDst, kData, true));
  irgl::HostGraph g;
  std::string err;
  EXPECT(load(p, g, err));
  EXPECT_EQ(err, std::string());
  EXPECT_EQ(g.nnodes, 5u);
  EXPECT_EQ(g.nedges, 7u);
  EXPECT(g.has_edge_data);
  EXPECT((g.row_start == std::vector<irgl::edge_t>{0, 2, 3, 3, 6, 7}));
  EXPECT(g.edge_dst == kDstSorted);
  EXPECT(g.edge_data == kDataSorted);
  // write_gr produces the same bytes.
  const std::string q = tmp_path("rewrite");
  EXPECT(irgl::write_gr(q, g, err));
  irgl::HostGraph g2;
  EXPECT(load(q, g2, err));
  EXPECT(g2.row_start == g.row_start && g2.edge_dst == g.edge_dst && g2.edge_data == g.edge_data);
  std::remove(p.c_str());
  std::remove(q.c_str());
}

TEST(valid_unweighted_with_and_without_padding) {
  for (bool pad : {true, false}) {
    const std::string p = tmp_path(pad ? "pad" : "nopad");
    write_bytes(p, make_file(1, 0, 5, kIndex, kDst, {}, pad));
    irgl::HostGraph g;
    std::string err;
    EXPECT(load(p, g, err));
    EXPECT(!g.has_edge_data);
    EXPECT(g.edge_data.empty());
    EXPECT(g.edge_dst == kDstSorted);
    std::remove(p.c_str());
  }
  // Even E, and an empty graph.
  const std::string p = tmp_path("even");
  write_bytes(p, make_file(1, 4, 3, {1, 1, 2}, {2, 0}, {5, 6}, true));
  irgl::HostGraph g;
  std::string err;
  EXPECT(load(p, g, err));
  EXPECT_EQ(g.nedges, 2u);
  write_bytes(p, make_file(1, 0, 0, {}, {}, {}, true));
  EXPECT(load(p, g, err));
  EXPECT_EQ(g.nnodes, 0u);
  EXPECT_EQ(g.row_start.size(), size_t(1));
  std::remove(p.c_str());
}

TEST(lists_sorted_on_reading) {
  // Lists in every order, ties included, long enough to take every core: each comes back
  // sorted by destination with its edge data beside it; sorted lists and ties stay as they were.
  const uint64_t n = 1u << 16, per = 24;
  std::vector<uint64_t> index;
  std::vector<uint32_t> dst, data;
  for (uint64_t u = 0; u < n; ++u) {
    for (uint64_t i = 0; i < per; ++i) {
      const uint32_t v = u % 3 == 0 ? static_cast<uint32_t>(i) : static_cast<uint32_t>((u * 7919 + i * 104729) % 50);
      dst.push_back(v);
      data.push_back(static_cast<uint32_t>(u * per + i));
    }
    index.push_back(dst.size());
  }
  const std::string p = tmp_path("unsorted");
  write_bytes(p, make_file(1, 4, n, index, dst, data, true));
  irgl::HostGraph g;
  std::string err;
  EXPECT(load(p, g, err));
  std::remove(p.c_str());
  for (uint64_t u = 0; u < n; ++u) {
    const uint64_t b = u * per;
    std::vector<std::pair<uint32_t, uint32_t>> want;
    for (uint64_t i = 0; i < per; ++i) want.emplace_back(dst[b + i], data[b + i]);
    std::stable_sort(want.begin(), want.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (uint64_t i = 0; i < per; ++i) {
      if (g.edge_dst[b + i] != want[i].first || g.edge_data[b + i] != want[i].second) {
        std::printf("     node %llu, edge %llu: (%u, %u), expected (%u, %u)\n", (unsigned long long)u,
                    (unsigned long long)i, g.edge_dst[b + i], g.edge_data[b + i], want[i].first, want[i].second);
        EXPECT(false);
        return;
      }
    }
  }
}

/// A graph from sorted lists.
irgl::HostGraph from_lists(const std::vector<std::vector<uint32_t>>& lists) {
  irgl::HostGraph g;
  g.nnodes = static_cast<uint32_t>(lists.size());
  g.row_start.push_back(0);
  for (const auto& l : lists) {
    g.edge_dst.insert(g.edge_dst.end(), l.begin(), l.end());
    g.row_start.push_back(g.edge_dst.size());
  }
  g.nedges = static_cast<irgl::edge_t>(g.edge_dst.size());
  return g;
}

TEST(symmetric_and_simple_graphs) {
  std::string why;
  // A path 0 - 1 - 2 and a lone node: both.
  EXPECT(irgl::is_symmetric(from_lists({{1}, {0, 2}, {1}, {}}), why));
  EXPECT(irgl::is_simple(from_lists({{1}, {0, 2}, {1}, {}}), why));
  // One direction missing: the arc is named.
  EXPECT(!irgl::is_symmetric(from_lists({{1}, {0, 2}, {}, {}}), why));
  EXPECT_EQ(why, std::string("the edge 1 -> 2 has no reverse"));
  // Both directions, but one of them twice: not symmetric either, though every arc has a reverse.
  EXPECT(!irgl::is_symmetric(from_lists({{1, 1}, {0}}), why));
  EXPECT_EQ(why, std::string("some edge is there more often than its reverse"));
  // Symmetric with a self-loop and a repeated edge (both directions), but not simple.
  EXPECT(irgl::is_symmetric(from_lists({{0, 1}, {0}}), why));
  EXPECT(!irgl::is_simple(from_lists({{0, 1}, {0}}), why));
  EXPECT_EQ(why, std::string("node 0 has a self-loop"));
  EXPECT(irgl::is_symmetric(from_lists({{1, 1}, {0, 0}}), why));
  EXPECT(!irgl::is_simple(from_lists({{1, 1}, {0, 0}}), why));
  EXPECT_EQ(why, std::string("node 0 has an edge twice"));
  // Large enough to take every core: a symmetric ring with chords, then one arc removed.
  const uint32_t n = 1u << 20;
  std::vector<std::vector<uint32_t>> ring(n);
  for (uint32_t u = 0; u < n; ++u) {
    for (uint32_t d : {1u, 7u}) {
      ring[u].push_back((u + d) % n);
      ring[u].push_back((u + n - d) % n);
    }
    std::sort(ring[u].begin(), ring[u].end());
  }
  EXPECT(irgl::is_symmetric(from_lists(ring), why));
  EXPECT(irgl::is_simple(from_lists(ring), why));
  ring[123456].erase(ring[123456].begin());
  EXPECT(!irgl::is_symmetric(from_lists(ring), why));
  EXPECT(why.find("has no reverse") != std::string::npos);
}

TEST(truncated) {
  auto bytes = make_file(1, 4, 5, kIndex, kDst, kData, true);
  const size_t full = bytes.size();  // 32 + 40 + 28 + 4 + 28 = 132
  EXPECT_EQ(full, size_t(132));
  bytes.resize(full - 3);
  const std::string e = expect_error(bytes, "trunc");
  EXPECT(contains(e, "byte offset 129: expected 132 bytes for 5 nodes and 7 edges with edge-data size 4"));
  EXPECT(contains(e, "truncated"));
  // Truncated inside out_index.
  bytes.resize(50);
  EXPECT(contains(expect_error(bytes, "trunc2"), "byte offset 50: expected 132 bytes"));
}

TEST(truncated_header) {
  auto bytes = make_file(1, 4, 5, kIndex, kDst, kData, true);
  bytes.resize(10);
  EXPECT(contains(expect_error(bytes, "hdr"), "byte offset 10: expected a 32-byte header, found end of file"));
  EXPECT(contains(expect_error({}, "empty"), "byte offset 0: expected a 32-byte header"));
}

TEST(dst_out_of_range) {
  auto dst = kDst;
  dst[3] = 9;  // >= N = 5
  // dst[3] is at 32 + 5*8 + 3*4 = 84
  EXPECT_EQ(expect_error(make_file(1, 4, 5, kIndex, dst, kData, true), "dst"),
            std::string("byte offset 84: expected dst[3] < N = 5, found 9"));
  dst[3] = 5;  // == N
  EXPECT(contains(expect_error(make_file(1, 0, 5, kIndex, dst, {}, true), "dst2"), "expected dst[3] < N = 5, found 5"));
}

TEST(bad_header_fields) {
  EXPECT_EQ(expect_error(make_file(2, 4, 5, kIndex, kDst, kData, true), "version"),
            std::string("byte offset 0: expected version 1, found 2"));
  EXPECT_EQ(expect_error(make_file(1, 8, 5, kIndex, kDst, kData, true), "esz"),
            std::string("byte offset 8: expected edge-data size 0 or 4, found 8"));
  Builder w;  // N = 2^32 + 1
  w.u64(1);
  w.u64(0);
  w.u64((uint64_t(1) << 32) + 1);
  w.u64(0);
  EXPECT(contains(expect_error(w.b, "bign"), "byte offset 16: expected a node count below 2^32"));
  Builder w2;  // E = 2^32: beyond 32-bit edge indices; a 64-bit build reads on and finds the file short
  w2.u64(1);
  w2.u64(0);
  w2.u64(1);
  w2.u64(uint64_t(1) << 32);
  w2.u64(uint64_t(1) << 32);
  const std::string e = expect_error(w2.b, "bige");
#if defined(IRGL_EDGE64)
  EXPECT(contains(e, "byte offset 40: expected 17179869224 bytes for 1 nodes and 4294967296 edges"));
#else
  EXPECT(contains(e, "byte offset 24: the graph has 4294967296 edges, more than this build's 32-bit edge indices hold "
                     "(4294967295); build the program with 64-bit edge indices"));
#endif
}

TEST(edge_index_width) {
  EXPECT_EQ(sizeof(irgl::edge_t), size_t(
#if defined(IRGL_EDGE64)
                                      8
#else
                                      4
#endif
                                      ));
  EXPECT_EQ(irgl::kMaxEdges, static_cast<uint64_t>(static_cast<irgl::edge_t>(~0ull)));
}

TEST(bad_offsets) {
  EXPECT_EQ(expect_error(make_file(1, 4, 5, {2, 3, 1, 6, 7}, kDst, kData, true), "decr"),
            std::string("byte offset 48: expected out_index[2] >= 3 (offsets must not decrease), found 1"));
  EXPECT_EQ(expect_error(make_file(1, 4, 5, {2, 3, 3, 6, 6}, kDst, kData, true), "last"),
            std::string("byte offset 64: expected out_index[4] = E = 7 (the last end offset), found 6"));
  EXPECT_EQ(expect_error(make_file(1, 4, 5, {2, 9, 3, 6, 7}, kDst, kData, true), "big"),
            std::string("byte offset 40: expected out_index[1] <= E = 7, found 9"));
}

TEST(trailing_bytes_and_missing_file) {
  auto bytes = make_file(1, 4, 5, kIndex, kDst, kData, true);
  bytes.push_back(0);
  EXPECT(contains(expect_error(bytes, "trail"), "byte offset 132: expected end of file"));
  // Missing padding is an error when there is edge data (values would be misaligned).
  EXPECT(contains(expect_error(make_file(1, 4, 5, kIndex, kDst, kData, false), "nopadw"), "truncated"));
  irgl::HostGraph g;
  std::string err;
  EXPECT(!irgl::read_gr("/nonexistent/dir/x.gr", g, err));
  EXPECT(contains(err, "/nonexistent/dir/x.gr: cannot open: No such file or directory"));
}

TEST(load_gr_exits) {
  auto bytes = make_file(1, 4, 5, kIndex, kDst, kData, true);
  bytes.resize(bytes.size() - 3);
  const std::string p = tmp_path("child");
  write_bytes(p, bytes);
  const irgl_test::ChildResult r = irgl_test::run_child("load-child " + p);
  std::remove(p.c_str());
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: /tmp/irgl-test-"));
  EXPECT(contains(r.output, "byte offset 129: expected 132 bytes"));
  EXPECT_EQ(irgl_test::count_lines(r.output), 1);
}

__global__ void degrees_and_weights(irgl::Graph g, uint32_t* deg, uint32_t* wsum, uint32_t* dsum) {
  const uint32_t n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= g.nnodes) return;
  deg[n] = g.degree(n);
  uint32_t w = 0, d = 0;
  for (irgl::edge_t e = g.begin(n); e < g.end(n); ++e) {
    d += g.dst(e);
    if (g.edge_data != nullptr) w += g.data(e);
  }
  wsum[n] = w;
  dsum[n] = d;
}

TEST(device_view) {
  if (irgl_test::host_only()) return;
  const std::string p = tmp_path("dev");
  write_bytes(p, make_file(1, 4, 5, kIndex, kDst, kData, true));
  const irgl::HostGraph h = irgl::load_gr(p);
  std::remove(p.c_str());
  irgl::DeviceGraph dg(h);
  EXPECT(dg.view().edge_data != nullptr);
  irgl::DeviceArray<uint32_t> deg(5), w(5), d(5);
  degrees_and_weights<<<1, 32>>>(dg.view(), deg.data(), w.data(), d.data());
  IRGL_CHECK_LAUNCH("degrees_and_weights");
  EXPECT((deg.to_host() == std::vector<uint32_t>{2, 1, 0, 3, 1}));
  EXPECT((w.to_host() == std::vector<uint32_t>{30, 30, 0, 150, 70}));
  EXPECT((d.to_host() == std::vector<uint32_t>{3, 2, 0, 5, 3}));
  irgl::HostGraph u = h;  // unweighted: edge_data is null in the view
  u.has_edge_data = false;
  u.edge_data.clear();
  irgl::DeviceGraph du(u);
  EXPECT(du.view().edge_data == nullptr);
}

/// The transpose of a small graph with a self-loop, parallel edges and a node without
/// in-edges: every in-edge's source and edge id, in increasing order of source.
TEST(transpose) {
  irgl::HostGraph g;
  g.nnodes = 4;
  g.nedges = 6;
  // 0 -> 1, 0 -> 2, 1 -> 1, 2 -> 1, 2 -> 1, 3 -> 0
  g.row_start = {0, 2, 3, 5, 6};
  g.edge_dst = {1, 2, 1, 1, 1, 0};
  const irgl::HostInEdges t = irgl::transpose(g, true);
  EXPECT((t.start == std::vector<irgl::edge_t>{0, 1, 5, 6, 6}));
  EXPECT((t.source == std::vector<uint32_t>{3, 0, 1, 2, 2, 0}));
  EXPECT((t.edge_id == std::vector<irgl::edge_t>{5, 0, 2, 3, 4, 1}));
  const irgl::HostInEdges bare = irgl::transpose(g, false);
  EXPECT(bare.edge_id.empty());
  EXPECT(bare.source == t.source);
  irgl::HostGraph empty;
  empty.row_start = {0};
  EXPECT((irgl::transpose(empty, true).start == std::vector<irgl::edge_t>{0}));
}

/// Warp efficiency (the figure irglc graph info prints, and the rule of the serial versions
/// reads): a 5 x 7 grid, two warps of widest degree 4 and 3; a hub of 63 leaves sharing the
/// first warp with 31 of them; a graph without edges.
TEST(warp_efficiency_and_the_serial_rule) {
  irgl::HostGraph grid;
  grid.nnodes = 35;
  grid.row_start.push_back(0);
  for (uint32_t r = 0; r < 5; ++r) {
    for (uint32_t c = 0; c < 7; ++c) {
      const uint32_t n = r * 7 + c;
      if (r > 0) grid.edge_dst.push_back(n - 7);
      if (c > 0) grid.edge_dst.push_back(n - 1);
      if (c < 6) grid.edge_dst.push_back(n + 1);
      if (r < 4) grid.edge_dst.push_back(n + 7);
      grid.row_start.push_back(grid.edge_dst.size());
    }
  }
  grid.nedges = static_cast<irgl::edge_t>(grid.edge_dst.size());
  EXPECT(grid.nedges == 116u);
  EXPECT(std::fabs(irgl::warp_efficiency(grid) - 116.0 / 224.0) < 1e-12);
  std::string why;
  EXPECT(irgl::serial_inner_loops(grid, 5, 50, why));  // mean 3.3, efficiency 52%
  EXPECT(why.rfind("serial: mean degree 3.31", 0) == 0);
  EXPECT(!irgl::serial_inner_loops(grid, 3, 50, why));
  EXPECT(!irgl::serial_inner_loops(grid, 5, 60, why));
  EXPECT(why.rfind("scheduled: ", 0) == 0);

  irgl::HostGraph hub;
  hub.nnodes = 64;
  hub.row_start.push_back(0);
  for (uint32_t v = 1; v < 64; ++v) hub.edge_dst.push_back(v);
  hub.row_start.push_back(63);
  for (uint32_t v = 1; v < 64; ++v) {
    hub.edge_dst.push_back(0);
    hub.row_start.push_back(hub.edge_dst.size());
  }
  hub.nedges = 126;
  EXPECT(std::fabs(irgl::warp_efficiency(hub) - 126.0 / (32.0 * 64.0)) < 1e-12);
  EXPECT(!irgl::serial_inner_loops(hub, 5, 50, why));

  irgl::HostGraph empty;
  empty.nnodes = 3;
  empty.row_start = {0, 0, 0, 0};
  EXPECT(irgl::warp_efficiency(empty) == 1.0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "load-child") {
    irgl::load_gr(argv[2]);  // exits 1 on the truncated file
    return 0;
  }
  RUN(valid_weighted_odd);
  RUN(valid_unweighted_with_and_without_padding);
  RUN(lists_sorted_on_reading);
  RUN(symmetric_and_simple_graphs);
  RUN(truncated);
  RUN(truncated_header);
  RUN(dst_out_of_range);
  RUN(bad_header_fields);
  RUN(edge_index_width);
  RUN(bad_offsets);
  RUN(trailing_bytes_and_missing_file);
  RUN(load_gr_exits);
  RUN(device_view);
  RUN(transpose);
  RUN(warp_efficiency_and_the_serial_rule);
  return irgl_test::finish();
}
