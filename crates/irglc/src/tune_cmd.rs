//! `irglc tune`: the optimization space of a program. `--list` lists the variants (the
//! product of the dimensions the program's structure allows) and which of them generate the
//! same CUDA; `--build` builds each distinct program once into the build cache, in parallel
//! (keyed by its code, the architecture and the runtime headers, so an interrupted build
//! resumes where it stopped). With `--graph`, it builds them, runs each distinct program on
//! each graph (one at a time, several timed runs in one process, stopped at a time limit),
//! checks every output against the CPU reference, ranks the correct variants by median time
//! and writes the measurements and the ranking as JSON and CSV, and their speedups as SVG.
//! `--search random|greedy --budget N` measures part of a large space (`irgl_tune::search`);
//! each outcome is kept in the cache, so that an interrupted run resumes where it stopped.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use irgl_diagnostics::SourceMap;
use irgl_graph::verify::Program;
use irgl_opt::ScheduleSpec;
use irgl_tune::{
    Measurement, Medians, Outcome, Ranking, Search, SpaceOptions, dimensions, distinct, rank,
    search, to_csv, to_json, to_svg, variants,
};

use crate::output_check::{CheckCommand, VerifyArg};
use crate::tune_run::{RunSpec, run_variant};
use crate::{Failure, load, report};

#[derive(Args)]
pub struct TuneArgs {
    /// The `.irgl` program.
    pub file: PathBuf,
    /// List the variants and exit.
    #[arg(long, conflicts_with = "graphs")]
    pub list: bool,
    /// Build every distinct variant with nvcc into the build cache (already built ones are
    /// kept); a variant that fails to build is reported and left out.
    #[arg(long, conflicts_with_all = ["list", "graphs"])]
    pub build: bool,
    /// A graph to tune on (repeatable), in any format `irglc graph convert` reads: every
    /// distinct variant is built, run on it and checked against the CPU reference. For a mesh
    /// program (dmr), a mesh (.mesh, or Triangle files), and each refined mesh is checked as
    /// `irglc verify --program dmr` checks it.
    #[arg(long = "graph", value_name = "GRAPH")]
    pub graphs: Vec<PathBuf>,
    /// Timed runs of a variant on a graph, in one process (the median ranks it).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub runs: u32,
    /// Seconds a variant may take on a graph (loading and all its runs) before it is stopped
    /// and reported as timed out.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// Racing: stop a variant once its run on a graph (loading and all its runs) takes this
    /// many times as long as the fastest variant's so far on that graph, and report it as
    /// raced out, not measured further (0: measure every variant to its end). Runs of under a
    /// second are never stopped early.
    #[arg(long, default_value_t = 3.0, value_name = "MARGIN")]
    pub race: f64,
    /// The CPU reference that checks the outputs (bfs, sssp, cc, pr, tc, mis, mst,
    /// traverse; default: the one the program is named after, as sssp for sssp-nf; a mesh
    /// program named dmr is checked by its refined mesh), or `none`: time the variants
    /// without checking their outputs (the report says so).
    #[arg(long, value_name = "FAMILY|none", value_parser = crate::output_check::parse_verify, conflicts_with = "check")]
    pub verify: Option<VerifyArg>,
    /// Check each output with this command instead of a CPU reference (a program of your
    /// own): `{graph}` and `{output}` are replaced by the paths of the graph the program read
    /// and of its output file; exit status 0 means correct, and otherwise the first line the
    /// command prints is the reason.
    #[arg(long, value_name = "CMD", value_parser = CheckCommand::parse)]
    pub check: Option<CheckCommand>,
    /// Seed of the weights added when the program reads edge weights and a graph has none.
    #[arg(long, default_value_t = 1)]
    pub weights_seed: u64,
    /// Where the results go: results.json, results.csv, speedups.svg and the outputs of the
    /// runs (default: tune-PROGRAM).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also write a tuning profile to FILE: the fastest variant on each graph with the graph's
    /// shape (mean degree, warp efficiency), and the best single variant. `irglc compile
    /// --profile FILE [--profile-graph G]` builds from it.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
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
    /// Grids of the control kernels to try with each outline choice, comma-separated
    /// (default: resident,4sm,sm; see `irglc compile --outline-grid`).
    #[arg(long, value_delimiter = ',', value_name = "GRID,...", value_parser = irgl_ir::GridSize::parse)]
    pub outline_grids: Vec<irgl_ir::GridSize>,
    /// Which distinct programs to measure: all of them (exhaustive), the baseline and a seeded
    /// random sample (random, needs --budget), or a greedy walk from the baseline over one
    /// dimension at a time, keeping the best (greedy).
    #[arg(long, value_enum, default_value_t = SearchKind::Exhaustive)]
    pub search: SearchKind,
    /// The most distinct programs a random or greedy search measures, the baseline included.
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// The seed of the random search.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Build and measure every variant again, even where the build cache has its executable
    /// or an earlier run on the same graph with the same number of runs left its measurement.
    #[arg(long)]
    pub fresh: bool,
}

