//! `settle_rounds`: an outlined `Iterate Unordered While Any` runs its rounds without grid
//! barriers where the analysis accepts it (mis at `-O2`); its kernel then reads what it
//! updates past the L1, gd is left out of its loops, its serial version keeps its rounds,
//! and the option says when it changes nothing.

mod common;

use irgl_ir::{KernelId, Module, RegionKind, StmtKind, visit};

fn settled_regions(m: &Module) -> Vec<KernelId> {
    let mut out = Vec::new();
    visit::walk_stmts(&m.host, &m.host.block, &mut |s| {
        if let StmtKind::Region(r) = &m.host.stmts[s].kind
            && r.settled
            && let RegionKind::Iterate(k) = r.kind
        {
            out.push(k);
        }
    });
    out
}

#[test]
fn o2_settles_mis_and_its_serial_version_keeps_rounds() {
    let c = common::compile(
        "programs/mis.irgl",
        &common::config_for("programs/mis.irgl", "-O2"),
    );
    let settled = settled_regions(&c.module);
    assert_eq!(settled.len(), 1);
    let k = &c.module.kernels[settled[0]];
    assert_eq!(k.name, "decide");
    assert!(k.settled);
    let serial = k.serial_version.expect("-O2 gives decide a serial version");
    assert!(
        !c.module.kernels[serial].settled,
        "the serial version keeps its rounds"
    );
    let control = &c.cuda[c.cuda.find("irgl_control0(").unwrap()..];
    let control = &control[..control.find("\n}\n").unwrap()];
    // Block passes over the scheduled version, rounds with a barrier over the serial one.
    assert!(
        control.contains("irgl::BlockAnyFlag irgl_reduce{&irgl_block_any};"),
        "{control}"
    );
    assert!(control.contains("irgl_dev_decide(g, "), "{control}");
    let serial_branch = &control[control.find("if (irgl_serial_inner)").unwrap()..];
    let serial_branch = &serial_branch[..serial_branch.find("} else {").unwrap()];
    assert!(
        serial_branch.contains("irgl::grid_sync();"),
        "{serial_branch}"
    );
    assert!(
        serial_branch.contains("irgl_dev_decide_serial("),
        "{serial_branch}"
    );
    let blocks = &control[control.find("} else {").unwrap()..];
    assert!(
        !blocks.contains("grid_sync"),
        "no grid barrier between block passes: {blocks}"
    );
    // The settled kernel reads its state word past the L1; the serial version does not.
    let device = common::kernels(&c.cuda);
    let dev = &device[device.find("void irgl_dev_decide(").unwrap()..];
    let dev = &dev[..dev.find("\n}\n").unwrap()];
    assert!(dev.contains("irgl::load_coherent(g.key[n])"), "{dev}");
    let ser = &device[device.find("void irgl_dev_decide_serial(").unwrap()..];
    let ser = &ser[..ser.find("\n}\n").unwrap()];
    assert!(!ser.contains("load_coherent"), "{ser}");
}

#[test]
fn settle_off_keeps_the_rounds() {
    let c = common::compile(
        "programs/mis.irgl",
        &common::config_for("programs/mis.irgl", "-O2 --settle off"),
    );
    assert!(settled_regions(&c.module).is_empty());
    assert!(!c.cuda.contains("BlockAnyFlag"));
    assert!(!c.cuda.contains("load_coherent"));
}

#[test]
fn a_settled_kernel_gets_no_gd() {
    let c = common::compile(
        "programs/mis.irgl",
        &common::config("--nested gd+tb+wp+fg --outline outer --settle on"),
    );
    assert_eq!(settled_regions(&c.module).len(), 1);
    assert!(
        c.module
            .kernels
            .iter()
            .all(|(_, k)| !k.hands_items_to_the_grid())
    );
}

#[test]
fn without_outlining_or_an_unordered_loop_settle_warns() {
    let c = common::compile("programs/mis.irgl", &common::config("--settle on"));
    assert!(settled_regions(&c.module).is_empty());
    let w: Vec<String> = c.warnings.iter().map(|d| format!("{d:?}")).collect();
    assert!(
        w.iter()
            .any(|d| d.contains("W0507") && d.contains("none is outlined")),
        "{w:?}"
    );
    let c = common::compile(
        "programs/bfs.irgl",
        &common::config("--outline outer --settle on"),
    );
    let w: Vec<String> = c.warnings.iter().map(|d| format!("{d:?}")).collect();
    assert!(
        w.iter()
            .any(|d| d.contains("W0507") && d.contains("has none")),
        "{w:?}"
    );
}

#[test]
fn an_unordered_loop_the_analysis_refuses_keeps_its_rounds() {
    let text = "graph g {\n  node key: u32;\n}\noutput key;\n\
        Kernel k(graph g) {\n  ForAll (n In g.nodes) {\n    let kn = g.key[n];\n    if (kn > 1) {\n      g.key[n] = kn - 1;\n      ReduceAndReturn true;\n    }\n  }\n}\n\
        main {\n  Iterate Unordered While Any k(g);\n}\n";
    let c = common::compile_text(
        "t.irgl",
        text,
        &common::config("--outline outer --settle on"),
    );
    assert!(settled_regions(&c.module).is_empty());
    assert!(c.cuda.contains("irgl::grid_sync();"));
    let w: Vec<String> = c.warnings.iter().map(|d| format!("{d:?}")).collect();
    assert!(
        w.iter()
            .any(|d| d.contains("W0507") && d.contains("a value that is not a constant")),
        "{w:?}"
    );
}

#[test]
fn the_verifier_rejects_a_settled_region_of_an_unsettled_kernel() {
    let mut c = common::compile(
        "programs/mis.irgl",
        &common::config_for("programs/mis.irgl", "-O2"),
    );
    let k = settled_regions(&c.module)[0];
    c.module.kernels[k].settled = false;
    let errors = irgl_ir::verify(&c.module).expect_err("invalid");
    assert!(
        errors
            .iter()
            .any(|e| format!("{e:?}").contains("is settled, its kernel is not")),
        "{errors:?}"
    );
}
