//! `irglc graph ...`: convert graphs to `.gr`, describe them, generate them.
//!
//! All file and terminal I/O of the graph tools lives here and in `verify_cmd.rs`; the work is
//! done by the `irgl-graph` crate. Progress bars go to stderr and are hidden when stderr is not
//! a terminal. Exit status: 0 success, 1 a problem with the input, 2 an internal error.

use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use irgl_graph::format::{egr, gr, sg, snap, snap::SnapIds};
use irgl_graph::generate::{self, RmatParams, RmatSpec};
use irgl_graph::load::{self, Format, LoadOptions};
use irgl_graph::parts::{PartOptions, rmat_parts};
use irgl_graph::progress::Unit;
use irgl_graph::stats;
use irgl_graph::transform::{self, TransformOptions};
use irgl_graph::{Csr, GraphError, Progress};

#[derive(clap::Subcommand)]
pub enum GraphCommand {
    /// Convert a graph (.gr, DIMACS, Matrix Market, SNAP, METIS; optionally .gz) to Galois .gr v1.
    ///
    /// Each node's neighbours are always sorted by destination. Writes a SNAP edge list instead
    /// when OUT ends in .txt or .el.
    Convert(ConvertArgs),
    /// Describe a graph: counts, degrees, symmetry, components, estimated diameter, memory.
    Info(InfoArgs),
    /// Generate a graph (deterministic for a given seed).
    #[command(subcommand)]
    Gen(GenCommand),
    /// How a graph splits over several GPUs: contiguous node ranges balanced by nodes plus
    /// edges, each part's masters, edges and mirrors (remote ends of its edges), and what one
    /// exchange of mirror values moves (docs/multi-gpu.md).
    Partition(PartitionArgs),
}

#[derive(clap::Args)]
pub struct PartitionArgs {
    /// The graph to split.
    pub graph: PathBuf,
    /// The number of parts (GPUs).
    #[arg(long, value_name = "N")]
    pub parts: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the parts into this new folder, as `graph gen rmat --parts` writes them
    /// (docs/graphs.md): a program built with `--multi-gpu on` reads it, one part a GPU.
    #[arg(short, long, value_name = "FOLDER")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub input_options: InputOptions,
}

/// How to read an input graph.
#[derive(clap::Args, Clone)]
pub struct InputOptions {
    /// Input format, instead of guessing from the file name: gr, dimacs, mtx, snap, metis.
    #[arg(long, value_parser = parse_format)]
    pub format: Option<Format>,
    /// SNAP input: keep ids as they are (nodes 0..=max id) instead of renumbering them densely
    /// in increasing order.
    #[arg(long)]
    pub keep_ids: bool,
}

impl InputOptions {
    pub(crate) fn load_options(&self) -> LoadOptions {
        LoadOptions {
            format: self.format,
            snap_ids: if self.keep_ids {
                SnapIds::Keep
            } else {
                SnapIds::Remap
            },
        }
    }
}

fn parse_format(s: &str) -> Result<Format, String> {
    Format::from_name(s)
        .ok_or_else(|| format!("unknown format `{s}`: expected gr, dimacs, mtx, snap or metis"))
}

/// Transformations applied before writing.
#[derive(clap::Args, Clone)]
pub struct TransformArgs {
    /// Add the reverse of every edge (parallel edges are merged, keeping the smallest weight).
    #[arg(long)]
    pub symmetrize: bool,
    /// Drop edges from a node to itself.
    #[arg(long)]
    pub drop_self_loops: bool,
    /// Merge parallel edges, keeping the smallest weight.
    #[arg(long)]
    pub dedup: bool,
    /// Where the input has no weights, add uniform integer weights in [1, 100] derived from
    /// SEED (both directions of an edge get the same weight).
    #[arg(long, value_name = "SEED")]
    pub weights: Option<u64>,
}

impl TransformArgs {
    fn options(&self) -> TransformOptions {
        TransformOptions {
            drop_self_loops: self.drop_self_loops,
            symmetrize: self.symmetrize,
            dedup: self.dedup,
            weights_seed: self.weights,
        }
    }
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The graph to convert.
    pub input: PathBuf,
    /// Where to write the graph: .gr (Galois binary), .txt or .el (a SNAP edge list), .sg or
    /// .wsg (the GAP benchmark suite's serialized graph, without or with the weights), .egr
    /// (the ECL codes' binary graph).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Convert as this program reads its graph (the graph `irglc run` gives it): symmetrized,
    /// simple and weighted (seed 1, or --weights) as its `graph` declaration asks.
    #[arg(long = "for", value_name = "PROGRAM.irgl")]
    pub for_program: Option<PathBuf>,
    #[command(flatten)]
    pub input_options: InputOptions,
    #[command(flatten)]
    pub transform: TransformArgs,
}

