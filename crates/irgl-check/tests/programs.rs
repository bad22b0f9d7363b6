//! Every example program in `programs/` (at the workspace root) must check without errors.
//! An empty or missing folder passes; a program with an error fails the test.

use std::path::Path;

use irgl_diagnostics::{SourceMap, render_plain};

#[test]
fn programs_check_without_errors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "irgl"))
        .collect();
    paths.sort();
    let mut failures = String::new();
    for path in &paths {
        let src = std::fs::read_to_string(path).expect("readable program");
        let name = format!(
            "programs/{}",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        );
        let mut sources = SourceMap::new();
        let file = sources.add(name, src.clone());
        let (program, mut diagnostics) = irgl_syntax::parse(file, &src);
        let (_, checked) = irgl_check::check(&program);
        diagnostics.extend(checked);
        for d in diagnostics.iter().filter(|d| d.is_error()) {
            failures.push_str(&render_plain(d, &sources));
        }
    }
    assert!(failures.is_empty(), "errors in programs/:\n{failures}");
}
