//! Which kernels over the nodes may run over the parts of split nodes: the shipped programs'
//! verdicts, and small kernels that each break one rule of the analysis, with the reason.

mod common;

use common::{compile, program};

use irgl_analysis::SplitCandidates;

/// The verdict on kernel `k` of a program over
/// `graph g { node key: u32; node acc: u32; edge w: u32; }` with `global total: u32`.
fn verdict(kernel: &str) -> Result<(), String> {
    let text = format!(
        "graph g {{\n  node key: u32;\n  node acc: u32;\n  edge w: u32;\n}}\nglobal total: u32 = 0;\noutput acc;\n{kernel}\nmain {{\n  Invoke k(g);\n}}\n"
    );
    let m = compile("t.irgl", &text);
    let c = SplitCandidates::build(&m);
    let k = m.kernel_named("k").unwrap();
    c.get(k).unwrap().clone().map(|_| ())
}

fn refusal(kernel: &str) -> String {
    verdict(kernel).expect_err("refused")
}

/// The kernels each shipped program may split: the push-style sweeps over a node's edges.
#[test]
fn shipped_programs_split_their_push_sweeps() {
    let accepted = |name: &str| -> Vec<String> {
        let m = program(name);
        SplitCandidates::build(&m)
            .kernels
            .iter()
            .filter(|(_, v)| v.is_ok())
            .map(|(k, _)| m.kernels[*k].name.clone())
            .collect()
    };
    assert_eq!(accepted("pr"), ["push_rank"]);
    assert_eq!(accepted("sssp-bf"), ["relax"]);
    assert_eq!(accepted("mst"), ["find_min"]);
    assert_eq!(accepted("color"), ["rank"]);
    assert_eq!(accepted("traverse"), ["push_all"]);
    assert!(accepted("bfs-topo").is_empty());
    assert!(accepted("pr-pull").is_empty());
    assert!(accepted("bfs").is_empty());
}

#[test]
fn bfs_topo_reads_what_it_stores() {
    let m = program("bfs-topo");
    let text = SplitCandidates::build(&m).render(&m);
    assert!(
        text.contains("split kernel bfs_topo: no: outside its edge loops the item reads `level`, which the kernel changes"),
        "{text}"
    );
}

#[test]
fn a_push_sweep_is_accepted() {
    let ok = verdict(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > 0) {
              ForAll (e In g.edges(n)) {
                atomicAdd(g.acc[g.dst(e)], kn + g.w[e]);
              }
            }
          }
        }",
    );
    assert_eq!(ok, Ok(()));
}

#[test]
fn a_read_of_a_property_only_lowered_by_min_is_accepted() {
    let ok = verdict(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            ForAll (e In g.edges(n)) {
              atomicMin(g.key[g.dst(e)], kn + 1);
            }
          }
        }",
    );
    assert_eq!(ok, Ok(()));
}

#[test]
fn a_read_of_a_property_the_kernel_adds_to_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.acc[n];
            ForAll (e In g.edges(n)) {
              atomicAdd(g.acc[g.dst(e)], kn);
            }
          }
        }",
    );
    assert!(
        why.contains("reads `acc`, which the kernel changes"),
        "{why}"
    );
}

#[test]
fn a_store_outside_the_edge_loop_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            ForAll (e In g.edges(n)) {
              atomicAdd(g.acc[g.dst(e)], 1);
            }
            g.key[n] = 0;
          }
        }",
    );
    assert!(why.contains("stores to memory (once per part)"), "{why}");
}

#[test]
fn an_edge_loop_that_reduces_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let s: u32 = 0;
            ForAll (e In g.edges(n)) Reduce (sum: s) {
              s += g.w[e];
            }
            if (s > 3) {
              atomicAdd(g.acc[n], 1);
            }
          }
        }",
    );
    assert!(why.contains("reduces"), "{why}");
}

#[test]
fn a_kernel_without_an_edge_loop_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > 3) {
              let d = g.degree(n);
              if (d > kn) {
                let _x = d;
              }
            }
          }
        }",
    );
    assert!(why.contains("nothing to split"), "{why}");
}

#[test]
fn a_loop_over_a_neighbours_edges_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let d = g.dst(g.edge_begin(n));
            ForAll (e In g.edges(d)) {
              atomicAdd(g.acc[g.dst(e)], 1);
            }
          }
        }",
    );
    assert!(why.contains("edges of a node other than `n`"), "{why}");
}

#[test]
fn a_read_of_a_global_the_kernel_updates_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let t = total;
            ForAll (e In g.edges(n)) {
              atomicAdd(total, t);
            }
          }
        }",
    );
    assert!(why.contains("reads `total`"), "{why}");
}

/// A kernel whose rounds `settle_rounds` runs without barriers is refused before its item is
/// read: the settle analysis judged its items whole (mis's `decide` at `-O2`).
#[test]
fn a_settled_kernel_is_refused() {
    let (config, m) = common::program_at("mis", &["-O2"]);
    assert!(config.settle);
    let k = m.kernel_named("decide").unwrap();
    assert!(m.kernels[k].settled);
    let why = SplitCandidates::build(&m)
        .get(k)
        .unwrap()
        .clone()
        .unwrap_err();
    assert!(
        why.contains("without grid barriers (settle_rounds)"),
        "{why}"
    );
}
