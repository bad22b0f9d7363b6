//! `irglc bench SUITE.toml`: every program of a suite on each of its graphs under each of its
//! option sets, built once per distinct program (the build cache of `irglc tune`), run with
//! several timed runs in one process, each output checked against the CPU reference, and the
//! medians written as JSON records with the GPU, the driver and the exact options; with the
//! source trees of peers (GAP, LonestarGPU, the ECL codes: `--gapbs DIR`, `--lonestargpu DIR`,
//! `--ecl DIR` or the suite's sections), their matching kernels run on the same converted
//! graphs in the same run, right after the programs on each graph (`crate::peer`).
//! `irglc bench compare OLD NEW` prints the speedups between two such files and flags the
//! changes beyond the noise.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use irgl_diagnostics::SourceMap;
use irgl_graph::verify::Program;
use irgl_tune::Outcome;
use irgl_tune::bench::{
    BenchRecord, BenchReport, GraphSpec, Suite, Verdict, compare, compare_table,
};

use crate::output_check::{CheckCommand, VerifyArg};
use crate::peer::{PeerDirs, PeerJob, Peers};
use crate::tune_run::{RunSpec, run_variant};
use crate::{Failure, load, report};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: Option<BenchCommand>,
    /// The suite: a TOML file of graphs, option sets and programs (docs/testing.md).
    pub suite: Option<PathBuf>,
    /// Where the records go (default: bench-SUITE.json in the current folder).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// A GAP benchmark suite source tree to build and run beside the programs (overrides the
    /// suite's `[gapbs] path`).
    #[arg(long, value_name = "DIR")]
    pub gapbs: Option<PathBuf>,
    /// A LonestarGPU tree (its build.sh) to build and run beside the programs (overrides the
    /// suite's `[lonestargpu] path`).
    #[arg(long, value_name = "DIR")]
    pub lonestargpu: Option<PathBuf>,
    /// A folder of the ECL codes (ECL-CC, ECL-MIS, ECL-MST, ECL-GC) to build and run beside
    /// the programs (overrides the suite's `[ecl] path`).
    #[arg(long, value_name = "DIR")]
    pub ecl: Option<PathBuf>,
    /// Timed runs per program, graph and set (overrides the suite's `runs`).
    #[arg(long, value_name = "N")]
    pub runs: Option<u32>,
    /// Only the programs whose name contains one of these texts, comma-separated (`cc`
    /// keeps cc and cc-lp; `tc,mst` both).
    #[arg(long, value_delimiter = ',', value_name = "TEXT,...")]
    pub only: Vec<String>,
    /// Only these graphs of the suite, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub graphs: Vec<String>,
    /// The GPU architecture to build for (default: this machine's GPU).
    #[arg(long, value_name = "sm_XX")]
    pub arch: Option<String>,
    /// How many nvcc processes at once (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Build every program again, even those already in the build cache.
    #[arg(long)]
    pub fresh: bool,
}

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Compare two records of `irglc bench`: the speedup of each program, graph and set they
    /// share, and the changes beyond the noise (exit status 1 if one got slower or stopped
    /// being correct).
    Compare {
        old: PathBuf,
        new: PathBuf,
        /// The smallest relative change that counts; a pair whose runs spread more counts
        /// only beyond their spread.
        #[arg(long, default_value_t = 0.05, value_name = "FRACTION")]
        threshold: f64,
    },
    /// Print the tables of a run from its records, such as those a run stopped early left
    /// (the records are rewritten after every program and graph); given several, of their
    /// records together (one suite run in parts, `--graphs` by `--graphs`, on one GPU).
    Show {
        #[arg(required = true)]
        records: Vec<PathBuf>,
    },
}

