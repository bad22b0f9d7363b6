//! Building generated programs into the build cache, many at once: `irglc tune` and
//! `irglc bench`. A program's executable is keyed by its code without the header that names
//! its options (so that option sets that generate the same code share one build), the
//! architecture and the runtime headers; one that is already built is kept, so that an
//! interrupted build resumes where it stopped.

use std::path::PathBuf;

use crate::Failure;

/// Where the executable of `cuda`, built for `arch`, is kept.
pub fn exe_path(program: &str, cuda: &str, arch: &str) -> PathBuf {
    let key = crate::toolchain::fnv1a(&[
        irgl_tune::code_of(cuda).as_bytes(),
        arch.as_bytes(),
        &crate::toolchain::runtime_key().to_le_bytes(),
    ]);
    crate::toolchain::cache_dir()
        .join("build")
        .join(format!("{program}-{key:016x}"))
}

/// Builds `items` (a name for the messages and the generated CUDA) of `program` into the
/// cache, `jobs` nvcc processes at a time, with a progress bar; reports what was built,
/// found built (always when `summary`, else only when something was built) and what failed,
/// with nvcc's first lines. Returns each item's executable, none where it failed to build.
pub fn build(
    program: &str,
    items: &[(&str, &str)],
    arch: &str,
    jobs: Option<usize>,
    summary: bool,
) -> Result<Vec<Option<PathBuf>>, Failure> {
    let tc = crate::toolchain::find_toolchain().map_err(|e| {
        eprintln!("error: {e}");
        Failure::User
    })?;
    let dir = crate::toolchain::cache_dir().join("build");
    std::fs::create_dir_all(&dir).map_err(|e| {
        eprintln!("error: cannot create {}: {e}", dir.display());
        Failure::User
    })?;
    let exes: Vec<PathBuf> = items
        .iter()
        .map(|(_, cuda)| exe_path(program, cuda, arch))
        .collect();
    // An item whose executable is another item's is built once.
    let mut todo: Vec<usize> = Vec::new();
    for i in 0..items.len() {
        if !exes[i].is_file() && !todo.iter().any(|&j| exes[j] == exes[i]) {
            todo.push(i);
        }
    }
    let jobs = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let bar = indicatif::ProgressBar::new(todo.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("building {pos}/{len} [{bar:30}] {elapsed} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(todo.len()) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&i) = todo.get(k) else { break };
                    let (name, cuda) = items[i];
                    bar.set_message(name.to_string());
                    let cu = exes[i].with_extension("cu");
                    let built = std::fs::write(&cu, cuda)
                        .map_err(|e| format!("cannot write {}: {e}", cu.display()))
                        .and_then(|()| crate::toolchain::nvcc_build(&tc, &cu, &exes[i], arch));
                    if let Err(e) = built {
                        let _ = std::fs::remove_file(&exes[i]);
                        failures
                            .lock()
                            .expect("no thread panicked")
                            .push((name.to_string(), e));
                    }
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let failures = failures.into_inner().expect("no thread panicked");
    if !todo.is_empty() || summary {
        eprintln!(
            "built {} of {} distinct programs for {arch}, {} already built, {} failed (cache: {})",
            todo.len() - failures.len(),
            items.len(),
            items.len() - todo.len(),
            failures.len(),
            dir.display()
        );
    }
    for (name, e) in &failures {
        let first = e.lines().take(4).collect::<Vec<_>>().join("\n  ");
        eprintln!("error: variant {name} does not build, left out:\n  {first}");
    }
    Ok(exes.into_iter().map(|e| e.is_file().then_some(e)).collect())
}
