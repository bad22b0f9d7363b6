// Partitioned execution (irgl/multi.cuh) over every GPU of the machine: the node ranges, each
// part's local graph and exchange plan, and Part::exchange and Part::deliver against a model
// computed on the host. The exchanges need two GPUs or more; with one, the single part is
// checked (its graph is the whole graph) and the exchange tests say they were skipped.
// irgl-test: nccl
// irgl-test: edge64 (also built with 64-bit edge indices: the parts of a graph past 2^32 - 1 edges)
// irgl-test: no-sanitizer (NCCL's own kernels and threads are outside what the runtime tests check)
#include <irgl/runtime.cuh>
#include <irgl/multi.cuh>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "test_graphs.cuh"
#include "test_util.cuh"

namespace {

using irgl_test::hash32;
using irgl_test::ring_with_chords;

int gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

/// The global id of local node v of part p.
uint32_t global_of(const irgl::Part& p, uint32_t v, const std::vector<uint32_t>& mirrors) {
  return v < p.masters() ? p.first() + v : mirrors[v - p.masters()];
}

/// Each part's mirrors' global ids (the local graph's heads past its masters).
std::vector<uint32_t> mirrors_of(const irgl::Part& p) {
  std::set<uint32_t> out;
  const irgl::HostGraph& g = p.whole();
  for (irgl::edge_t e = g.row_start[p.first()]; e < g.row_start[p.first() + p.masters()]; ++e) {
    const uint32_t d = g.edge_dst[e];
    if (d < p.first() || d >= p.first() + p.masters()) out.insert(d);
  }
  return {out.begin(), out.end()};
}

TEST(ranges_are_balanced_by_nodes_plus_edges) {
  // Degrees 3, 0, 0, 1: weights before nodes 0..4 are 0, 4, 5, 6, 8; half is 4.
  irgl::HostGraph g;
  g.nnodes = 4;
  g.row_start = {0, 3, 3, 3, 4};
  g.edge_dst = {1, 2, 3, 0};
  g.nedges = 4;
  EXPECT(irgl::balanced_ranges(g, 2) == (std::vector<uint32_t>{0, 1, 4}));
  EXPECT(irgl::balanced_ranges(g, 1) == (std::vector<uint32_t>{0, 4}));
  // More parts than nodes: some are empty.
  EXPECT(irgl::balanced_ranges(g, 8).size() == 9u);
  EXPECT_EQ(irgl::balanced_ranges(g, 8).back(), 4u);
}

TEST(parts_and_their_exchange_plans_line_up) {
  // On the host, for several part counts (more than the nodes too): each part's graph maps
  // back to the whole, and what p sends q is, element for element, what q expects from p.
  for (uint32_t parts : {1u, 2u, 3u, 7u, 9u}) {
    // 9 parts of a 6-node ring: some parts are empty.
    const irgl::HostGraph g = ring_with_chords(parts == 9u ? 6u : 5000u);
    const std::vector<uint32_t> starts = irgl::balanced_ranges(g, parts);
    std::vector<irgl::PartGraph> pg;
    std::vector<std::vector<uint32_t>> mirrors;
    uint64_t masters = 0, edges = 0, bad = 0;
    for (uint32_t p = 0; p < parts; ++p) {
      pg.push_back(irgl::part_graph(g, starts, static_cast<int>(p)));
      mirrors.push_back(pg.back().mirrors);
      const irgl::PartGraph& x = pg.back();
      masters += x.masters;
      edges += x.local.nedges;
      for (uint32_t v = 0; v < x.masters; ++v) {
        const uint32_t gv = x.first + v;
        bad += x.local.row_start[v + 1] - x.local.row_start[v] != g.row_start[gv + 1] - g.row_start[gv];
        for (irgl::edge_t k = 0; k < x.local.row_start[v + 1] - x.local.row_start[v]; ++k) {
          const uint32_t d = x.local.edge_dst[x.local.row_start[v] + k];
          const uint32_t gd = d < x.masters ? x.first + d : x.mirrors[d - x.masters];
          bad += gd != g.edge_dst[g.row_start[gv] + k];
        }
      }
      for (uint32_t i = 0; i < x.mirrors.size(); ++i) {
        bad += x.local.row_start[x.masters + i + 1] != x.local.row_start[x.masters + i];
        bad += x.mirrors[i] >= x.first && x.mirrors[i] < x.first + x.masters;
        bad += i > 0 && x.mirrors[i] <= x.mirrors[i - 1];
      }
    }
    std::vector<irgl::ExchangePlan> plans;
    for (uint32_t p = 0; p < parts; ++p) plans.push_back(irgl::exchange_plan(starts, mirrors, static_cast<int>(p)));
    for (uint32_t p = 0; p < parts; ++p) {
      const irgl::ExchangePlan& xp = plans[p];
      for (uint32_t q = 0; q < parts; ++q) {
        if (q == p) continue;
        const irgl::ExchangePlan& xq = plans[q];
        bad += xp.send_cnt[q] != xq.recv_cnt[p];
        for (uint64_t i = 0; i < xp.send_cnt[q] && i < xq.recv_cnt[p]; ++i) {
          const uint32_t sent = pg[p].mirrors[xp.send_off[q] + i];
          const uint32_t master = pg[q].first + xq.rindex[xq.recv_off[p] + i];
          bad += sent != master;
        }
      }
    }
    EXPECT_EQ(bad, 0ull);
    EXPECT_EQ(masters, static_cast<uint64_t>(g.nnodes));
    EXPECT_EQ(edges, static_cast<uint64_t>(g.nedges));
  }
}

TEST(parts_hold_their_masters_edges_and_a_mirror_per_remote_head) {
  if (irgl_test::host_only() || gpus() == 0) return;
  const irgl::HostGraph g = ring_with_chords(irgl_test::scale(20000));
  irgl::Cluster cluster(g, gpus());
  std::mutex m;
  std::vector<std::string> problems;
  uint64_t masters = 0, edges = 0;
  cluster.run([&](irgl::Part& p) {
    const std::vector<uint32_t> mirrors = mirrors_of(p);
    const irgl::HostGraph& l = p.local();
    std::vector<std::string> mine;
    if (l.nnodes != p.masters() + mirrors.size()) mine.push_back("local node count");
    for (uint32_t v = 0; v < p.masters(); ++v) {
      const uint32_t gv = p.first() + v;
      if (l.row_start[v + 1] - l.row_start[v] != g.row_start[gv + 1] - g.row_start[gv]) mine.push_back("degree");
      for (irgl::edge_t k = 0; k < l.row_start[v + 1] - l.row_start[v]; ++k) {
        const uint32_t d = global_of(p, l.edge_dst[l.row_start[v] + k], mirrors);
        if (d != g.edge_dst[g.row_start[gv] + k]) mine.push_back("edge head");
      }
      if (p.local_id(gv) != v) mine.push_back("local_id of a master");
    }
    for (uint32_t i = 0; i < mirrors.size(); ++i) {
      if (l.row_start[p.masters() + i + 1] != l.row_start[p.masters() + i]) mine.push_back("a mirror has edges");
      if (p.local_id(mirrors[i]) != p.masters() + i) mine.push_back("local_id of a mirror");
    }
    std::lock_guard<std::mutex> lock(m);
    problems.insert(problems.end(), mine.begin(), mine.end());
    masters += p.masters();
    edges += l.nedges;
  });
  EXPECT(problems.empty());
  if (!problems.empty()) std::fprintf(stderr, "first problem: %s\n", problems[0].c_str());
  EXPECT_EQ(masters, static_cast<uint64_t>(g.nnodes));
  EXPECT_EQ(edges, static_cast<uint64_t>(g.nedges));
}

/// The value part `rank` lowers its mirror of global node v to, or 0xffffffff for none.
uint32_t lowered(uint32_t v, int rank) {
  const uint32_t h = hash32(v * 31u + static_cast<uint32_t>(rank));
  return h % 3u == 0u ? h % 1000u : 0xffffffffu;
}

// Exchanges with update tracking from `track_from` bytes of mirrors a pair of parts shares (0:
// always, sending only the copies that changed where that is fewer bytes; ~0: never).
void check_min_merge(uint64_t track_from) {
  const irgl::HostGraph g = ring_with_chords(irgl_test::scale(20000));
  irgl::Cluster cluster(g, gpus());
  // The expected value of every node: its master's 1000 + v, or the least lowered copy.
  std::vector<uint32_t> expected(g.nnodes);
  for (uint32_t v = 0; v < g.nnodes; ++v) expected[v] = 1000u + v;
  std::vector<std::vector<uint32_t>> mirrors(gpus());
  cluster.run([&](irgl::Part& p) { mirrors[p.rank()] = mirrors_of(p); });
  for (int r = 0; r < gpus(); ++r)
    for (uint32_t v : mirrors[r]) expected[v] = std::min(expected[v], lowered(v, r));
  std::mutex m;
  uint64_t wrong = 0;
  cluster.run([&](irgl::Part& p) {
    const std::vector<uint32_t>& mine = mirrors[p.rank()];
    p.track_from(track_from);
    irgl::DeviceArray<uint32_t> x(p.local().nnodes);
    x.zero();
    std::vector<uint32_t> host(p.local().nnodes);
    for (uint32_t v = 0; v < p.masters(); ++v) host[v] = 1000u + p.first() + v;
    x.upload(host.data(), p.masters());
    p.exchange(x, irgl::Merge::Copy);  // mirrors take their masters' values
    IRGL_CHECK(cudaDeviceSynchronize());
    x.download(host.data(), host.size());
    for (uint32_t i = 0; i < mine.size(); ++i) {
      const uint32_t low = lowered(mine[i], p.rank());
      if (low < host[p.masters() + i]) host[p.masters() + i] = low;
    }
    x.upload(host.data(), host.size());
    p.exchange(x, irgl::Merge::Min);
    p.exchange(x, irgl::Merge::Min);  // nothing changed since: nothing to send
    IRGL_CHECK(cudaDeviceSynchronize());
    x.download(host.data(), host.size());
    uint64_t bad = 0;
    for (uint32_t v = 0; v < host.size(); ++v)
      bad += host[v] != expected[global_of(p, v, mine)];
    std::lock_guard<std::mutex> lock(m);
    wrong += bad;
  });
  EXPECT_EQ(wrong, 0ull);
}

TEST(a_min_merge_takes_the_least_copy_and_copies_it_back) {
  if (irgl_test::host_only() || gpus() < 2) {
    std::printf("note: skipped, %d GPU(s): the exchanges need two\n", gpus());
    return;
  }
  check_min_merge(~0ull);
}

TEST(a_min_merge_with_update_tracking_sends_the_changed_copies) {
  if (irgl_test::host_only() || gpus() < 2) return;
  check_min_merge(0);
}

void check_sum_merge(uint64_t track_from) {
  const irgl::HostGraph g = ring_with_chords(irgl_test::scale(20000));
  irgl::Cluster cluster(g, gpus());
  std::vector<std::vector<uint32_t>> mirrors(gpus());
  cluster.run([&](irgl::Part& p) { mirrors[p.rank()] = mirrors_of(p); });
  std::vector<double> expected(g.nnodes, 0.5), partial(g.nnodes, 0.5);  // each master's own
  for (int r = 0; r < gpus(); ++r)
    for (uint32_t v : mirrors[r]) {
      expected[v] += r + 1.0;
      if (v % 3 == 0) partial[v] += r + 1.0;
    }
  std::mutex m;
  uint64_t wrong = 0;
  cluster.run([&](irgl::Part& p) {
    const std::vector<uint32_t>& mine = mirrors[p.rank()];
    p.track_from(track_from);
    std::vector<double> host(p.local().nnodes, 0.5);
    // Every third mirror adds (as pairs, with tracking), then every mirror (a whole range).
    for (uint32_t i = 0; i < mine.size(); ++i) host[p.masters() + i] = mine[i] % 3 == 0 ? p.rank() + 1.0 : 0.0;
    {
      irgl::DeviceArray<double> acc(host);
      p.exchange(acc, irgl::Merge::Sum);
      IRGL_CHECK(cudaDeviceSynchronize());
      std::vector<double> got(host.size());
      acc.download(got.data(), got.size());
      uint64_t bad = 0;
      for (uint32_t v = 0; v < p.masters(); ++v) bad += got[v] != partial[p.first() + v];
      std::lock_guard<std::mutex> lock(m);
      wrong += bad;
    }
    for (uint32_t i = 0; i < mine.size(); ++i) host[p.masters() + i] = p.rank() + 1.0;
    irgl::DeviceArray<double> acc(host);
    p.exchange(acc, irgl::Merge::Sum);
    IRGL_CHECK(cudaDeviceSynchronize());
    acc.download(host.data(), host.size());
    uint64_t bad = 0;
    for (uint32_t v = 0; v < p.masters(); ++v) bad += host[v] != expected[p.first() + v];
    for (uint32_t i = 0; i < mine.size(); ++i) bad += host[p.masters() + i] != 0.0;
    std::lock_guard<std::mutex> lock(m);
    wrong += bad;
  });
  EXPECT_EQ(wrong, 0ull);
}

TEST(a_sum_adds_every_copy_and_resets_the_mirrors) {
  if (irgl_test::host_only() || gpus() < 2) return;
  check_sum_merge(~0ull);
}

TEST(a_sum_with_update_tracking_adds_the_nonzero_copies) {
  if (irgl_test::host_only() || gpus() < 2) return;
  check_sum_merge(0);
}

// Part r pushes each of its masters v with v % 5 == r twice, and its mirrors v with v % 3 == 0
// once and those with v % 6 == 0 three times: Delivery::Counted gives every owner each push,
// Delivery::Once each pushed master once.
void check_deliveries(irgl::Delivery delivery) {
  const irgl::HostGraph g = ring_with_chords(irgl_test::scale(20000));
  irgl::Cluster cluster(g, gpus());
  std::vector<std::vector<uint32_t>> mirrors(gpus());
  cluster.run([&](irgl::Part& p) { mirrors[p.rank()] = mirrors_of(p); });
  std::map<uint32_t, uint32_t> pushed;  // global node -> pushes
  for (int r = 0; r < gpus(); ++r) {
    for (uint32_t v : mirrors[r])
      if (v % 3 == 0) pushed[v] += v % 6 == 0 ? 3 : 1;
  }
  const std::vector<uint32_t> starts = cluster.starts();
  for (int r = 0; r < gpus(); ++r)
    for (uint32_t v = starts[r]; v < starts[r + 1]; ++v)
      if (v % 5 == static_cast<uint32_t>(r) % 5) pushed[v] += 2;
  std::mutex m;
  uint64_t wrong = 0;
  cluster.run([&](irgl::Part& p) {
    const std::vector<uint32_t>& mine = mirrors[p.rank()];
    std::vector<uint32_t> items;
    for (uint32_t v = 0; v < p.masters(); ++v)
      if ((p.first() + v) % 5 == static_cast<uint32_t>(p.rank()) % 5) items.insert(items.end(), 2, v);
    for (uint32_t i = 0; i < mine.size(); ++i)
      if (mine[i] % 3 == 0) items.insert(items.end(), mine[i] % 6 == 0 ? 3 : 1, p.masters() + i);
    irgl::HostWorklist wl(static_cast<uint32_t>(p.local().nnodes * 8 + 64));
    wl.assign(items);
    p.deliver(wl, delivery, "test");
    std::map<uint32_t, uint32_t> got;
    for (uint32_t v : wl.to_host()) got[p.first() + v] += 1;  // only masters remain
    std::map<uint32_t, uint32_t> want;
    for (const auto& [v, times] : pushed)
      if (v >= p.first() && v < p.first() + p.masters()) want[v] = delivery == irgl::Delivery::Once ? 1 : times;
    std::lock_guard<std::mutex> lock(m);
    wrong += got != want;
  });
  EXPECT_EQ(wrong, 0ull);
}

TEST(pushes_of_mirrors_reach_their_owners_once) {
  if (irgl_test::host_only() || gpus() < 2) return;
  check_deliveries(irgl::Delivery::Once);
}

TEST(pushes_of_mirrors_reach_their_owners_counted) {
  if (irgl_test::host_only() || gpus() < 2) return;
  check_deliveries(irgl::Delivery::Counted);
}

// One part sends nothing, but Delivery::Once still leaves each pushed node in the list once
// (a single GPU's rounds without repeated items), and Counted leaves the list as it is.
TEST(one_part_drops_repeated_pushes_only_when_delivered_once) {
  if (irgl_test::host_only() || gpus() == 0) return;
  const irgl::HostGraph g = ring_with_chords(irgl_test::scale(20000));
  irgl::Cluster cluster(g, 1);
  uint64_t wrong = 0;
  cluster.run([&](irgl::Part& p) {
    std::vector<uint32_t> items;
    for (uint32_t v = 0; v < p.masters(); ++v)
      if (v % 7 != 0) items.insert(items.end(), 1 + v % 3, v);
    for (irgl::Delivery d : {irgl::Delivery::Once, irgl::Delivery::Counted}) {
      irgl::HostWorklist wl(static_cast<uint32_t>(items.size() + 64));
      wl.assign(items);
      p.deliver(wl, d, "test");
      std::vector<uint32_t> got = wl.to_host();
      std::sort(got.begin(), got.end());
      std::vector<uint32_t> want = items;
      if (d == irgl::Delivery::Once) want.erase(std::unique(want.begin(), want.end()), want.end());
      wrong += got != want;
    }
  });
  EXPECT_EQ(wrong, 0ull);
}

TEST(main_reads_a_master_and_sums_every_part) {
  if (irgl_test::host_only() || gpus() == 0) return;
  const irgl::HostGraph g = ring_with_chords(irgl_test::scale(2000));
  irgl::Cluster cluster(g, gpus());
  std::mutex m;
  uint64_t wrong = 0;
  cluster.run([&](irgl::Part& p) {
    irgl::DeviceArray<uint32_t> x(p.local().nnodes);
    x.zero();
    p.write(x, 7, 42u, irgl::Merge::Copy);
    uint64_t bad = p.read(x, 7) != 42u;
    // Every copy of node 7 holds it.
    if (p.local_id(7) != irgl::kNoNode) {
      uint32_t v = 0;
      x.download(&v, 1, p.local_id(7));
      bad += v != 42u;
    }
    bad += p.sum(p.rank() + 1u) != static_cast<uint64_t>(p.parts()) * (p.parts() + 1) / 2;
    std::lock_guard<std::mutex> lock(m);
    wrong += bad;
  });
  EXPECT_EQ(wrong, 0ull);
}

}  // namespace

int main() {
  RUN(ranges_are_balanced_by_nodes_plus_edges);
  RUN(parts_and_their_exchange_plans_line_up);
  RUN(parts_hold_their_masters_edges_and_a_mirror_per_remote_head);
  RUN(a_min_merge_takes_the_least_copy_and_copies_it_back);
  RUN(a_min_merge_with_update_tracking_sends_the_changed_copies);
  RUN(a_sum_adds_every_copy_and_resets_the_mirrors);
  RUN(a_sum_with_update_tracking_adds_the_nonzero_copies);
  RUN(pushes_of_mirrors_reach_their_owners_once);
  RUN(pushes_of_mirrors_reach_their_owners_counted);
  RUN(one_part_drops_repeated_pushes_only_when_delivered_once);
  RUN(main_reads_a_master_and_sums_every_part);
  return irgl_test::finish();
}
