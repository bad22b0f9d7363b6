//! In-edges (`graph g : in_edges`): loops over `g.in_edges(n)` read the transpose the host
//! builds at load (`DeviceInEdges`), scheduled like out-edge loops; the transpose carries
//! out-edge ids only when a kernel uses `g.edge_of`, and is the graph itself for a symmetric
//! graph without them. Programs without the attribute are unchanged.

mod common;

#[test]
fn in_edge_loops_read_the_transpose_under_every_schedule() {
    for flags in ["--nested serial", "--nested tb+wp+fg", "--nested wp+vw4+eb"] {
        let c = common::compile("programs/pr-pull.irgl", &common::config(flags));
        let cu = &c.cuda;
        assert!(
            cu.contains("  irgl::InEdges in_edges;  // the transpose\n"),
            "{flags}: {cu}"
        );
        assert!(
            cu.contains("din(hg, dg, /*shared=*/false, /*ids=*/false),"),
            "{flags}"
        );
        assert!(cu.contains("g.in_edges = din.view();"));
        assert!(cu.contains("g.contrib[g.in_edges.src(k)]"), "{flags}");
        assert!(
            !cu.contains("g.csr.begin"),
            "{flags}: no out-edge loop in pr-pull"
        );
    }
    let c = common::compile(
        "programs/pr-pull.irgl",
        &common::config("--nested tb+wp+fg"),
    );
    assert!(
        c.cuda
            .contains("irgl_start1 = g.in_edges.begin(irgl_node1);"),
        "{}",
        c.cuda
    );
    assert!(
        c.cuda
            .contains("irgl_trips1 = g.in_edges.end(irgl_node1) - irgl_start1;")
    );
}

#[test]
fn the_transpose_carries_ids_only_for_edge_of_and_is_shared_when_symmetric() {
    let c = common::compile(
        "tests/gpu/in-edges.irgl",
        &common::config("--nested serial"),
    );
    assert!(
        c.cuda
            .contains("din(hg, dg, /*shared=*/false, /*ids=*/true),")
    );
    assert!(c.cuda.contains("g.in_edges.edge_of(k)"));
    let c = common::compile(
        "tests/gpu/in-edges-symmetric.irgl",
        &common::config("--nested serial"),
    );
    assert!(
        c.cuda
            .contains("din(hg, dg, /*shared=*/true, /*ids=*/false),")
    );
    assert!(
        c.cuda
            .contains("irgl::InEdges in_edges;  // the transpose: the graph itself (symmetric)")
    );
    // Without the attribute: no transpose at all.
    let c = common::compile("programs/pr.irgl", &common::config("--nested serial"));
    assert!(!c.cuda.contains("in_edges"));
}
