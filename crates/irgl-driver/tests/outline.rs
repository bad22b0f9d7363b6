//! Iteration outlining (`outline_iterations`): which nodes become control kernels, what the
//! control carries (inputs, outputs, the kernels it calls), what the back end emits for it,
//! and the errors for nodes that do not exist, cannot be outlined or nest.

mod common;

use irgl_diagnostics::SourceMap;
use irgl_driver::Source;
use irgl_ir::{Control, StmtKind, visit};

fn controls(c: &irgl_driver::Compiled) -> Vec<Control> {
    let host = &c.module.host;
    let mut out = Vec::new();
    visit::walk_stmts(host, &host.block, &mut |s| {
        if let StmtKind::Control(c) = &host.stmts[s].kind {
            out.push(c.clone());
        }
    });
    out
}

#[test]
fn outer_outlines_the_outermost_node_with_its_scalars_and_kernels() {
    let c = common::compile("programs/bfs.irgl", &common::config("--outline outer"));
    let cs = controls(&c);
    assert_eq!(cs.len(), 1);
    let host = &c.module.host;
    let names = |ls: &[irgl_ir::LocalId]| -> Vec<String> {
        ls.iter().map(|&l| host.locals[l].name.clone()).collect()
    };
    assert_eq!(cs[0].origin, "r0 iterate bfs");
    assert_eq!(names(&cs[0].inputs), ["LEVEL"]);
    assert_eq!(names(&cs[0].outputs), ["LEVEL"]);
    let bfs = c.module.kernel_named("bfs").unwrap();
    assert_eq!(cs[0].kernels, [bfs]);
    for needle in [
        "__global__ void __launch_bounds__(BLOCK) irgl_control0(",
        "__device__ __forceinline__ void irgl_dev_bfs(",
        "irgl::launch_cooperative(\"irgl_control0",
        "h.wl.permute(irgl_s.roles);",
        "h.wl.check_overflow_any(",
    ] {
        assert!(c.cuda.contains(needle), "missing {needle}");
    }
    // By name: the same.
    let named = common::compile("programs/bfs.irgl", &common::config("--outline r0"));
    assert_eq!(
        named.cuda,
        c.cuda.replace("--outline outer", "--outline r0")
    );

    // sssp-nf: the outermost node holds the inner Pipe; mst: a host loop around a region.
    let c = common::compile("programs/sssp-nf.irgl", &common::config("--outline outer"));
    assert_eq!(controls(&c).len(), 1);
    assert_eq!(controls(&c)[0].origin, "r0 pipe once");
    let c = common::compile("programs/mst.irgl", &common::config("--outline outer"));
    assert!(
        controls(&c)[0].origin.ends_with(" loop"),
        "{:?}",
        controls(&c)
    );
    // pr's host loop, and a program with nothing to outline.
    let c = common::compile("programs/pr.irgl", &common::config("--outline outer"));
    assert_eq!(controls(&c).len(), 1);
    let c = common::compile("programs/tc.irgl", &common::config("--outline outer"));
    assert!(controls(&c).is_empty());
    assert!(!c.cuda.contains("irgl_control"));
}

#[test]
fn a_control_kernel_on_k_blocks_per_multiprocessor_is_compiled_for_k() {
    let bounds = |flags: &str| {
        let c = common::compile("programs/bfs.irgl", &common::config(flags));
        let at = c.cuda.find(" irgl_control0(").expect("a control kernel");
        c.cuda[..at].rsplit('\n').next().unwrap().to_string()
    };
    // The blocks beyond K never run: ptxas may use their registers.
    assert_eq!(
        bounds("--outline outer --outline-grid sm"),
        "__global__ void __launch_bounds__(BLOCK, 1)"
    );
    assert_eq!(
        bounds("--outline outer --outline-grid 3sm"),
        "__global__ void __launch_bounds__(BLOCK, 3)"
    );
    // Where the registers decide how many blocks run, ptxas's choice stays: every resident
    // block, a grid chosen at run time, a number of blocks, and K blocks that fill a
    // multiprocessor anyway (8 x 256 threads).
    for grid in ["resident", "auto", "100", "8sm"] {
        assert_eq!(
            bounds(&format!("--outline outer --outline-grid {grid}")),
            "__global__ void __launch_bounds__(BLOCK)",
            "{grid}"
        );
    }
}

#[test]
fn every_program_outlines_under_every_schedule() {
    for (name, rel) in common::programs() {
        for flags in [
            "--outline outer",
            "--outline outer --nested tb+wp+fg",
            "--outline outer --nested tb+fg --aggregate block",
        ] {
            let c = common::compile(&rel, &common::config(flags));
            for ctl in controls(&c) {
                assert!(!ctl.kernels.is_empty(), "{name} {flags}");
                assert!(c.cuda.contains(&format!("irgl_control{}(", ctl.id.index())));
            }
        }
    }
}