/// `--search`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchKind {
    Exhaustive,
    Random,
    Greedy,
}

impl TuneArgs {
    /// The search the flags ask for, or why they do not fit together.
    fn search(&self) -> Result<Search, String> {
        match (self.search, self.budget) {
            (SearchKind::Exhaustive, None) => Ok(Search::Exhaustive),
            (SearchKind::Exhaustive, Some(_)) => Err(
                "--budget limits a budgeted search: add --search random or --search greedy".into(),
            ),
            (_, Some(0)) => Err("--budget 0: the baseline at least is measured".into()),
            (SearchKind::Random, None) => Err(
                "--search random needs --budget N, the number of distinct programs to measure"
                    .into(),
            ),
            (SearchKind::Random, Some(budget)) => Ok(Search::Random {
                budget,
                seed: self.seed,
            }),
            (SearchKind::Greedy, budget) => Ok(Search::Greedy {
                budget: budget.unwrap_or(usize::MAX),
            }),
        }
    }
}

/// The CPU reference a program is named after: its name, or the part before the first `-`
/// or `.` (`sssp-nf`, `bfs.v2`).
pub(crate) fn family_of(program: &str) -> Option<Program> {
    Program::from_name(program)
        .or_else(|| Program::from_name(program.split(['-', '.']).next().unwrap_or_default()))
}

/// Whether a program is named for dmr, as [`family_of`] names the graph families.
fn is_dmr(program: &str) -> bool {
    program.split(['-', '.']).next() == Some("dmr")
}

