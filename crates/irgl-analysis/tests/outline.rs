//! The outline tree of every program (a snapshot of `irglc emit outline`'s text), and the
//! reasons a node cannot be outlined, propagated to the nodes around it.

use std::path::{Path, PathBuf};

use irgl_analysis::{OutlineKind, OutlineTree};
use irgl_diagnostics::SourceMap;
use irgl_driver::{OptConfig, Source};
use irgl_ir::{Module, Schedule, StmtKind};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn module(rel: &str) -> Module {
    let text = std::fs::read_to_string(workspace().join(rel)).unwrap();
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.clone());
    let source = Source {
        file,
        name: rel,
        text: &text,
    };
    irgl_driver::compile(source, &OptConfig::default())
        .unwrap_or_else(|d| panic!("{rel}: {d:?}"))
        .module
}

#[test]
fn outline_trees_of_the_programs() {
    let mut names: Vec<String> = std::fs::read_dir(workspace().join("programs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".irgl"))
        .collect();
    names.sort();
    let mut text = String::new();
    for name in names {
        let m = module(&format!("programs/{name}"));
        text.push_str(&format!("== {name}\n{}", OutlineTree::build(&m).render(&m)));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn a_kernel_that_cannot_run_on_a_fixed_grid_blocks_its_region_and_the_regions_around() {
    // sssp-nf: r1 (the Pipe of sssp_nf and remove_dups) inside r0 (Pipe Once of init).
    let mut m = module("programs/sssp-nf.irgl");
    let tree = OutlineTree::build(&m);
    assert!(tree.nodes().iter().all(|n| n.outlinable.is_ok()));
    // Make remove_dups's outer loop serial: it no longer covers its iterations on any grid.
    let k = m.kernel_named("remove_dups").unwrap();
    let body = &mut m.kernels[k].body;
    for s in body.block.clone() {
        if let StmtKind::ForAll(f) = &mut body.stmts[s].kind {
            f.schedule = Schedule::Serial { why: None };
        }
    }
    let tree = OutlineTree::build(&m);
    let nodes = tree.nodes();
    let outer = &nodes[0];
    let inner = &nodes[1];
    assert!(matches!(outer.kind, OutlineKind::Region(..)));
    assert_eq!(
        inner.outlinable,
        Err(
            "kernel remove_dups's outer loop is not grid-stride, so it cannot run on a fixed grid"
                .into()
        )
    );
    assert_eq!(
        outer.outlinable,
        Err(format!(
            "it contains {}, which cannot be outlined",
            inner.name()
        ))
    );
    assert!(tree.render(&m).contains("not outlinable: "));
}
