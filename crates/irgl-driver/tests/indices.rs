//! `--check-indices on`: every index of a property element in kernels is checked (reads,
//! writes, atomics, locks, `Exclusive` lists), the launches of such kernels (and of control
//! kernels that call them) read the device error flag, and the messages name the kernel and
//! the property. Off by default: the code is unchanged.

mod common;

#[test]
fn checked_indices_cover_every_element_and_every_launch() {
    let off = common::compile("programs/bfs.irgl", &common::config("--nested serial"));
    assert!(!off.cuda.contains("checked_index"), "off by default");
    assert!(!off.cuda.contains("check_device_error"));
    let on = common::compile(
        "programs/bfs.irgl",
        &common::config("--nested serial --check-indices on"),
    );
    let cu = &on.cuda;
    assert!(cu.contains("// Options: -O0 --block-size 256 --nested serial --check-indices on"));
    // The read and the write of a neighbour's level, both checked against the node count.
    assert!(
        cu.contains(
            "if (g.level[irgl::checked_index(d, g.csr.nnodes, &irgl_error, 0x28000u)] == INF) {"
        ),
        "{cu}"
    );
    assert!(
        cu.contains(
            "g.level[irgl::checked_index(d, g.csr.nnodes, &irgl_error, 0x28000u)] = LEVEL;"
        )
    );
    assert!(cu.contains("check_device_error(\"bfs\");"));
    assert!(cu.contains(
        "case 0x28000u: what = \"index out of range of the node property `level` in kernel `bfs`\"; break;"
    ));
    // Atomics and edge properties: sssp-nf's relaxation.
    let sssp = common::compile(
        "programs/sssp-nf.irgl",
        &common::config("--nested serial --check-indices on"),
    );
    assert!(
        sssp.cuda.contains("irgl::checked_index(e, g.csr.nedges"),
        "edge properties"
    );
    assert!(
        sssp.cuda
            .contains("atomic_min(&g.dist[irgl::checked_index("),
        "atomics"
    );
    // Locks and marks: the construct tests.
    let locks = common::compile(
        "tests/gpu/atomic-blocking.irgl",
        &common::config("--nested serial --check-indices on"),
    );
    assert!(
        locks
            .cuda
            .contains("irgl::try_lock(g.lk, irgl::checked_index("),
        "{}",
        locks.cuda
    );
    assert!(
        locks
            .cuda
            .contains("irgl::unlock(g.lk, irgl::checked_index(")
    );
    let marks = common::compile(
        "tests/gpu/exclusive-retry.irgl",
        &common::config("--nested serial --check-indices on"),
    );
    assert!(marks.cuda.contains("irgl::checked_ids("), "{}", marks.cuda);
    // An outlined loop: the control kernel's launch reads the flag.
    let outlined = common::compile(
        "tests/errors/property-index-outlined.irgl",
        &common::config("--nested serial --check-indices on --outline outer"),
    );
    assert!(
        outlined
            .cuda
            .contains("check_device_error(\"irgl_control0 (r0 iterate spill)\");"),
        "{}",
        outlined.cuda
    );
}