#[derive(clap::Args)]
pub struct InfoArgs {
    /// The graph to describe.
    pub graph: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Seed choosing where the diameter sweeps start.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub input_options: InputOptions,
}

/// Where and how to write a generated graph.
#[derive(clap::Args)]
pub struct GenOutput {
    /// Where to write the graph: .gr (Galois binary), .txt or .el (a SNAP edge list), .sg or
    /// .wsg (the GAP benchmark suite's serialized graph, without or with the weights), .egr
    /// (the ECL codes' binary graph).
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub transform: TransformArgs,
}

#[derive(clap::Subcommand)]
pub enum GenCommand {
    /// RMAT/Kronecker graph with Graph500 parameters: 2^scale nodes, edge-factor * 2^scale
    /// directed edges (duplicates and self-loops kept unless removed with the options).
    Rmat {
        #[arg(long)]
        scale: u32,
        #[arg(long, default_value_t = 16)]
        edge_factor: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Probability of the top-left quadrant.
        #[arg(long, default_value_t = 0.57)]
        a: f64,
        /// Probability of the top-right quadrant.
        #[arg(long, default_value_t = 0.19)]
        b: f64,
        /// Probability of the bottom-left quadrant.
        #[arg(long, default_value_t = 0.19)]
        c: f64,
        /// Write the graph in N parts, as a run over N GPUs splits it, without ever building
        /// the whole graph (for graphs larger than the host holds twice): OUTPUT is then a new
        /// folder with each part's graph (`part-P.gr`: its masters, then its mirrors), its
        /// mirrors' global ids (`part-P.mirrors`, 32-bit little-endian) and `parts.json`
        /// (docs/multi-gpu.md).
        #[arg(long, value_name = "N")]
        parts: Option<u32>,
        #[command(flatten)]
        out: GenOutput,
    },
    /// A rows x cols 4-neighbour grid, both directions of every edge.
    Grid {
        #[arg(long)]
        rows: u32,
        #[arg(long)]
        cols: u32,
        #[command(flatten)]
        out: GenOutput,
    },
    /// A star: node 0 joined to every other node, both directions (a hub of degree LEAVES).
    Star {
        #[arg(long)]
        leaves: u32,
        #[command(flatten)]
        out: GenOutput,
    },
    /// A path through nodes 0, 1, ..., NODES - 1, both directions (diameter NODES - 1).
    Path {
        #[arg(long)]
        nodes: u32,
        #[command(flatten)]
        out: GenOutput,
    },
    /// COUNT connected components of SIZE nodes each (a random tree and SIZE more random
    /// edges inside each, both directions), node ids interleaved at random.
    Components {
        #[arg(long)]
        count: u32,
        #[arg(long)]
        size: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        out: GenOutput,
    },
    /// Uniform random directed edges (endpoints drawn with replacement).
    Random {
        #[arg(long)]
        nodes: u32,
        #[arg(long)]
        edges: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        out: GenOutput,
    },
    /// Random points in the unit square and their Delaunay triangulation; writes the mesh's
    /// edge graph (symmetric).
    Mesh {
        #[arg(long)]
        points: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write PREFIX.node and PREFIX.ele (Triangle's formats) for mesh refinement.
        #[arg(long, value_name = "PREFIX")]
        mesh_out: Option<PathBuf>,
        #[command(flatten)]
        out: GenOutput,
    },
}

pub fn run(cmd: GraphCommand) -> ExitCode {
    let result = match cmd {
        GraphCommand::Convert(args) => convert(args),
        GraphCommand::Info(args) => info(args),
        GraphCommand::Gen(g) => gen_graph(g),
        GraphCommand::Partition(args) => partition(args),
    };
    finish(result)
}

/// Prints an error and chooses the exit status.
pub(crate) fn finish(result: Result<ExitCode, GraphError>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) => {
            say!("error: {e}");
            match e {
                GraphError::Internal(_) => ExitCode::from(2),
                _ => ExitCode::from(1),
            }
        }
    }
}