pub fn bench(args: &BenchArgs) -> Result<(), Failure> {
    match (&args.command, &args.suite) {
        (
            Some(BenchCommand::Compare {
                old,
                new,
                threshold,
            }),
            _,
        ) => compare_files(old, new, *threshold),
        (Some(BenchCommand::Show { records }), _) => show_files(records),
        (None, Some(suite)) => run_suite(args, suite),
        (None, None) => {
            say!(
                "error: irglc bench needs a suite (`irglc bench bench/paper.toml`), `compare OLD.json NEW.json` or `show RECORDS.json...`"
            );
            Err(Failure::User)
        }
    }
}

fn write_report(report: &BenchReport, out: &Path) -> Result<(), Failure> {
    let json = serde_json::to_string_pretty(report).expect("plain data serializes");
    irgl_files::write_bytes(out, json.as_bytes()).map_err(|e| {
        say!("error: cannot write {}: {e}", out.display());
        Failure::User
    })
}

/// `irglc bench show RECORDS...`: the tables of a run, from its records (of several runs'
/// records together).
fn show_files(paths: &[PathBuf]) -> Result<(), Failure> {
    let reports = paths
        .iter()
        .map(|p| read_report(p))
        .collect::<Result<Vec<_>, _>>()?;
    let report = irgl_tune::bench::merge(reports).map_err(|e| {
        say!("error: {e}");
        Failure::User
    })?;
    crate::print_out(&irgl_tune::bench::tables(&report));
    Ok(())
}

fn read_report(path: &Path) -> Result<BenchReport, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        say!("error: cannot read {}: {e}", path.display());
        Failure::User
    })?;
    let report: BenchReport = serde_json::from_str(&text).map_err(|e| {
        say!(
            "error: {}: not a record of irglc bench: {e}",
            path.display()
        );
        Failure::User
    })?;
    for r in &report.records {
        let median = r.median_ms.filter(|m| !(m.is_finite() && *m >= 0.0));
        if let Err(why) = r.outcome.check().and_then(|()| match median {
            Some(m) => Err(format!("a median of {m} ms")),
            None => Ok(()),
        }) {
            say!(
                "error: {}: not a record of irglc bench: {} on {} [{}] has {why}",
                path.display(),
                r.program,
                r.graph,
                r.set
            );
            return Err(Failure::User);
        }
    }
    Ok(report)
}

fn compare_files(old: &Path, new: &Path, threshold: f64) -> Result<(), Failure> {
    if !(threshold >= 0.0 && threshold.is_finite()) {
        say!("error: --threshold {threshold}: a fraction of 0 or more, such as 0.05");
        return Err(Failure::User);
    }
    let (a, b) = (read_report(old)?, read_report(new)?);
    if a.gpu != b.gpu {
        say!(
            "warning: the records come from different GPUs ({} and {}): their times do not compare",
            a.gpu.as_deref().unwrap_or("unknown"),
            b.gpu.as_deref().unwrap_or("unknown")
        );
    }
    let changes = compare(&a, &b, threshold);
    if changes.is_empty() {
        say!("error: the two records share no program, graph and set");
        return Err(Failure::User);
    }
    crate::print_out(&compare_table(&changes));
    let count = |v: Verdict| changes.iter().filter(|c| c.verdict == v).count();
    let (slower, broken) = (count(Verdict::Regression), count(Verdict::Broken));
    crate::print_out(&format!(
        "{} compared: {} faster, {slower} slower beyond the noise, {broken} no longer correct\n",
        changes.len(),
        count(Verdict::Faster)
    ));
    if slower + broken > 0 {
        return Err(Failure::User);
    }
    Ok(())
}

/// How a suite's program has its outputs checked.
enum BenchCheck {
    /// Against the CPU reference of its family (the peers run beside it where they have the
    /// kernel).
    Family(Program),
    /// By the suite's command.
    Command(CheckCommand),
    /// Not at all (`verify = "none"`).
    Unchecked,
}

impl BenchCheck {
    /// The program's family, where its outputs are checked by one.
    fn family(&self) -> Option<Program> {
        match self {
            BenchCheck::Family(f) => Some(*f),
            _ => None,
        }
    }

