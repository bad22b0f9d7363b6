//! The build cache: generated programs built with nvcc, many at once (`irglc tune`,
//! `irglc bench`) or one (`irglc build`, `irglc run`).
//!
//! An executable lives at `build/PROGRAM-KEY`, its source beside it at `build/PROGRAM-KEY.cu`.
//! The key hashes everything the executable depends on: the code without the header that
//! names its options (so option sets that generate the same code share one build), the
//! architecture, nvcc's flags and version, and the runtime headers. An entry exists only once
//! nvcc succeeded: nvcc writes a temporary beside it, renamed into place at the end, so an
//! interrupted build (Ctrl-C, a kill, a full disk) leaves no entry and the next run builds it
//! again, and several irglc processes on one cache each get whole executables (the last
//! rename wins, with the same content). A failed build is not kept: every run tries again, and
//! `fresh` rebuilds what is there.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::Failure;
use crate::toolchain::{self, Toolchain};
use irgl_files::names;

/// Temporaries older than this in the cache were left by an irglc that was killed outright.
const STALE: Duration = Duration::from_secs(24 * 3600);

/// The cache's folder of executables.
fn build_dir() -> PathBuf {
    toolchain::cache_dir().join("build")
}

/// Where the executable of `cuda` for `arch`, built by `tc`, is kept.
pub fn exe_path(tc: &Toolchain, program: &str, cuda: &str, arch: &str) -> PathBuf {
    let flags = toolchain::NVCC_FLAGS.join(" ");
    let key = toolchain::fnv1a(&[
        irgl_tune::code_of(cuda).as_bytes(),
        arch.as_bytes(),
        flags.as_bytes(),
        toolchain::nvcc_identity(tc).as_bytes(),
        &toolchain::runtime_key().to_le_bytes(),
    ]);
    build_dir().join(format!("{}-{key:016x}", names::file_safe(program)))
}

/// Builds `cuda` into the executable `exe`: the source written beside it, nvcc's output
/// renamed into place once nvcc succeeded. On failure returns nvcc's message.
fn build_one(tc: &Toolchain, cuda: &str, exe: &Path, arch: &str) -> Result<(), String> {
    let cu = names::with_added_extension(exe, "cu");
    irgl_files::write_bytes(&cu, cuda.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", cu.display()))?;
    let pending = irgl_files::Pending::beside(exe)
        .map_err(|e| format!("cannot write beside {}: {e}", exe.display()))?;
    toolchain::nvcc_build(tc, &cu, pending.path(), arch)?;
    make_executable(pending.path())
        .and_then(|()| pending.commit())
        .map_err(|e| format!("cannot put the executable at {}: {e}", exe.display()))
}

/// Sets the execute bits where the read bits are (nvcc's linker does; a stand-in may not).
fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut p = std::fs::metadata(path)?.permissions();
    let mode = p.mode();
    p.set_mode(mode | ((mode & 0o444) >> 2));
    std::fs::set_permissions(path, p)
}

/// The toolchain, or an error that says how to get one.
pub fn toolchain() -> Result<Toolchain, Failure> {
    toolchain::find_toolchain().map_err(|e| {
        say!("error: {e}");
        Failure::User
    })
}

/// Builds `items` (a name for the messages and the generated CUDA) of `program` into the
/// cache, `jobs` nvcc processes at a time, with a progress bar; those already built are kept
/// unless `fresh`. Reports what was built, found built (always when `summary`, else only when
/// something was built) and what failed, with nvcc's first lines. Returns each item's
/// executable, none where it failed to build.
pub fn build(
    program: &str,
    items: &[(&str, &str)],
    arch: &str,
    jobs: Option<usize>,
    summary: bool,
    fresh: bool,
) -> Result<Vec<Option<PathBuf>>, Failure> {
    let tc = toolchain()?;
    let dir = build_dir();
    std::fs::create_dir_all(&dir).map_err(|e| {
        say!("error: cannot create {}: {e}", dir.display());
        Failure::User
    })?;
    irgl_files::sweep_stale(&dir, STALE);
    let exes: Vec<PathBuf> = items
        .iter()
        .map(|(_, cuda)| exe_path(&tc, program, cuda, arch))
        .collect();
    // An item whose executable is another item's is built once.
    let mut todo: Vec<usize> = Vec::new();
    for i in 0..items.len() {
        if (fresh || !exes[i].is_file()) && !todo.iter().any(|&j| exes[j] == exes[i]) {
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
                    if let Err(e) = build_one(&tc, cuda, &exes[i], arch) {
                        failures
                            .lock()
                            .expect("no thread panicked")
                            .push((i, name.to_string(), e));
                    }
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let failures = failures.into_inner().expect("no thread panicked");
    if !todo.is_empty() || summary {
        say!(
            "built {} of {} distinct programs for {arch}, {} already built, {} failed (cache: {})",
            todo.len() - failures.len(),
            items.len(),
            items.len() - todo.len(),
            failures.len(),
            dir.display()
        );
    }
    for (_, name, e) in &failures {
        let first = e.lines().take(4).collect::<Vec<_>>().join("\n  ");
        say!("error: variant {name} does not build, left out:\n  {first}");
    }
    // An item that shares a failed build failed too (with `fresh`, an older executable may
    // still be there: it is not what was asked for).
    let failed: Vec<&PathBuf> = failures.iter().map(|(i, _, _)| &exes[*i]).collect();
    Ok(exes
        .iter()
        .map(|e| (!failed.contains(&e) && e.is_file()).then(|| e.clone()))
        .collect())
}

/// Builds one program into the cache (as [`build`]) and returns its executable.
pub fn build_single(
    program: &str,
    cuda: &str,
    arch: &str,
    fresh: bool,
) -> Result<PathBuf, Failure> {
    let tc = toolchain()?;
    let exe = exe_path(&tc, program, cuda, arch);
    if fresh || !exe.is_file() {
        irgl_files::sweep_stale(&build_dir(), STALE);
        build_one(&tc, cuda, &exe, arch).map_err(|e| {
            say!("error: {e}");
            Failure::User
        })?;
    }
    Ok(exe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_and_code_has_its_own_entry_and_source() {
        let tc = Toolchain {
            nvcc: PathBuf::from("/nonexistent/nvcc"),
            lib_dirs: Vec::new(),
        };
        let header = "// Generated by irglc 0.1.0 from x.irgl. Do not edit.\n// Options: a\n";
        let cuda = |code: &str| format!("{header}{code}");
        let a = exe_path(&tc, "bfs.v2", &cuda("int a;"), "sm_90");
        let b = exe_path(&tc, "bfs.v2", &cuda("int b;"), "sm_90");
        let a90a = exe_path(&tc, "bfs.v2", &cuda("int a;"), "sm_90a");
        assert_ne!(a, b);
        assert_ne!(a, a90a);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("bfs.v2-"), "{name}");
        // The source beside each executable keeps its whole name: two variants of a dotted
        // program never share one `.cu`.
        let (ca, cb) = (
            names::with_added_extension(&a, "cu"),
            names::with_added_extension(&b, "cu"),
        );
        assert_ne!(ca, cb);
        assert!(ca.to_string_lossy().ends_with(&format!("{name}.cu")));
        assert_eq!(
            exe_path(&tc, "программа", &cuda("int a;"), "sm_90")
                .file_name()
                .unwrap()
                .to_string_lossy()
                .split('-')
                .next(),
            Some("программа")
        );
    }
}
