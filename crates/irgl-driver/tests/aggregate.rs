//! Cooperative conversion of pushes (`aggregate_pushes`): which level each push of each
//! program gets under `--aggregate block`, why a push falls back to warp, and that the IR
//! verifier rejects a block-level push where the whole block does not pass together.

mod common;

use irgl_ir::{Aggregation, StmtKind, visit};

/// `(aggregation, note)` of every push of every kernel, in kernel and source order.
fn pushes(compiled: &irgl_driver::Compiled) -> Vec<(Aggregation, Option<String>)> {
    let mut out = Vec::new();
    for (_, k) in compiled.module.kernels.iter() {
        visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
            if let StmtKind::Push(p) = &k.body.stmts[s].kind {
                out.push((p.aggregation, p.note.clone()));
            }
        });
    }
    out
}

#[test]
fn block_level_where_the_block_passes_together_warp_elsewhere_with_a_reason() {
    // bfs: the push is in the nested loop; block-scheduled with tb or fg, it is a block push.
    for flags in [
        "--nested tb+fg",
        "--nested tb+wp+fg",
        "--nested fg",
        "--nested tb",
    ] {
        let c = common::compile(
            "programs/bfs.irgl",
            &common::config(&format!("{flags} --aggregate block")),
        );
        assert_eq!(pushes(&c), vec![(Aggregation::Block, None)], "{flags}");
        assert!(c.cuda.contains("reserve_block<BLOCK>"), "{flags}");
    }
    // Warp schedulers only, a serial nested loop, or no uniform outer loop: warp, with why.
    for (flags, why) in [
        ("--nested wp", "no thread-block or fine-grained scheduler"),
        ("--nested serial", "serial nested ForAll"),
    ] {
        let c = common::compile(
            "programs/bfs.irgl",
            &common::config(&format!("{flags} --aggregate block")),
        );
        let p = pushes(&c);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, Aggregation::Warp, "{flags}");
        assert!(
            p[0].1.as_deref().unwrap_or("").contains(why),
            "{flags}: {p:?}"
        );
        assert!(!c.cuda.contains("reserve_block"), "{flags}");
    }
    // sssp-nf: pushes in a phase of a uniform loop, in the scheduled loop, and in kernels
    // without a nested loop (not uniform: warp).
    let c = common::compile(
        "programs/sssp-nf.irgl",
        &common::config("--nested tb+fg --aggregate block"),
    );
    let p = pushes(&c);
    let block = p.iter().filter(|(a, _)| *a == Aggregation::Block).count();
    let warp: Vec<_> = p.iter().filter(|(a, _)| *a == Aggregation::Warp).collect();
    assert!(block >= 3, "{p:?}");
    assert!(!warp.is_empty(), "{p:?}");
    for (_, note) in warp {
        assert!(
            note.as_deref().unwrap_or("").contains("not uniform"),
            "{note:?}"
        );
    }
}

#[test]
fn every_program_compiles_with_block_aggregation_under_every_schedule() {
    for (name, rel) in common::programs() {
        for set in [
            "serial",
            "tb",
            "fg",
            "tb+fg",
            "tb+wp+fg",
            "tb+wp+eb",
            "wp+vw4+fg",
        ] {
            let c = common::compile(
                &rel,
                &common::config(&format!("--nested {set} --aggregate block")),
            );
            for (a, note) in pushes(&c) {
                assert!(
                    a == Aggregation::Block || (a == Aggregation::Warp && note.is_some()),
                    "{name} {set}: {a:?} {note:?}"
                );
            }
        }
    }
}

#[test]
fn the_verifier_rejects_a_block_push_outside_a_block_wide_trip() {
    let mut c = common::compile("programs/bfs.irgl", &common::config("--nested serial"));
    let ids: Vec<_> = c.module.kernels.keys().collect();
    for k in ids {
        let body = &mut c.module.kernels[k].body;
        let mut sites = Vec::new();
        visit::walk_stmts(body, &body.block, &mut |s| {
            if matches!(body.stmts[s].kind, StmtKind::Push(_)) {
                sites.push(s);
            }
        });
        for s in sites {
            if let StmtKind::Push(p) = &mut body.stmts[s].kind {
                p.aggregation = Aggregation::Block;
            }
        }
    }
    let errors = irgl_ir::verify(&c.module).expect_err("a block push in a serial loop");
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("Block aggregation outside")),
        "{errors:?}"
    );
}