pub fn tune(args: &TuneArgs) -> Result<(), Failure> {
    let measure = !args.graphs.is_empty();
    if !args.list && !args.build && !measure {
        say!(
            "error: irglc tune needs a graph to measure on (--graph G, repeatable), or --list (the variants) or --build (build them): `irglc tune {} --graph road-NY.mtx.gz`",
            args.file.display()
        );
        return Err(Failure::User);
    }
    irgl_tune::check_runs(args.runs).map_err(|e| {
        say!("error: --runs {e}");
        Failure::User
    })?;
    let how = args.search().map_err(|e| {
        say!("error: {e}");
        Failure::User
    })?;
    irgl_tune::check_timeout(args.timeout).map_err(|e| {
        say!("error: --timeout {e}");
        Failure::User
    })?;
    if !(args.race == 0.0 || (args.race >= 1.0 && args.race.is_finite())) {
        say!(
            "error: --race {}: a margin of 1 or more (times the fastest variant so far), or 0 to measure every variant to its end",
            args.race
        );
        return Err(Failure::User);
    }
    if let Some(save) = &args.save {
        let mut inputs: Vec<&Path> = vec![&args.file];
        inputs.extend(args.graphs.iter().map(PathBuf::as_path));
        crate::build_cmd::refuse_inputs(&[save], &inputs)?;
    }
    let arch = if args.build || measure {
        Some(crate::build_cmd::arch(&args.arch)?)
    } else {
        None
    };
    let mut opts = SpaceOptions::default();
    if !args.block_sizes.is_empty() {
        opts.block_sizes = args.block_sizes.clone();
    }
    if !args.outline_grids.is_empty() {
        opts.grids = args.outline_grids.clone();
    }
    if !args.schedules.is_empty() {
        opts.schedules = args
            .schedules
            .iter()
            .map(|s| ScheduleSpec::parse(s))
            .collect::<Result<_, _>>()
            .map_err(|e| {
                say!("error: --schedules: {e}");
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
    let family = if measure {
        Some(output_check_of(args, &module)?)
    } else {
        None
    };
    let d = dimensions(&module, &opts);
    let vs = variants(&d);
    let groups = distinct(source, &vs).map_err(|(variant, diags)| {
        say!("error: variant {variant} does not compile:");
        report::eprint(&diags, &sources);
        Failure::User
    })?;
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} x {} x {} x {}{} = {}, {}",
        module.name,
        plural(d.schedules.len(), "schedule", "schedules"),
        plural(
            d.aggregates.len(),
            "aggregation level",
            "aggregation levels"
        ),
        plural(
            d.outlines.len(),
            "orchestration choice",
            "orchestration choices"
        ),
        plural(d.block_sizes.len(), "block size", "block sizes"),
        // Shown where the space has it (else a `fixed` line says why not).
        if d.grid_waits.len() > 1 {
            format!(
                " x {}",
                plural(d.grid_waits.len(), "grid wait", "grid waits")
            )
        } else {
            String::new()
        },
        plural(vs.len(), "variant", "variants"),
        plural(groups.len(), "distinct program", "distinct programs"),
    );
    for f in &d.fixed {
        let _ = writeln!(out, "  fixed {f}");
    }
    if measure {
        // The listing would bury the results: only its summary, on the progress stream.
        crate::stderr_text(&out);
    } else {
        // One column for the names, those of the members indented by two.
        let width = groups
            .iter()
            .flat_map(|g| {
                g.members
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| vs[i].name.chars().count() + if k == 0 { 0 } else { 2 })
            })
            .max()
            .unwrap_or(0);
        let member = width.saturating_sub(2);
        for g in &groups {
            let first = &vs[g.members[0]];
            let _ = writeln!(out, "{:width$}  {}", first.name, first.config.canonical());
            for &i in &g.members[1..] {
                let _ = writeln!(out, "  {:member$}  same CUDA as {}", vs[i].name, first.name);
            }
        }
        crate::print_out(&out);
    }
    let Some(arch) = arch else {
        return Ok(());
    };
    let Some(family) = family else {
        let all: Vec<usize> = (0..groups.len()).collect();
        let built = build_groups(&module.name, &vs, &groups, &all, &arch, args)?;
        if built.iter().all(Option::is_none) {
            say!(
                "error: no variant of {} builds: nothing to tune",
                module.name
            );
            return Err(Failure::User);
        }
        return Ok(());
    };
    // Graphs are named by their file names in the results: two of one name cannot be told
    // apart.
    let names: Vec<String> = args
        .graphs
        .iter()
        .map(|p| irgl_files::names::stem(p))
        .collect();
    if let Some(dup) = names
        .iter()
        .enumerate()
        .find_map(|(i, n)| names[..i].contains(n).then_some(n))
    {
        say!(
            "error: two graphs are named {dup} (the file name without extensions names a graph in the results): rename one"
        );
        return Err(Failure::User);
    }
    // The graphs first, as the programs read them: a bad one stops the run before any build.
    let needs = irgl_driver::compile(source, &vs[0].config)
        .map_err(|diags| {
            report::eprint(&diags, &sources);
            Failure::User
        })?
        .needs;
    if args.save.is_some() && needs.mesh {
        say!(
            "error: --save: {} refines a mesh; a profile compares graphs",
            module.name
        );
        return Err(Failure::User);
    }
    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("tune-{}", module.name)));
    std::fs::create_dir_all(out_dir.join("outputs")).map_err(|e| {
        say!("error: cannot create {}: {e}", out_dir.display());
        Failure::User
    })?;
    let input = input_options();
    let mut loaded = Vec::new();
    for path in &args.graphs {
        let gr = crate::build_cmd::prepare_graph(path, &needs, args.weights_seed)?;
        let fail = |e: irgl_graph::GraphError| {
            say!("error: {e}");
            Failure::User
        };
        // What the check needs of the input: a CPU reference the graph, dmr's the mesh.
        let input = match &family {
            Check::Graph(family) => Input::Graph(
                *family,
                crate::graph_cmd::load_graph(&gr, &input).map_err(fail)?.0,
            ),
            Check::Refinement => Input::Mesh(crate::mesh_cmd::read_mesh(&gr).map_err(fail)?),
            Check::Command(_) | Check::Unchecked => Input::Path,
        };
        loaded.push((gr, input));
    }
    let mut targets = Vec::new();
    for ((gr, input), name) in loaded.iter().zip(names) {
        targets.push(Target {
            program: &module.name,
            key: graph_key(gr)?,
            check: family.identity(),
            graph: gr.clone(),
            reference: match (input, &family) {
                (Input::Graph(family, csr), _) => Reference::Graph {
                    family: *family,
                    verifier: irgl_graph::verify::Verifier::new(csr),
                },
                (Input::Mesh(mesh), _) => Reference::Refinement { input: mesh },
                (Input::Path, Check::Command(c)) => Reference::Command(c),
                (Input::Path, _) => Reference::Unchecked,
            },
            name,
            out_dir: &out_dir,
        });
    }
    // Per group and graph, what its run gave, as the search asks for them.
    let mut outcomes: Vec<Vec<Option<Outcome>>> = vec![vec![None; targets.len()]; groups.len()];
    let mut reused = 0;
    let mut broken: Option<Failure> = None;
    let order = search(how, &d, &groups, &mut |batch| {
        let exes = match build_groups(&module.name, &vs, &groups, batch, &arch, args) {
            Ok(exes) => exes,
            Err(f) => {
                broken = Some(f);
                vec![None; batch.len()]
            }
        };
        for (ti, t) in targets.iter().enumerate() {
            let got = measure_batch(args, t, &vs, &groups, batch, &exes, &mut reused);
            for (&g, o) in batch.iter().zip(got) {
                outcomes[g][ti] = Some(o);
            }
        }
        batch
            .iter()
            .map(|&g| {
                outcomes[g]
                    .iter()
                    .map(|o| match o {
                        Some(Outcome::Ok { times_ms }) => Some(irgl_tune::median(times_ms)),
                        _ => None,
                    })
                    .collect::<Medians>()
            })
            .collect()
    });
    if let Some(f) = broken {
        return Err(f);
    }
    if reused > 0 {
        say!(
            "{reused} measurements were found in the cache from an earlier run (--fresh measures them again)"
        );
    }
    if how != Search::Exhaustive {
        say!(
            "{} search: measured {} of {} distinct programs",
            how.name(),
            order.len(),
            groups.len()
        );
    }
    // The measurements of every variant whose group was measured, graph by graph.
    let mut measured: Vec<usize> = order
        .iter()
        .flat_map(|&g| groups[g].members.iter().copied())
        .collect();
    measured.sort_unstable();
    let mut ms = Vec::new();
    for (ti, t) in targets.iter().enumerate() {
        for &v in &measured {
            let g = groups
                .iter()
                .position(|g| g.members.contains(&v))
                .expect("every variant is in a group");
            ms.push(Measurement {
                variant: vs[v].name.clone(),
                options: vs[v].config.canonical(),
                graph: t.name.clone(),
                outcome: outcomes[g][ti]
                    .clone()
                    .expect("a measured group ran on every graph"),
            });
        }
    }
    let ranking = rank(&ms, &vs[0].name);
    let check = family.describe();
    crate::print_out(&report_text(
        &module.name,
        &args.file,
        &check,
        &vs,
        &ms,
        &ranking,
    ));
    let write = |name: &str, text: String| {
        let path = out_dir.join(name);
        irgl_files::write_bytes(&path, text.as_bytes()).map_err(|e| {
            say!("error: cannot write {}: {e}", path.display());
            Failure::User
        })
    };
    write("results.json", to_json(&module.name, &check, &ms, &ranking))?;
    if let Some(path) = &args.save {
        let mut shapes = Vec::new();
        for ((gr, input), t) in loaded.iter().zip(&targets) {
            let shape = match input {
                Input::Graph(_, csr) => shape_of(csr),
                Input::Path => shape_of(
                    &crate::graph_cmd::load_graph(gr, &input_options())
                        .map_err(|e| {
                            say!("error: {e}");
                            Failure::User
                        })?
                        .0,
                ),
                Input::Mesh(_) => unreachable!("--save with a mesh program is refused first"),
            };
            shapes.push((t.name.clone(), shape));
        }
        let profile = irgl_tune::Profile::new(&module.name, &ms, &ranking, &shapes);
        let text = serde_json::to_string_pretty(&profile).expect("a profile serializes");
        irgl_files::write_bytes(path, format!("{text}\n").as_bytes()).map_err(|e| {
            say!("error: cannot write {}: {e}", path.display());
            Failure::User
        })?;
        say!(
            "profile: {} ({} graphs); build from it with irglc compile {} --profile {} [--profile-graph G]",
            path.display(),
            profile.graphs.len(),
            args.file.display(),
            path.display()
        );
    }
    write("results.csv", to_csv(&ms, &check))?;
    write("speedups.svg", to_svg(&module.name, &ranking))?;
    say!(
        "results: {}, {} and {}",
        out_dir.join("results.json").display(),
        out_dir.join("results.csv").display(),
        out_dir.join("speedups.svg").display()
    );
    if ranking.graphs.is_empty() {
        say!("error: no variant of {} ran correctly", module.name);
        return Err(Failure::User);
    }
    Ok(())
}