/// Progress bars on stderr, hidden when stderr is not a terminal.
pub(crate) struct Bars {
    current: RefCell<Option<ProgressBar>>,
    visible: bool,
}

impl Bars {
    pub(crate) fn new() -> Self {
        Bars {
            current: RefCell::new(None),
            visible: std::io::stderr().is_terminal(),
        }
    }
}

impl Progress for Bars {
    fn start(&self, phase: &str, total: Option<u64>, unit: Unit) {
        let bar = match total {
            Some(t) => ProgressBar::new(t),
            None => ProgressBar::new_spinner(),
        };
        bar.set_draw_target(if self.visible {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let template = match (total.is_some(), unit) {
            (true, Unit::Bytes) => {
                "{msg:>12} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
            }
            (true, Unit::Items) => {
                "{msg:>12} [{bar:30}] {human_pos}/{human_len} {per_sec} eta {eta}"
            }
            (false, _) => "{msg:>12} {spinner} {elapsed}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(phase.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        if let Some(old) = self.current.replace(Some(bar)) {
            old.finish_and_clear();
        }
    }

    fn set(&self, done: u64) {
        if let Some(bar) = &*self.current.borrow() {
            bar.set_position(done);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.current.take() {
            bar.finish_and_clear();
        }
    }
}

/// Loads a graph, printing the loader's notes to stderr.
pub(crate) fn load_graph(path: &Path, opts: &InputOptions) -> Result<(Csr, Format), GraphError> {
    let bars = Bars::new();
    let loaded = load::load(path, &opts.load_options(), &bars)?;
    for note in &loaded.notes {
        say!("note: {note}");
    }
    Ok((loaded.csr, loaded.format))
}

/// The formats a graph can be written in, by the output's extension.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OutFormat {
    /// Galois `.gr` v1.
    Gr,
    /// A SNAP edge list (`.txt`, `.el`).
    EdgeList,
    /// The GAP benchmark suite's serialized graph (`.sg`; `.wsg`: with the weights).
    GapSerialized { weights: bool },
    /// The ECL codes' binary graph (`.egr`).
    Ecl,
}

/// The format `path` asks for, or why none: a graph is written as `.gr`, or as an edge list
/// (`.txt`, `.el`); any other name (`.mtx`, `.gz`, none) is refused before any work.
fn out_format(path: &Path) -> Result<OutFormat, GraphError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("gr") => Ok(OutFormat::Gr),
        Some("txt" | "el") => Ok(OutFormat::EdgeList),
        Some("sg") => Ok(OutFormat::GapSerialized { weights: false }),
        Some("wsg") => Ok(OutFormat::GapSerialized { weights: true }),
        Some("egr") => Ok(OutFormat::Ecl),
        other => Err(GraphError::File {
            path: path.display().to_string(),
            message: format!(
                "cannot write a graph {}: name the output .gr (Galois binary), .txt / .el (an edge list), .sg / .wsg (GAP's serialized graph) or .egr (ECL's graph)",
                match other {
                    Some(ext) => format!("as .{ext}"),
                    None => "without an extension".to_string(),
                }
            ),
        }),
    }
}

/// Refuses outputs that are inputs of the command ([`irgl_files::refuse_inputs`]).
fn refuse_inputs(outputs: &[&Path], inputs: &[&Path]) -> Result<(), GraphError> {
    irgl_files::refuse_inputs(outputs, inputs)
        .map_err(|clash| GraphError::Invalid(clash.to_string()))
}

fn write_graph(g: &Csr, path: &Path) -> Result<(), GraphError> {
    let format = out_format(path)?;
    match format {
        OutFormat::Gr => gr::check_writable(g)?,
        OutFormat::GapSerialized { weights } => sg::check_writable(g, weights)?,
        OutFormat::Ecl => {
            egr::check_writable(g)?;
            ecl_warnings(g, path);
        }
        OutFormat::EdgeList => {}
    }
    irgl_files::write_whole(path, |w| match format {
        OutFormat::EdgeList => snap::write(g, w),
        OutFormat::Gr => gr::write(g, w),
        OutFormat::GapSerialized { weights } => sg::write(g, weights, w),
        OutFormat::Ecl => egr::write(g, w),
    })
    .map_err(|e| GraphError::Io {
        path: path.display().to_string(),
        source: e,
    })
}

