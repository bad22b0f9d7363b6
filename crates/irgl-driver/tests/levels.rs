//! Optimization levels: `-O0` is the baseline exactly; `-O1` and `-O2` choose per loop, site
//! and region from the program's analyses, every program compiles under them without a
//! warning that an option did nothing, and flags given beside a level override its choices.

mod common;

use irgl_diagnostics::SourceMap;
use irgl_driver::{LevelChoices, OptConfig, OptLevel, Source};

/// What `words` (a level and flags) give for program text `text`.
fn resolve(text: &str, words: &[&str]) -> Result<(OptConfig, LevelChoices), String> {
    let mut sources = SourceMap::new();
    let file = sources.add("inline.irgl".to_string(), text.to_string());
    let source = Source {
        file,
        name: "inline.irgl",
        text,
    };
    irgl_driver::options_from_words(source, words, OptLevel::O2).map_err(|d| format!("{d:?}"))
}

fn program(rel: &str) -> String {
    std::fs::read_to_string(common::workspace().join(rel)).unwrap()
}

fn flags(c: &LevelChoices) -> Vec<&str> {
    c.choices.iter().map(|c| c.flag.as_str()).collect()
}

#[test]
fn o0_is_the_baseline_and_every_program_compiles_cleanly_at_every_level() {
    for (_, rel) in common::programs() {
        let text = program(&rel);
        let (c0, chosen) = resolve(&text, &["-O0"]).unwrap();
        assert_eq!(c0, OptConfig::default(), "{rel}");
        assert!(chosen.choices.is_empty());
        for level in ["-O1", "-O2"] {
            let (config, _) = resolve(&text, &[level]).unwrap();
            let compiled = common::compile(&rel, &config);
            assert!(
                compiled.warnings.iter().all(|w| !w.code.starts_with("W05")),
                "{rel} at {level}: {:?}",
                compiled.warnings
            );
            if level == "-O1" {
                assert_eq!(config.outline, irgl_opt::OutlineConfig::None, "{rel}");
                assert_eq!(config.grid, irgl_ir::LaunchGrid::Resident, "{rel}");
            }
        }
    }
}

#[test]
fn o2_chooses_from_the_program_not_its_name() {
    // bfs: nested edge loops that end their item and reduce nothing, and a worklist
    // Iterate: gd+tb+wp+fg (hubs to the grid, in a version of the kernel that the program
    // runs where a node is that long), outlined on 4 blocks per multiprocessor (no kernel it
    // repeats sweeps every node), and repeated pops dropped on dense graphs (its kernel does nothing more
    // on a second pass over a node).
    let (c, chosen) = resolve(&program("programs/bfs.irgl"), &[]).unwrap();
    assert_eq!(chosen.level, OptLevel::O2);
    assert_eq!(
        flags(&chosen),
        [
            "--nested gd+tb+wp+fg",
            "--outline outer",
            "--outline-grid 4sm",
            "--drop-repeats all"
        ]
    );
    assert!(
        chosen
            .render()
            .contains("in `bfs`, an item longer than a block's share")
    );
    assert_eq!(
        c.canonical(),
        "-O0 --block-size 256 --nested gd+tb+wp+fg --outline outer --outline-grid 4sm --drop-repeats all"
    );
    // -O1 has no gd; nor has a program whose every scheduled loop reduces (pr-pull's sum,
    // mis's look for a neighbour of higher priority).
    let (o1, _) = resolve(&program("programs/bfs.irgl"), &["-O1"]).unwrap();
    assert_eq!(o1.nested.default.to_string(), "tb+wp+fg");
    for rel in ["programs/pr-pull.irgl", "programs/mis.irgl"] {
        let (other, chosen) = resolve(&program(rel), &[]).unwrap();
        assert_eq!(other.nested.default.to_string(), "tb+wp+fg", "{rel}");
        assert!(flags(&chosen).contains(&"--nested tb+wp+fg"), "{rel}");
    }
    let cuda = common::compile("programs/bfs.irgl", &c).cuda;
    assert!(
        cuda.contains("irgl_control, 4 * irgl::sm_count(), BLOCK,"),
        "the control kernel runs on 4 blocks per multiprocessor"
    );
    assert!(cuda.contains("__global__ void __launch_bounds__(BLOCK, 4) irgl_control0("));
    // bc: its backward loop sweeps a level's slice (a range), not every node: a frontier's
    // grid too.
    let (c, chosen) = resolve(&program("programs/bc.irgl"), &[]).unwrap();
    assert!(flags(&chosen).contains(&"--outline-grid 4sm"));
    assert_eq!(c.outline_grid, irgl_ir::GridSize::PerSm(4));
    // pr: a loop of all-node sweeps: outlined on every resident block.
    let (c, chosen) = resolve(&program("programs/pr.irgl"), &[]).unwrap();
    assert!(flags(&chosen).contains(&"--outline-grid resident"));
    assert_eq!(c.outline_grid, irgl_ir::GridSize::Resident);
    // tc: a 64-bit counter of a varying amount, aggregated per block; nothing to outline.
    let (c, chosen) = resolve(&program("programs/tc.irgl"), &[]).unwrap();
    assert_eq!(
        c.aggregate.overrides.get("count_triangles.add0"),
        Some(&irgl_opt::AggregateLevel::Block)
    );
    assert_eq!(c.outline, irgl_opt::OutlineConfig::None);
    assert!(chosen.render().contains("the 64-bit `triangles`"));
    // dmr: Retry (conflicts): one block per BLOCK items.
    let (c, _) = resolve(&program("programs/dmr.irgl"), &[]).unwrap();
    assert_eq!(c.grid, irgl_ir::LaunchGrid::Items);
    // sssp-nf: Respawn is not a conflict; its one-time init does not size the rounds.
    let (c, _) = resolve(&program("programs/sssp-nf.irgl"), &[]).unwrap();
    assert_eq!(c.grid, irgl_ir::LaunchGrid::Resident);
    assert_eq!(c.outline_grid, irgl_ir::GridSize::PerSm(4));
}