/// How a prepared graph file is read (a `.gr`, as the programs read it).
fn input_options() -> crate::graph_cmd::InputOptions {
    crate::graph_cmd::InputOptions {
        format: None,
        keep_ids: false,
    }
}

/// The figures of a graph that a tuning profile compares.
pub(crate) fn shape_of(g: &irgl_graph::Csr) -> irgl_tune::Shape {
    let edges = g.num_edges();
    irgl_tune::Shape {
        nodes: u64::from(g.n),
        edges,
        mean_degree: if g.n == 0 {
            0.0
        } else {
            edges as f64 / f64::from(g.n)
        },
        warp_efficiency: irgl_graph::stats::warp_efficiency(g),
    }
}

/// How a tuning run checks the outputs of its runs.
#[derive(Clone)]
enum Check {
    /// Against the CPU reference of a graph program family.
    Graph(Program),
    /// The refined mesh against the mesh it refined (dmr).
    Refinement,
    /// By the user's command (`--check`).
    Command(CheckCommand),
    /// Not at all (`--verify none`).
    Unchecked,
}

impl Check {
    /// What identifies the check in the measurement cache.
    fn identity(&self) -> String {
        let what = match self {
            Check::Graph(family) => family.name().to_string(),
            Check::Refinement => "dmr refinement".to_string(),
            Check::Command(c) => c.identity(),
            Check::Unchecked => "none".to_string(),
        };
        format!("{what} (irglc {})", env!("CARGO_PKG_VERSION"))
    }

