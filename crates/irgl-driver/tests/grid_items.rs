//! `gd`: a nested loop may hand its longest items to the whole grid. It applies to a loop
//! that ends its item and reduces nothing, in a kernel that runs in rounds without a grid
//! barrier; elsewhere the policy is left out with the reason in the dump, and the loop keeps
//! the other policies of its schedule. The generated program publishes long items, lets every
//! block take chunks of them after its last trip, and takes `--grid-min`.

mod common;

use irgl_ir::{BlockSchedule, Policy, Schedule, StmtKind};

/// The block schedules of the nested loops of `c`, as (kernel, schedule).
fn schedules(c: &irgl_driver::Compiled) -> Vec<(String, BlockSchedule)> {
    let mut out = Vec::new();
    for (_, k) in c.module.kernels.iter() {
        irgl_ir::visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
            if let StmtKind::ForAll(f) = &k.body.stmts[s].kind
                && let Schedule::Block(b) = &f.schedule
            {
                out.push((k.name.clone(), b.clone()));
            }
        });
    }
    out
}

#[test]
fn long_items_go_to_the_grid() {
    let c = common::compile("programs/bfs.irgl", &common::config("--nested gd+tb+wp+fg"));
    let s = schedules(&c);
    assert_eq!(s.len(), 2, "the kernel and its version without gd: {s:?}");
    assert_eq!(s[0].0, "bfs");
    assert_eq!(
        s[0].1.policies,
        [
            Policy::Grid,
            Policy::Threadblock,
            Policy::Warp,
            Policy::Finegrained
        ]
    );
    assert_eq!(s[0].1.note, None);
    assert_eq!(s[1].0, "bfs_nogd");
    assert_eq!(
        s[1].1.policies,
        [Policy::Threadblock, Policy::Warp, Policy::Finegrained]
    );
    assert!(
        s[1].1
            .note
            .as_deref()
            .unwrap()
            .contains("the version for graphs without")
    );
    for needle in [
        "__device__ uint32_t irgl_grid_min;",
        "irgl::grid_publish(",
        "irgl::grid_ready(",
        "irgl::grid_claim<4u * BLOCK>(",
        "irgl::grid_leave(",
        "args.add<std::string>(\"grid-min\"",
    ] {
        assert!(c.cuda.contains(needle), "no `{needle}` in the CUDA");
    }
    // Without gd none of it.
    let plain = common::compile("programs/bfs.irgl", &common::config("--nested tb+wp+fg"));
    assert!(!plain.cuda.contains("irgl_grid_min"));
    assert!(!plain.cuda.contains("grid-min"));
}

/// The policies and note of the first nested loop of `rel` under `flags`.
fn first_loop(rel: &str, flags: &str) -> BlockSchedule {
    let c = common::compile(rel, &common::config(flags));
    let s = schedules(&c);
    assert!(!s.is_empty(), "{rel}: no scheduled loop");
    assert!(
        !c.cuda.contains("irgl_grid_min"),
        "{rel} {flags}: no loop hands items to the grid, the program has no table"
    );
    s[0].1.clone()
}

#[test]
fn gd_is_left_out_where_the_item_waits_for_its_iterations() {
    // A loop that reduces: the owner reads the result in its trip.
    let b = first_loop("programs/pr-pull.irgl", "--nested gd+tb+wp+fg");
    assert_eq!(
        b.policies,
        [Policy::Threadblock, Policy::Warp, Policy::Finegrained]
    );
    assert!(
        b.note.as_deref().unwrap().contains("the loop reduces"),
        "{b:?}"
    );
    // An asynchronous kernel: its blocks keep taking items.
    let b = first_loop("programs/sssp-wl.irgl", "--nested gd+tb+fg --async all");
    assert_eq!(b.policies, [Policy::Threadblock, Policy::Finegrained]);
    assert!(b.note.as_deref().unwrap().contains("asynchronous"), "{b:?}");
    // Statements of the item after the loop.
    let text = "graph g {\n  node x: u32;\n}\n\nKernel k(graph g) {\n  ForAll (n In g.nodes) {\n    ForAll (e In g.edges(n)) {\n      g.x[g.dst(e)] = 1;\n    }\n    g.x[n] = 2;\n  }\n}\n\nmain {\n  Invoke k(g);\n}\n";
    let c = common::compile_text("after.irgl", text, &common::config("--nested gd+tb"));
    let s = schedules(&c);
    assert_eq!(s[0].1.policies, [Policy::Threadblock]);
    assert!(
        s[0].1
            .note
            .as_deref()
            .unwrap()
            .contains("statements of the item follow the loop"),
        "{s:?}"
    );
    // The dump says so.
    let dump = irgl_ir::dump::dump_module(&c.module, Default::default());
    assert!(
        dump.contains("; gd left out: statements of the item follow the loop"),
        "{dump}"
    );
}

/// The text of the generated function `name` (its signature's line to the closing brace at
/// the start of a line).
fn function<'a>(cuda: &'a str, name: &str) -> &'a str {
    let start = cuda
        .lines()
        .scan(0usize, |at, line| {
            let here = *at;
            *at += line.len() + 1;
            Some((here, line))
        })
        .find(|(_, line)| {
            !line.starts_with(' ') && line.contains(&format!(" {name}(")) && line.ends_with('{')
        })
        .unwrap_or_else(|| panic!("no function {name}"))
        .0;
    let end = start + cuda[start..].find("\n}\n").expect("the function's end");
    &cuda[start..end]
}

