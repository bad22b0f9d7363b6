//! Data effects: the places (properties, arrays, globals) that kernels and expressions of
//! `main` read and write, which a control kernel's grid barriers separate.

mod common;

use common::{compile, program};

use irgl_analysis::{DataEffects, PlaceSet};
use irgl_ir::{Module, StmtKind, visit};

/// The places named, as a set.
fn places(m: &Module, names: &[&str]) -> PlaceSet {
    names.iter().fold(PlaceSet::EMPTY, |set, name| {
        let place = match m.graph.props.iter().position(|p| p.name == *name) {
            Some(i) => PlaceSet(1 << i),
            None => {
                let g = m
                    .globals
                    .iter()
                    .position(|g| g.name == *name)
                    .unwrap_or_else(|| panic!("no place {name}"));
                PlaceSet(1 << (m.graph.props.len() + g))
            }
        };
        set.union(place)
    })
}

fn kernel(m: &Module, name: &str) -> DataEffects {
    DataEffects::of_kernel(m, &m.kernels[m.kernel_named(name).unwrap()])
}

#[test]
fn a_kernel_reads_and_writes_the_places_it_names() {
    let m = program("bc");
    let forward = kernel(&m, "forward");
    // dist: read, and claimed by atomicCAS; sigma: read, added to; order: written at the
    // slot that atomicAdd on found reserves.
    assert_eq!(forward.reads, places(&m, &["dist", "sigma", "found"]));
    assert_eq!(
        forward.writes,
        places(&m, &["dist", "sigma", "order", "found"])
    );
    assert!(
        !forward
            .reads
            .union(forward.writes)
            .intersects(places(&m, &["level_start", "bc"])),
        "forward touches neither level_start nor bc"
    );
    let gather = kernel(&m, "gather");
    assert_eq!(gather.reads, places(&m, &["dist", "sigma", "bc", "order"]));
    assert_eq!(gather.writes, places(&m, &["bc"]));
}

#[test]
fn atomics_locks_and_compound_assignments_read_and_write() {
    let m = compile(
        "t.irgl",
        "graph g {\n  node a: u32;\n  node b: u32;\n  node c: u32;\n  node d: u32;\n}\nglobal total: u32 = 0;\nglobal unused: u32 = 0;\noutput a;\n\
         Kernel k(graph g) {\n  ForAll (n In g.nodes) {\n    g.a[n] += 1;\n    g.b[n] = g.c[n];\n    atomicMax(g.d[n], 3);\n    atomicAdd(total, 1);\n  }\n}\n\
         main {\n  Invoke k(g);\n}\n",
    );
    let k = kernel(&m, "k");
    assert_eq!(k.reads, places(&m, &["a", "c", "d", "total"]));
    assert_eq!(k.writes, places(&m, &["a", "b", "d", "total"]));
    assert!(!k.reads.union(k.writes).intersects(places(&m, &["unused"])));
}

#[test]
fn expressions_of_main_read_their_places() {
    let m = program("bc");
    let host = &m.host;
    // `Invoke gather(g, d, level_start[d], level_start[d + 1])` reads level_start.
    let mut args = Vec::new();
    visit::walk_stmts(host, &host.block, &mut |s| {
        if let StmtKind::Launch(l) = &host.stmts[s].kind
            && m.kernels[l.kernel].name == "gather"
        {
            args.extend(l.args.iter().copied());
        }
    });
    let e = DataEffects::of_exprs(&m, host, &args);
    assert_eq!(e.reads, places(&m, &["level_start"]));
    assert!(e.writes.is_empty());
}

#[test]
fn places_past_the_last_bit_share_it() {
    assert_eq!(
        PlaceSet::prop(irgl_ir::PropId(63)),
        PlaceSet::prop(irgl_ir::PropId(90)),
        "a conflict that is not one, never one missed"
    );
    assert!(PlaceSet::ALL.intersects(PlaceSet::prop(irgl_ir::PropId(5))));
}
