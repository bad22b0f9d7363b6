//! The pass corpus: every `tests/compile/*.irgl` under every named option set of
//! `tests/option-sets.txt`. Snapshots hold the input, the IR after lowering, and for each set
//! the IR after the passes and the device code; the IR is verified after every step.

mod common;

use irgl_diagnostics::SourceMap;
use irgl_driver::{Source, Trace};

/// Compiles `rel` with `flags`, returning the IR after each step and the CUDA.
fn steps(rel: &str, flags: &str) -> (Vec<(String, String)>, String) {
    let text = std::fs::read_to_string(common::workspace().join(rel)).unwrap();
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.clone());
    let mut dumps = Vec::new();
    let mut on_step = |step: &str, m: &irgl_ir::Module| {
        dumps.push((
            step.to_string(),
            irgl_ir::dump_module(m, Default::default()),
        ));
    };
    let mut trace = Trace {
        verify: true,
        on_step: Some(&mut on_step),
        timings: Vec::new(),
    };
    let source = Source {
        file,
        name: rel,
        text: &text,
    };
    let compiled = irgl_driver::compile_traced(source, &common::config_for(rel, flags), &mut trace)
        .unwrap_or_else(|d| panic!("{rel} under {flags}: {d:?}"));
    drop(trace);
    (dumps, compiled.cuda)
}

#[test]
fn corpus_under_every_option_set() {
    let sets = common::option_sets();
    for (name, rel) in common::corpus("tests/compile") {
        let input = std::fs::read_to_string(common::workspace().join(&rel)).unwrap();
        let (dumps, _) = steps(&rel, "--nested serial");
        let lowered = &dumps.iter().find(|(s, _)| s == "lower").unwrap().1;
        insta::assert_snapshot!(
            format!("{name}@lower"),
            format!("{input}\n==== lowered\n{lowered}")
        );
        for (set, flags) in &sets {
            let (dumps, cuda) = steps(&rel, flags);
            let (last, ir) = dumps.last().unwrap();
            insta::assert_snapshot!(
                format!("{name}@{set}"),
                format!(
                    "// {flags}\n==== IR after {last}\n{ir}\n==== device code\n{}",
                    common::kernels(&cuda)
                )
            );
        }
    }
}
