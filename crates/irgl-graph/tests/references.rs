//! CPU references: hand-computed answers on small graphs, agreement between the two references
//! where two exist, and `verify` end to end (an output file written from the reference matches,
//! a perturbed one does not).

use irgl_graph::csr::{Csr, EdgeList};
use irgl_graph::generate::{self, RmatParams};
use irgl_graph::load::{LoadOptions, load};
use irgl_graph::output;
use irgl_graph::reference::{bfs, cc, mis, msf, pagerank, sssp, tc};
use irgl_graph::transform::{self, TransformOptions};
use irgl_graph::verify::{Program, verify};
use irgl_graph::{INF_U32, NoProgress};

fn shared(file: &str) -> Csr {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/graphs")
        .join(file);
    load(&path, &LoadOptions::default(), &NoProgress)
        .unwrap()
        .csr
}

fn rmat(scale: u32, seed: u64) -> Csr {
    Csr::from_edge_list(generate::rmat(scale, 8, RmatParams::default(), seed, &NoProgress).unwrap())
}

fn weighted(g: Csr, seed: u64) -> Csr {
    transform::apply(
        g,
        &TransformOptions {
            weights_seed: Some(seed),
            ..Default::default()
        },
    )
    .0
}

#[test]
fn karate_club_known_facts() {
    let g = shared("karate.mtx");
    // Zachary's karate club: 45 triangles, connected, diameter 5.
    assert_eq!(tc::triangles(&g), 45);
    assert_eq!(tc::triangles_by_edges(&g), 45);
    assert_eq!(cc::count(&cc::components_union_find(&g)), 1);
    let ecc = (0..g.n)
        .map(|s| *bfs::bfs_levels(&g, s).iter().max().unwrap())
        .max()
        .unwrap();
    assert_eq!(ecc, 5);
    assert_eq!(irgl_graph::stats::describe(&g, 3).diameter_estimate, 5);
}

#[test]
fn dijkstra_agrees_with_petgraph() {
    for g in [
        shared("rome99.gr"),
        shared("helsinki-drive.gr"),
        weighted(rmat(10, 1), 4),
    ] {
        for src in [0, g.n / 2, g.n - 1] {
            assert_eq!(
                sssp::dijkstra(&g, src),
                sssp::dijkstra_petgraph(&g, src),
                "src {src}"
            );
        }
    }
}

#[test]
fn unit_weight_dijkstra_is_bfs() {
    let mut g = rmat(10, 2);
    g.weights = Some(vec![1; g.dst.len()]);
    let d = sssp::dijkstra(&g, 3).unwrap();
    let l = bfs::bfs_levels(&g, 3);
    for (a, b) in d.iter().zip(&l) {
        assert_eq!(*a == sssp::UNREACHABLE, *b == INF_U32);
        if *b != INF_U32 {
            assert_eq!(*a, u64::from(*b));
        }
    }
}

#[test]
fn connected_components_agree() {
    for g in [
        shared("wiki-Vote.txt.gz"),
        shared("helsinki-drive.gr"),
        rmat(11, 3),
        rmat(8, 4),
    ] {
        assert_eq!(cc::components_union_find(&g), cc::components_bfs(&g));
    }
}

#[test]
fn triangle_counts_agree() {
    for g in [
        rmat(9, 5),
        shared("dolphins.mtx"),
        generate::mesh(300, 1).unwrap().edge_graph(),
    ] {
        assert_eq!(tc::triangles(&g), tc::triangles_by_edges(&g));
    }
    // Every face of a triangulation is a triangle of its edge graph (separating triangles add
    // more).
    let m = generate::mesh(300, 1).unwrap();
    assert!(tc::triangles(&m.edge_graph()) >= m.triangles.len() as u64);
}

#[test]
fn spanning_forest_weights_agree() {
    for g in [
        shared("rome99.gr"),
        shared("helsinki-drive.gr"),
        weighted(rmat(10, 6), 2),
    ] {
        let f = msf::kruskal(&g).unwrap();
        assert_eq!(Some(f.weight), msf::kruskal_petgraph(&g));
        assert_eq!(f.components, cc::count(&cc::components_union_find(&g)));
    }
}

