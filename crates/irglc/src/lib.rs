//! `irglc`: the command line. All file, process and terminal I/O of the compiler happens
//! here; the crates behind it are pure. [`main`] is the binary's entry point; [`run_args`]
//! runs one command line in this process without touching signals (the fuzz targets).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand, ValueEnum};
use irgl_diagnostics::{Diagnostic, SourceMap};

/// Writes a line to stderr (`eprintln!` panics on a broken stderr: `irglc ... 2>&1 | head`).
/// A stderr that cannot be written is ignored; the work goes on and its records are saved.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::stderr_text(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod bench_cmd;
mod build_cache;
mod build_cmd;
mod graph_cmd;
mod mesh_cmd;
mod opts;
mod output_check;
mod parts_folder;
mod peer;
pub mod process;
mod report;
mod toolchain;
mod tune_cmd;
mod tune_run;
mod verify_cmd;

/// The IrGL compiler: checks IrGL graph programs and compiles them to CUDA.
///
/// Exit status: 0 success, 1 a problem with your input (a program with errors, a bad
/// graph file, a mismatch found by `verify`), 2 an internal error of irglc.
#[derive(Parser)]
#[command(name = "irglc", version, about, long_about = None)]
#[command(
    after_help = "Exit status: 0 success, 1 a problem with the input (a program with \
errors, a bad graph file, a mismatch found by verify), 2 an internal error of irglc.