#[test]
fn auto_grids_take_a_degree_and_apply_to_control_kernels_only() {
    use irgl_ir::GridSize;
    assert_eq!(GridSize::parse("auto"), Ok(GridSize::Auto(12)));
    assert_eq!(GridSize::parse("auto20"), Ok(GridSize::Auto(20)));
    assert_eq!(GridSize::Auto(20).to_string(), "auto20");
    assert_eq!(GridSize::Auto(12).to_string(), "auto");
    assert!(GridSize::parse("auto0").is_err());
    assert!(GridSize::parse("autox").is_err());
    let e = OptConfig::from_args(&["--async", "all", "--async-grid", "auto"])
        .unwrap()
        .validate()
        .unwrap_err();
    assert!(e[0].contains("auto applies to --outline-grid"), "{e:?}");
    let c = common::config("--outline outer --outline-grid auto20");
    let cuda = common::compile("programs/sssp-wl.irgl", &c).cuda;
    assert!(cuda.contains("(h.hg.nedges < 20ull * h.hg.nnodes ? irgl::sm_count() : 0)"));
}

const SHORT: &str = "
graph g { node hits: u32; }
global total: u32;
Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (i In 0..4) {
      atomicAdd(g.hits[n], i as u32);
    }
    ForAll (e In g.edges(n)) {
      atomicAdd(total, 1);
    }
  }
}
main { Invoke k(g); }
";

#[test]
fn short_constant_loops_stay_serial_and_flags_override_the_choices() {
    let (c, chosen) = resolve(SHORT, &[]).unwrap();
    assert_eq!(c.nested.default.to_string(), "gd+tb+wp+fg");
    assert_eq!(
        c.nested.overrides.get("k.loop1").map(|s| s.to_string()),
        Some("serial".to_string())
    );
    assert!(chosen.render().contains("a constant range of 4 iterations"));
    // A 32-bit counter of a constant: nvcc's own aggregation, no choice.
    assert!(c.aggregate.overrides.is_empty());
    // --nested replaces the per-loop choices too; --outline none takes its grid back.
    let (c, _) = resolve(
        &program("programs/bfs.irgl"),
        &["--nested", "eb", "--outline", "none"],
    )
    .unwrap();
    assert_eq!(c.nested.default.to_string(), "eb");
    assert!(c.nested.overrides.is_empty());
    assert_eq!(c.outline, irgl_opt::OutlineConfig::None);
    assert_eq!(c.outline_grid, irgl_ir::GridSize::Resident);
    let (c, _) = resolve(SHORT, &["-O", "1", "--nested-at", "k.loop2=wp"]).unwrap();
    assert_eq!(c.nested.overrides.len(), 2, "the level's and the flag's");
    // Levels that do not exist, and a level in the middle of the flags, are refused.
    assert!(resolve(SHORT, &["-O3"]).unwrap_err().contains("0, 1 or 2"));
    assert!(
        resolve(SHORT, &["-O"])
            .unwrap_err()
            .contains("a level is missing")
    );
    assert!(OptConfig::from_args(&["--nested", "eb", "-O2"]).is_err());
    assert_eq!(
        OptConfig::from_args(&["-O0", "--nested", "eb"]),
        OptConfig::from_args(&["--nested", "eb"])
    );
}