#[test]
fn greedy_mis_is_valid() {
    for g in [rmat(10, 7), shared("karate.mtx")] {
        assert!(mis::check(&g, &mis::greedy(&g)).is_empty());
    }
}

#[test]
fn pagerank_on_a_symmetric_regular_graph_is_uniform() {
    // A 2D torus-free grid is not regular; a cycle in both directions is.
    let mut l = EdgeList::new(10, false);
    for i in 0..10 {
        l.push(i, (i + 1) % 10, 0);
        l.push((i + 1) % 10, i, 0);
    }
    let r = pagerank::pagerank(
        &Csr::from_edge_list(l),
        pagerank::PageRankParams {
            alpha: 0.85,
            tol: 1e-12,
            max_iter: 100,
        },
    );
    assert!(r.rank.iter().all(|&x| (x - 0.1).abs() < 1e-12));
}

/// An output file as a program would write it.
fn output_file(g: &Csr, body: &str) -> output::OutputFile {
    let text = format!(
        "irgl-output 1\nprogram test\nnodes {}\nedges {}\n{body}",
        g.n,
        g.num_edges()
    );
    output::parse(text.as_bytes(), "test.out").unwrap()
}

fn node_section(name: &str, ty: &str, values: impl Iterator<Item = String>) -> String {
    let mut s = format!("node {name} {ty}\n");
    for v in values {
        s.push_str(&v);
        s.push('\n');
    }
    s
}

#[test]
fn verify_end_to_end_for_every_program() {
    let g = weighted(
        transform::apply(
            rmat(9, 11),
            &TransformOptions {
                symmetrize: true,
                drop_self_loops: true,
                ..Default::default()
            },
        )
        .0,
        5,
    );
    let n = g.n as usize;
    // bfs
    let mut levels = bfs::bfs_levels(&g, 1);
    let body = |l: &[u32]| {
        format!(
            "param src 1\n{}",
            node_section("level", "u32", l.iter().map(u32::to_string))
        )
    };
    assert!(
        verify(Program::Bfs, &g, &output_file(&g, &body(&levels)))
            .unwrap()
            .ok
    );
    levels[7] = levels[7].wrapping_add(1);
    let v = verify(Program::Bfs, &g, &output_file(&g, &body(&levels))).unwrap();
    assert!(!v.ok && v.mismatch_count == 1, "{v}");
    // sssp
    let dist: Vec<String> = sssp::dijkstra(&g, 2)
        .unwrap()
        .iter()
        .map(|&d| {
            if d == sssp::UNREACHABLE {
                INF_U32.to_string()
            } else {
                d.to_string()
            }
        })
        .collect();
    let body = format!(
        "param src 2\n{}",
        node_section("dist", "u32", dist.into_iter())
    );
    assert!(
        verify(Program::Sssp, &g, &output_file(&g, &body))
            .unwrap()
            .ok
    );
    // cc, with labels renamed: still a match
    let comp = cc::components_bfs(&g);
    let renamed = comp.iter().map(|&c| (c * 7 + 3).to_string());
    assert!(
        verify(
            Program::Cc,
            &g,
            &output_file(&g, &node_section("comp", "u32", renamed))
        )
        .unwrap()
        .ok
    );
    let merged = comp.iter().map(|_| "0".to_string());
    let v = verify(
        Program::Cc,
        &g,
        &output_file(&g, &node_section("comp", "u32", merged)),
    )
    .unwrap();
    assert_eq!(v.ok, cc::count(&comp) == 1);
    // pr: f32-rounded reference ranks pass; a visibly wrong rank fails
    let p = pagerank::PageRankParams {
        alpha: 0.85,
        tol: 1e-7,
        max_iter: 100,
    };
    let r = pagerank::pagerank(&g, p).rank;
    let params = "param alpha 0.85\nparam tol 1e-7\nparam max_iter 100\n";
    let ranks = |r: &[f64]| {
        node_section(
            "rank",
            "f32",
            r.iter().map(|&x| format!("{:.9e}", x as f32)),
        )
    };
    assert!(
        verify(
            Program::Pr,
            &g,
            &output_file(&g, &format!("{params}{}", ranks(&r)))
        )
        .unwrap()
        .ok
    );
    let mut bad = r.clone();
    bad[5] *= 1.5;
    assert!(
        !verify(
            Program::Pr,
            &g,
            &output_file(&g, &format!("{params}{}", ranks(&bad)))
        )
        .unwrap()
        .ok
    );
    // tc
    let t = tc::triangles(&g);
    assert!(
        verify(
            Program::Tc,
            &g,
            &output_file(&g, &format!("scalar triangles u64 {t}\n"))
        )
        .unwrap()
        .ok
    );
    assert!(
        !verify(
            Program::Tc,
            &g,
            &output_file(&g, &format!("scalar triangles u64 {}\n", t + 1))
        )
        .unwrap()
        .ok
    );
    // mis: greedy passes; the empty set is not maximal
    let set = mis::greedy(&g);
    let mis_body =
        |s: &[bool]| node_section("in_mis", "bool", s.iter().map(|&b| u8::from(b).to_string()));
    assert!(
        verify(Program::Mis, &g, &output_file(&g, &mis_body(&set)))
            .unwrap()
            .ok
    );
    assert!(
        !verify(
            Program::Mis,
            &g,
            &output_file(&g, &mis_body(&vec![false; n]))
        )
        .unwrap()
        .ok
    );
    // mst: mark Kruskal's edges in one direction
    let f = msf::kruskal(&g).unwrap();
    let marks = kruskal_marks(&g);
    let body = |m: &[bool], w: u64| {
        let mut s = format!("scalar mst_weight u64 {w}\nedge in_mst bool\n");
        for &b in m {
            s.push_str(if b { "1\n" } else { "0\n" });
        }
        s
    };
    let v = verify(Program::Mst, &g, &output_file(&g, &body(&marks, f.weight))).unwrap();
    assert!(v.ok, "{v}");
    assert!(
        !verify(
            Program::Mst,
            &g,
            &output_file(&g, &body(&marks, f.weight + 1))
        )
        .unwrap()
        .ok
    );
    assert!(
        !verify(
            Program::Mst,
            &g,
            &output_file(&g, &body(&vec![true; marks.len()], f.weight))
        )
        .unwrap()
        .ok
    );
}