/// What the ECL codes expect of an `.egr` and a graph may not have: no self-loops (ECL-MIS
/// does not finish on a graph with one) and both directions of every edge. A warning each,
/// with the flag that mends it; the file is written as asked.
fn ecl_warnings(g: &Csr, path: &Path) {
    let loops = g.self_loops();
    if loops > 0 {
        say!(
            "warning: {}: the graph has {loops} self-loop(s); ECL's codes expect none (ECL-MIS does not finish on them): add --drop-self-loops",
            path.display()
        );
    }
    if !g.is_symmetric() {
        say!(
            "warning: {}: the graph is directed; ECL's codes read undirected graphs (both directions of every edge): add --symmetrize",
            path.display()
        );
    }
}

fn transform_and_write(g: Csr, t: &TransformArgs, out: &Path) -> Result<Csr, GraphError> {
    let (g, notes) = transform::apply(g, &t.options());
    for note in notes {
        say!("note: {note}");
    }
    write_graph(&g, out)?;
    Ok(g)
}

/// The transformations that make a graph what `program` reads (as `irglc run` converts it),
/// on top of those asked for.
fn transform_for(program: &Path, asked: &TransformArgs) -> Result<TransformArgs, GraphError> {
    let mut sources = irgl_diagnostics::SourceMap::new();
    let needs = crate::compile_file(
        &mut sources,
        &program.to_path_buf(),
        &crate::opts::OptArgs {
            level: Some(irgl_opt::OptLevel::O0),
            ..Default::default()
        },
    )
    .map_err(|_| {
        GraphError::Invalid(format!(
            "--for {}: the program does not compile (above)",
            program.display()
        ))
    })?
    .needs;
    if needs.mesh {
        return Err(GraphError::Invalid(format!(
            "--for {}: the program reads a mesh, not a graph: convert its input with irglc mesh convert",
            program.display()
        )));
    }
    Ok(TransformArgs {
        symmetrize: asked.symmetrize || needs.symmetric,
        drop_self_loops: asked.drop_self_loops || needs.simple,
        dedup: asked.dedup || needs.simple,
        // `irglc run` weighs a graph without weights with seed 1 (--weights-seed).
        weights: asked.weights.or(needs.weights.then_some(1)),
    })
}

fn convert(args: ConvertArgs) -> Result<ExitCode, GraphError> {
    refuse_inputs(&[&args.output], &[&args.input])?;
    out_format(&args.output)?;
    let transform = match &args.for_program {
        Some(p) => transform_for(p, &args.transform)?,
        None => args.transform.clone(),
    };
    let start = Instant::now();
    let (g, format) = load_graph(&args.input, &args.input_options)?;
    let read_s = start.elapsed().as_secs_f64();
    let g = transform_and_write(g, &transform, &args.output)?;
    let total = start.elapsed().as_secs_f64();
    say!(
        "converted {} ({}) to {}: {} nodes, {} edges{} in {total:.2} s (read {read_s:.2} s), {:.3e} edges/s",
        args.input.display(),
        format.name(),
        args.output.display(),
        g.n,
        g.num_edges(),
        if g.weights.is_some() {
            ", weighted"
        } else {
            ""
        },
        g.num_edges() as f64 / total.max(1e-9)
    );
    Ok(ExitCode::SUCCESS)
}

