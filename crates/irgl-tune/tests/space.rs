//! The search space of every program: its dimensions, the number of variants, and how many
//! distinct programs they generate (snapshot), and the properties every space has.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use irgl_diagnostics::SourceMap;
use irgl_driver::Source;
use irgl_tune::{SpaceOptions, dimensions, distinct, variants};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every program of `programs/` and construct test of `tests/gpu/`, by name and path.
fn programs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (dir, prefix) in [("programs", ""), ("tests/gpu", "gpu-")] {
        for entry in std::fs::read_dir(workspace().join(dir)).expect("the folder exists") {
            let path = entry.expect("a readable entry").path();
            if path.extension().is_some_and(|e| e == "irgl") {
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                out.push((format!("{prefix}{stem}"), format!("{dir}/{stem}.irgl")));
            }
        }
    }
    out.sort();
    out
}

/// Calls `f` with the source of the program at `rel` (from the workspace root).
fn with_source<R>(rel: &str, f: impl FnOnce(Source<'_>) -> R) -> R {
    let text = std::fs::read_to_string(workspace().join(rel)).expect("readable");
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.clone());
    f(Source {
        file,
        name: rel,
        text: &text,
    })
}

#[test]
fn every_program_has_its_space() {
    let mut report = String::new();
    for (name, rel) in programs() {
        with_source(&rel, |source| {
            let (module, _) = irgl_driver::lower(source).expect("the program checks");
            let d = dimensions(&module, &SpaceOptions::default());
            let vs = variants(&d);
            assert_eq!(vs.len(), d.product(), "{name}");
            assert_eq!(vs[0].name, "baseline", "{name}: the baseline first");
            let mut names: Vec<&str> = vs.iter().map(|v| v.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), vs.len(), "{name}: variant names are unique");
            let groups = distinct(source, &vs).unwrap_or_else(|(v, _)| panic!("{name}@{v}"));
            let members: usize = groups.iter().map(|g| g.members.len()).sum();
            assert_eq!(members, vs.len(), "{name}: every variant in one group");
            assert_eq!(
                groups[0].members[0], 0,
                "{name}: the baseline leads its group"
            );
            writeln!(
            report,
            "{name}: {} schedules x {} aggregation levels x {} orchestration choices x {} block sizes x {} grid waits = {} variants, {} distinct programs",
            d.schedules.len(),
            d.aggregates.len(),
            d.outlines.len(),
            d.block_sizes.len(),
            d.grid_waits.len(),
            vs.len(),
            groups.len()
        )
        .unwrap();
            for f in &d.fixed {
                writeln!(report, "  fixed {f}").unwrap();
            }
        });
    }
    insta::assert_snapshot!(report);
}

#[test]
fn block_sizes_multiply_the_space() {
    let (module, _) = with_source("programs/bfs.irgl", |source| {
        irgl_driver::lower(source).expect("bfs checks")
    });
    let one = dimensions(&module, &SpaceOptions::default());
    let opts = SpaceOptions {
        block_sizes: vec![256, 128],
        ..SpaceOptions::default()
    };
    let two = dimensions(&module, &opts);
    assert_eq!(two.product(), 2 * one.product());
    let vs = variants(&two);
    assert_eq!(vs[0].name, "baseline");
    assert!(
        vs.iter()
            .any(|v| v.name == "tb+wp+fg+agg-block+outline-b128")
    );
}
