//! `--multi-gpu on`: the programs that `irgl_analysis::partition` accepts build to run
//! partitioned over several GPUs (a host thread and an `irgl::Part` per GPU, the exchanges
//! after each launch), the others are refused with the analysis's reason, and options that
//! need rounds on one GPU give way or are refused.

mod common;

/// The programs that build with `--multi-gpu on`.
const ACCEPTED: [&str; 13] = [
    "bfs",
    "bfs-topo",
    "bfs-wl",
    "cc-lp",
    "gpu-bits",
    "gpu-edge-reductions",
    "gpu-reductions",
    "mis",
    "pr",
    "sssp-bf",
    "sssp-nf",
    "sssp-wl",
    "traverse",
];

/// The option set of `flags` for a program, as `irglc compile` resolves it (a level's
/// choices, then the flags).
fn resolve(rel: &str, flags: &str) -> Result<irgl_driver::OptConfig, Vec<String>> {
    common::config_words(rel, flags, irgl_driver::OptLevel::O2)
}

#[test]
fn accepted_programs_build_and_the_others_say_why() {
    for (name, rel) in common::programs() {
        for flags in ["-O0 --multi-gpu on", "-O2 --multi-gpu on"] {
            let config = resolve(&rel, flags).unwrap_or_else(|e| panic!("{name} {flags}: {e:?}"));
            assert!(config.multi_gpu);
            if ACCEPTED.contains(&name.as_str()) {
                let cu = common::compile(&rel, &config).cuda;
                assert!(cu.contains("#include \"irgl/multi.cuh\""), "{name}");
                assert!(cu.contains("cluster.run([&](irgl::Part& part) {"), "{name}");
                assert!(
                    !cu.contains("launch_cooperative"),
                    "{name}: no control kernel"
                );
                assert!(cu.contains("args.add<uint64_t>(\"gpus\", 0,"), "{name}");
            } else {
                let errors = common::try_compile(&rel, &config).expect_err("refused");
                assert_eq!(errors[0].code, "E0513", "{name}: {errors:?}");
                assert!(
                    errors[0].message.contains("cannot run partitioned"),
                    "{name}"
                );
                assert!(!errors[0].notes.is_empty(), "{name}: the reason is given");
            }
        }
    }
}

#[test]
fn a_level_gives_up_outlining_and_asynchrony_but_a_flag_that_asks_is_refused() {
    let c = resolve("programs/bfs-wl.irgl", "-O2 --multi-gpu on").unwrap();
    assert_eq!(c.outline, irgl_driver::OptConfig::default().outline);
    assert!(!c.canonical().contains("--outline"), "{}", c.canonical());
    assert!(!c.canonical().contains("--async"), "{}", c.canonical());
    for flags in [
        "-O0 --multi-gpu on --outline outer",
        "-O0 --multi-gpu on --async all",
    ] {
        let errors = common::errors("programs/bfs-wl.irgl", flags);
        assert_eq!(errors[0].code, "E0505", "{flags}: {errors:?}");
        assert!(
            errors[0]
                .message
                .contains("does not apply with --multi-gpu on")
        );
    }
}

#[test]
fn each_launch_exchanges_what_it_writes_and_delivers_what_it_pushes() {
    let cu = common::compile("programs/bfs.irgl", &common::config("--multi-gpu on")).cuda;
    // A uniform store at heads; the pushes of mirrors go to their owners.
    let launch = &cu[cu.find("static void launch_bfs(").unwrap()..];
    let launch = &launch[..launch.find("\n}\n").unwrap()];
    assert!(
        launch.contains("h.part.exchange(h.level, irgl::Merge::Uniform);"),
        "{launch}"
    );
    // bfs's kernel does nothing more on a second pass over a node: delivered once.
    assert!(
        launch.contains("h.part.deliver(h.wl.out(), irgl::Delivery::Once, \"bfs\");"),
        "{launch}"
    );
    // traverse's tally adds once per pop: every push is delivered, counted.
    let cu_tally =
        common::compile("programs/traverse.irgl", &common::config("--multi-gpu on")).cuda;
    assert!(
        cu_tally.contains("h.part.deliver(h.wl.out(), irgl::Delivery::Counted, \"push_all\");")
    );
    // main's store to the source sets its master and every mirror; its loop tests the sum
    // of every GPU's worklist; each GPU starts with the items it owns.
    assert!(cu.contains(
        "h.part.write(h.level, h_params.src, static_cast<uint32_t>(0u), irgl::Merge::Uniform);"
    ));
    assert!(cu.contains("if (h.part.sum(h.wl.in().size()) == 0u) {"));
    assert!(cu.contains("h.wl.in().assign(h.part.owned_items(irgl_initial));"));
    // A kernel over the nodes runs over the part's masters.
    assert!(cu.contains("init<<<blocks_for(h, h.part.masters()), BLOCK>>>(h.g);"));
    // PageRank: a sum, and the reduction of every GPU's flag.
    let pr = common::compile("programs/pr.irgl", &common::config("--multi-gpu on")).cuda;
    assert!(pr.contains("h.part.exchange(h.acc, irgl::Merge::Sum);"));
    assert!(pr.contains("h.part.reduce(h.reduce)"));
    // sssp-nf: a min, the retry list delivered too, the source translated at the launch.
    let nf = common::compile("programs/sssp-nf.irgl", &common::config("--multi-gpu on")).cuda;
    assert!(nf.contains("h.part.exchange(h.dist, irgl::Merge::Min);"));
    assert!(nf.contains("h.part.deliver(h.wl.retry(), irgl::Delivery::Once, \"sssp_nf\");"));
    assert!(nf.contains("launch_init(h, h.part.local_id(static_cast<uint32_t>(h_params.src)));"));
}

