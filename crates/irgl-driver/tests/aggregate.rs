//! Cooperative conversion (`aggregate_pushes`): which level each push and each addition to a
//! global of each program gets under each `--aggregate` level, why a site falls back to
//! another level, and that the IR verifier rejects a level where its position does not
//! allow it.

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
        assert!(c.cuda.contains("reserve_block_one<BLOCK>"), "{flags}");
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
    // without a nested loop, whose plain outer loops become uniform for them: all block.
    let c = common::compile(
        "programs/sssp-nf.irgl",
        &common::config("--nested tb+fg --aggregate block"),
    );
    let p = pushes(&c);
    assert!(p.len() >= 5, "{p:?}");
    assert!(p.iter().all(|(a, _)| *a == Aggregation::Block), "{p:?}");
}

/// Pushes in plain outer loops: at the top of a kernel (made uniform for block), under a
/// condition of the kernel (kept plain), and in a serial nested loop (kept plain).
const PLAIN_OUTER: &str = r#"
graph g {
  node dist: u32;
}

Kernel top(graph g, u32 limit) {
  ForAll (n In g.nodes) {
    if (g.dist[n] < limit) {
      WL.push(n);
    }
  }
}

Kernel under_if(graph g, u32 limit) {
  if (limit > 3) {
    ForAll (n In g.nodes) {
      if (g.dist[n] < limit) {
        WL.push(n);
      }
    }
  }
}

Kernel in_serial(graph g, u32 limit) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      if (g.dist[g.dst(e)] < limit) {
        WL.push(g.dst(e));
      }
    }
  }
}

main {
  Pipe {
    Invoke top(g, 10);
    Invoke under_if(g, 10);
    Invoke in_serial(g, 10);
  }
}
"#;

/// Whether each kernel's outer loop is uniform, in kernel order.
fn uniform_outer(c: &irgl_driver::Compiled) -> Vec<bool> {
    let mut out = Vec::new();
    for (_, k) in c.module.kernels.iter() {
        let mut uniform = false;
        visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
            if let StmtKind::ForAll(f) = &k.body.stmts[s].kind {
                uniform |= f.schedule == (irgl_ir::Schedule::Grid { uniform: true });
            }
        });
        out.push(uniform);
    }
    out
}

#[test]
fn block_level_makes_a_plain_outer_loop_uniform_where_that_is_its_one_obstacle() {
    let c = common::compile_text(
        "plain.irgl",
        PLAIN_OUTER,
        &common::config("--aggregate block"),
    );
    let p = pushes(&c);
    assert_eq!(p.len(), 3, "{p:?}");
    assert_eq!(p[0], (Aggregation::Block, None));
    assert_eq!(p[1].0, Aggregation::Warp);
    assert!(
        p[1].1
            .as_deref()
            .unwrap()
            .contains("outer ForAll is not uniform"),
        "{p:?}"
    );
    assert_eq!(p[2].0, Aggregation::Warp);
    assert!(
        p[2].1.as_deref().unwrap().contains("serial nested ForAll"),
        "{p:?}"
    );
    assert_eq!(uniform_outer(&c), vec![true, false, false]);
    assert_eq!(c.cuda.matches("reserve_block_one<BLOCK>").count(), 1);
    // Other levels leave the loops plain.
    for level in ["warp", "thread", "none"] {
        let c = common::compile_text(
            "plain.irgl",
            PLAIN_OUTER,
            &common::config(&format!("--aggregate {level}")),
        );
        assert_eq!(uniform_outer(&c), vec![false, false, false], "{level}");
    }
    // So does block asked for another site only.
    let c = common::compile_text(
        "plain.irgl",
        PLAIN_OUTER,
        &common::config("--aggregate-at under_if.push0=block"),
    );
    assert_eq!(uniform_outer(&c), vec![false, false, false]);
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
    // Block-scheduled: the block reserves for the whole loop once, whichever scheduler runs
    // an iteration; asked for thread, the same, saying why.
    let c = common::compile(
        "programs/traverse.irgl",
        &common::config("--nested tb+fg --aggregate block"),
    );
    assert_eq!(pushes(&c), vec![(Aggregation::BlockLoop, None)]);
    let device = common::kernels(&c.cuda);
    assert!(
        device.contains("irgl_slots0[threadIdx.x] = irgl_out.reserve_block<BLOCK>(irgl_mine1);")
    );
    assert_eq!(device.matches("reserve_block").count(), 1, "{device}");
    assert_eq!(
        device.matches("irgl_out.write(irgl_slots0[irgl_o]").count(),
        2
    );
    let c = common::compile(
        "programs/traverse.irgl",
        &common::config("--nested tb+serial --aggregate thread"),
    );
    let p = pushes(&c);
    assert_eq!(p[0].0, Aggregation::BlockLoop);
    assert!(
        p[0].1
            .as_deref()
            .unwrap()
            .starts_with("block loop, not thread: ")
    );
    assert!(
        common::kernels(&c.cuda)
            .contains("irgl_out.write(irgl_slots0[threadIdx.x], static_cast<uint32_t>(irgl_k)")
    );
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
                        ("thread", Aggregation::BlockLoop) => note.is_some(),
                        ("block", Aggregation::Thread) => note.is_some(),
                        ("block", Aggregation::Block | Aggregation::BlockLoop) => note.is_none(),
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
    // A block-loop push needs a block-scheduled loop around it, with nothing in between.
    force(&mut c, Aggregation::BlockLoop);
    let errors = irgl_ir::verify(&c.module).expect_err("a block-loop push in a serial loop");
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("BlockLoop aggregation outside")),
        "{errors:?}"
    );
    let mut c = common::compile("programs/bfs.irgl", &common::config("--nested tb+fg"));
    force(&mut c, Aggregation::BlockLoop);
    assert!(irgl_ir::verify(&c.module).is_err(), "under a condition");
    let mut c = common::compile("programs/traverse.irgl", &common::config("--nested tb+fg"));
    force(&mut c, Aggregation::BlockLoop);
    assert!(irgl_ir::verify(&c.module).is_ok());
}

