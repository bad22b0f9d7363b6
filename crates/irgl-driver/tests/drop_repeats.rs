//! `drop_repeats` through the pipeline: which kernels `--drop-repeats` makes pop each node at
//! most once per round, the first-pop test it puts after the pop, the round numbers `main`
//! passes (from the host and from a control kernel), and the errors where it does not apply.

mod common;

use irgl_ir::{AtomicOp, ExprKind, Module, Place, StmtKind, visit};

/// The arguments of each launch of kernel `name` in `main`, as the locals they read.
fn launch_args(m: &Module, name: &str) -> Vec<Vec<String>> {
    let k = m.kernel_named(name).unwrap();
    let mut out = Vec::new();
    visit::walk_stmts(&m.host, &m.host.block, &mut |s| {
        if let StmtKind::Launch(l) = &m.host.stmts[s].kind
            && l.kernel == k
        {
            out.push(
                l.args
                    .iter()
                    .map(|&a| match &m.host.exprs[a].kind {
                        ExprKind::Local(v) => m.host.locals[*v].name.clone(),
                        _ => "?".to_string(),
                    })
                    .collect(),
            );
        }
    });
    out
}

/// Whether kernel `name` exchanges a stamp of `irgl_popped` (the first-pop test).
fn tests_first_pop(m: &Module, name: &str) -> bool {
    let k = &m.kernels[m.kernel_named(name).unwrap()];
    let body = &k.body;
    let mut found = false;
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        if let ExprKind::Atomic {
            op: AtomicOp::Exch,
            place: Place::Element { prop, .. },
            ..
        } = &body.exprs[e].kind
        {
            found |= m.prop(*prop).name == "irgl_popped";
        }
    });
    found
}

#[test]
fn a_kernel_that_does_nothing_more_on_a_second_pass_pops_each_node_once_a_round() {
    let c = common::compile("programs/cc-lp.irgl", &common::config("--drop-repeats all"));
    let m = &c.module;
    assert!(tests_first_pop(m, "propagate"));
    assert_eq!(launch_args(m, "propagate"), vec![vec!["irgl_rounds"]]);
    let cuda = &c.cuda;
    for line in [
        "if (irgl::atomic_exch(&g.u_irgl_popped[n], static_cast<uint32_t>(u_irgl_round)) != u_irgl_round) {",
        "irgl_rounds = irgl_rounds + 1u;",
        "h.u_irgl_popped.zero();",
    ] {
        assert!(cuda.contains(line), "missing `{line}` in\n{cuda}");
    }
    // sssp-nf: both kernels pop nodes and repeat nothing; every launch is numbered.
    let nf = common::compile(
        "programs/sssp-nf.irgl",
        &common::config("--drop-repeats all"),
    );
    assert!(tests_first_pop(&nf.module, "sssp_nf"));
    assert!(tests_first_pop(&nf.module, "remove_dups"));
    assert!(
        launch_args(&nf.module, "sssp_nf")
            .iter()
            .all(|a| a.last().map(String::as_str) == Some("irgl_rounds"))
    );
    // Outlined, the control kernel carries the round numbers in and out.
    let outlined = common::compile(
        "programs/cc-lp.irgl",
        &common::config("--drop-repeats all --outline outer"),
    );
    assert!(
        outlined
            .cuda
            .contains("uint32_t irgl_rounds = irgl_state->u_irgl_rounds;"),
        "{}",
        outlined.cuda
    );
}

#[test]
fn all_leaves_other_kernels_and_programs_as_they_are() {
    // pr pops nothing; traverse's tally adds per pop; an asynchronous kernel has no rounds.
    for (program, flags) in [
        ("programs/pr.irgl", ""),
        ("programs/traverse.irgl", ""),
        ("programs/sssp-wl.irgl", "--async all"),
    ] {
        let plain = common::compile(program, &common::config(flags));
        let c = common::compile(
            program,
            &common::config(&format!("{flags} --drop-repeats all")),
        );
        assert_eq!(
            common::kernels(&c.cuda),
            common::kernels(&plain.cuda),
            "{program}"
        );
    }
}

#[test]
fn a_kernel_it_does_not_apply_to_is_an_error_that_says_why() {
    let e = common::errors("programs/traverse.irgl", "--drop-repeats tally");
    assert_eq!(e[0].code, "E0514");
    assert!(
        e[0].message.contains(
            "a second pass over one of its items would do more: it updates `hits` with atomicAdd"
        ),
        "{e:?}"
    );
    let e = common::errors("programs/traverse.irgl", "--drop-repeats push_all");
    assert!(e[0].message.contains("it pops no worklist"), "{e:?}");
    let e = common::errors(
        "programs/sssp-wl.irgl",
        "--drop-repeats sssp_wl --async all",
    );
    assert!(e[0].message.contains("it runs asynchronously"), "{e:?}");
    let e = common::errors("programs/bfs.irgl", "--drop-repeats all --multi-gpu on");
    assert!(
        e.iter().any(|d| d
            .message
            .contains("--drop-repeats all: does not apply with --multi-gpu on")),
        "{e:?}"
    );
}