/// Marks, in CSR order, the edges Kruskal picks (one direction each).
fn kruskal_marks(g: &Csr) -> Vec<bool> {
    let w = g.weights.as_ref().unwrap();
    let src = g.sources();
    let mut order: Vec<usize> = (0..g.dst.len()).filter(|&e| src[e] < g.dst[e]).collect();
    order.sort_by_key(|&e| (w[e], src[e], g.dst[e]));
    let mut uf = petgraph::unionfind::UnionFind::<u32>::new(g.n as usize);
    let mut marks = vec![false; g.dst.len()];
    for e in order {
        if uf.union(src[e], g.dst[e]) {
            marks[e] = true;
        }
    }
    marks
}

#[test]
fn traverse_counts_must_be_the_in_degrees() {
    // A directed graph: in-degrees differ from out-degrees.
    let g = rmat(8, 5);
    let mut indeg = vec![0u64; g.n as usize];
    for v in 0..g.n {
        for &w in g.neighbours(v) {
            indeg[w as usize] += 1;
        }
    }
    let good = node_section("hits", "u32", indeg.iter().map(u64::to_string));
    let v = verify(Program::Traverse, &g, &output_file(&g, &good)).unwrap();
    assert!(v.ok, "{v}");
    // One push lost, one doubled.
    let mut bad = indeg.clone();
    let hub = (0..bad.len()).max_by_key(|&i| bad[i]).unwrap();
    let next = (hub + 1) % bad.len();
    bad[hub] -= 1;
    bad[next] += 1;
    let bad = node_section("hits", "u32", bad.iter().map(u64::to_string));
    let v = verify(Program::Traverse, &g, &output_file(&g, &bad)).unwrap();
    assert!(!v.ok);
    assert_eq!(v.mismatch_count, 2);
}