/// `(global, aggregation, note)` of every addition to a global that the pass made an
/// `Accumulate`, in kernel and source order.
fn adds(compiled: &irgl_driver::Compiled) -> Vec<(String, Aggregation, Option<String>)> {
    let mut out = Vec::new();
    for (_, k) in compiled.module.kernels.iter() {
        visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
            if let StmtKind::Accumulate(a) = &k.body.stmts[s].kind {
                let g = &compiled.module.globals[a.global.index()].name;
                out.push((g.clone(), a.aggregation, a.note.clone()));
            }
        });
    }
    out
}

#[test]
fn additions_to_globals_are_aggregated_per_warp_thread_or_block() {
    // tc's per-edge `atomicAdd(triangles, found)` and mst's weight.
    for (rel, global) in [
        ("programs/tc.irgl", "triangles"),
        ("programs/mst.irgl", "mst_weight"),
    ] {
        let c = common::compile(rel, &common::config(""));
        assert!(adds(&c).is_empty(), "none by default");
        for (level, aggregation, code) in [
            (
                "warp",
                Aggregation::Warp,
                format!("irgl::warp_add(&{global}, "),
            ),
            (
                "thread",
                Aggregation::Thread,
                format!("irgl::atomic_add(&{global}, irgl_sum"),
            ),
            (
                "block",
                Aggregation::Block,
                format!("irgl::block_add<BLOCK>(&{global}, irgl_sum"),
            ),
        ] {
            for nested in ["serial", "tb+wp+fg"] {
                let flags = format!("--nested {nested} --aggregate {level}");
                let c = common::compile(rel, &common::config(&flags));
                assert_eq!(
                    adds(&c),
                    vec![(global.to_string(), aggregation, None)],
                    "{rel} {flags}"
                );
                // One addition per copy of the body (the schedulers' copies at warp level),
                // one at the end of the kernel for the deferred levels.
                let device = common::kernels(&c.cuda);
                let n = device.matches(code.as_str()).count();
                assert!(
                    n == 1 || (level == "warp" && n > 1),
                    "{rel} {flags}: {device}"
                );
            }
        }
    }
    // The site is named `KERNEL.addN`; a name that is no site lists them.
    let c = common::compile(
        "programs/tc.irgl",
        &common::config("--aggregate-at count_triangles.add0=block"),
    );
    assert_eq!(adds(&c)[0].1, Aggregation::Block);
    let e = common::errors(
        "programs/tc.irgl",
        "--aggregate-at count_triangles.add1=warp",
    );
    assert_eq!(e[0].code, "E0509");
    assert!(
        format!("{:?}", e[0]).contains("count_triangles.add0"),
        "{e:?}"
    );
}

/// A kernel that adds to `total` and also reads it, one that only adds, and one without a
/// ForAll (one thread).
const READS_ITS_SUM: &str = r#"
graph g { node mark: u32; }
global total: u64;
global seen: u32;
output total;
Kernel add_and_read(graph g) {
  ForAll (n In g.nodes) {
    if (total < 10) {
      atomicAdd(total, 1);
    }
  }
}
Kernel add_only(graph g) {
  ForAll (n In g.nodes) {
    atomicAdd(seen, g.degree(n));
  }
}
Kernel one_thread(graph g) {
  atomicAdd(seen, 1);
}
main {
  Invoke add_and_read(g);
  Invoke add_only(g);
  Invoke one_thread(g);
}
"#;