#[test]
fn unknown_unoutlinable_and_nested_nodes_are_errors() {
    let e = common::errors("programs/bfs.irgl", "--outline r7");
    assert_eq!(e[0].code, "E0506");
    assert!(format!("{:?}", e[0]).contains("the nodes are r0"), "{e:?}");

    let e = common::errors("programs/sssp-nf.irgl", "--outline r0,r1");
    assert_eq!(e[0].code, "E0508");
    assert!(e[0].message.contains("r1 is inside r0"), "{e:?}");

    let text = "graph g {\n  node x: u32;\n}\n\nKernel k(graph g) {\n  ForAll (n In g.nodes) {\n    g.x[n] = 1;\n  }\n}\n\nmain {\n  Invoke k(g);\n  Pipe Once {\n    let _y: u32 = 2;\n  }\n}\n";
    let e = common::errors(text, "--outline r0");
    assert_eq!(e[0].code, "E0507");
    assert!(e[0].message.contains("it launches no kernel"), "{e:?}");
    // `outer` skips what cannot be outlined.
    let mut sources = SourceMap::new();
    let file = sources.add("inline.irgl", text);
    let source = Source {
        file,
        name: "inline.irgl",
        text,
    };
    assert!(irgl_driver::compile(source, &common::config("--outline outer")).is_ok());

    assert!(irgl_driver::OptConfig::from_args(&["--outline", "x1"]).is_err());
    assert!(irgl_driver::OptConfig::from_args(&["--outline", "r"]).is_err());
}

/// The grid barriers in the body of the first `while (true)` loop of a control kernel: the
/// cost of a round.
fn barriers_per_round(cuda: &str) -> usize {
    let control = &cuda[cuda.find("irgl_control0(G").expect("a control kernel")..];
    let body = &control[control.find("while (true) {").expect("a loop")..];
    let mut depth = 0;
    let mut barriers = 0;
    for line in body.lines() {
        depth += line.matches('{').count();
        depth -= line.matches('}').count();
        let line = line.trim();
        barriers += usize::from(is_barrier(line));
        if depth == 0 {
            break;
        }
    }
    barriers
}

#[test]
fn barriers_separate_only_what_conflicts() {
    // bfs: one, after the kernel (its pushes are read); its last arrival clears the list that
    // becomes the next output, and nothing of the next round conflicts with the reads after
    // it (the loop's head covers its back edge).
    let bfs = common::compile("programs/bfs.irgl", &common::config("--outline outer"));
    assert_eq!(barriers_per_round(&bfs.cuda), 1, "{}", bfs.cuda);
    assert!(
        bfs.cuda
            .contains("irgl::grid_sync_then([&] { irgl_in.clear_device(); });"),
        "{}",
        bfs.cuda
    );
    // No barrier before the first effect: the launch of the control kernel orders it.
    let start = &bfs.cuda[bfs.cuda.find("irgl_control0(G").unwrap()..];
    let first_effect = start.find("clear_device()").unwrap();
    assert!(!start[..first_effect].contains("grid_sync"));
    // sssp-nf: after each kernel (three, one in the retry loop), before remove_dups (the
    // clear of its output list follows a loop, so it cannot join a barrier), and two for the
    // statistic `widest`: main's reset after every block has read it, and before sssp_nf's
    // first round updates it again.
    let nf = common::compile("programs/sssp-nf.irgl", &common::config("--outline outer"));
    assert_eq!(barriers_per_round(&nf.cuda), 7, "{}", nf.cuda);
}

/// The grid barriers of the first control kernel.
fn control_barriers(cuda: &str) -> usize {
    let control = &cuda[cuda.find("irgl_control0(G").expect("a control kernel")..];
    let control = &control[..control.find("irgl_done:").unwrap_or(control.len())];
    control
        .lines()
        .map(str::trim)
        .filter(|l| is_barrier(l))
        .count()
}

/// Whether a (trimmed) line is a grid barrier, with or without an action and a comment.
fn is_barrier(line: &str) -> bool {
    line.starts_with("irgl::grid_sync();") || line.starts_with("irgl::grid_sync_then(")
}

