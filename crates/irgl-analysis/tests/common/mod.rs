//! Shared by the analyses' tests: a program compiled at the default options, from text or
//! from `programs/`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use irgl_diagnostics::SourceMap;
use irgl_driver::{OptConfig, Source};
use irgl_ir::Module;

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `text`, named `name`, compiled at the default options (a diagnostic fails the test).
pub fn compile(name: &str, text: &str) -> Module {
    let mut sources = SourceMap::new();
    let file = sources.add(name.to_string(), text.to_string());
    let source = Source { file, name, text };
    irgl_driver::compile(source, &OptConfig::default())
        .unwrap_or_else(|d| panic!("{name}: {d:?}"))
        .module
}

/// `programs/<name>.irgl`, compiled at the default options.
pub fn program(name: &str) -> Module {
    let path = workspace().join(format!("programs/{name}.irgl"));
    compile(name, &std::fs::read_to_string(path).unwrap())
}

/// `programs/<name>.irgl` compiled as `irglc compile` would with the command-line `words`
/// (`-O2`, flags), and the options they gave.
pub fn program_at(name: &str, words: &[&str]) -> (OptConfig, Module) {
    let text = std::fs::read_to_string(workspace().join(format!("programs/{name}.irgl"))).unwrap();
    let file_name = format!("{name}.irgl");
    let mut sources = SourceMap::new();
    let file = sources.add(file_name.clone(), text.clone());
    let source = Source {
        file,
        name: &file_name,
        text: &text,
    };
    let (config, _) =
        irgl_driver::options_from_words(source, words, irgl_driver::OptLevel::O0).unwrap();
    let m = irgl_driver::compile(source, &config)
        .unwrap_or_else(|d| panic!("{name}: {d:?}"))
        .module;
    (config, m)
}
