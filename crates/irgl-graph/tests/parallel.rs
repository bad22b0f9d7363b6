//! The parallel host pipeline gives the same graphs, statistics and references on one thread
//! as on several, and the same answers as plain serial versions written here. The graphs are
//! large enough that every parallel path runs (node ranges split, frontiers expanded in
//! parallel).

use std::collections::VecDeque;

use irgl_graph::generate::{self, RmatParams};
use irgl_graph::reference::{bfs, cc, kcore, msf, pagerank, sssp, tc};
use irgl_graph::transform::{self, TransformOptions};
use irgl_graph::{Csr, INF_U32, NoProgress, stats};

fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
        .install(f)
}

/// RMAT of `scale`, edge factor 16, symmetrized without self-loops, weighted.
fn pipeline(scale: u32) -> (Csr, Csr) {
    let g = Csr::from_edge_list(
        generate::rmat(scale, 16, RmatParams::default(), 3, &NoProgress).expect("rmat"),
    );
    let opts = TransformOptions {
        drop_self_loops: true,
        symmetrize: true,
        dedup: true,
        weights_seed: Some(5),
    };
    let s = transform::apply(g.clone(), &opts).0;
    (g, s)
}

#[test]
fn one_thread_and_several_agree() {
    let (g1, s1) = on_threads(1, || pipeline(14));
    let (g4, s4) = on_threads(4, || pipeline(14));
    assert_eq!(g1, g4);
    assert_eq!(s1, s4);
    assert!(s1.is_symmetric() && s1.is_sorted() && s1.validate().is_ok());
    let rev = |t| on_threads(t, || (g1.reverse(), s1.reverse()));
    assert_eq!(rev(1), rev(4));
    let info = |t| on_threads(t, || stats::describe(&g1, 9));
    assert_eq!(info(1), info(4));
    let src = (0..s1.n).max_by_key(|&v| s1.degree(v)).unwrap();
    let refs = |t| {
        on_threads(t, || {
            (
                bfs::bfs_levels(&s1, src),
                cc::components_union_find(&g1),
                tc::triangles(&g1),
                kcore::core_numbers(&s1),
                msf::kruskal(&s1),
            )
        })
    };
    assert_eq!(refs(1), refs(4));
}

#[test]
fn bfs_matches_a_serial_queue() {
    let (_, s) = pipeline(14);
    let path = Csr::from_pairs(
        5000,
        &(0..4999u32)
            .flat_map(|v| [(v, v + 1), (v + 1, v)])
            .collect::<Vec<_>>(),
    );
    for (g, src) in [
        (&s, (0..s.n).max_by_key(|&v| s.degree(v)).unwrap()),
        (&s, 0),
        (&path, 17),
    ] {
        let mut want = vec![INF_U32; g.n as usize];
        want[src as usize] = 0;
        let mut queue = VecDeque::from([src]);
        while let Some(u) = queue.pop_front() {
            for &v in g.neighbours(u) {
                if want[v as usize] == INF_U32 {
                    want[v as usize] = want[u as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        assert_eq!(bfs::bfs_levels(g, src), want, "source {src}");
    }
}

#[test]
fn dijkstra_with_a_radix_heap_matches_petgraph() {
    let (_, s) = pipeline(13);
    for src in [0, (0..s.n).max_by_key(|&v| s.degree(v)).unwrap()] {
        assert_eq!(
            sssp::dijkstra(&s, src),
            sssp::dijkstra_petgraph(&s, src),
            "source {src}"
        );
    }
}

#[test]
fn triangles_by_marks_match_triangles_by_edges() {
    let (g, _) = pipeline(11);
    assert_eq!(tc::triangles(&g), tc::triangles_by_edges(&g));
}

#[test]
fn pulled_pagerank_is_the_pushed_one_bit_for_bit() {
    let (g, _) = pipeline(13);
    let p = pagerank::PageRankParams {
        alpha: 0.85,
        tol: 1e-9,
        max_iter: 20,
    };
    // The push the reference replaced: sources in increasing order, shares added in turn.
    let n = g.n as usize;
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..p.max_iter {
        let mut next = vec![(1.0 - p.alpha) / n as f64; n];
        for u in 0..g.n {
            let d = g.degree(u);
            if d > 0 {
                let share = p.alpha * rank[u as usize] / d as f64;
                for &v in g.neighbours(u) {
                    next[v as usize] += share;
                }
            }
        }
        rank = next;
    }
    let got = pagerank::pagerank(&g, p);
    assert_eq!(got.iterations, p.max_iter);
    assert_eq!(got.rank, rank);
}

#[test]
fn lock_free_union_find_matches_bfs_labels() {
    let (g, s) = pipeline(14);
    let many = Csr::from_edge_list(generate::components(5000, 8, 2).expect("components"));
    let path = Csr::from_edge_list(generate::path(40_000).expect("path"));
    for (graph, symmetric) in [(&g, false), (&s, true), (&many, true), (&path, true)] {
        let want = cc::components_bfs(graph);
        assert_eq!(cc::components_union_find(graph), want);
        if symmetric {
            assert_eq!(cc::components_union_find_symmetric(graph), want);
        }
    }
}
