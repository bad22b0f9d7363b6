//! The benchmark suites shipped in `bench/` parse and check (names unique, every set and graph
//! a program names defined), and every program file they name exists.

use std::path::Path;

use irgl_tune::bench::Suite;

#[test]
fn every_shipped_suite_is_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("bench/") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let suite = Suite::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for p in &suite.programs {
            assert!(
                dir.join(&p.file).is_file(),
                "{}: no program {}",
                path.display(),
                p.file
            );
        }
        seen += 1;
    }
    assert!(seen >= 3, "found {seen} suites in {}", dir.display());
}