    /// What the records say of a check that is not the family's reference.
    fn record(&self) -> Option<String> {
        match self {
            BenchCheck::Family(_) => None,
            BenchCheck::Command(c) => Some(format!("checked by `{}`", c.template)),
            BenchCheck::Unchecked => Some("NOT CHECKED (verify = \"none\")".to_string()),
        }
    }
}

/// A program of the suite, compiled under each of its sets.
struct Prepared {
    name: String,
    check: BenchCheck,
    needs: irgl_cuda::GraphNeeds,
    /// Per set: its name, its canonical options and its code, or why it does not apply.
    sets: Vec<(String, String, Result<String, String>)>,
    /// Per set: its executable, none where it does not apply or did not build.
    exes: Vec<Option<PathBuf>>,
}

fn run_suite(args: &BenchArgs, path: &Path) -> Result<(), Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        say!("error: cannot read {}: {e}", path.display());
        Failure::User
    })?;
    let mut suite = Suite::parse(&text).map_err(|e| {
        say!("error: {}: {e}", path.display());
        Failure::User
    })?;
    if let Some(g) = args
        .graphs
        .iter()
        .find(|g| !suite.graphs.iter().any(|x| &&x.name == g))
    {
        say!(
            "error: --graphs {g}: the suite has no such graph (it has {})",
            suite
                .graphs
                .iter()
                .map(|x| x.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Err(Failure::User);
    }
    if !args.graphs.is_empty() {
        suite.graphs.retain(|g| args.graphs.contains(&g.name));
    }
    let names: Vec<String> = suite
        .programs
        .iter()
        .filter_map(|p| Path::new(&p.file).file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if !args.only.is_empty()
        && !names
            .iter()
            .any(|n| args.only.iter().any(|t| n.contains(t.as_str())))
    {
        say!(
            "error: no program of the suite has a name containing {} (--only); its programs: {}",
            args.only.join(" or "),
            names.join(", ")
        );
        return Err(Failure::User);
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let runs = args.runs.unwrap_or(suite.runs);
    irgl_tune::check_runs(runs).map_err(|e| {
        say!("error: --runs {e}");
        Failure::User
    })?;
    let timeout = irgl_tune::check_timeout(suite.timeout).map_err(|e| {
        say!("error: {}: timeout = {e}", path.display());
        Failure::User
    })?;
    // Where the records go: never over the suite itself.
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("bench-{}.json", irgl_files::names::stem(path))));
    crate::build_cmd::refuse_inputs(&[&out], &[path])?;
    let arch = crate::build_cmd::arch(&args.arch)?;
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Every program first: one that does not check stops the run before anything is built.
    let mut prepared = Vec::new();
    for p in &suite.programs {
        let file = normalize(&base.join(&p.file));
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !args.only.is_empty() && !args.only.iter().any(|t| stem.contains(t.as_str())) {
            continue;
        }
        prepared.push((p, prepare(&suite, p, &file)?));
    }
    // Build every distinct program of the run first.
    for (_, pp) in &mut prepared {
        let built: Vec<usize> = (0..pp.sets.len())
            .filter(|&i| pp.sets[i].2.is_ok())
            .collect();
        let items: Vec<(&str, &str)> = built
            .iter()
            .map(|&i| {
                let (name, _, code) = &pp.sets[i];
                (name.as_str(), code.as_deref().unwrap_or_default())
            })
            .collect();
        let exes =
            crate::build_cache::build(&pp.name, &items, &arch, args.jobs, false, args.fresh)?;
        for (i, exe) in built.into_iter().zip(exes) {
            pp.exes[i] = exe;
        }
    }
    let mut report = BenchReport {
        suite: path.display().to_string(),
        gpu: None,
        driver: driver_version(),
        irglc: env!("CARGO_PKG_VERSION").to_string(),
        started,
        runs,
        peer_threads: None,
        records: Vec::new(),
        peers: Vec::new(),
        complete: false,
        families: prepared
            .iter()
            .filter_map(|(_, pp)| Some((pp.name.clone(), pp.check.family()?.name().to_string())))
            .collect(),
        default_set: suite.default_set.clone(),
    };
    // The programs' outputs, each removed once checked (and the folder at the end).
    let out_dir = tempfile::Builder::new()
        .prefix("irglc-bench-")
        .tempdir()
        .map_err(|e| {
            say!("error: cannot create a temporary folder: {e}");
            Failure::User
        })?;
    // The peers, built before anything runs.
    let dirs = PeerDirs {
        gapbs: args.gapbs.clone().or_else(|| {
            suite
                .gapbs
                .as_ref()
                .and_then(|g| g.path.as_ref())
                .map(|p| base.join(p))
        }),
        lonestargpu: args
            .lonestargpu
            .clone()
            .or_else(|| suite.lonestargpu.as_ref().map(|p| base.join(&p.path))),
        ecl: args
            .ecl
            .clone()
            .or_else(|| suite.ecl.as_ref().map(|p| base.join(&p.path))),
    };
    let gap_delta = suite.gapbs.as_ref().map_or(256, |g| g.delta);
    let peers = Peers::build(&dirs, &arch, gap_delta)?;
    if dirs.gapbs.is_some() {
        report.peer_threads = std::thread::available_parallelism().ok().map(|n| n.get());
    }
    for (p, pp) in &prepared {
        for g in suite.graphs_of(p) {
            let input = graph_file(g, base)?;
            let gr = crate::build_cmd::prepare_graph(&input, &pp.needs, suite.weights_seed)?;
            // The graph as the CPU reference and the peers read it, where the check is a
            // reference.
            let csr = match pp.check.family() {
                Some(_) => Some(
                    crate::graph_cmd::load_graph(
                        &gr,
                        &crate::graph_cmd::InputOptions {
                            format: None,
                            keep_ids: false,
                        },
                    )
                    .map_err(|e| {
                        say!("error: {e}");
                        Failure::User
                    })?
                    .0,
                ),
                None => None,
            };
            let verifier = csr.as_ref().map(irgl_graph::verify::Verifier::new);
            // The parameters and rounds of the program's first correct run, for the peers.
            let mut first_ok: Option<ParamsAndRounds> = None;
            for ((set, options, code), exe) in pp.sets.iter().zip(&pp.exes) {
                let output = out_dir
                    .path()
                    .join(format!("{}.{}.{set}.out", pp.name, g.name));
                let ran = match (code, exe) {
                    (Err(why), _) => Ran::failed(why.clone()),
                    (Ok(_), None) => Ran::failed("it does not build".to_string()),
                    (Ok(_), Some(exe)) => {
                        let spec = RunSpec {
                            exe,
                            graph: &gr,
                            output: &output,
                            repeat: runs,
                            timeout,
                            args: &p.args,
                        };
                        run_and_check(&spec, &pp.check, verifier.as_ref())
                    }
                };
                let _ = std::fs::remove_file(&output);
                if report.gpu.is_none() {
                    report.gpu.clone_from(&ran.device);
                }
                if first_ok.is_none() && matches!(ran.outcome, Outcome::Ok { .. }) {
                    first_ok = Some((ran.params.clone(), ran.rounds));
                }
                let mut record =
                    BenchRecord::new(&pp.name, &g.name, set, options.clone(), ran.outcome);
                record.iterations = ran.rounds;
                record.kernels = ran.kernels;
                record.check = pp.check.record();
                say!("{}", progress_line(&record));
                report.records.push(record);
            }
            // The peers on the same graph, while its references are at hand.
            if let (Some(family), Some(csr), Some(verifier), Some((params, rounds))) =
                (pp.check.family(), &csr, &verifier, &first_ok)
                && peers.any()
            {
                let job = PeerJob {
                    family,
                    graph: &g.name,
                    gr: &gr,
                    csr,
                    verifier,
                    symmetric: pp.needs.symmetric,
                    params,
                    rounds: *rounds,
                };
                peers.run(&job, runs, timeout, &mut report.peers)?;
            }
            // What was measured so far, whole or not at all: a run stopped by a time limit
            // leaves its records (`irglc bench show` prints their tables).
            write_report(&report, &out)?;
        }
    }
    drop(out_dir);
    report.complete = true;
    // The records first: a reader of the table that stops early loses nothing.
    write_report(&report, &out)?;
    crate::print_out(&irgl_tune::bench::tables(&report));
    say!("records: {}", out.display());
    let wrong = report
        .records
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Wrong { .. }))
        .count();
    if wrong > 0 {
        say!("error: {wrong} runs did not match the CPU reference");
        return Err(Failure::User);
    }
    if report.records.iter().all(|r| r.median_ms.is_none()) {
        say!("error: no run succeeded (see the failures above)");
        return Err(Failure::User);
    }
    Ok(())
}