#[test]
fn graphs_without_hubs_run_the_kernels_versions_without_gd() {
    // bfs runs in a control kernel; tc's kernels are launched from the host and have serial
    // versions as well.
    for (rel, kernel, version) in [
        ("programs/bfs.irgl", "irgl_dev_bfs", "irgl_dev_bfs_nogd"),
        (
            "programs/tc.irgl",
            "count_triangles",
            "count_triangles_nogd",
        ),
    ] {
        let with = common::compile(rel, &common::config_for(rel, "-O2"));
        let without = common::compile(rel, &common::config_for(rel, "-O2 --nested tb+wp+fg"));
        assert!(with.cuda.contains("irgl::grid_publish("), "{rel}");
        // The version is the kernel as the schedule without gd makes it, to the letter.
        assert_eq!(
            function(&with.cuda, version).replace("_nogd", ""),
            function(&without.cuda, kernel),
            "{rel}"
        );
        let copy = function(&with.cuda, version);
        assert!(
            !copy.contains("irgl_grid_") && !copy.contains("irgl_gd"),
            "{rel}: the version neither publishes nor helps"
        );
        assert!(
            with.cuda.contains("uint32_t grid_min = 0;  // irgl_grid_min; 0: launch the kernels' versions without gd"),
            "{rel}"
        );
        assert!(with.cuda.contains("h.grid_min = grid_min;"), "{rel}");
    }
    let bfs = common::compile(
        "programs/bfs.irgl",
        &common::config_for("programs/bfs.irgl", "-O2"),
    )
    .cuda;
    assert!(bfs.contains(
        "auto* const irgl_control = h.grid_min != 0u ? irgl_control0 : irgl_control0_nogd;"
    ));
    assert!(bfs.contains("__global__ void __launch_bounds__(BLOCK, 4) irgl_control0_nogd("));
    assert!(function(&bfs, "irgl_control0_nogd").contains("irgl_dev_bfs_nogd("));
    assert!(!function(&bfs, "irgl_control0_nogd").contains("irgl_dev_bfs("));
    // Times name the version that ran, messages the kernel of the source.
    assert!(bfs.contains("irgl_calls[] = {\"bfs\", \"bfs_nogd\"}"));
    assert!(bfs.contains("irgl_sources[] = {\"bfs\", \"bfs\"}"));
    let tc = common::compile(
        "programs/tc.irgl",
        &common::config_for("programs/tc.irgl", "-O2"),
    )
    .cuda;
    assert!(tc.contains(
        "if (h.serial_inner) {\n    launch_count_triangles_serial(h);\n  } else if (h.grid_min == 0u) {\n    launch_count_triangles_nogd(h);\n  } else {\n    launch_count_triangles(h);\n  }"
    ), "tc's launch: serial, else without gd, else the kernel");
}

#[test]
fn the_tables_are_emptied_by_the_last_block_or_by_the_control_kernels_barrier() {
    // `k` runs from the host once and then in a control kernel.
    let text = "graph g {\n  node x: u32;\n}\n\nKernel k(graph g) {\n  ForAll (n In g.nodes) {\n    ForAll (e In g.edges(n)) {\n      g.x[g.dst(e)] = 1;\n    }\n  }\n}\n\nmain {\n  Invoke k(g);\n  let i: u32 = 0;\n  while (i < 3) {\n    Invoke k(g);\n    i += 1;\n  }\n}\n";
    let c = common::compile_text(
        "both.irgl",
        text,
        &common::config("--nested gd+tb+wp+fg --outline outer"),
    );
    // The device function leaves the table alone; its entry for host launches counts each
    // block out, and the last one resets it.
    assert!(!function(&c.cuda, "irgl_dev_k").contains("grid_leave"));
    assert!(
        function(&c.cuda, "k").contains(
            "  irgl_dev_k(g);\n  if (threadIdx.x == 0) { irgl::grid_leave(irgl_grid_k_1); }"
        ),
        "{}",
        function(&c.cuda, "k")
    );
    // The control kernel resets it in the barrier after the call: no barrier more than in
    // the control kernel that calls the version without gd.
    let control = function(&c.cuda, "irgl_control0");
    let call = control.find("irgl_dev_k(g);").expect("the call");
    let reset = control
        .find("irgl::grid_sync_then([&] { irgl::grid_reset(irgl_grid_k_1); });")
        .expect("the reset in a barrier");
    assert!(call < reset);
    assert!(!control.contains("grid_leave"));
    assert_eq!(
        control.matches("irgl::grid_sync").count(),
        function(&c.cuda, "irgl_control0_nogd")
            .matches("irgl::grid_sync")
            .count()
    );
    // A kernel launched only from the host counts its blocks out after the help loop.
    let tc = common::compile(
        "programs/tc.irgl",
        &common::config_for("programs/tc.irgl", "-O2"),
    )
    .cuda;
    assert!(
        function(&tc, "count_triangles")
            .contains("if (threadIdx.x == 0) irgl::grid_leave(irgl_grid_count_triangles_1);")
    );
    // bfs's round keeps one barrier: the reset joins the worklist's clear.
    let bfs = common::compile(
        "programs/bfs.irgl",
        &common::config_for("programs/bfs.irgl", "-O2"),
    )
    .cuda;
    assert!(function(&bfs, "irgl_control0").contains(
        "irgl::grid_sync_then([&] { irgl::grid_reset(irgl_grid_bfs_1); irgl_in.clear_device(); });"
    ));
}
