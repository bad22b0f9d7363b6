//! Shared by the pipeline's tests: the programs and construct tests, compiled under named
//! option sets.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use irgl_diagnostics::SourceMap;
use irgl_driver::{OptConfig, Source};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `(name, path relative to the workspace)` of every `programs/*.irgl` and every GPU
/// construct test `tests/gpu/*.irgl` (named `gpu-<file>`), in name order.
pub fn programs() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (dir, prefix) in [("programs", ""), ("tests/gpu", "gpu-")] {
        for entry in std::fs::read_dir(workspace().join(dir)).expect("the folder exists") {
            let path = entry.expect("readable entry").path();
            if path.extension().is_some_and(|e| e == "irgl") {
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                out.push((format!("{prefix}{stem}"), format!("{dir}/{stem}.irgl")));
            }
        }
    }
    out.sort();
    assert!(out.len() > 4, "programs missing");
    out
}

/// The files of a corpus folder (`tests/compile`), in name order.
pub fn corpus(dir: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(workspace().join(dir)).expect("the folder exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_some_and(|e| e == "irgl") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            out.push((stem.clone(), format!("{dir}/{stem}.irgl")));
        }
    }
    out.sort();
    out
}

/// Compiles the file at `rel` (relative to the workspace) with `config`; panics with the
/// rendered diagnostics on failure.
pub fn compile(rel: &str, config: &OptConfig) -> irgl_driver::Compiled {
    let text = std::fs::read_to_string(workspace().join(rel)).expect("readable program");
    compile_text(rel, &text, config)
}

/// Compiles program text, named `rel` in diagnostics, with `config`; panics with the
/// rendered diagnostics on failure.
pub fn compile_text(rel: &str, text: &str, config: &OptConfig) -> irgl_driver::Compiled {
    let text = text.to_string();
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.clone());
    let source = Source {
        file,
        name: rel,
        text: &text,
    };
    irgl_driver::compile(source, config).unwrap_or_else(|diags| {
        let rendered: Vec<String> = diags
            .iter()
            .map(|d| irgl_diagnostics::render_plain(d, &sources))
            .collect();
        panic!("{rel} does not compile:\n{}", rendered.join("\n"))
    })
}

/// An option set from command-line flags.
pub fn config(flags: &str) -> OptConfig {
    let words: Vec<&str> = flags.split_whitespace().collect();
    OptConfig::from_args(&words).unwrap_or_else(|e| panic!("option set `{flags}`: {e}"))
}

/// Whether `flags` name an optimization level (`-O1`), whose choices depend on the program.
pub fn names_level(flags: &str) -> bool {
    flags.split_whitespace().any(|w| w.starts_with("-O"))
}

/// The option set that `flags` give for program text `text` (named `rel`): the choices of the
/// level they name, else of `-O0` (as `scripts/gpu-check` compiles a named set), then the flags.
pub fn config_for_text(rel: &str, text: &str, flags: &str) -> OptConfig {
    if !names_level(flags) {
        return config(flags);
    }
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.to_string());
    let source = Source {
        file,
        name: rel,
        text,
    };
    let words: Vec<&str> = flags.split_whitespace().collect();
    irgl_driver::options_from_words(source, &words, irgl_driver::OptLevel::O0)
        .unwrap_or_else(|d| panic!("{rel} under `{flags}`: {d:?}"))
        .0
}

/// [`config_for_text`] for the file at `rel` (relative to the workspace).
pub fn config_for(rel: &str, flags: &str) -> OptConfig {
    let text = std::fs::read_to_string(workspace().join(rel)).expect("readable program");
    config_for_text(rel, &text, flags)
}

/// The named option sets of `tests/option-sets.txt`: `(name, flags)`.
pub fn option_sets() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(workspace().join("tests/option-sets.txt"))
        .expect("tests/option-sets.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, flags) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (name.to_string(), flags.trim().to_string())
        })
        .collect()
}

/// The device code of a generated file: from the first kernel to the host side.
pub fn kernels(cuda: &str) -> &str {
    let start = cuda.find("__global__").unwrap_or(0);
    let end = cuda.find("// ---- host side").unwrap_or(cuda.len());
    &cuda[start..end]
}

/// The diagnostics of compiling a program (a path ending in `.irgl`, relative to the
/// workspace, or the text itself) with the option flags `flags`, which must fail.
pub fn errors(rel_or_text: &str, flags: &str) -> Vec<irgl_diagnostics::Diagnostic> {
    let (name, text) = if rel_or_text.ends_with(".irgl") {
        let text = std::fs::read_to_string(workspace().join(rel_or_text)).unwrap();
        (rel_or_text, text)
    } else {
        ("inline.irgl", rel_or_text.to_string())
    };
    let mut sources = irgl_diagnostics::SourceMap::new();
    let file = sources.add(name.to_string(), text.clone());
    let source = irgl_driver::Source {
        file,
        name,
        text: &text,
    };
    irgl_driver::compile(source, &config(flags)).expect_err("rejected")
}

/// The option set that the words of an `irglc compile` command line give for the file at
/// `rel` (`unnamed`: the level when they name none), or the diagnostics' codes and messages.
pub fn config_words(
    rel: &str,
    flags: &str,
    unnamed: irgl_driver::OptLevel,
) -> Result<OptConfig, Vec<String>> {
    let words: Vec<&str> = flags.split_whitespace().collect();
    with_source(rel, |source| {
        irgl_driver::options_from_words(source, &words, unnamed)
            .map(|(c, _)| c)
            .map_err(|d| {
                d.iter()
                    .map(|d| format!("{}: {}", d.code, d.message))
                    .collect()
            })
    })
}

/// Compiles the file at `rel` with `config`: the CUDA, or the diagnostics.
pub fn try_compile(
    rel: &str,
    config: &OptConfig,
) -> Result<String, Vec<irgl_diagnostics::Diagnostic>> {
    with_source(rel, |source| {
        irgl_driver::compile(source, config).map(|c| c.cuda)
    })
}

/// `f` of the file at `rel` (relative to the workspace) as a compiler source.
fn with_source<T>(rel: &str, f: impl FnOnce(Source<'_>) -> T) -> T {
    let text = std::fs::read_to_string(workspace().join(rel)).expect("readable program");
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.clone());
    let source = Source {
        file,
        name: rel,
        text: &text,
    };
    f(source)
}

/// The CUDA of the file at `rel` under the words of an `irglc compile` command line (a level's
/// choices, then the flags), or None where the program refuses them.
pub fn try_compile_words(rel: &str, flags: &str) -> Option<String> {
    let config = config_words(rel, flags, irgl_driver::OptLevel::O0).ok()?;
    try_compile(rel, &config).ok()
}
