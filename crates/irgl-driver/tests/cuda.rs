//! The generated CUDA of every program with the default options (the baseline), as reviewed
//! snapshots; and determinism under every option set.

mod common;

use irgl_driver::OptConfig;

#[test]
fn baseline_cuda_matches_snapshots() {
    for (name, rel) in common::programs() {
        let c = common::compile(&rel, &OptConfig::default());
        insta::assert_snapshot!(name, c.cuda);
    }
}

#[test]
fn generation_is_deterministic() {
    for (_, flags) in common::option_sets() {
        for (_, rel) in common::programs() {
            let config = common::config_for(&rel, &flags);
            let a = common::compile(&rel, &config);
            let b = common::compile(&rel, &config);
            assert_eq!(a.cuda, b.cuda, "{rel} under {flags}");
        }
    }
}

#[test]
fn the_header_names_the_options_and_the_rebuild_command() {
    let config = common::config("--nested tb+wp+fg --nested-at bfs.loop1=wp");
    let c = common::compile("programs/bfs.irgl", &config);
    let header: Vec<&str> = c.cuda.lines().take(3).collect();
    assert_eq!(
        header[1],
        "// Options: -O0 --block-size 256 --nested tb+wp+fg --nested-at bfs.loop1=wp"
    );
    assert_eq!(
        header[2],
        "// Rebuild: irglc compile programs/bfs.irgl -O0 --block-size 256 --nested tb+wp+fg --nested-at bfs.loop1=wp -o bfs.cu"
    );
}

#[test]
fn a_program_checks_the_graph_it_reads_for_what_its_declaration_asks() {
    // cc needs a symmetric graph, tc a symmetric and simple one, bfs neither: a graph that
    // lacks what the declaration asks ends the program with status 1 and the conversion to run.
    let config = OptConfig::default();
    let cc = common::compile("programs/cc.irgl", &config).cuda;
    assert!(cc.contains("if (!irgl::is_symmetric(hg, why)) {"), "{cc}");
    assert!(!cc.contains("is_simple"), "{cc}");
    assert!(
        cc.contains("`irglc graph convert %s --for cc.irgl -o OUT.gr`"),
        "{cc}"
    );
    let tc = common::compile("programs/tc.irgl", &config).cuda;
    assert!(tc.contains("irgl::is_symmetric(hg, why)") && tc.contains("irgl::is_simple(hg, why)"));
    let bfs = common::compile("programs/bfs.irgl", &config).cuda;
    assert!(!bfs.contains("is_symmetric") && !bfs.contains("is_simple"));
}