    /// How the outputs were checked, for the reports.
    fn describe(&self) -> String {
        match self {
            Check::Graph(family) => {
                format!("checked against the CPU reference of {}", family.name())
            }
            Check::Refinement => {
                "checked as refinements of their input meshes (irglc verify --program dmr)"
                    .to_string()
            }
            Check::Command(c) => format!("checked by `{}`", c.template),
            Check::Unchecked => "NOT CHECKED (--verify none): ranked by time alone".to_string(),
        }
    }
}

/// How `args` ask to check the outputs of `module`: a CPU reference (named, or the one the
/// program is named after), dmr's mesh check, the user's command, or none; or why none fits.
fn output_check_of(args: &TuneArgs, module: &irgl_ir::Module) -> Result<Check, Failure> {
    let hint = "name the CPU reference that checks its outputs with --verify FAMILY (bfs, sssp, cc, pr, tc, mis, mst, traverse), check them with your own command (--check 'CMD {graph} {output}', exit status 0 = correct), or time without checking (--verify none)";
    match (&args.check, args.verify) {
        (Some(c), _) => Ok(Check::Command(c.clone())),
        (None, Some(VerifyArg::None)) => Ok(Check::Unchecked),
        // A mesh program's output is a refined mesh: `irglc verify --program dmr` checks it.
        (None, None) if module.graph.mesh && is_dmr(&module.name) => Ok(Check::Refinement),
        (None, Some(VerifyArg::Family(f))) if module.graph.mesh => {
            say!(
                "error: --verify {}: {} takes a mesh, not a graph; its refined mesh is checked as dmr's (irglc verify --program dmr), or by --check",
                f.name(),
                module.name
            );
            Err(Failure::User)
        }
        (None, None) if module.graph.mesh => {
            say!(
                "error: {} takes a mesh, and only dmr (a program named dmr or dmr-...) has a CPU check of its output mesh: check it with --check 'CMD {{graph}} {{output}}', or time it with --verify none",
                module.name
            );
            Err(Failure::User)
        }
        (None, Some(VerifyArg::Family(f))) => Ok(Check::Graph(f)),
        (None, None) => family_of(&module.name).map(Check::Graph).ok_or_else(|| {
            say!(
                "error: no CPU reference is named like {}: {hint}",
                module.name
            );
            Failure::User
        }),
    }
}

/// An input as read for its check.
enum Input {
    Graph(Program, irgl_graph::Csr),
    Mesh(irgl_graph::mesh::Mesh),
    /// Only its path (the user's command, or no check).
    Path,
}