Start with `irglc check programs/bfs.irgl`; the language is described in docs/language.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and check programs, reporting every error found.
    Check {
        /// The `.irgl` files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Rewrite programs in the canonical layout (comments are kept).
    Fmt {
        /// The `.irgl` files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Do not write; exit with status 1 if a file is not formatted.
        #[arg(long)]
        check: bool,
        /// Print the formatted program instead of rewriting the file.
        #[arg(long, conflicts_with = "check")]
        stdout: bool,
    },
    /// Print an internal representation of a program.
    Emit {
        /// What to print.
        what: EmitKind,
        /// The `.irgl` file.
        file: PathBuf,
        /// For `ir`: print the IR after this step of the pipeline (`lower`, or a pass such
        /// as `schedule_nested_loops`) instead of after the last.
        #[arg(long, value_name = "STEP")]
        after: Option<String>,
        /// For `ir`: prefix each statement with its handle (`s12:`).
        #[arg(long)]
        ids: bool,
        #[command(flatten)]
        opts: opts::OptArgs,
    },
    /// Compile a program to CUDA source.
    Compile(build_cmd::CompileArgs),
    /// Compile a program to an executable with nvcc.
    Build(build_cmd::BuildArgs),
    /// Build a program (cached) and run it on a graph, converting the graph if needed.
    Run(build_cmd::RunArgs),
    /// Graph tools: convert between formats, describe, generate.
    #[command(subcommand)]
    Graph(graph_cmd::GraphCommand),
    /// Mesh tools for Delaunay mesh refinement: generate, convert, describe, refine on the CPU.
    #[command(subcommand)]
    Mesh(mesh_cmd::MeshCommand),
    /// Compare a program's output file with the CPU reference (for dmr: check a refined mesh).
    Verify(verify_cmd::VerifyCli),
    /// The optimization space of a program: `--list` prints its variants (the options its
    /// structure allows) and which generate the same CUDA.
    Tune(tune_cmd::TuneArgs),
    /// Run a benchmark suite (programs x graphs x option sets, every output verified, JSON
    /// records), compare two records, or show records' tables: `irglc bench SUITE.toml`,
    /// `irglc bench compare OLD NEW`, `irglc bench show RECORDS...`.
    Bench(bench_cmd::BenchArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum EmitKind {
    /// The syntax tree, one declaration or statement a line, expressions as S-expressions.
    Ast,
    /// The middle end's IR after the optimization passes the options select (schedules,
    /// shared memory, and why a loop kept its serial schedule).
    Ir,
    /// The outline tree: the Iterate and Pipe regions of main, nested, each outlinable into
    /// a device control kernel or not, with the reason; then, for each worklist kernel,
    /// whether it can run asynchronously (`--async`), and why not.
    Outline,
    /// Whether the program can run partitioned over several GPUs (docs/multi-gpu.md): what
    /// each round would exchange per node property, or the first thing that prevents it.
    Partition,
}

/// Whether a write to stdout failed for another reason than a reader that stopped early.
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes a command's output to stdout. A reader that stops early (`| head`) is not an error:
/// the rest is dropped, as other tools do, and the command runs to its end. Any other
/// failure (a full disk) is reported once and makes the exit status 1.
pub(crate) fn print_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
        && !STDOUT_FAILED.swap(true, Ordering::Relaxed)
    {
        say!("error: cannot write the output: {e}");
    }
}

/// Writes text to stderr, ignoring a stderr that cannot be written.
pub(crate) fn stderr_text(text: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// The outcome of a command that did not succeed.
pub(crate) enum Failure {
    /// The user's input is wrong; already reported.
    User,
}

/// The binary's entry point: signal handlers, then [`run_args`] on the process's arguments.
pub fn main() -> ExitCode {
    process::install_signal_handlers();
    run_args(std::env::args_os().collect())
}

/// Runs one command line (`args[0]` is the program's name) and returns its exit status:
/// 0 success, 1 a problem with the input, 2 an internal error (a panic is caught and
/// reported as one). The command runs on a thread whose stack is known to fit the deepest
/// program the parser accepts, whatever the calling thread's.
pub fn run_args(args: Vec<std::ffi::OsString>) -> ExitCode {
    STDOUT_FAILED.store(false, Ordering::Relaxed);
    let worker = std::thread::Builder::new()
        .name("irglc".to_string())
        .stack_size(irgl_driver::STACK_BYTES)
        .spawn(move || {
            // A bad flag is a problem with the input: status 1 (help and version: 0).
            let cli = match Cli::try_parse_from(args) {
                Ok(cli) => cli,
                Err(e) => {
                    let _ = e.print();
                    return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
                }
            };
            let code = run(cli);
            if STDOUT_FAILED.load(Ordering::Relaxed) && code == ExitCode::SUCCESS {
                ExitCode::from(1)
            } else {
                code
            }
        });
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => {
            say!(
                "error: internal compiler error (a bug in irglc); please report it with the input that caused it"
            );
            ExitCode::from(2)
        }
        Err(e) => {
            say!("error: cannot start a thread: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Check { files } => check(&files),
        Command::Fmt {
            files,
            check,
            stdout,
        } => fmt(&files, check, stdout),
        Command::Emit {
            what,
            file,
            after,
            ids,
            opts,
        } => emit(what, &file, after.as_deref(), ids, &opts),
        Command::Compile(args) => build_cmd::compile(&args),
        Command::Build(args) => build_cmd::build(&args),
        Command::Tune(args) => tune_cmd::tune(&args),
        Command::Bench(args) => bench_cmd::bench(&args),
        Command::Run(args) => return build_cmd::run(&args),
        Command::Graph(cmd) => return graph_cmd::run(cmd),
        Command::Mesh(cmd) => return mesh_cmd::run(cmd),
        Command::Verify(args) => return verify_cmd::run_cli(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::User) => ExitCode::from(1),
    }
}

/// Reads a source file into the map, reporting I/O errors.
pub(crate) fn load(
    sources: &mut SourceMap,
    path: &PathBuf,
) -> Result<irgl_diagnostics::FileId, Failure> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(sources.add(path.display().to_string(), text)),
        Err(e) => {
            say!("error: cannot read {}: {e}", path.display());
            Err(Failure::User)
        }
    }
}

/// Parses and checks one file; prints its diagnostics; returns whether it had no errors.
pub(crate) fn check_file(
    sources: &mut SourceMap,
    path: &PathBuf,
) -> Result<(irgl_syntax::ast::Program, irgl_check::ProgramInfo), Failure> {
    let file = load(sources, path)?;
    let text = sources
        .get(file)
        .map(|f| f.text.clone())
        .unwrap_or_default();
    let (program, mut diags) = irgl_syntax::parse(file, &text);
    if diags.iter().any(Diagnostic::is_error) {
        report::eprint(&diags, sources);
        return Err(Failure::User);
    }
    let (info, check_diags) = irgl_check::check(&program);
    diags.extend(check_diags);
    report::eprint(&diags, sources);
    if diags.iter().any(Diagnostic::is_error) {
        Err(Failure::User)
    } else {
        Ok((program, info))
    }
}

fn check(files: &[PathBuf]) -> Result<(), Failure> {
    let mut sources = SourceMap::new();
    let mut failed = 0;
    for path in files {
        if check_file(&mut sources, path).is_err() {
            failed += 1;
        }
    }
    if failed > 0 {
        say!("{failed} of {} file(s) have errors", files.len());
        Err(Failure::User)
    } else {
        say!("{} file(s) checked, no errors", files.len());
        Ok(())
    }
}

fn fmt(files: &[PathBuf], check: bool, stdout: bool) -> Result<(), Failure> {
    let mut sources = SourceMap::new();
    let mut failed = false;
    for path in files {
        let file = load(&mut sources, path)?;
        let text = sources
            .get(file)
            .map(|f| f.text.clone())
            .unwrap_or_default();
        let formatted = match irgl_syntax::print::format_source(file, &text) {
            Ok(f) => f,
            Err(diags) => {
                report::eprint(&diags, &sources);
                failed = true;
                continue;
            }
        };
        if stdout {
            print_out(&formatted);
        } else if check {
            if formatted != text {
                say!(
                    "{}: not formatted (run `irglc fmt {}`)",
                    path.display(),
                    path.display()
                );
                failed = true;
            }
        } else if formatted != text {
            // Whole or not at all: a full disk leaves the source as it was.
            if let Err(e) = irgl_files::write_bytes(path, formatted.as_bytes()) {
                say!("error: cannot write {}: {e}", path.display());
                failed = true;
            }
        }
    }
    if failed { Err(Failure::User) } else { Ok(()) }
}

fn emit(
    what: EmitKind,
    path: &PathBuf,
    after: Option<&str>,
    ids: bool,
    opts: &opts::OptArgs,
) -> Result<(), Failure> {
    let mut sources = SourceMap::new();
    match what {
        EmitKind::Ast => {
            let (program, _info) = check_file(&mut sources, path)?;
            print_out(&irgl_syntax::dump::dump_program(&program));
        }
        EmitKind::Ir => {
            let mut shown: Option<String> = None;
            let mut steps: Vec<String> = Vec::new();
            let dump_opts = irgl_ir::DumpOptions { stmt_ids: ids };
            let mut on_step = |step: &str, m: &irgl_ir::Module| {
                steps.push(step.to_string());
                if after.is_none_or(|a| a == step) {
                    shown = Some(irgl_ir::dump_module(m, dump_opts));
                }
            };
            let mut trace = irgl_driver::Trace {
                on_step: Some(&mut on_step),
                ..irgl_driver::Trace::default()
            };
            let (_, choices) = compile_traced(&mut sources, path, opts, &mut trace)?;
            drop(trace);
            match shown {
                Some(text) => {
                    let head = choices.map(|c| c.render()).unwrap_or_default();
                    print_out(&format!("{head}{text}"))
                }
                None => {
                    say!(
                        "error: --after {}: no such step; the steps are {}",
                        after.unwrap_or_default(),
                        steps.join(", ")
                    );
                    return Err(Failure::User);
                }
            }
        }
        EmitKind::Partition => {
            let mut lowered: Option<irgl_ir::Module> = None;
            let mut on_step = |step: &str, m: &irgl_ir::Module| {
                if step == "lower" {
                    lowered = Some(m.clone());
                }
            };
            let mut trace = irgl_driver::Trace {
                on_step: Some(&mut on_step),
                ..irgl_driver::Trace::default()
            };
            compile_traced(&mut sources, path, opts, &mut trace)?;
            drop(trace);
            // Judged on the program as written, before the passes.
            let m = lowered.expect("the pipeline lowers first");
            print_out(&irgl_analysis::PartitionPlan::build(&m).render(&m));
        }
        EmitKind::Outline => {
            let mut module: Option<irgl_ir::Module> = None;
            let mut lowered: Option<irgl_ir::Module> = None;
            let mut on_step = |step: &str, m: &irgl_ir::Module| {
                if step == "lower" {
                    lowered = Some(m.clone());
                }
                module = Some(m.clone());
            };
            let mut trace = irgl_driver::Trace {
                on_step: Some(&mut on_step),
                ..irgl_driver::Trace::default()
            };
            compile_traced(&mut sources, path, opts, &mut trace)?;
            drop(trace);
            let m = module.expect("the pipeline ran");
            let lowered = lowered.expect("the pipeline lowers first");
            // Asynchrony is judged on the program as written (before it removes rounds).
            print_out(&format!(
                "{}{}{}{}",
                irgl_analysis::OutlineTree::build(&m).render(&m),
                irgl_analysis::AsyncCandidates::build(&lowered).render(&lowered),
                irgl_analysis::SettleCandidates::build(&lowered).render(&lowered),
                irgl_analysis::SplitCandidates::build(&lowered).render(&lowered)
            ));
        }
    }
    Ok(())
}

/// Reads, checks and compiles one file with the options `opts` give; prints its diagnostics.
pub(crate) fn compile_file(
    sources: &mut SourceMap,
    path: &PathBuf,
    opts: &opts::OptArgs,
) -> Result<irgl_driver::Compiled, Failure> {
    compile_traced(sources, path, opts, &mut irgl_driver::Trace::default()).map(|(c, _)| c)
}

/// [`compile_file`] with the pipeline's trace; also returns what the level chose (none with
/// `--config`).
fn compile_traced(
    sources: &mut SourceMap,
    path: &PathBuf,
    opts: &opts::OptArgs,
    trace: &mut irgl_driver::Trace<'_>,
) -> Result<(irgl_driver::Compiled, Option<irgl_driver::LevelChoices>), Failure> {
    let file = load(sources, path)?;
    let text = sources
        .get(file)
        .map(|f| f.text.clone())
        .unwrap_or_default();
    let name = path.display().to_string();
    let source = irgl_driver::Source {
        file,
        name: &name,
        text: &text,
    };
    let (config, choices) = match opts.resolve(source) {
        Ok(resolved) => resolved,
        Err(opts::OptError::Program(diags)) => {
            report::eprint(&diags, sources);
            return Err(Failure::User);
        }
        Err(opts::OptError::Options(e)) => {
            say!("error: {e}");
            return Err(Failure::User);
        }
    };
    match irgl_driver::compile_traced(source, &config, trace) {
        Ok(c) => {
            report::eprint(&c.warnings, sources);
            Ok((c, choices))
        }
        Err(diags) => {
            report::eprint(&diags, sources);
            Err(Failure::User)
        }
    }
}