/// What one program, graph and set gave.
struct Ran {
    outcome: Outcome,
    /// Rounds of the host loops, parameters (from the output file) and GPU, where it ran.
    rounds: Option<u64>,
    params: Vec<(String, String)>,
    device: Option<String>,
    /// Each kernel's median time, where the program's arguments ask for them.
    kernels: Vec<(String, f64)>,
}

impl Ran {
    fn failed(why: String) -> Ran {
        Ran {
            outcome: Outcome::Failed { why },
            rounds: None,
            params: Vec::new(),
            device: None,
            kernels: Vec::new(),
        }
    }
}

/// Runs a built program and checks its output (`vf`: the graph's CPU references, where the
/// check is one).
fn run_and_check(
    spec: &RunSpec<'_>,
    check: &BenchCheck,
    vf: Option<&irgl_graph::verify::Verifier<'_>>,
) -> Ran {
    match run_variant(spec) {
        Ok(r) => Ran {
            outcome: match (check, vf) {
                (BenchCheck::Family(family), Some(vf)) => {
                    crate::tune_cmd::check(*family, vf, spec.output, r.times_ms)
                }
                (BenchCheck::Command(c), _) => crate::tune_cmd::outcome(
                    c.check(spec.graph, spec.output, spec.timeout),
                    "the check command rejected it",
                    r.times_ms,
                ),
                _ => Outcome::Ok {
                    times_ms: r.times_ms,
                },
            },
            rounds: r.iterations,
            params: params_of(spec.output),
            device: r.device,
            kernels: r.kernels,
        },
        Err(outcome) => Ran {
            outcome,
            ..Ran::failed(String::new())
        },
    }
}

