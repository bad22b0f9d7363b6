//! Shared by the back end's tests: every program in `programs/`, checked and compiled to CUDA.

use std::path::{Path, PathBuf};

use irgl_diagnostics::{Diagnostic, SourceMap};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `(program name, generated CUDA)` for every `programs/*.irgl`, in name order.
pub fn generated_programs() -> Vec<(String, String)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(workspace().join("programs"))
        .expect("programs/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "irgl"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no programs found");
    paths
        .iter()
        .map(|path| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(path).expect("readable program");
            let rel = format!("programs/{name}.irgl");
            let mut sources = SourceMap::new();
            let file = sources.add(rel.clone(), text.clone());
            let (program, mut diags) = irgl_syntax::parse(file, &text);
            let (info, check) = irgl_check::check(&program);
            diags.extend(check);
            let errors: Vec<String> = diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d: &Diagnostic| irgl_diagnostics::render_plain(d, &sources))
                .collect();
            assert!(
                errors.is_empty(),
                "{rel} has errors:\n{}",
                errors.join("\n")
            );
            let opts = irgl_cuda::EmitOptions {
                source: rel.clone(),
                program: name.clone(),
                block_size: 256,
                rebuild: format!("irglc compile {rel} -o {name}.cu"),
            };
            (name, irgl_cuda::emit_program(&program, &info, &opts))
        })
        .collect()
}
