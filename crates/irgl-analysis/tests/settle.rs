//! Which `Iterate Unordered While Any` loops may run without grid barriers: mis, a minimal
//! loop that settles, and small loops that each break one rule of the analysis, with the
//! reason it gives.

mod common;

use common::compile;

use std::path::Path;

use irgl_analysis::SettleCandidates;

/// The verdict on the one `Iterate Unordered` of a program of kernel `k` over
/// `graph g { node key: u32; node out: bool; }` with `global total: u64`.
fn verdict(kernel: &str) -> Result<(), String> {
    let text = format!(
        "graph g {{\n  node key: u32;\n  node out: bool;\n}}\nconst DONE: u32 = 1;\nglobal total: u64 = 0;\noutput out;\n{kernel}\nmain {{\n  Iterate Unordered While Any k(g);\n}}\n"
    );
    let m = compile("t.irgl", &text);
    let c = SettleCandidates::build(&m);
    assert_eq!(c.regions.len(), 1, "one unordered region");
    c.regions[0].2.clone()
}

fn refusal(kernel: &str) -> String {
    verdict(kernel).expect_err("refused")
}

#[test]
fn mis_settles() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs/mis.irgl");
    let src = std::fs::read_to_string(path).unwrap();
    let m = compile("programs/mis.irgl", &src);
    let c = SettleCandidates::build(&m);
    assert_eq!(
        c.render(&m),
        "settle r0 iterate decide: yes: an item of decide that reports nothing never reports again\n"
    );
}

#[test]
fn an_item_that_reports_or_settles_is_accepted() {
    let ok = verdict(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > DONE) {
              let ready = true;
              for (let e = g.edge_begin(n); e < g.edge_end(n); e++) {
                if (atomicOr(g.key[g.dst(e)], 0) > kn) { ready = false; }
              }
              if (ready) {
                g.key[n] = DONE;
                g.out[n] = true;
              } else {
                ReduceAndReturn true;
              }
            }
          }
        }",
    );
    assert_eq!(ok, Ok(()));
}

#[test]
fn a_store_of_a_value_that_may_pass_the_guard_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > DONE) {
              g.key[n] = kn - 1;
              ReduceAndReturn true;
            }
          }
        }",
    );
    assert!(
        why.contains("stores to `key` a value that is not a constant"),
        "{why}"
    );
}

#[test]
fn a_constant_that_passes_the_guard_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > DONE) {
              g.key[n] = 7;
              ReduceAndReturn false;
            }
          }
        }",
    );
    assert!(why.contains("stores to `key`"), "{why}");
}

#[test]
fn a_silent_unsettled_path_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > DONE) {
              if (g.degree(n) > 3) {
                ReduceAndReturn true;
              }
            }
          }
        }",
    );
    assert!(why.contains("neither reports true nor stores"), "{why}");
}

#[test]
fn an_item_that_leaves_before_it_settles_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > DONE) {
              if (g.degree(n) == 0) {
                continue;
              }
              g.key[n] = DONE;
              ReduceAndReturn false;
            }
          }
        }",
    );
    assert!(why.contains("neither reports true nor stores"), "{why}");
}

#[test]
fn an_update_of_the_guard_by_a_min_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > DONE) {
              atomicMin(g.key[n], 5);
              ReduceAndReturn true;
            }
          }
        }",
    );
    assert!(why.contains("with atomicMin"), "{why}");
}

#[test]
fn an_update_of_a_global_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > DONE) {
              atomicAdd(total, 1);
              g.key[n] = DONE;
              ReduceAndReturn false;
            }
          }
        }",
    );
    assert!(why.contains("updates the global `total`"), "{why}");
}

#[test]
fn work_before_the_guard_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            g.out[n] = false;
            let kn = g.key[n];
            if (kn > DONE) {
              g.key[n] = DONE;
              ReduceAndReturn false;
            }
          }
        }",
    );
    assert!(why.contains("is not `let x = p[i]; if (G)"), "{why}");
}

#[test]
fn a_guard_on_another_property_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
          ForAll (n In g.nodes) {
            let kn = g.key[n];
            if (kn > DONE && !g.out[n]) {
              g.key[n] = DONE;
              ReduceAndReturn false;
            }
          }
        }",
    );
    assert!(why.contains("is not `let x = p[i]; if (G)"), "{why}");
}