/// A run's parameters (from its output file) and the rounds of its host loops.
type ParamsAndRounds = (Vec<(String, String)>, Option<u64>);

/// Compiles a program under each of the suite's sets it runs under.
fn prepare(
    suite: &Suite,
    p: &irgl_tune::bench::ProgramSpec,
    file: &Path,
) -> Result<Prepared, Failure> {
    let mut sources = SourceMap::new();
    let id = load(&mut sources, &file.to_path_buf())?;
    let text = sources.get(id).map(|f| f.text.clone()).unwrap_or_default();
    let name = file.display().to_string();
    let source = irgl_driver::Source {
        file: id,
        name: &name,
        text: &text,
    };
    let (module, _) = irgl_driver::lower(source).map_err(|diags| {
        report::eprint(&diags, &sources);
        Failure::User
    })?;
    let check = match (&p.check, p.verify.as_deref()) {
        (Some(c), _) => BenchCheck::Command(CheckCommand::parse(c).map_err(|e| {
            say!("error: program {}: check = {e}", p.file);
            Failure::User
        })?),
        (None, Some(v)) => match crate::output_check::parse_verify(v) {
            Ok(VerifyArg::Family(f)) => BenchCheck::Family(f),
            Ok(VerifyArg::None) => BenchCheck::Unchecked,
            Err(e) => {
                say!("error: program {}: verify = {e}", p.file);
                return Err(Failure::User);
            }
        },
        (None, None) => BenchCheck::Family(crate::tune_cmd::family_of(&module.name).ok_or_else(
            || {
                say!(
                    "error: {}: no CPU reference is named like {}: give the program verify = \"FAMILY\", check = \"CMD {{graph}} {{output}}\" or verify = \"none\" in the suite",
                    file.display(),
                    module.name
                );
                Failure::User
            },
        )?),
    };
    let mut sets = Vec::new();
    let mut needs = None;
    for s in suite.sets_of(p) {
        let flags: Vec<&str> = s.flags.split_whitespace().collect();
        let (config, _) = irgl_driver::options_from_words(source, &flags, irgl_opt::OptLevel::O0)
            .map_err(|diags| {
            let e = diags.first().map(|d| d.message.clone()).unwrap_or_default();
            say!("error: set {}: {e}", s.name);
            Failure::User
        })?;
        let code = match irgl_driver::compile(source, &config) {
            Ok(c) => {
                needs = Some(c.needs.clone());
                Ok(c.cuda)
            }
            Err(diags) => Err(format!(
                "the options do not apply: {}",
                diags
                    .first()
                    .map(|d| format!("{} {}", d.code, d.message))
                    .unwrap_or_default()
            )),
        };
        sets.push((s.name.clone(), config.canonical(), code));
    }
    let needs = needs.unwrap_or_else(|| irgl_cuda::graph_needs(&module));
    Ok(Prepared {
        name: module.name.clone(),
        check,
        needs,
        exes: vec![None; sets.len()],
        sets,
    })
}

