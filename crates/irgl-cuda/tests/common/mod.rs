//! Shared by the back end's tests: every program in `programs/`, checked and compiled to CUDA.

use std::path::{Path, PathBuf};

use irgl_diagnostics::{Diagnostic, SourceMap};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `(name, generated CUDA)` for every `programs/*.irgl` and every GPU construct test
/// `tests/gpu/*.irgl` (named `gpu-<file>`), in name order.
pub fn generated_programs() -> Vec<(String, String)> {
    let mut paths: Vec<(String, PathBuf)> = Vec::new();
    for (dir, prefix) in [("programs", ""), ("tests/gpu", "gpu-")] {
        for entry in std::fs::read_dir(workspace().join(dir)).expect("the folder exists") {
            let path = entry.expect("readable entry").path();
            if path.extension().is_some_and(|e| e == "irgl") {
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                paths.push((
                    format!("{prefix}{stem}"),
                    PathBuf::from(format!("{dir}/{stem}.irgl")),
                ));
            }
        }
    }
    paths.sort();
    assert!(paths.len() > 4, "programs missing");
    paths
        .iter()
        .map(|(name, rel)| {
            let name = name.clone();
            let text = std::fs::read_to_string(workspace().join(rel)).expect("readable program");
            let rel = rel.display().to_string();
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
