//! Every program and GPU construct test lowers to IR that verifies; the dumps are reviewed
//! snapshots.

use std::path::{Path, PathBuf};

use irgl_diagnostics::SourceMap;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn programs() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for (dir, prefix) in [("programs", ""), ("tests/gpu", "gpu-")] {
        for entry in std::fs::read_dir(workspace().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "irgl") {
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                out.push((format!("{prefix}{stem}"), path));
            }
        }
    }
    out.sort();
    out
}

fn lower(path: &Path) -> irgl_ir::Module {
    let text = std::fs::read_to_string(path).unwrap();
    let mut sources = SourceMap::new();
    let file = sources.add(path.display().to_string(), text.clone());
    let (program, diags) = irgl_syntax::parse(file, &text);
    assert!(diags.is_empty(), "{}: {diags:?}", path.display());
    let (info, diags) = irgl_check::check(&program);
    assert!(
        !irgl_check::has_errors(&diags),
        "{}: {diags:?}",
        path.display()
    );
    let name = path.file_stem().unwrap().to_string_lossy();
    irgl_ir::lower(&program, &info, &name, &format!("{name}.irgl"))
}

#[test]
fn every_program_lowers_to_valid_ir() {
    for (name, path) in programs() {
        let module = lower(&path);
        if let Err(errors) = irgl_ir::verify(&module) {
            panic!("{name}: {errors:#?}");
        }
        let dump = irgl_ir::dump_module(&module, irgl_ir::DumpOptions::default());
        insta::assert_snapshot!(name, dump);
    }
}
