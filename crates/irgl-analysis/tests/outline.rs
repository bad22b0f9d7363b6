//! The outline tree of every program (a snapshot of `irglc emit outline`'s text), and the
//! reasons a node cannot be outlined, propagated to the nodes around it; which worklist
//! kernels may run asynchronously (the lines `irglc emit outline` prints after the tree, a
//! snapshot), and small programs that each break one rule of asynchrony, with the reason.

use std::path::{Path, PathBuf};

use irgl_analysis::AsyncCandidates;
use irgl_analysis::{OutlineKind, OutlineTree};
use irgl_diagnostics::SourceMap;
use irgl_driver::{OptConfig, Source};
use irgl_ir::{Asynchrony, Module, Schedule, StmtKind};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn module(rel: &str) -> Module {
    let text = std::fs::read_to_string(workspace().join(rel)).unwrap();
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.clone());
    let source = Source {
        file,
        name: rel,
        text: &text,
    };
    irgl_driver::compile(source, &OptConfig::default())
        .unwrap_or_else(|d| panic!("{rel}: {d:?}"))
        .module
}

/// The file names of `programs/*.irgl`, sorted.
fn program_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(workspace().join("programs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".irgl"))
        .collect();
    names.sort();
    names
}

#[test]
fn outline_trees_of_the_programs() {
    let mut text = String::new();
    for name in program_names() {
        let m = module(&format!("programs/{name}"));
        text.push_str(&format!("== {name}\n{}", OutlineTree::build(&m).render(&m)));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn a_kernel_that_cannot_run_on_a_fixed_grid_blocks_its_region_and_the_regions_around() {
    // sssp-nf: r1 (the Pipe of sssp_nf and remove_dups) inside r0 (Pipe Once of init).
    let mut m = module("programs/sssp-nf.irgl");
    let tree = OutlineTree::build(&m);
    assert!(tree.nodes().iter().all(|n| n.outlinable.is_ok()));
    // Make remove_dups's outer loop serial: it no longer covers its iterations on any grid.
    let k = m.kernel_named("remove_dups").unwrap();
    let body = &mut m.kernels[k].body;
    for s in body.block.clone() {
        if let StmtKind::ForAll(f) = &mut body.stmts[s].kind {
            f.schedule = Schedule::Serial { why: None };
        }
    }
    let tree = OutlineTree::build(&m);
    let nodes = tree.nodes();
    let outer = &nodes[0];
    let inner = &nodes[1];
    assert!(matches!(outer.kind, OutlineKind::Region(..)));
    assert_eq!(
        inner.outlinable,
        Err(
            "kernel remove_dups's outer loop is not grid-stride, so it cannot run on a fixed grid"
                .into()
        )
    );
    assert_eq!(
        outer.outlinable,
        Err(format!(
            "it contains {}, which cannot be outlined",
            inner.name()
        ))
    );
    assert!(tree.render(&m).contains("not outlinable: "));
}

// ---- asynchrony: which worklist kernels may run asynchronously, and why not

/// The module as lowered (before any pass).
fn lowered(rel: &str, text: &str) -> Module {
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.to_string());
    let source = Source {
        file,
        name: rel,
        text,
    };
    let (m, _) = irgl_driver::lower(source).unwrap_or_else(|d| panic!("{rel}: {d:?}"));
    m
}

#[test]
fn async_verdicts_for_the_programs() {
    let mut text = String::new();
    for name in program_names() {
        let rel = format!("programs/{name}");
        let m = lowered(
            &rel,
            &std::fs::read_to_string(workspace().join(&rel)).unwrap(),
        );
        text.push_str(&format!(
            "== {name}\n{}",
            AsyncCandidates::build(&m).render(&m)
        ));
    }
    insta::assert_snapshot!(text);
}

/// A program with one worklist kernel `k`: `body` is its item's code (the popped node is
/// `n`), `main` the orchestration.
fn program(decls: &str, body: &str, params: &str, main: &str) -> String {
    format!(
        "graph g {{ node x: u32; node y: u32; }}\nglobal total: u32;\n{decls}\nKernel k(graph g{params}) {{\n  ForAll (wi In WL) {{\n    let n = WL.pop(wi);\n{body}\n  }}\n}}\nmain {{\n{main}\n}}\n"
    )
}

const LOWER: &str = "      let v = g.x[n] + 1;\n      ForAll (e In g.edges(n)) {\n        let d = g.dst(e);\n        if (v < atomicMin(g.x[d], v)) { WL.push(d); }\n      }";

fn verdict(text: &str) -> Result<Asynchrony, String> {
    let m = lowered("t.irgl", text);
    let k = m.kernel_named("k").expect("kernel k");
    AsyncCandidates::build(&m)
        .get(k)
        .cloned()
        .expect("k pops a worklist")
}

#[test]
fn a_monotone_iterate_with_nothing_between_rounds_runs_on_all_its_pushes() {
    let t = program("", LOWER, "", "  Iterate k(g) Initial [0];");
    assert_eq!(verdict(&t), Ok(Asynchrony::AllPushes));
    // The same kernel's rounds with a counter between them stay rounds.
    let t = program(
        "",
        LOWER,
        ", u32 r",
        "  let r: u32 = 0;\n  Iterate k(g, r) Initial [0] { r += 1; }",
    );
    let e = verdict(&t).unwrap_err();
    assert!(e.contains("between rounds"), "{e}");
}

#[test]
fn respawns_feed_the_launch_that_made_them() {
    let body = "      ForAll (e In g.edges(n)) {\n        let d = g.dst(e);\n        if (1 < atomicMin(g.x[d], 1)) { Respawn d; }\n      }";
    let t = program("", body, "", "  Pipe Once {\n    Invoke k(g);\n  }");
    assert_eq!(verdict(&t), Ok(Asynchrony::Respawns));
}

#[test]
fn one_launch_without_respawns_has_no_rounds_to_merge() {
    let t = program("", LOWER, "", "  Pipe Once {\n    Invoke k(g);\n  }");
    let e = verdict(&t).unwrap_err();
    assert!(e.contains("no rounds to merge"), "{e}");
}

#[test]
fn non_monotone_updates_are_refused_with_the_property() {
    // A plain store to what the kernel reads.
    let store = "      ForAll (e In g.edges(n)) {\n        let d = g.dst(e);\n        if (g.x[d] == 0) { g.x[d] = 1; WL.push(d); }\n      }";
    let e = verdict(&program("", store, "", "  Iterate k(g) Initial [0];")).unwrap_err();
    assert!(e.contains("assigns `x`, which it also reads"), "{e}");
    // A store to what it never reads is fine.
    let write_only = "      g.y[n] = 1;\n      ForAll (e In g.edges(n)) {\n        let d = g.dst(e);\n        if (1 < atomicMin(g.x[d], 1)) { WL.push(d); }\n      }";
    assert_eq!(
        verdict(&program("", write_only, "", "  Iterate k(g) Initial [0];")),
        Ok(Asynchrony::AllPushes)
    );
    // An order-dependent atomic, even on a global it only updates.
    let add = "      atomicAdd(total, 1);";
    let e = verdict(&program("", add, "", "  Iterate k(g) Initial [0];")).unwrap_err();
    assert!(e.contains("updates `total` with atomicAdd"), "{e}");
}

#[test]
fn rounds_that_answer_or_synchronize_are_refused() {
    let reduce = "      ReduceAndReturn g.x[n] == 0;";
    let t = program(
        "",
        reduce,
        "",
        "  Pipe Once {\n    Iterate While Any k(g);\n  }",
    );
    let e = verdict(&t).unwrap_err();
    assert!(e.contains("reduction"), "{e}");
}

#[test]
fn a_worklist_index_used_beyond_its_pop_is_refused() {
    // The index names a claim in the queue once asynchronous: only `WL.pop(wi)` may read it.
    let body = "      g.y[n] = wi;\n      ForAll (e In g.edges(n)) {\n        let d = g.dst(e);\n        if (1 < atomicMin(g.x[d], 1)) { WL.push(d); }\n      }";
    let e = verdict(&program("", body, "", "  Iterate k(g) Initial [0];")).unwrap_err();
    assert!(
        e.contains("uses its worklist index `wi` other than in `WL.pop(wi)`"),
        "{e}"
    );
}

#[test]
fn arguments_that_read_device_state_are_refused() {
    let t = program("", LOWER, ", u32 r", "  Iterate k(g, g.y[0]) Initial [0];");
    let e = verdict(&t).unwrap_err();
    assert!(e.contains("arguments read device state"), "{e}");
}
