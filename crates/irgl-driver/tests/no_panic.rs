//! No accepted program makes the compiler panic, under any options: every program, construct
//! test and pass-corpus file is compiled under every option set of `tests/option-sets.txt`
//! and under every nested-loop schedule the options accept (alone and with block
//! aggregation, outlining and asynchrony). A compile may fail with diagnostics (an option that
//! does not apply); it may not panic (an internal compiler error). The quick tier of
//! scripts/test (`IRGLC_TEST_QUICK`) takes each schedule with one of those companions in turn
//! (every schedule and every companion, a quarter of the pairs); `scripts/test --full` and CI
//! take every pair.

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use irgl_diagnostics::SourceMap;
use irgl_driver::{OptConfig, ScheduleSpec, Source};

/// Every schedule `--nested` accepts: each non-empty set of policies that parses.
fn schedules() -> Vec<String> {
    let policies = [
        "tb", "wp", "vw2", "vw4", "vw8", "vw16", "fg", "eb", "serial",
    ];
    let mut out = Vec::new();
    for mask in 1u32..(1 << policies.len()) {
        let spec: Vec<&str> = (0..policies.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| policies[i])
            .collect();
        let text = spec.join("+");
        if ScheduleSpec::parse(&text).is_ok() {
            out.push(text);
        }
    }
    out
}

#[test]
fn no_accepted_program_panics_under_any_options() {
    let mut files = common::programs();
    files.extend(common::corpus("tests/compile"));
    let mut flag_sets: Vec<String> = common::option_sets()
        .into_iter()
        .map(|(_, flags)| flags)
        .collect();
    let quick = std::env::var_os("IRGLC_TEST_QUICK").is_some();
    let companions = [
        "",
        " --aggregate block",
        " --aggregate warp --outline outer",
        " --async all --aggregate block",
    ];
    for (i, s) in schedules().iter().enumerate() {
        for (j, extra) in companions.iter().enumerate() {
            if !quick || j == i % companions.len() {
                flag_sets.push(format!("--nested {s}{extra}"));
            }
        }
    }
    // A set that names a level is resolved per file (its choices depend on the program).
    let configs: Vec<(String, Option<OptConfig>)> = flag_sets
        .iter()
        .map(|f| {
            (
                f.clone(),
                (!common::names_level(f)).then(|| common::config(f)),
            )
        })
        .collect();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|(_, rel)| {
            let text = std::fs::read_to_string(common::workspace().join(rel)).unwrap();
            (rel.clone(), text)
        })
        .collect();
    let work: Vec<(usize, usize)> = (0..texts.len())
        .flat_map(|f| (0..configs.len()).map(move |c| (f, c)))
        .collect();
    let next = AtomicUsize::new(0);
    let panics = Mutex::new(Vec::new());
    let compiled = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    // The default panic message of each failure is kept: it names the pass that broke.
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(f, c)) = work.get(k) else { break };
                    let (rel, text) = &texts[f];
                    let (flags, config) = &configs[c];
                    let result = std::panic::catch_unwind(|| {
                        let mut sources = SourceMap::new();
                        let file = sources.add(rel.clone(), text.clone());
                        let source = Source {
                            file,
                            name: rel,
                            text,
                        };
                        let config = match config {
                            Some(c) => c.clone(),
                            None => {
                                let words: Vec<&str> = flags.split_whitespace().collect();
                                match irgl_driver::options_from_words(
                                    source,
                                    &words,
                                    irgl_driver::OptLevel::O0,
                                ) {
                                    Ok((c, _)) => c,
                                    Err(_) => return false,
                                }
                            }
                        };
                        irgl_driver::compile(source, &config).is_ok()
                    });
                    match result {
                        Ok(true) => {
                            compiled.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(false) => {}
                        Err(_) => panics.lock().unwrap().push(format!("{rel} {flags}")),
                    }
                }
            });
        }
    });
    let panics = panics.into_inner().unwrap();
    assert!(
        panics.is_empty(),
        "{} compiles panicked:\n{}",
        panics.len(),
        panics.join("\n")
    );
    // Most of them compile: the test exercises the passes, not only the option checks.
    let compiled = compiled.into_inner();
    assert!(
        compiled * 2 > work.len(),
        "only {compiled} of {} compiled",
        work.len()
    );
}