#[test]
fn node_ids_used_as_values_are_the_global_ones() {
    let mis = common::compile("programs/mis.irgl", &common::config("--multi-gpu on")).cuda;
    // Hashed and ordered: global; compared for equality with another local id: local.
    assert!(
        mis.contains("uint32_t u_h = irgl_global(n) + SEED;"),
        "{mis}"
    );
    assert!(mis.contains("(irgl_global(v) > irgl_global(n))"));
    assert!(mis.contains("(v != n)"));
    // Stored in a property of type node: global.
    let cc = common::compile("programs/cc-lp.irgl", &common::config("--multi-gpu on")).cuda;
    assert!(cc.contains("g.comp[n] = irgl_global(n);"), "{cc}");
    // On one GPU nothing changes.
    let one = common::compile("programs/mis.irgl", &common::config("")).cuda;
    assert!(!one.contains("irgl_global"));
}

#[test]
fn generated_bfs_for_several_gpus() {
    let cu = common::compile(
        "programs/bfs.irgl",
        &common::config("--nested serial --multi-gpu on"),
    )
    .cuda;
    insta::assert_snapshot!(cu);
}

#[test]
fn node_params_as_values_are_global_or_refused() {
    // A program param stored as a value: its global id, which every GPU's params carry.
    let text = "graph g {\n  node p: node;\n}\nparam src: node = 0;\noutput p;\nKernel k(graph g) {\n  ForAll (n In g.nodes) {\n    if (n != src) {\n      g.p[n] = src;\n    }\n  }\n}\nmain {\n  Invoke k(g);\n}\n";
    let cu = common::compile_text("t.irgl", text, &common::config("--multi-gpu on")).cuda;
    assert!(cu.contains("g.p[n] = params.irgl_global_src;"), "{cu}");
    assert!(cu.contains("if (n != params.src) {"), "{cu}");
    assert!(cu.contains("mine.irgl_global_src = h_params.src;"));
    // A kernel's node parameter reaches each GPU as its local id: as a value it is refused.
    let text = "graph g {\n  node p: node;\n}\nparam src: node = 0;\noutput p;\nKernel k(graph g, node s) {\n  ForAll (n In g.nodes) {\n    g.p[n] = s;\n  }\n}\nmain {\n  Invoke k(g, src);\n}\n";
    let errors = common::errors(text, "--multi-gpu on");
    assert_eq!(errors[0].code, "E0513", "{errors:?}");
    assert!(
        errors[0].notes[0].contains("uses its node parameter `s` as a value"),
        "{errors:?}"
    );
}

#[test]
fn globals_are_combined_after_each_launch_by_their_atomic() {
    // mis samples the ids of its neighbours into two sums: every GPU starts a launch from the
    // same value, and the additions of all are added to it afterwards.
    let cu = common::compile("programs/mis.irgl", &common::config("--multi-gpu on")).cuda;
    assert!(
        cu.contains("const unsigned long long irgl_before_near = get_near();"),
        "{cu}"
    );
    assert!(
        cu.contains("set_near(h.part.combine(irgl_before_near, get_near(), irgl::Merge::Sum));"),
        "{cu}"
    );
    // A minimum is the minimum of the copies; a launch that does not update it combines
    // nothing.
    let text = "graph g {\n  node d: u32;\n}\nglobal low: u32 = 4294967295;\noutput low;\nKernel k(graph g) {\n  ForAll (n In g.nodes) {\n    atomicMin(low, g.degree(n));\n  }\n}\nKernel z(graph g) {\n  ForAll (n In g.nodes) {\n    g.d[n] = low;\n  }\n}\nmain {\n  Invoke k(g);\n  Invoke z(g);\n}\n";
    let cu = common::compile_text("t.irgl", text, &common::config("--multi-gpu on")).cuda;
    assert!(
        cu.contains("set_low(h.part.combine(irgl_before_low, get_low(), irgl::Merge::Min));"),
        "{cu}"
    );
    assert_eq!(cu.matches("h.part.combine(").count(), 1, "{cu}");
    // One global updated by two kinds of atomic has no one merge: refused, with the reason.
    let text = "graph g {\n  node d: u32;\n}\nglobal x: u32 = 0;\noutput x;\nKernel k(graph g) {\n  ForAll (n In g.nodes) {\n    atomicAdd(x, 1);\n    atomicMax(x, g.degree(n));\n  }\n}\nmain {\n  Invoke k(g);\n}\n";
    let errors = common::errors(text, "--multi-gpu on");
    assert_eq!(errors[0].code, "E0513", "{errors:?}");
    assert!(
        errors[0].notes[0].contains("updates the global `x` by atomicAdd and by atomicMax"),
        "{errors:?}"
    );
}
