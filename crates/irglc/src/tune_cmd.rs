//! `irglc tune`: the optimization space of a program. `--list` lists the variants (the
//! product of the dimensions the program's structure allows) and which of them generate the
//! same CUDA; `--build` builds each distinct program once into the build cache, in parallel
//! (keyed by its code, the architecture and the runtime headers, so an interrupted build
//! resumes where it stopped). Timing and verifying them on a GPU come next.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use irgl_diagnostics::SourceMap;
use irgl_opt::ScheduleSpec;
use irgl_tune::{SpaceOptions, dimensions, distinct, variants};

use crate::{Failure, load, report};

#[derive(Args)]
pub struct TuneArgs {
    /// The `.irgl` program.
    pub file: PathBuf,
    /// List the variants and exit.
    #[arg(long)]
    pub list: bool,
    /// Build every distinct variant with nvcc into the build cache (already built ones are
    /// kept); a variant that fails to build is reported and left out.
    #[arg(long, conflicts_with = "list")]
    pub build: bool,
    /// The GPU architecture to build for (default: this machine's GPU).
    #[arg(long, value_name = "sm_XX")]
    pub arch: Option<String>,
    /// How many nvcc processes at once (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Block sizes to try, comma-separated (default: 256).
    #[arg(long, value_delimiter = ',', value_name = "N,...")]
    pub block_sizes: Vec<u32>,
    /// Nested-loop schedules to try, comma-separated (default: serial, tb, wp, fg, tb+wp,
    /// tb+fg, wp+fg, tb+wp+fg, eb, tb+wp+eb).
    #[arg(long, value_delimiter = ',', value_name = "SCHEDULE,...")]
    pub schedules: Vec<String>,
}

pub fn tune(args: &TuneArgs) -> Result<(), Failure> {
    if !args.list && !args.build {
        eprintln!(
            "error: irglc tune measures nothing yet: timing and verifying the variants on a GPU is not implemented; `irglc tune {} --list` lists them, `--build` builds them",
            args.file.display()
        );
        return Err(Failure::User);
    }
    let arch = if args.build {
        Some(crate::build_cmd::arch(&args.arch)?)
    } else {
        None
    };
    let mut opts = SpaceOptions::default();
    if !args.block_sizes.is_empty() {
        opts.block_sizes = args.block_sizes.clone();
    }
    if !args.schedules.is_empty() {
        opts.schedules = args
            .schedules
            .iter()
            .map(|s| ScheduleSpec::parse(s))
            .collect::<Result<_, _>>()
            .map_err(|e| {
                eprintln!("error: --schedules: {e}");
                Failure::User
            })?;
    }
    let mut sources = SourceMap::new();
    let file = load(&mut sources, &args.file)?;
    let text = sources
        .get(file)
        .map(|f| f.text.clone())
        .unwrap_or_default();
    let name = args.file.display().to_string();
    let source = irgl_driver::Source {
        file,
        name: &name,
        text: &text,
    };
    let (module, warnings) = irgl_driver::lower(source).map_err(|diags| {
        report::eprint(&diags, &sources);
        Failure::User
    })?;
    report::eprint(&warnings, &sources);
    let d = dimensions(&module, &opts);
    let vs = variants(&d);
    let groups = distinct(source, &vs).map_err(|(variant, diags)| {
        eprintln!("error: variant {variant} does not compile:");
        report::eprint(&diags, &sources);
        Failure::User
    })?;
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} x {} x {} x {} = {}, {}",
        module.name,
        plural(d.schedules.len(), "schedule", "schedules"),
        plural(
            d.aggregates.len(),
            "aggregation level",
            "aggregation levels"
        ),
        plural(d.outlines.len(), "outline choice", "outline choices"),
        plural(d.block_sizes.len(), "block size", "block sizes"),
        plural(vs.len(), "variant", "variants"),
        plural(groups.len(), "distinct program", "distinct programs"),
    );
    for f in &d.fixed {
        let _ = writeln!(out, "  fixed {f}");
    }
    let width = vs.iter().map(|v| v.name.len()).max().unwrap_or(0);
    for g in &groups {
        let first = &vs[g.members[0]];
        let _ = writeln!(out, "{:width$}  {}", first.name, first.config.canonical());
        for &i in &g.members[1..] {
            let _ = writeln!(out, "  {:width$}same CUDA as {}", vs[i].name, first.name);
        }
    }
    crate::print_out(&out);
    if let Some(arch) = arch {
        build_all(&module.name, &vs, &groups, &arch, args.jobs)?;
    }
    Ok(())
}

/// Builds the distinct programs into the cache, `jobs` nvcc processes at a time, with a
/// progress bar; reports what was built, found built, and failed.
fn build_all(
    program: &str,
    vs: &[irgl_tune::Variant],
    groups: &[irgl_tune::Group],
    arch: &str,
    jobs: Option<usize>,
) -> Result<(), Failure> {
    let tc = crate::toolchain::find_toolchain().map_err(|e| {
        eprintln!("error: {e}");
        Failure::User
    })?;
    let runtime = crate::toolchain::runtime_key();
    let dir = crate::toolchain::cache_dir().join("build");
    std::fs::create_dir_all(&dir).map_err(|e| {
        eprintln!("error: cannot create {}: {e}", dir.display());
        Failure::User
    })?;
    let exes: Vec<PathBuf> = groups
        .iter()
        .map(|g| {
            let key = crate::toolchain::fnv1a(&[
                g.code().as_bytes(),
                arch.as_bytes(),
                &runtime.to_le_bytes(),
            ]);
            dir.join(format!("{program}-{key:016x}"))
        })
        .collect();
    let todo: Vec<usize> = (0..groups.len()).filter(|&i| !exes[i].is_file()).collect();
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
                    let name = &vs[groups[i].members[0]].name;
                    bar.set_message(name.clone());
                    let cu = exes[i].with_extension("cu");
                    let built = std::fs::write(&cu, &groups[i].cuda)
                        .map_err(|e| format!("cannot write {}: {e}", cu.display()))
                        .and_then(|()| crate::toolchain::nvcc_build(&tc, &cu, &exes[i], arch));
                    if let Err(e) = built {
                        let _ = std::fs::remove_file(&exes[i]);
                        failures
                            .lock()
                            .expect("no thread panicked")
                            .push((name.clone(), e));
                    }
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let failures = failures.into_inner().expect("no thread panicked");
    eprintln!(
        "built {} of {} distinct programs for {arch}, {} already built, {} failed (cache: {})",
        todo.len() - failures.len(),
        groups.len(),
        groups.len() - todo.len(),
        failures.len(),
        dir.display()
    );
    for (name, e) in &failures {
        let first = e.lines().take(4).collect::<Vec<_>>().join("\n  ");
        eprintln!("error: variant {name} does not build, left out:\n  {first}");
    }
    if failures.len() == groups.len() {
        eprintln!("error: no variant of {program} builds: nothing to tune");
        return Err(Failure::User);
    }
    Ok(())
}
