// runtime-cuda/tests/test_graphs.cuh -- graphs that several runtime tests build.
#pragma once

#include <irgl/graph.cuh>

#include <algorithm>
#include <vector>

#include "test_util.cuh"

namespace irgl_test {

/// A ring (v - 1 and v + 1) with one chord per node to a node far away, both directions: every
/// part of a cut holds mirrors of every other part. Sorted lists; weights when `weighted`.
inline irgl::HostGraph ring_with_chords(uint32_t n, bool weighted = false) {
  std::vector<std::vector<uint32_t>> adj(n);
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t w = (v + 1) % n, c = hash32(v) % n;
    adj[v].push_back(w);
    adj[w].push_back(v);
    if (c != v) {
      adj[v].push_back(c);
      adj[c].push_back(v);
    }
  }
  irgl::HostGraph g;
  g.nnodes = n;
  g.has_edge_data = weighted;
  g.row_start.push_back(0);
  for (uint32_t v = 0; v < n; ++v) {
    auto& a = adj[v];
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    for (uint32_t d : a) {
      g.edge_dst.push_back(d);
      if (weighted) g.edge_data.push_back(1 + hash32(v ^ (d << 8)) % 100);
    }
    g.row_start.push_back(static_cast<irgl::edge_t>(g.edge_dst.size()));
  }
  g.nedges = static_cast<irgl::edge_t>(g.edge_dst.size());
  return g;
}

}  // namespace irgl_test
