//! The reject corpus: every `tests/fail/*.irgl` (at the workspace root) holds one mistake and
//! names, on its first line, the code that must be reported: `// expect: E0xxx`. Each file is
//! parsed and checked; the test fails if that code is missing or nothing is an error, and the
//! rendered diagnostics are snapshots (`snapshots/fail_corpus__fail@NAME.irgl.snap`).

use std::path::{Path, PathBuf};

use irgl_diagnostics::{SourceMap, render_plain};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tests/fail/x.irgl`, whatever the machine.
fn relative_name(path: &Path) -> String {
    let root = workspace_root().canonicalize().expect("workspace root");
    let path = path.canonicalize().expect("corpus file");
    let rel = path.strip_prefix(&root).unwrap_or(&path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn fail() {
    insta::glob!("../../../tests/fail", "*.irgl", |path| {
        let src = std::fs::read_to_string(path).expect("readable corpus file");
        let name = relative_name(path);
        let expected = src
            .lines()
            .next()
            .and_then(|l| l.trim().strip_prefix("// expect:"))
            .map(|c| c.trim().to_string())
            .unwrap_or_else(|| panic!("{name}: the first line must be `// expect: E0xxx`"));

        let mut sources = SourceMap::new();
        let file = sources.add(name.clone(), src.clone());
        // As the tools do: a program with syntax errors is not checked.
        let (program, mut diagnostics) = irgl_syntax::parse(file, &src);
        if !diagnostics.iter().any(|d| d.is_error()) {
            let (_, checked) = irgl_check::check(&program);
            diagnostics.extend(checked);
        }

        let rendered: String = diagnostics
            .iter()
            .map(|d| render_plain(d, &sources))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            diagnostics.iter().any(|d| d.code == expected),
            "{name}: expected {expected} among the diagnostics:\n{rendered}"
        );
        assert!(
            diagnostics.iter().any(|d| d.is_error()),
            "{name}: no error reported:\n{rendered}"
        );
        insta::assert_snapshot!(rendered);
    });
}

#[test]
fn corpus_is_large_enough() {
    let dir = workspace_root().join("tests/fail");
    let count = std::fs::read_dir(&dir)
        .expect("tests/fail exists")
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "irgl"))
        .count();
    assert!(count >= 45, "only {count} files in tests/fail");
}