fn partition(args: PartitionArgs) -> Result<ExitCode, GraphError> {
    if args.parts == 0 {
        return Err(GraphError::Invalid(
            "--parts 0: give the number of parts, 1 or more".into(),
        ));
    }
    let (g, _) = load_graph(&args.graph, &args.input_options)?;
    let p = irgl_graph::partition::partition(&g, args.parts);
    let s = p.stats();
    if let Some(dir) = &args.output {
        let facts = Facts {
            symmetric: g.is_symmetric(),
            simple: g.is_sorted()
                && (0..g.n).all(|u| {
                    let list = g.neighbours(u);
                    !list.contains(&u) && list.windows(2).all(|w| w[0] != w[1])
                }),
            weighted: g.weights.is_some(),
        };
        let generated = serde_json::json!({ "partitioned": args.graph.display().to_string() });
        write_parts_folder(dir, &facts, generated, |each| {
            for part in &p.parts {
                each(irgl_graph::parts::GeneratedPart {
                    masters: part.masters.clone(),
                    csr: part.csr.clone(),
                    mirrors: part.mirrors.clone(),
                })?;
            }
            Ok(p.starts.clone())
        })?;
        say!("wrote {} parts into {}", args.parts, dir.display());
    }
    // A 4-byte value per mirror each way: the reduction into masters, the broadcast back.
    let exchange_bytes = s.mirrors * 4;
    if args.json {
        let parts: Vec<serde_json::Value> = p
            .parts
            .iter()
            .zip(&s.parts)
            .map(|(part, (masters, edges, mirrors))| {
                serde_json::json!({
                    "first": part.masters.start,
                    "masters": masters,
                    "edges": edges,
                    "mirrors": mirrors,
                })
            })
            .collect();
        let v = serde_json::json!({
            "file": args.graph.display().to_string(),
            "parts": parts,
            "mirrors": s.mirrors,
            "replication": s.replication,
            "imbalance": s.imbalance,
            "exchange_bytes": exchange_bytes,
        });
        crate::print_out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = format!(
        "{} over {} parts (contiguous node ranges balanced by nodes + edges)\n{:>5} {:>12} {:>12} {:>14} {:>12}\n",
        args.graph.display(),
        args.parts,
        "part",
        "first node",
        "masters",
        "edges",
        "mirrors"
    );
    for (i, (part, (masters, edges, mirrors))) in p.parts.iter().zip(&s.parts).enumerate() {
        out.push_str(&format!(
            "{i:>5} {:>12} {masters:>12} {edges:>14} {mirrors:>12}\n",
            part.masters.start
        ));
    }
    out.push_str(&format!(
        "mirrors {} (replication {:.3}), heaviest part {:.3}x the mean; one exchange of 4-byte values moves {} bytes each way\n",
        s.mirrors, s.replication, s.imbalance, exchange_bytes
    ));
    crate::print_out(&out);
    Ok(ExitCode::SUCCESS)
}

fn info(args: InfoArgs) -> Result<ExitCode, GraphError> {
    let (g, format) = load_graph(&args.graph, &args.input_options)?;
    let s = stats::describe(&g, args.seed);
    let name = args.graph.display().to_string();
    let weights = s.weight_range.map(|(a, b)| format!("{a}..={b}"));
    if args.json {
        let v = serde_json::json!({
            "file": name,
            "format": format.name(),
            "nodes": s.nodes,
            "edges": s.edges,
            "undirected_edges": s.undirected_edges,
            "symmetric": s.symmetric,
            "sorted": s.sorted,
            "self_loops": s.self_loops,
            "duplicate_edges": s.duplicate_edges,
            "weighted": s.weighted,
            "weight_min": s.weight_range.map(|w| w.0),
            "weight_max": s.weight_range.map(|w| w.1),
            "degree": {
                "min": s.degree_min,
                "max": s.degree_max,
                "mean": s.degree_mean,
                "median": s.degree_median,
            },
            "warp_efficiency": s.warp_efficiency,
            "isolated_nodes": s.isolated_nodes,
            "components": s.components,
            "diameter_estimate": s.diameter_estimate,
            "memory_bytes": s.memory_bytes,
        });
        crate::print_out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ));
    } else {
        let yes = |b: bool| if b { "yes" } else { "no" };
        let lines = [
            ("file", format!("{name} ({})", format.name())),
            ("nodes", s.nodes.to_string()),
            ("edges", format!("{} (arcs as stored)", s.edges)),
            (
                "undirected edges",
                format!(
                    "{} (distinct pairs u != v, either direction)",
                    s.undirected_edges
                ),
            ),
            ("symmetric", yes(s.symmetric).to_string()),
            ("sorted", yes(s.sorted).to_string()),
            ("self-loops", s.self_loops.to_string()),
            ("duplicate edges", s.duplicate_edges.to_string()),
            ("weights", weights.unwrap_or_else(|| "none".into())),
            (
                "out-degree",
                format!(
                    "min {}, max {}, mean {:.2}, median {}",
                    s.degree_min, s.degree_max, s.degree_mean, s.degree_median
                ),
            ),
            (
                "warp efficiency",
                format!(
                    "{:.3} (lanes busy when each thread walks one node's edges, 32 nodes a warp)",
                    s.warp_efficiency
                ),
            ),
            ("isolated nodes", s.isolated_nodes.to_string()),
            (
                "components",
                format!("{} (taken as undirected)", s.components),
            ),
            (
                "diameter",
                format!(
                    ">= {} (estimate: {} BFS sweeps, taken as undirected)",
                    s.diameter_estimate,
                    stats::DIAMETER_SWEEPS
                ),
            ),
            ("memory", format!("{} bytes (CSR)", s.memory_bytes)),
        ];
        let mut out = std::io::stdout().lock();
        for (k, v) in lines {
            let _ = writeln!(out, "{:<17} {v}", format!("{k}:"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What a folder of parts records of its graph, beside its generation: whether every arc has
/// its reverse and whether the lists hold no self-loop and no repeat (the programs' `graph g :
/// symmetric` and `simple` read them: each part holds only its own arcs).
struct Facts {
    symmetric: bool,
    simple: bool,
    weighted: bool,
}

/// Writes a new folder of parts at `dir` (under a temporary name, renamed into place once
/// complete): `produce` hands each part to its callback in order and returns the ranges.
fn write_parts_folder(
    dir: &Path,
    facts: &Facts,
    generated: serde_json::Value,
    produce: impl FnOnce(
        &mut dyn FnMut(irgl_graph::parts::GeneratedPart) -> Result<(), GraphError>,
    ) -> Result<Vec<u32>, GraphError>,
) -> Result<(u32, u64), GraphError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| GraphError::Io { path, source }
    };
    if out_format(dir).is_ok() {
        return Err(GraphError::Invalid(format!(
            "{}: with --parts the output is a folder; name it without a graph file's extension",
            dir.display()
        )));
    }
    if dir.exists() {
        return Err(GraphError::Invalid(format!(
            "{} exists: --parts writes a new folder (remove it or choose another name)",
            dir.display()
        )));
    }
    let pending = irgl_files::PendingDir::beside(dir).map_err(io(dir))?;
    let mut written = Vec::new();
    let starts = produce(&mut |part| {
        let p = written.len();
        let graph = pending.path().join(format!("part-{p}.gr"));
        gr::check_writable(&part.csr)?;
        irgl_files::write_whole(&graph, |w| gr::write(&part.csr, w)).map_err(io(&graph))?;
        let mirrors = pending.path().join(format!("part-{p}.mirrors"));
        irgl_files::write_whole(&mirrors, |w| {
            part.mirrors
                .iter()
                .try_for_each(|v| w.write_all(&v.to_le_bytes()))
        })
        .map_err(io(&mirrors))?;
        written.push(serde_json::json!({
            "graph": format!("part-{p}.gr"),
            "mirrors": format!("part-{p}.mirrors"),
            "masters": part.masters.end - part.masters.start,
            "edges": part.csr.num_edges(),
            "mirror_count": part.mirrors.len(),
        }));
        Ok(())
    })?;
    let nodes = *starts.last().unwrap_or(&0);
    let edges: u64 = written
        .iter()
        .map(|p| p["edges"].as_u64().unwrap_or(0))
        .sum();
    let manifest = serde_json::json!({
        "format": "irglc-parts",
        "version": 1,
        "nodes": nodes,
        "edges": edges,
        "weighted": facts.weighted,
        "symmetric": facts.symmetric,
        "simple": facts.simple,
        "starts": starts,
        "parts": written,
        "generated": generated,
    });
    let json = pending.path().join(crate::parts_folder::MANIFEST);
    irgl_files::write_whole(&json, |w| {
        serde_json::to_writer_pretty(&mut *w, &manifest)?;
        w.write_all(b"\n")
    })
    .map_err(io(&json))?;
    pending.commit().map_err(io(dir))?;
    Ok((nodes, edges))
}

/// `graph gen rmat --parts N`: each part generated and written in turn into a new folder.
fn gen_rmat_parts(spec: &RmatSpec, parts: u32, out: &GenOutput) -> Result<ExitCode, GraphError> {
    if parts == 0 {
        return Err(GraphError::Invalid(
            "--parts 0: a graph has at least one part".into(),
        ));
    }
    let t = &out.transform;
    let opts = PartOptions {
        symmetrize: t.symmetrize,
        drop_self_loops: t.drop_self_loops,
        dedup: t.dedup,
        weights: t.weights,
    };
    let facts = Facts {
        symmetric: opts.symmetrize,
        simple: opts.drop_self_loops && (opts.symmetrize || opts.dedup),
        weighted: opts.weights.is_some(),
    };
    let generated = serde_json::json!({
        "rmat": {
            "scale": spec.scale,
            "edge_factor": spec.edge_factor,
            "seed": spec.seed,
            "a": spec.params.a,
            "b": spec.params.b,
            "c": spec.params.c,
        },
        "symmetrize": opts.symmetrize,
        "drop_self_loops": opts.drop_self_loops,
        "dedup": opts.dedup,
        "weights": opts.weights,
    });
    let start = Instant::now();
    let bars = Bars::new();
    let (nodes, edges) = write_parts_folder(&out.output, &facts, generated, |each| {
        rmat_parts(*spec, opts, parts, &bars, each)
    })?;
    say!(
        "generated {}: {nodes} nodes, {edges} edges{} in {parts} parts in {:.2} s",
        out.output.display(),
        if facts.weighted { ", weighted" } else { "" },
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// The `.node` and `.ele` files of `--mesh-out PREFIX` (`box.1` gives `box.1.node`).
fn triangle_files(prefix: &Path) -> [PathBuf; 2] {
    ["node", "ele"].map(|ext| irgl_files::names::with_added_extension(prefix, ext))
}

fn gen_graph(cmd: GenCommand) -> Result<ExitCode, GraphError> {
    if let GenCommand::Rmat {
        scale,
        edge_factor,
        seed,
        a,
        b,
        c,
        parts: Some(parts),
        out,
    } = cmd
    {
        let spec = RmatSpec {
            scale,
            edge_factor,
            seed,
            params: RmatParams { a, b, c },
        };
        return gen_rmat_parts(&spec, parts, &out);
    }
    // A bad output name is refused before the work.
    let output = match &cmd {
        GenCommand::Rmat { out, .. }
        | GenCommand::Grid { out, .. }
        | GenCommand::Star { out, .. }
        | GenCommand::Path { out, .. }
        | GenCommand::Components { out, .. }
        | GenCommand::Random { out, .. }
        | GenCommand::Mesh { out, .. } => out.output.clone(),
    };
    out_format(&output)?;
    let start = Instant::now();
    let bars = Bars::new();
    let (g, out) = match cmd {
        GenCommand::Rmat {
            scale,
            edge_factor,
            seed,
            a,
            b,
            c,
            out,
            ..
        } => {
            let list = generate::rmat(scale, edge_factor, RmatParams { a, b, c }, seed, &bars)?;
            (Csr::from_edge_list(list), out)
        }
        GenCommand::Grid { rows, cols, out } => {
            (Csr::from_edge_list(generate::grid(rows, cols)?), out)
        }
        GenCommand::Star { leaves, out } => (Csr::from_edge_list(generate::star(leaves)?), out),
        GenCommand::Path { nodes, out } => (Csr::from_edge_list(generate::path(nodes)?), out),
        GenCommand::Components {
            count,
            size,
            seed,
            out,
        } => (
            Csr::from_edge_list(generate::components(count, size, seed)?),
            out,
        ),
        GenCommand::Random {
            nodes,
            edges,
            seed,
            out,
        } => (
            Csr::from_edge_list(generate::uniform(nodes, edges, seed)?),
            out,
        ),
        GenCommand::Mesh {
            points,
            seed,
            mesh_out,
            out,
        } => {
            let mesh = generate::mesh(points, seed)?;
            if let Some(prefix) = mesh_out {
                let [node, ele] = triangle_files(&prefix);
                for (path, is_ele) in [(node, false), (ele, true)] {
                    irgl_files::write_whole(&path, |w| {
                        if is_ele {
                            mesh.write_ele(w)
                        } else {
                            mesh.write_node(w)
                        }
                    })
                    .map_err(|e| GraphError::Io {
                        path: path.display().to_string(),
                        source: e,
                    })?;
                }
                say!("note: wrote {} triangles", mesh.triangles.len());
            }
            (mesh.edge_graph(), out)
        }
    };
    let g = transform_and_write(g, &out.transform, &out.output)?;
    say!(
        "generated {}: {} nodes, {} edges{} in {:.2} s",
        out.output.display(),
        g.n,
        g.num_edges(),
        if g.weights.is_some() {
            ", weighted"
        } else {
            ""
        },
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