/// What a target's outputs are checked against.
enum Reference<'a> {
    Graph {
        family: Program,
        verifier: irgl_graph::verify::Verifier<'a>,
    },
    Refinement {
        input: &'a irgl_graph::mesh::Mesh,
    },
    Command(&'a CheckCommand),
    Unchecked,
}

/// One graph (or mesh) of a tuning run.
struct Target<'a> {
    program: &'a str,
    /// The `.gr` (or `.mesh`) file the programs read.
    graph: PathBuf,
    reference: Reference<'a>,
    /// What identifies the file's content in the measurement cache.
    key: u64,
    /// The check of the outputs, as the measurement cache records it.
    check: String,
    name: String,
    out_dir: &'a Path,
}

/// What identifies a graph file in the measurement cache (a converted graph's path is itself
/// keyed by its input and the conversion).
fn graph_key(gr: &Path) -> Result<u64, Failure> {
    crate::toolchain::file_stamp(gr).map_err(|e| {
        say!("error: cannot read {}: {e}", gr.display());
        Failure::User
    })
}

/// Where the outcome of an executable on a graph is kept: beside the executable's cache, by
/// its name, the graph's key and the number of runs ([`write_stored`] says which are kept).
fn stored_path(exe: &Path, t: &Target<'_>, runs: u32) -> PathBuf {
    let name = exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    crate::toolchain::cache_dir()
        .join("measure")
        .join(format!("{name}-{:016x}-r{runs}.json", t.key))
}

/// A measurement as the cache keeps it: the outcome and the check its output passed (or
/// failed), so that a changed check measures again.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    check: String,
    outcome: Outcome,
}

/// The outcome kept at `path` by an earlier run, if there is one, made by the same check,
/// with `runs` times if correct. An entry that cannot be read as one, or holds impossible
/// values, is removed and measured again.
fn read_stored(path: &Path, check: &str, runs: u32) -> Option<Outcome> {
    let text = std::fs::read_to_string(path).ok()?;
    let entry = serde_json::from_str::<Stored>(&text)
        .map_err(|e| e.to_string())
        .and_then(|s| s.outcome.check().map(|()| s));
    match entry {
        Ok(s) if s.check != check => None,
        Ok(Stored {
            outcome: Outcome::Ok { times_ms },
            ..
        }) if times_ms.len() != runs as usize => None,
        Ok(
            s @ Stored {
                outcome: Outcome::Ok { .. } | Outcome::Wrong { .. },
                ..
            },
        ) => Some(s.outcome),
        Ok(_) => None,
        Err(why) => {
            say!(
                "note: {} is not a measurement ({why}): discarded, measured again",
                path.display()
            );
            let _ = std::fs::remove_file(path);
            None
        }
    }
}

/// Keeps an outcome for later runs: a correct run's times and a wrong output (both follow
/// from the program and the graph). A failure or a timeout is not kept: it may be a one-off
/// (a busy GPU, a longer limit next time).
fn write_stored(path: &Path, check: &str, outcome: &Outcome) {
    if matches!(outcome, Outcome::Ok { .. } | Outcome::Wrong { .. }) {
        let entry = Stored {
            check: check.to_string(),
            outcome: outcome.clone(),
        };
        let text = serde_json::to_string(&entry).expect("plain data serializes");
        if let Err(e) = irgl_files::write_bytes(path, text.as_bytes()) {
            say!(
                "warning: cannot keep a measurement in {}: {e}",
                path.display()
            );
        }
    }
}