#[test]
fn a_barrier_separates_only_what_touches_one_place() {
    // bc's forward round: a barrier after the kernel (its pushes and `found` are read), and one
    // between every thread's read of `found` and the next round's additions to it; the
    // leader's write of `level_start`, which `forward` does not touch, needs none of its own.
    let bc = common::compile("programs/bc.irgl", &common::config("--outline outer"));
    assert_eq!(barriers_per_round(&bc.cuda), 2, "{}", bc.cuda);
    // Each barrier's comment says what it orders.
    assert!(
        bc.cuda.contains("irgl::grid_sync();  // orders: found\n"),
        "{}",
        bc.cuda
    );
    // The leader's write of `a` before a launch: a barrier between them where the kernel reads
    // `a` (and one before the next write, after the kernel's reads), none where it does not.
    let text = |body: &str| {
        format!(
            "graph g {{\n  node x: u32;\n}}\narray a: u32[4];\noutput x;\n\
             Kernel k(graph g) {{\n  ForAll (v In g.nodes) {{\n    {body}\n  }}\n}}\n\
             main {{\n  let i: u32 = 0;\n  while (i < 3) {{\n    a[0] = i;\n    Invoke k(g);\n    i += 1;\n  }}\n}}\n"
        )
    };
    let config = common::config("--outline outer");
    let reads = common::compile_text("reads.irgl", &text("g.x[v] = a[0];"), &config);
    let other = common::compile_text("other.irgl", &text("g.x[v] += 1;"), &config);
    assert_eq!(control_barriers(&reads.cuda), 2, "{}", reads.cuda);
    assert_eq!(control_barriers(&other.cuda), 1, "{}", other.cuda);
}

#[test]
fn a_barrier_that_one_path_needs_goes_at_its_end() {
    // bfs-do: the pull step's writes are read after the `if` that chooses between pulling and
    // pushing, whose push path ends with its own barrier: the barrier goes at the end of the
    // pull path, and a push round has two (before the kernel, against the reads of the
    // counters it adds to, and after it).
    let c = common::compile("programs/bfs-do.irgl", &common::config("--outline outer"));
    let cuda = &c.cuda;
    let read = cuda
        .find("unsigned long long now = visited;")
        .expect("the counters' read");
    let pull = cuda[..read].rfind("if (pull) {").expect("the choice");
    let push = pull + cuda[pull..].find("} else {").expect("the push path");
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    let pull_path = lines(&cuda[pull..push]);
    assert_eq!(
        pull_path.last().map(String::as_str),
        Some("irgl::grid_sync();  // orders: visited"),
        "the pull path's barrier at its end, for the counters it wrote: {cuda}"
    );
    let push_path = lines(&cuda[push..read]);
    assert_eq!(
        push_path.last().map(String::as_str),
        Some("}"),
        "no barrier after the join: {cuda}"
    );
    assert_eq!(
        push_path.iter().filter(|l| is_barrier(l)).count(),
        2,
        "{cuda}"
    );
}

#[test]
fn a_clear_joins_a_barrier_only_across_straight_line_code() {
    // The clear after the retry loop's swap is in the loop's body, after its head: it cannot
    // join the barrier at the end of the previous iteration.
    let nf = common::compile("programs/sssp-nf.irgl", &common::config("--outline outer"));
    let retry_loop = &nf.cuda[nf.cuda.find("while (irgl_retry.size() != 0u)").unwrap()..];
    let clear = retry_loop.find("irgl_retry.clear_device();").unwrap();
    assert!(
        retry_loop[..clear].contains("if (irgl_leader) {"),
        "{}",
        nf.cuda
    );
}

#[test]
fn a_counted_loop_in_a_control_kernel_has_a_label_only_where_a_continue_jumps() {
    // A `for` in an outlined `main` runs as a `while` with its step after the body: a
    // `continue` jumps to the step by a label, which is written only where one does (an
    // unused label is a warning, an error under -Werror).
    let program = |body: &str| {
        format!(
            "graph g {{ node x: u32; }}\nKernel k(graph g, u32 r) {{ ForAll (n In g.nodes) {{ g.x[n] = r; }} }}\nmain {{ for (let r: u32 = 0; r < 4; r++) {{ {body} }} }}\n"
        )
    };
    let config = common::config("--outline outer");
    let plain = common::compile_text("for.irgl", &program("Invoke k(g, r);"), &config).cuda;
    assert!(plain.contains("irgl_control0"), "{plain}");
    assert!(!plain.contains("irgl_next_"), "{plain}");
    let skips = program("if (r == 1) { continue; } Invoke k(g, r);");
    let skips = common::compile_text("for.irgl", &skips, &config).cuda;
    let label = skips.find("irgl_next_").expect("a label");
    let name: String = skips[label..]
        .chars()
        .take_while(|c| *c != ';' && *c != ':')
        .collect();
    assert!(skips.contains(&format!("goto {name};")), "{skips}");
    assert!(skips.contains(&format!("{name}:;")), "{skips}");
}

