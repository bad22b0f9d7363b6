//! The syntax tree of every program in `programs/`, as reviewed snapshots.

use irgl_diagnostics::FileId;

#[test]
fn program_asts_match_snapshots() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("programs/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "irgl"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    for path in paths {
        let src = std::fs::read_to_string(&path).expect("readable program");
        let (program, diags) = irgl_syntax::parse(FileId(0), &src);
        assert!(diags.is_empty(), "{}: {diags:#?}", path.display());
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(name, irgl_syntax::dump::dump_program(&program));
    }
}
