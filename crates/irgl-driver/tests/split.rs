//! `split_nodes`: the kernels it accepts run over the parts of split nodes (the IR, the
//! generated code and the host's split), with the nested schedulers on top; options that
//! do not apply are errors or warnings with the reason.

mod common;

use irgl_ir::{ExprKind, Space, SplitQuery, StmtKind, visit};

fn split_kernels(m: &irgl_ir::Module) -> Vec<String> {
    m.kernels
        .iter()
        .filter(|(_, k)| k.facts().over_split)
        .map(|(_, k)| k.name.clone())
        .collect()
}

#[test]
fn all_splits_pr_s_push_sweep_and_cuts_its_edge_loop_to_the_part() {
    let c = common::compile("programs/pr.irgl", &common::config("--split-nodes all"));
    assert_eq!(split_kernels(&c.module), ["push_rank"]);
    let k = &c.module.kernels[c.module.kernel_named("push_rank").unwrap()];
    let body = &k.body;
    let mut ranges = 0;
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::ForAll(f) = &body.stmts[s].kind
            && let Space::Range { lo, hi } = f.space
        {
            assert!(matches!(
                body.exprs[lo].kind,
                ExprKind::Split(SplitQuery::Begin, _)
            ));
            assert!(matches!(
                body.exprs[hi].kind,
                ExprKind::Split(SplitQuery::End, _)
            ));
            ranges += 1;
        }
    });
    assert_eq!(
        ranges, 1,
        "the loop over n's edges is a range over the part's"
    );
    let device = common::kernels(&c.cuda);
    assert!(device.contains("< g.split.count;"), "{device}");
    assert!(device.contains("g.split.node("), "{device}");
    assert!(device.contains("g.split.begin("), "{device}");
    assert!(device.contains("g.split.end("), "{device}");
    // The host splits once the grid is known, and launches over the parts.
    assert!(
        c.cuda
            .contains("irgl::split_nodes(h.hg, degree, hs, split_error)")
    );
    assert!(c.cuda.contains("h.g.split.count"));
    assert!(
        c.cuda
            .contains("args.add<std::string>(\"split-degree\", \"auto\"")
    );
    assert!(c.cuda.contains("record.split_nodes = split_nodes;"));
}

#[test]
fn without_the_option_nothing_is_split() {
    let c = common::compile("programs/pr.irgl", &common::config(""));
    assert!(split_kernels(&c.module).is_empty());
    assert!(
        !c.cuda.contains("split"),
        "no split code without the option"
    );
}

#[test]
fn split_parts_take_the_nested_schedulers() {
    let c = common::compile(
        "programs/sssp-bf.irgl",
        &common::config("--split-nodes all --nested tb+wp+fg"),
    );
    assert_eq!(split_kernels(&c.module), ["relax"]);
    let device = common::kernels(&c.cuda);
    assert!(device.contains("irgl_total0 = g.split.count;"), "{device}");
    assert!(device.contains("g.split.begin("), "{device}");
}

#[test]
fn a_kernel_the_analysis_refuses_is_an_error_with_the_reason() {
    let e = common::errors("programs/pr.irgl", "--split-nodes update");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].code, "E0515");
    assert!(
        e[0].message.contains(
            "--split-nodes update: does not apply: outside its edge loops the item reads `acc`"
        ),
        "{}",
        e[0].message
    );
    let e = common::errors("programs/pr.irgl", "--split-nodes nosuch");
    assert_eq!(e[0].code, "E0510");
}

#[test]
fn all_on_a_program_without_candidates_warns() {
    let c = common::compile(
        "programs/bfs-topo.irgl",
        &common::config("--split-nodes all"),
    );
    assert!(split_kernels(&c.module).is_empty());
    let w: Vec<String> = c.warnings.iter().map(|d| format!("{d:?}")).collect();
    assert!(
        w.iter()
            .any(|d| d.contains("W0508") && d.contains("reads `level`")),
        "{w:?}"
    );
}

#[test]
fn split_nodes_does_not_apply_with_several_gpus() {
    let e = common::errors("programs/pr.irgl", "--split-nodes all --multi-gpu on");
    assert!(
        e.iter().any(|d| d
            .message
            .contains("--split-nodes all: does not apply with --multi-gpu on")),
        "{e:?}"
    );
}

#[test]
fn the_verifier_rejects_a_split_loop_nested_in_another() {
    let mut c = common::compile("programs/pr.irgl", &common::config("--split-nodes all"));
    let k = c.module.kernel_named("push_rank").unwrap();
    let body = &mut c.module.kernels[k].body;
    let mut inner = None;
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::ForAll(f) = &body.stmts[s].kind
            && matches!(f.space, Space::Range { .. })
        {
            inner = Some(s);
        }
    });
    if let StmtKind::ForAll(f) = &mut body.stmts[inner.unwrap()].kind {
        f.space = Space::SplitNodes;
    }
    let errors = irgl_ir::verify(&c.module).expect_err("rejected");
    let text = format!("{errors:?}");
    assert!(
        text.contains("ForAll over the split nodes nested in another"),
        "{text}"
    );
}