#[test]
fn serial_versions_go_to_node_sweeps_whose_edge_loops_cost_alike() {
    let color = program("programs/color.irgl");
    let (c, chosen) = resolve(&color, &[]).unwrap();
    assert!(c.adapt.on);
    assert!(flags(&chosen).contains(&"--adapt on"));
    assert!(
        chosen
            .render()
            .contains("`rank`, `decide` also get a version")
    );
    let compiled = common::compile("programs/color.irgl", &c);
    let versions: Vec<&str> = compiled
        .module
        .kernels
        .iter()
        .filter(|(_, k)| k.serial_of.is_some())
        .map(|(_, k)| k.name.as_str())
        .collect();
    assert_eq!(versions, ["rank_serial", "decide_serial"]);
    let cuda = &compiled.cuda;
    assert!(cuda.contains("irgl::serial_inner_loops(h.hg, 5u, 50u, inner_loops)"));
    assert!(cuda.contains("args.add<std::string>(\"inner-loops\", \"auto\""));
    assert!(
        cuda.contains("if (irgl_serial_inner) {") && cuda.contains("irgl_dev_decide_serial("),
        "the control kernel calls either version"
    );
    // A worklist's items come in no node order (bfs); a retry loop per edge (cc's hooking)
    // and a push per edge (traverse) make the edges' costs differ: one version each.
    for rel in [
        "programs/bfs.irgl",
        "programs/cc.irgl",
        "programs/traverse.irgl",
    ] {
        let (c, chosen) = resolve(&program(rel), &[]).unwrap();
        assert!(!c.adapt.on, "{rel}");
        assert!(!flags(&chosen).contains(&"--adapt on"), "{rel}");
        let compiled = common::compile(
            rel,
            &OptConfig {
                adapt: irgl_opt::AdaptConfig::on(),
                ..c
            },
        );
        assert!(!compiled.cuda.contains("serial_inner"), "{rel}");
        assert!(
            compiled.warnings.iter().any(|w| w.code == "W0504"),
            "{rel}: --adapt on without a version says so"
        );
    }
    // --adapt off gives the static program; the thresholds reach the program's rule.
    let (c, _) = resolve(&color, &["--adapt", "off"]).unwrap();
    assert!(
        !common::compile("programs/color.irgl", &c)
            .cuda
            .contains("rank_serial")
    );
    let (c, _) = resolve(
        &color,
        &["--serial-below-degree", "8", "--serial-efficiency", "70"],
    )
    .unwrap();
    assert!(
        c.canonical()
            .contains("--adapt on --serial-below-degree 8 --serial-efficiency 70")
    );
    let cuda = common::compile("programs/color.irgl", &c).cuda;
    assert!(cuda.contains("irgl::serial_inner_loops(h.hg, 8u, 70u, inner_loops)"));
    // Thresholds without adaptation, and out of range, are refused with the flag.
    for (words, says) in [
        (
            &["-O0", "--serial-efficiency", "70"][..],
            "applies only with --adapt on",
        ),
        (
            &["--serial-efficiency", "101"][..],
            "in percent from 0 to 100",
        ),
        (
            &["--serial-below-degree", "0"][..],
            "--serial-below-degree 0",
        ),
    ] {
        let e = match resolve(&color, words) {
            Err(e) => e,
            Ok((c, _)) => c.validate().unwrap_err().join("\n"),
        };
        assert!(e.contains(says), "{words:?}: {e}");
    }
}

#[test]
fn the_verifier_checks_versions_without_gd() {
    let (c, _) = resolve(&program("programs/bfs.irgl"), &[]).unwrap();
    let m = common::compile("programs/bfs.irgl", &c).module;
    assert!(irgl_ir::verify(&m).is_ok());
    let (k, version) = m
        .kernels
        .iter()
        .find_map(|(id, k)| k.no_grid_version.map(|v| (id, v)))
        .expect("bfs has a version without gd");
    assert_eq!(m.kernels[version].name, "bfs_nogd");
    let mut broken = m.clone();
    broken.kernels[version].no_grid_of = None;
    assert!(format!("{:?}", irgl_ir::verify(&broken)).contains("is not marked as its version"));
    let mut broken = m.clone();
    broken.kernels[version].body = broken.kernels[k].body.clone();
    assert!(
        format!("{:?}", irgl_ir::verify(&broken))
            .contains("a nested loop that hands items to the grid"),
        "a version with gd in its schedule"
    );
    let mut broken = m.clone();
    broken.kernels[k].body = broken.kernels[version].body.clone();
    assert!(
        format!("{:?}", irgl_ir::verify(&broken)).contains("no nested loop of its own hands items"),
        "a kernel without gd that has a version without it"
    );
}

#[test]
fn the_verifier_checks_serial_versions() {
    let (c, _) = resolve(&program("programs/tc.irgl"), &[]).unwrap();
    let m = common::compile("programs/tc.irgl", &c).module;
    assert!(irgl_ir::verify(&m).is_ok());
    let (k, version) = m
        .kernels
        .iter()
        .find_map(|(id, k)| k.serial_version.map(|v| (id, v)))
        .expect("tc has a serial version");
    let mut broken = m.clone();
    broken.kernels[version].serial_of = None;
    assert!(format!("{:?}", irgl_ir::verify(&broken)).contains("is not marked as one"));
    let mut broken = m.clone();
    broken.launch.serial_rule = None;
    assert!(format!("{:?}", irgl_ir::verify(&broken)).contains("no rule for choosing it"));
    let mut broken = m.clone();
    broken.kernels[version].body = broken.kernels[k].body.clone();
    assert!(
        format!("{:?}", irgl_ir::verify(&broken)).contains("block-scheduled nested loop"),
        "a version with the scheduled body"
    );
}