/// Runs the groups of `batch` (their executables in `exes`, none where the build failed) on
/// one graph, one at a time, and checks each output; an outcome kept from an earlier run is
/// reused unless `--fresh`.
fn measure_batch(
    args: &TuneArgs,
    t: &Target<'_>,
    vs: &[irgl_tune::Variant],
    groups: &[irgl_tune::Group],
    batch: &[usize],
    exes: &[Option<PathBuf>],
    reused: &mut usize,
) -> Vec<Outcome> {
    let bar = indicatif::ProgressBar::new(batch.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix}: {pos}/{len} [{bar:30}] {elapsed} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    // The names as a prefix, not in the template: a graph may be named `a{b}`.
    bar.set_prefix(format!("{} on {}", t.program, t.name));
    let mut out = Vec::with_capacity(batch.len());
    // The whole run (loading included) of the fastest correct variant measured so far.
    let mut fastest: Option<Duration> = None;
    for (&g, exe) in batch.iter().zip(exes) {
        let name = &vs[groups[g].members[0]].name;
        bar.set_message(name.clone());
        let outcome = match exe {
            None => Outcome::Failed {
                why: "it does not build".to_string(),
            },
            Some(exe) => {
                let stored = stored_path(exe, t, args.runs);
                let earlier = if args.fresh {
                    None
                } else {
                    read_stored(&stored, &t.check, args.runs)
                };
                match earlier {
                    Some(o) => {
                        *reused += 1;
                        o
                    }
                    None => {
                        let (o, took) = run_and_check(args, t, name, exe, fastest);
                        if matches!(o, Outcome::Ok { .. }) {
                            fastest = Some(fastest.map_or(took, |f| f.min(took)));
                        }
                        write_stored(&stored, &t.check, &o);
                        o
                    }
                }
            }
        };
        if !matches!(outcome, Outcome::Ok { .. }) {
            bar.suspend(|| say!("{name} on {}: {}", t.name, describe(&outcome)));
        }
        out.push(outcome);
        bar.inc(1);
    }
    bar.finish_and_clear();
    out
}

/// Runs one executable on the target's graph and checks its output; also returns how long
/// the run took. With racing, the run is stopped at `--race` times `fastest` (at least a
/// second), the whole run of the fastest variant so far.
fn run_and_check(
    args: &TuneArgs,
    t: &Target<'_>,
    name: &str,
    exe: &Path,
    fastest: Option<Duration>,
) -> (Outcome, Duration) {
    // `outputs/VARIANT.GRAPH.out` (and `.mesh` for a mesh program's refined mesh).
    let base = t.out_dir.join("outputs").join(format!("{name}.{}", t.name));
    let output = irgl_files::names::with_added_extension(&base, "out");
    let mesh_output = irgl_files::names::with_added_extension(&base, "mesh");
    let mesh_args = match &t.reference {
        Reference::Graph { .. } | Reference::Command(_) | Reference::Unchecked => Vec::new(),
        Reference::Refinement { .. } => vec![
            "--mesh-output".to_string(),
            mesh_output.display().to_string(),
        ],
    };
    let limit = irgl_tune::check_timeout(args.timeout).unwrap_or(Duration::MAX);
    let race = fastest
        .filter(|_| args.race > 0.0)
        .map(|f| f.mul_f64(args.race).max(Duration::from_secs(1)))
        .filter(|&r| r < limit);
    let spec = RunSpec {
        exe,
        graph: &t.graph,
        output: &output,
        repeat: args.runs,
        timeout: race.unwrap_or(limit),
        args: &mesh_args,
    };
    let start = std::time::Instant::now();
    let ran = run_variant(&spec);
    let took = start.elapsed();
    let ran = match (ran, race, fastest) {
        (Err(Outcome::Timeout { limit_s }), Some(_), Some(f)) => Err(Outcome::Raced {
            limit_s,
            best_s: f.as_secs_f64(),
            margin: args.race,
        }),
        (other, _, _) => other,
    };
    let outcome = match (ran, &t.reference) {
        (Ok(r), Reference::Graph { family, verifier }) => {
            check(*family, verifier, &output, r.times_ms)
        }
        (Ok(r), Reference::Refinement { input }) => {
            check_refinement(input, &mesh_output, r.times_ms)
        }
        (Ok(r), Reference::Command(c)) => outcome(
            c.check(&t.graph, &output, spec.timeout),
            "the check command rejected it",
            r.times_ms,
        ),
        (Ok(r), Reference::Unchecked) => Outcome::Ok {
            times_ms: r.times_ms,
        },
        (Err(o), _) => o,
    };
    (outcome, took)
}

/// The outcome of a mesh program's run that ended well: its times if the mesh it wrote is a
/// valid refinement of its input (`irglc verify --program dmr`).
fn check_refinement(input: &irgl_graph::mesh::Mesh, output: &Path, times_ms: Vec<f64>) -> Outcome {
    let verdict = crate::mesh_cmd::read_mesh(output)
        .and_then(|after| irgl_graph::mesh::verify_refinement(input, &after))
        .map(|v| (v.ok, v.mismatches))
        .map_err(|e| format!("its mesh {}: {e}", output.display()));
    outcome(verdict, "its mesh is not a valid refinement", times_ms)
}

