//! `drop_repeats` through the pipeline: which kernels `--drop-repeats` makes pop each node at
//! most once per round, the first-pop test it puts after the pop, the round numbers `main`
//! passes (from the host and from a control kernel), 0 on graphs below the degree threshold,
//! what `-O2` chooses, and the errors where it does not apply.

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
                        ExprKind::Select {
                            cond,
                            then_expr,
                            else_expr,
                        } => match (
                            &m.host.exprs[*cond].kind,
                            &m.host.exprs[*then_expr].kind,
                            &m.host.exprs[*else_expr].kind,
                        ) {
                            (ExprKind::Local(c), ExprKind::Local(v), ExprKind::Literal(l)) => {
                                format!(
                                    "{} ? {} : {l:?}",
                                    m.host.locals[*c].name, m.host.locals[*v].name
                                )
                            }
                            _ => "?".to_string(),
                        },
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
    // On every graph (degree 0): the round number itself.
    let c = common::compile(
        "programs/cc-lp.irgl",
        &common::config("--drop-repeats all --drop-repeats-degree 0"),
    );
    let m = &c.module;
    assert!(tests_first_pop(m, "propagate"));
    assert_eq!(launch_args(m, "propagate"), vec![vec!["irgl_rounds"]]);
    let cuda = &c.cuda;
    assert!(!cuda.contains("irgl_drop"), "{cuda}");
    for line in [
        "if ((u_irgl_round == 0u) || (irgl::atomic_exch(&g.u_irgl_popped[n], static_cast<uint32_t>(u_irgl_round)) != u_irgl_round)) {",
        "irgl_rounds = irgl_rounds + 1u;",
        "h.u_irgl_popped.zero();",
    ] {
        assert!(cuda.contains(line), "missing `{line}` in\n{cuda}");
    }
    // sssp-nf: both kernels pop nodes and repeat nothing; every launch is numbered.
    let nf = common::compile(
        "programs/sssp-nf.irgl",
        &common::config("--drop-repeats all --drop-repeats-degree 0"),
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
        &common::config("--drop-repeats all --drop-repeats-degree 0 --outline outer"),
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
fn below_the_degree_threshold_a_round_drops_nothing() {
    // The default threshold (12) and another: `main` compares the graph's mean degree once,
    // and each launch passes 0 (no test, no stamp) on a sparser graph.
    for (flags, degree) in [("", 12), ("--drop-repeats-degree 5", 5)] {
        let c = common::compile(
            "programs/sssp-wl.irgl",
            &common::config(&format!("--drop-repeats all {flags}")),
        );
        assert_eq!(
            launch_args(&c.module, "sssp_wl"),
            vec![vec!["irgl_drop ? irgl_rounds : Int(0)"]],
        );
        let line = format!(
            "bool irgl_drop = static_cast<unsigned long long>(h.hg.nedges) >= ({degree}ull * static_cast<unsigned long long>(h.hg.nnodes));"
        );
        assert!(c.cuda.contains(&line), "missing `{line}` in\n{}", c.cuda);
    }
    // The threshold without the test is an error, as an option that does not apply.
    let e = common::errors("programs/bfs.irgl", "--drop-repeats-degree 5");
    assert!(
        e.iter().any(|d| d
            .message
            .contains("--drop-repeats-degree 5: applies only with --drop-repeats")),
        "{e:?}"
    );
}

#[test]
fn the_default_level_drops_repeats_where_a_kernel_qualifies() {
    for (program, kernels) in [
        ("programs/bfs.irgl", vec!["bfs"]),
        ("programs/sssp-wl.irgl", vec!["sssp_wl"]),
        ("programs/sssp-nf.irgl", vec!["sssp_nf", "remove_dups"]),
        ("programs/cc-lp.irgl", vec!["propagate"]),
        ("programs/cc.irgl", vec![]),
        ("programs/pr.irgl", vec![]),
        ("programs/traverse.irgl", vec![]),
    ] {
        let config = common::config_for(program, "-O2");
        let c = common::compile(program, &config);
        for (id, k) in c.module.kernels.iter() {
            // A version (without gd) pops as its kernel does.
            let source = &c.module.kernels[k.version_of().unwrap_or(id)].name;
            assert_eq!(
                tests_first_pop(&c.module, &k.name),
                kernels.contains(&source.as_str()),
                "{program}: {}",
                k.name
            );
        }
        // A partitioned build delivers each node once already: the level's choice gives way.
        if !kernels.is_empty() {
            let multi = common::config_for(program, "-O2 --multi-gpu on");
            assert_eq!(
                multi.drop_repeats,
                irgl_opt::config::KernelSet::None,
                "{program}"
            );
        }
    }
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
