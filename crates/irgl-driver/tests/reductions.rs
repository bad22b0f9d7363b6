//! `Reduce` clauses on nested ForAlls: lowered to `Combine` statements inside a loop that
//! lists its reductions; under the block schedulers the reduced locals are not part of the
//! closure and each scheduler combines its threads' partials into the owners' slots; serial
//! loops combine into the local itself. The verifier rejects combines and reads where the
//! loop does not reduce the local.

mod common;

use irgl_ir::*;

/// Every `ForAll` of every kernel, in source order.
fn foralls(m: &Module) -> Vec<ForAll> {
    let mut out = Vec::new();
    for (_, k) in m.kernels.iter() {
        visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
            if let StmtKind::ForAll(f) = &k.body.stmts[s].kind {
                out.push(f.clone());
            }
        });
    }
    out
}

fn combines(m: &Module) -> Vec<Combiner> {
    let mut out = Vec::new();
    for (_, k) in m.kernels.iter() {
        visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
            if let StmtKind::Combine { combiner, .. } = &k.body.stmts[s].kind {
                out.push(*combiner);
            }
        });
    }
    out
}

#[test]
fn reductions_lower_to_combines_in_the_loops_that_reduce() {
    let c = common::compile(
        "tests/compile/reduce.irgl",
        &common::config("--nested serial"),
    );
    let loops = foralls(&c.module);
    let reduced: Vec<Vec<Combiner>> = loops
        .iter()
        .map(|f| f.reductions.iter().map(|r| r.combiner).collect())
        .collect();
    assert_eq!(
        reduced,
        vec![
            vec![],
            vec![Combiner::Sum, Combiner::Min, Combiner::Any],
            vec![Combiner::Sum],
            vec![Combiner::Sum],
            vec![Combiner::Or, Combiner::And],
        ]
    );
    // `mask = mask | e` combines `e`, as `keep &= e` does.
    assert_eq!(
        combines(&c.module),
        vec![
            Combiner::Sum,
            Combiner::Min,
            Combiner::Any,
            Combiner::Sum,
            Combiner::Or,
            Combiner::And
        ]
    );
    // Serial: the combinations go to the locals themselves, no slots.
    let cu = &c.cuda;
    assert!(
        cu.contains("total += static_cast<unsigned long long>(g.len[e]);"),
        "{cu}"
    );
    assert!(cu.contains(
        "lightest = irgl::min_of(lightest, static_cast<uint32_t>(g.dist[v] + g.len[e]));"
    ));
    assert!(cu.contains("if (g.len[e] < 2u) any_near = true;"));
    assert!(cu.contains(
        "mask |= static_cast<uint32_t>(static_cast<uint32_t>(1u) << (g.csr.dst(e) % 32u));"
    ));
    assert!(cu.contains("keep &= static_cast<unsigned long long>("));
    assert!(!cu.contains("irgl_r1_"));
}

#[test]
fn scheduled_reductions_combine_partials_into_the_owners_slots() {
    let c = common::compile(
        "tests/compile/reduce.irgl",
        &common::config("--nested tb+wp+vw4+fg"),
    );
    let loops = foralls(&c.module);
    let Schedule::Block(b) = &loops[1].schedule else {
        panic!(
            "the first nested loop is block-scheduled: {:?}",
            loops[1].schedule
        );
    };
    let k = c.module.kernels.iter().next().unwrap().1;
    let names: Vec<&str> = b
        .closure
        .iter()
        .map(|l| k.body.locals[*l].name.as_str())
        .collect();
    assert_eq!(names, vec!["n"], "reduced locals are not in the closure");
    let cu = &c.cuda;
    for line in [
        "__shared__ irgl::slot_t<unsigned long long> irgl_r1_total[BLOCK];",
        "irgl_r1_total[threadIdx.x] = total;",
        // tb: per warp, then an atomic (other warps run the same item).
        "if ((threadIdx.x & 31u) == 0) irgl::combine_atomic<irgl::Combiner::Sum, unsigned long long>(&irgl_r1_total[irgl_o], irgl_p1_total);",
        // wp: the warp's item alone, a plain update.
        "if ((threadIdx.x & 31u) == 0) irgl::combine_into<irgl::Combiner::Min, uint32_t>(&irgl_r1_lightest[irgl_o], irgl_p1_lightest);",
        // vw4: per group of 4 lanes.
        "irgl_p1_any_near = irgl::group_combine<irgl::Combiner::Any, 4>(irgl_p1_any_near);",
        "if ((threadIdx.x & 3u) == 0 && irgl_go != BLOCK) irgl::combine_into<irgl::Combiner::Any, bool>(&irgl_r1_any_near[irgl_go], irgl_p1_any_near);",
        // fg: segments of consecutive lanes.
        "irgl_p1_total = irgl::segmented_combine<irgl::Combiner::Sum>(irgl_p1_total, irgl_o, irgl_tail);",
        // The owner reads its slot after the loop.
        "total = static_cast<unsigned long long>(irgl_r1_total[threadIdx.x]);  // its items' combination",
    ] {
        assert!(cu.contains(line), "missing `{line}` in\n{cu}");
    }
    // The serial inner loop of the second nested loop combines into the partial.
    assert!(cu.contains("irgl_p2_total += 1ull;"), "{cu}");
}

/// The first `Combine` of the first kernel, and its statement.
fn first_combine(m: &mut Module) -> (&mut Body, StmtId) {
    let k = m.kernels.iter_mut().next().unwrap().1;
    let mut found = None;
    visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
        if found.is_none() && matches!(k.body.stmts[s].kind, StmtKind::Combine { .. }) {
            found = Some(s);
        }
    });
    (&mut k.body, found.expect("a combine"))
}

#[test]
fn the_verifier_rejects_combines_and_reads_outside_their_reductions() {
    let config = common::config("--nested tb+wp+fg");
    let mut c = common::compile("tests/compile/reduce.irgl", &config);
    assert!(verify(&c.module).is_ok());
    // A combine with another combiner than the loop's.
    let (body, s) = first_combine(&mut c.module);
    if let StmtKind::Combine { combiner, .. } = &mut body.stmts[s].kind {
        *combiner = Combiner::Max;
    }
    let errors = verify(&c.module).expect_err("a max into a summed local");
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("outside a ForAll that reduces it so")),
        "{errors:?}"
    );
    // The reduced local read inside the loop.
    let mut c = common::compile("tests/compile/reduce.irgl", &config);
    let (body, s) = first_combine(&mut c.module);
    let StmtKind::Combine { local, value, .. } = body.stmts[s].kind else {
        unreachable!()
    };
    body.exprs[value].kind = ExprKind::Local(local);
    let errors = verify(&c.module).expect_err("a read of the partial");
    assert!(
        errors.iter().any(|e| e
            .message
            .contains("is read inside a ForAll that reduces it")),
        "{errors:?}"
    );
}