/// Each control's state block lives on the device as a member of `Host`, allocated with it;
/// a run uploads the state without waiting for the kernels before it and allocates nothing.
#[test]
fn a_control_state_is_allocated_once_with_the_host() {
    // An Iterate's control, an inner Pipe's (sssp-nf's r1) and a host loop's (mst).
    let n = 0;
    for (program, flags) in [
        ("programs/bfs.irgl", "--outline outer"),
        ("programs/sssp-nf.irgl", "--outline r1"),
        ("programs/mst.irgl", "--outline outer"),
    ] {
        let c = common::compile(program, &common::config(flags));
        let member = format!("irgl::DeviceArray<IrglState{n}> irgl_state{n}{{1}};");
        let host = c.cuda.find("struct Host {").expect("a Host");
        let at = c
            .cuda
            .find(&member)
            .unwrap_or_else(|| panic!("{program}: no {member}"));
        assert!(at > host, "{program}: the state is a member of Host");
        let run_main = &c.cuda[c.cuda.find("static void run_main(").unwrap()..];
        assert!(
            run_main.contains(&format!(
                "irgl::DeviceArray<IrglState{n}>& irgl_sd = h.irgl_state{n};"
            )),
            "{program}"
        );
        assert!(run_main.contains("irgl_sd.upload_async(&irgl_s, 1);"));
        assert!(
            !run_main.contains(&format!("irgl::DeviceArray<IrglState{n}> irgl_sd(1);")),
            "{program}: no allocation per run"
        );
    }
    // No control, no member.
    let tc = common::compile("programs/tc.irgl", &common::config("--outline outer"));
    assert!(!tc.cuda.contains("irgl_state"));
}

#[test]
fn the_control_grid_is_an_option() {
    let bfs = common::compile(
        "programs/bfs.irgl",
        &common::config("--outline outer --outline-grid sm"),
    );
    assert!(bfs.cuda.contains("irgl_control0, irgl::sm_count(), BLOCK"));
    assert!(bfs.cuda.contains("--outline outer --outline-grid sm"));
    let bfs = common::compile(
        "programs/bfs.irgl",
        &common::config("--outline outer --outline-grid 4sm"),
    );
    assert!(
        bfs.cuda
            .contains("irgl_control0, 4 * irgl::sm_count(), BLOCK")
    );
    let bfs = common::compile(
        "programs/bfs.irgl",
        &common::config("--outline outer --outline-grid 33"),
    );
    assert!(bfs.cuda.contains("irgl_control0, 33, BLOCK"));
    let e = irgl_driver::OptConfig::from_args(&["--outline-grid", "sm"])
        .unwrap()
        .validate()
        .unwrap_err();
    assert!(e[0].contains("applies only with --outline"), "{e:?}");
    for bad in ["0", "0sm", "xsm", "big", "-1", "33sm", "2000000"] {
        assert!(
            irgl_driver::OptConfig::from_args(&["--outline-grid", bad]).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn pipe_unrolling_copies_the_round_and_keeps_its_exit() {
    let plain = common::compile("programs/sssp-nf.irgl", &common::config(""));
    let c = common::compile("programs/sssp-nf.irgl", &common::config("--pipe-unroll 3"));
    let body = &c.module.host;
    // The loop of r1 holds three scopes, each a whole round with its emptiness test.
    let mut rounds = Vec::new();
    irgl_ir::visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Region(r) = &body.stmts[s].kind
            && r.kind == (irgl_ir::RegionKind::Pipe { once: false })
            && let StmtKind::Loop(l) = &body.stmts[r.body[0]].kind
        {
            rounds = l.body.clone();
        }
    });
    assert_eq!(rounds.len(), 3);
    for &s in &rounds {
        let StmtKind::Block(b) = &body.stmts[s].kind else {
            panic!("a scope per round");
        };
        assert!(matches!(
            body.stmts[*b.last().unwrap()].kind,
            StmtKind::If { .. }
        ));
    }
    assert_eq!(c.cuda.matches("launch_remove_dups(h, ").count(), 3);
    assert_eq!(plain.cuda.matches("launch_remove_dups(h, ").count(), 1);
    // Outlined: the copies are in the control kernel, one device call each.
    let o = common::compile(
        "programs/sssp-nf.irgl",
        &common::config("--pipe-unroll 2 --outline r1"),
    );
    assert_eq!(o.cuda.matches("irgl_dev_remove_dups(g, ").count(), 2);
    // Programs without a repeating Pipe are left as they are; 0 and 9 are refused.
    let bfs = common::compile("programs/bfs.irgl", &common::config("--pipe-unroll 4"));
    let bfs_plain = common::compile("programs/bfs.irgl", &common::config(""));
    assert_eq!(
        irgl_ir::dump_module(&bfs.module, Default::default()),
        irgl_ir::dump_module(&bfs_plain.module, Default::default())
    );
    for k in ["0", "9"] {
        let c = irgl_driver::OptConfig::from_args(&["--pipe-unroll", k]).unwrap();
        assert!(c.validate().is_err(), "{k}");
    }
}