/// A run's outcome from its check: whether the output was accepted and the mismatches found
/// (`otherwise` when none is named), or why it could not be checked.
pub(crate) fn outcome(
    verdict: Result<(bool, Vec<String>), String>,
    otherwise: &str,
    times_ms: Vec<f64>,
) -> Outcome {
    match verdict {
        Ok((true, _)) => Outcome::Ok { times_ms },
        Ok((false, mismatches)) => Outcome::Wrong {
            why: mismatches
                .into_iter()
                .next()
                .unwrap_or_else(|| otherwise.to_string()),
        },
        Err(why) => Outcome::Wrong { why },
    }
}

/// The outcome of a run that ended well: its times if its output matches the reference.
pub(crate) fn check(
    family: Program,
    vf: &irgl_graph::verify::Verifier<'_>,
    output: &Path,
    times_ms: Vec<f64>,
) -> Outcome {
    let name = output.display().to_string();
    let verdict = std::fs::File::open(output)
        .map_err(|e| format!("cannot read its output {name}: {e}"))
        .and_then(|f| {
            irgl_graph::output::parse(std::io::BufReader::new(f), &name).map_err(|e| e.to_string())
        })
        .and_then(|out| vf.verify(family, &out).map_err(|e| e.to_string()))
        .map(|v| (v.ok, v.mismatches));
    outcome(verdict, "its output does not match the reference", times_ms)
}

fn describe(o: &Outcome) -> String {
    o.describe()
}

/// The report: per graph the ten fastest correct variants with their speedup over the
/// baseline, the variants left out and why, and the best single variant as the command that
/// builds it.
fn report_text(
    program: &str,
    file: &Path,
    check: &str,
    vs: &[irgl_tune::Variant],
    ms: &[Measurement],
    ranking: &Ranking,
) -> String {
    let mut out = format!("outputs {check}\n");
    let width = vs.iter().map(|v| v.name.len()).max().unwrap_or(0).max(7);
    for (graph, placed) in &ranking.graphs {
        let _ = writeln!(
            out,
            "{program} on {graph}: {} correct variants, fastest first (median ms, speedup over the baseline)",
            placed.len()
        );
        for (i, p) in placed.iter().take(10).enumerate() {
            let speedup = p.speedup.map_or("-".to_string(), |s| format!("{s:.2}x"));
            let _ = writeln!(
                out,
                "  {:>2}. {:width$}  {:>10.3}  {speedup:>7}",
                i + 1,
                p.variant,
                p.median_ms
            );
        }
        if let Some(b) = placed.iter().position(|p| p.variant == vs[0].name)
            && b >= 10
        {
            let _ = writeln!(
                out,
                "  {:>2}. {:width$}  {:>10.3}    1.00x",
                b + 1,
                vs[0].name,
                placed[b].median_ms
            );
        }
    }
    if !ranking.excluded.is_empty() {
        let _ = writeln!(
            out,
            "left out ({} of {}):",
            ranking.excluded.len(),
            ms.len()
        );
        for m in &ranking.excluded {
            let _ = writeln!(
                out,
                "  {} on {}: {}",
                m.variant,
                m.graph,
                describe(&m.outcome)
            );
        }
    }
    match &ranking.best_overall {
        Some((name, mean)) => {
            let options = vs
                .iter()
                .find(|v| &v.name == name)
                .map(|v| v.config.canonical())
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "best on every graph: {name}, {mean:.2}x the baseline (geometric mean)\n  irglc compile {} {options}",
                file.display()
            );
        }
        None => {
            let _ = writeln!(
                out,
                "best on every graph: none (no variant ran correctly on every graph with the baseline)"
            );
        }
    }
    out
}

/// Builds the groups `which` into the cache (`crate::build_cache::build`): the executable of
/// each, none where it failed to build.
fn build_groups(
    program: &str,
    vs: &[irgl_tune::Variant],
    groups: &[irgl_tune::Group],
    which: &[usize],
    arch: &str,
    args: &TuneArgs,
) -> Result<Vec<Option<PathBuf>>, Failure> {
    let items: Vec<(&str, &str)> = which
        .iter()
        .map(|&g| {
            (
                vs[groups[g].members[0]].name.as_str(),
                groups[g].cuda.as_str(),
            )
        })
        .collect();
    crate::build_cache::build(
        program,
        &items,
        arch,
        args.jobs,
        which.len() == groups.len(),
        args.fresh,
    )
}