/// The file of a suite's graph: its path, or the generated graph in the cache.
fn graph_file(g: &GraphSpec, base: &Path) -> Result<PathBuf, Failure> {
    if let Some(p) = &g.path {
        return Ok(base.join(p));
    }
    let (key, make): (
        String,
        Box<dyn Fn() -> Result<irgl_graph::Csr, irgl_graph::GraphError>>,
    ) = if let Some(r) = g.rmat {
        (
            match (r.a, r.b, r.c) {
                (None, None, None) => {
                    format!("rmat-s{}-e{}-seed{}", r.scale, r.edge_factor, r.seed)
                }
                (a, b, c) => {
                    let d = irgl_graph::generate::RmatParams::default();
                    format!(
                        "rmat-s{}-e{}-seed{}-a{}-b{}-c{}",
                        r.scale,
                        r.edge_factor,
                        r.seed,
                        a.unwrap_or(d.a),
                        b.unwrap_or(d.b),
                        c.unwrap_or(d.c)
                    )
                }
            },
            Box::new(move || {
                let d = irgl_graph::generate::RmatParams::default();
                irgl_graph::generate::rmat(
                    r.scale,
                    r.edge_factor,
                    irgl_graph::generate::RmatParams {
                        a: r.a.unwrap_or(d.a),
                        b: r.b.unwrap_or(d.b),
                        c: r.c.unwrap_or(d.c),
                    },
                    r.seed,
                    &irgl_graph::NoProgress,
                )
                .map(irgl_graph::Csr::from_edge_list)
            }),
        )
    } else if let Some(gr) = g.grid {
        (
            format!("grid-{}x{}", gr.rows, gr.cols),
            Box::new(move || {
                irgl_graph::generate::grid(gr.rows, gr.cols).map(irgl_graph::Csr::from_edge_list)
            }),
        )
    } else if let Some(st) = g.star {
        (
            format!("star-{}", st.leaves),
            Box::new(move || {
                irgl_graph::generate::star(st.leaves).map(irgl_graph::Csr::from_edge_list)
            }),
        )
    } else if let Some(p) = g.path_graph {
        (
            format!("path-{}", p.nodes),
            Box::new(move || {
                irgl_graph::generate::path(p.nodes).map(irgl_graph::Csr::from_edge_list)
            }),
        )
    } else if let Some(c) = g.components {
        (
            format!("components-{}x{}-seed{}", c.count, c.size, c.seed),
            Box::new(move || {
                irgl_graph::generate::components(c.count, c.size, c.seed)
                    .map(irgl_graph::Csr::from_edge_list)
            }),
        )
    } else if let Some(r) = g.random {
        (
            format!(
                "random-{}n-{}e-seed{}{}",
                r.nodes,
                r.edges,
                r.seed,
                if r.symmetrize { "-sym" } else { "" }
            ),
            Box::new(move || {
                let g = irgl_graph::generate::uniform(r.nodes, r.edges, r.seed)
                    .map(irgl_graph::Csr::from_edge_list)?;
                Ok(if r.symmetrize {
                    irgl_graph::transform::symmetrize(&g)
                } else {
                    g
                })
            }),
        )
    } else if let Some(ms) = g.mesh {
        (
            format!("mesh-{}-seed{}", ms.points, ms.seed),
            Box::new(move || {
                irgl_graph::generate::mesh(ms.points, ms.seed).map(|m| m.edge_graph())
            }),
        )
    } else {
        unreachable!("a checked suite gives every graph one way")
    };
    let dir = crate::toolchain::cache_dir().join("graphs");
    let path = dir.join(format!("{key}.gr"));
    if path.is_file() {
        return Ok(path);
    }
    say!("generating {} ({key})", g.name);
    let csr = make().map_err(|e| {
        say!("error: graph {}: {e}", g.name);
        Failure::User
    })?;
    irgl_files::write_whole(&path, |w| irgl_graph::format::gr::write(&csr, w)).map_err(|e| {
        say!("error: cannot write {}: {e}", path.display());
        Failure::User
    })?;
    Ok(path)
}