#[test]
fn additions_stay_immediate_where_the_kernel_reads_the_sum_or_no_block_runs_it() {
    let c = common::compile_text(
        "sums.irgl",
        READS_ITS_SUM,
        &common::config("--aggregate block"),
    );
    let a = adds(&c);
    assert_eq!(a.len(), 3, "{a:?}");
    assert_eq!(a[0].1, Aggregation::Warp);
    assert!(
        a[0].2
            .as_deref()
            .unwrap()
            .contains("also reads or updates `total`"),
        "{a:?}"
    );
    assert_eq!((a[1].1, &a[1].2), (Aggregation::Block, &None));
    assert_eq!(a[2].1, Aggregation::Thread);
    assert!(a[2].2.as_deref().unwrap().contains("no ForAll"), "{a:?}");
    // The verifier rejects an addition deferred past a read of its global.
    let mut c = c;
    for (_, k) in c.module.kernels.iter_mut() {
        let ids: Vec<_> = k.body.stmts.keys().collect();
        for s in ids {
            if let StmtKind::Accumulate(a) = &mut k.body.stmts[s].kind {
                a.aggregation = Aggregation::Thread;
            }
        }
    }
    let errors = irgl_ir::verify(&c.module).expect_err("deferred past a read");
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("which the kernel also reads")),
        "{errors:?}"
    );
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

/// `(global, aggregation, note)` of every addition whose old value is used that the pass made
/// a `FetchAdd`, in kernel and source order.
fn fetch_adds(c: &irgl_driver::Compiled) -> Vec<(String, Aggregation, Option<String>)> {
    let mut out = Vec::new();
    for (_, k) in c.module.kernels.iter() {
        visit::walk_block_exprs(&k.body, &k.body.block, &mut |e| {
            if let irgl_ir::ExprKind::FetchAdd {
                global,
                aggregation,
                note,
                ..
            } = &k.body.exprs[e].kind
            {
                let g = &c.module.globals[global.index()].name;
                out.push((g.clone(), *aggregation, note.clone()));
            }
        });
    }
    out
}

#[test]
fn additions_whose_old_value_is_used_are_aggregated_per_warp() {
    // tc's `g.start[n] = atomicAdd(cursor, total)`: site `place.add0`.
    let c = common::compile("programs/tc.irgl", &common::config(""));
    assert!(fetch_adds(&c).is_empty(), "none by default");
    assert!(common::kernels(&c.cuda).contains("irgl::atomic_add(&cursor, "));
    for nested in ["serial", "tb+wp+fg"] {
        for level in ["warp", "thread", "block"] {
            let flags = format!("--nested {nested} --aggregate {level}");
            let c = common::compile("programs/tc.irgl", &common::config(&flags));
            let f = fetch_adds(&c);
            assert_eq!(f.len(), 1, "{flags}: {f:?}");
            assert_eq!((f[0].0.as_str(), f[0].1), ("cursor", Aggregation::Warp));
            match level {
                "warp" => assert_eq!(f[0].2, None),
                _ => assert!(
                    f[0].2
                        .as_deref()
                        .unwrap()
                        .starts_with(&format!("warp, not {level}: its old value is used")),
                    "{flags}: {f:?}"
                ),
            }
            let device = common::kernels(&c.cuda);
            assert!(
                device.contains(
                    "g.start[n] = irgl::warp_fetch_add(&cursor, static_cast<uint32_t>(total));"
                ),
                "{flags}: {device}"
            );
            assert!(!device.contains("irgl::atomic_add(&cursor, "), "{flags}");
        }
    }
    // Its own site, numbered with the kernel's other additions; the others keep their level.
    let c = common::compile(
        "programs/tc.irgl",
        &common::config("--aggregate-at place.add0=warp"),
    );
    assert_eq!(fetch_adds(&c).len(), 1);
    assert!(adds(&c).is_empty());
    let c = common::compile(
        "programs/tc.irgl",
        &common::config("--aggregate block --aggregate-at place.add0=none"),
    );
    assert!(fetch_adds(&c).is_empty());
    assert_eq!(adds(&c).len(), 1, "count_triangles.add0 still block");
    // The construct test: used results under a condition, in a `let`, in a nested ForAll, of
    // u32, u64 and i32 globals, numbered in source order.
    let c = common::compile(
        "tests/gpu/reservations.irgl",
        &common::config(
            "--nested tb+fg --aggregate-at place.add1=warp --aggregate-at number.add1=warp",
        ),
    );
    let f = fetch_adds(&c);
    let globals: Vec<&str> = f.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(globals, ["cursor", "balance"], "{f:?}");
    // The verifier takes only warp.
    let mut c = common::compile("programs/tc.irgl", &common::config("--aggregate warp"));
    for (_, k) in c.module.kernels.iter_mut() {
        let ids: Vec<_> = k.body.exprs.keys().collect();
        for e in ids {
            if let irgl_ir::ExprKind::FetchAdd { aggregation, .. } = &mut k.body.exprs[e].kind {
                *aggregation = Aggregation::Block;
            }
        }
    }
    let errors = irgl_ir::verify(&c.module).expect_err("a block fetch-and-add");
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("aggregation of a fetch-and-add")),
        "{errors:?}"
    );
}
