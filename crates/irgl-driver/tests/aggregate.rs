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
fn thread_level_where_every_iteration_of_a_counted_loop_pushes_once() {
    // traverse: one unconditional push per edge of a serial nested loop.
    let c = common::compile(
        "programs/traverse.irgl",
        &common::config("--aggregate thread"),
    );
    assert_eq!(pushes(&c), vec![(Aggregation::Thread, None)]);
    assert!(c.cuda.contains(".reserve_warp(irgl_end1 - irgl_first1)"));
    // With block asked for and the loop serial: thread, saying why not block.
    let c = common::compile(
        "programs/traverse.irgl",
        &common::config("--aggregate block"),
    );
    let p = pushes(&c);
    assert_eq!(p[0].0, Aggregation::Thread);
    assert!(
        p[0].1
            .as_deref()
            .unwrap()
            .starts_with("thread, not block: ")
    );
    // Block-scheduled: block.
    let c = common::compile(
        "programs/traverse.irgl",
        &common::config("--nested tb+fg --aggregate block"),
    );
    assert_eq!(pushes(&c), vec![(Aggregation::Block, None)]);
    // bfs pushes under a condition: warp, saying why not thread.
    let c = common::compile("programs/bfs.irgl", &common::config("--aggregate thread"));
    let p = pushes(&c);
    assert_eq!(p[0].0, Aggregation::Warp);
    assert!(
        p[0].1.as_deref().unwrap().contains("under a condition"),
        "{p:?}"
    );
}

#[test]
fn every_program_compiles_at_every_level_under_every_schedule() {
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
            for level in ["thread", "warp", "block"] {
                let flags = format!("--nested {set} --aggregate {level}");
                let c = common::compile(&rel, &common::config(&flags));
                for (a, note) in pushes(&c) {
                    let ok = match (level, a) {
                        ("warp", Aggregation::Warp) => note.is_none(),
                        (_, Aggregation::Warp) => note.is_some(),
                        ("thread", Aggregation::Thread) => note.is_none(),
                        ("block", Aggregation::Thread) => note.is_some(),
                        ("block", Aggregation::Block) => note.is_none(),
                        _ => false,
                    };
                    assert!(ok, "{name} {flags}: {a:?} {note:?}");
                }
            }
        }
    }
}

/// Sets every push of `c` to `level`.
fn force(c: &mut irgl_driver::Compiled, level: Aggregation) {
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
                p.aggregation = level;
            }
        }
    }
}

#[test]
fn the_verifier_rejects_pushes_aggregated_where_their_position_does_not_allow() {
    // Block in a serial nested loop; thread under a condition; both fine where they apply.
    let mut c = common::compile("programs/bfs.irgl", &common::config("--nested serial"));
    force(&mut c, Aggregation::Block);
    let errors = irgl_ir::verify(&c.module).expect_err("a block push in a serial loop");
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("Block aggregation outside")),
        "{errors:?}"
    );
    force(&mut c, Aggregation::Thread);
    let errors = irgl_ir::verify(&c.module).expect_err("a thread push under a condition");
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("Thread aggregation outside")),
        "{errors:?}"
    );
    let mut c = common::compile("programs/traverse.irgl", &common::config("--nested serial"));
    force(&mut c, Aggregation::Thread);
    assert!(irgl_ir::verify(&c.module).is_ok());
}

/// `(kernel, push kind)` of every push site, in the order `--aggregate-at` numbers them.
fn sites(c: &irgl_driver::Compiled) -> Vec<(String, irgl_ir::PushKind)> {
    let mut out = Vec::new();
    for (_, k) in c.module.kernels.iter() {
        visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
            if let StmtKind::Push(p) = &k.body.stmts[s].kind {
                out.push((k.name.clone(), p.kind));
            }
        });
    }
    out
}

#[test]
fn single_push_sites_take_their_own_level() {
    // The default stays none; the one site named gets its level.
    let c = common::compile(
        "programs/bfs.irgl",
        &common::config("--nested tb+fg --aggregate-at bfs.push0=block"),
    );
    assert_eq!(pushes(&c), vec![(Aggregation::Block, None)]);
    let c = common::compile(
        "programs/sssp-nf.irgl",
        &common::config("--aggregate-at sssp_nf.push1=warp"),
    );
    let levels: Vec<(String, Aggregation)> = sites(&c)
        .into_iter()
        .zip(pushes(&c))
        .map(|((k, _), (a, _))| (k, a))
        .collect();
    let warp: Vec<_> = levels
        .iter()
        .filter(|(_, a)| *a == Aggregation::Warp)
        .collect();
    assert_eq!(warp.len(), 1, "{levels:?}");
    assert_eq!(warp[0].0, "sssp_nf");
    // A site that does not exist: E0509, listing the sites.
    let text = std::fs::read_to_string(common::workspace().join("programs/bfs.irgl")).unwrap();
    let mut sources = irgl_diagnostics::SourceMap::new();
    let file = sources.add("programs/bfs.irgl", text.clone());
    let source = irgl_driver::Source {
        file,
        name: "programs/bfs.irgl",
        text: &text,
    };
    let e = irgl_driver::compile(source, &common::config("--aggregate-at bfs.push3=warp"))
        .expect_err("no such site");
    assert_eq!(e[0].code, "E0509");
    assert!(format!("{:?}", e[0]).contains("bfs.push0"), "{e:?}");
}

#[test]
fn push_sites_are_numbered_alike_under_every_schedule() {
    for (name, rel) in common::programs() {
        let serial = sites(&common::compile(&rel, &common::config("--nested serial")));
        for set in ["tb", "tb+wp+fg", "wp+vw4+fg", "tb+serial"] {
            let c = common::compile(&rel, &common::config(&format!("--nested {set}")));
            assert_eq!(sites(&c), serial, "{name} {set}");
        }
    }
}