/// `path` without `.` and without `dir/..` pairs: the program's name as `irglc tune` gives it
/// (`programs/bfs.irgl`, not `bench/../programs/bfs.irgl`), since the generated code names
/// its source and the build cache is keyed by the code.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The parameters a program ran with, from its output file.
fn params_of(output: &Path) -> Vec<(String, String)> {
    let name = output.display().to_string();
    std::fs::File::open(output)
        .ok()
        .and_then(|f| irgl_graph::output::parse(std::io::BufReader::new(f), &name).ok())
        .map(|o| {
            o.params
                .iter()
                .map(|(n, v, _)| (n.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// The driver's version, from nvidia-smi, where it is there.
fn driver_version() -> Option<String> {
    let out = std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=driver_version", "--format=csv,noheader"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next()?.trim();
    (out.status.success() && !first.is_empty()).then(|| first.to_string())
}

/// One line of progress per record.
fn progress_line(r: &BenchRecord) -> String {
    let what = match (&r.outcome, r.median_ms) {
        (_, Some(t)) => format!("{t:.3} ms"),
        (Outcome::Wrong { why }, _) => format!("WRONG, {why}"),
        (Outcome::Timeout { limit_s }, _) => format!("stopped after {limit_s} s"),
        (Outcome::Failed { why }, _) => format!("failed, {why}"),
        (Outcome::Raced { .. }, _) => r.outcome.describe(),
        (Outcome::Ok { .. }, None) => "no times".to_string(),
    };
    let kernels: Vec<String> = r
        .kernels
        .iter()
        .map(|(k, ms)| format!("{k} {ms:.3}"))
        .collect();
    let what = if kernels.is_empty() {
        what
    } else {
        format!("{what} ({})", kernels.join(", "))
    };
    format!("{} on {} [{}]: {what}", r.program, r.graph, r.set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_lexically() {
        let n = |s: &str| normalize(Path::new(s)).display().to_string();
        assert_eq!(n("bench/../programs/bfs.irgl"), "programs/bfs.irgl");
        assert_eq!(n("./a/./b/../c"), "a/c");
        assert_eq!(n("../../shared/x"), "../../shared/x");
        assert_eq!(n("/abs/dir/../f"), "/abs/f");
    }
}
