//! `irglc compile`, `irglc build` and `irglc run`: from a checked program to CUDA, to an
//! executable, to a run on a graph.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use irgl_diagnostics::SourceMap;

use crate::opts::OptArgs;
use crate::toolchain::{self, fnv1a};
use crate::{Failure, compile_file};

#[derive(clap::Args)]
pub struct CompileArgs {
    /// The `.irgl` program.
    pub file: PathBuf,
    /// Where to write the CUDA source (default: the program's name with `.cu`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub opts: OptArgs,
}

#[derive(clap::Args)]
pub struct BuildArgs {
    /// The `.irgl` program.
    pub file: PathBuf,
    /// Where to write the executable (default: the program's name).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// GPU architecture for nvcc, such as `sm_90` (default: the GPU of this machine).
    #[arg(long)]
    pub arch: Option<String>,
    #[command(flatten)]
    pub opts: OptArgs,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// The `.irgl` program.
    pub file: PathBuf,
    /// The input graph, in any format `irglc graph convert` reads.
    #[arg(long)]
    pub graph: PathBuf,
    /// GPU architecture for nvcc (default: the GPU of this machine).
    #[arg(long)]
    pub arch: Option<String>,
    /// Seed of the weights added when the program reads edge weights and the graph has none.
    #[arg(long, default_value_t = 1)]
    pub weights_seed: u64,
    /// After the run, compare the outputs with this CPU reference (bfs, sssp, cc, pr, tc,
    /// mis or mst) on the graph the program ran on (`none`: no check, the default).
    #[arg(long, value_name = "FAMILY|none", value_parser = crate::output_check::parse_verify, conflicts_with = "check")]
    pub verify: Option<crate::output_check::VerifyArg>,
    /// After the run, check the outputs with this command instead: `{graph}` and `{output}`
    /// are replaced by the paths of the graph the program read and of its output file; its
    /// exit status is the verdict (0: correct).
    #[arg(long, value_name = "CMD", value_parser = crate::output_check::CheckCommand::parse)]
    pub check: Option<crate::output_check::CheckCommand>,
    /// Run partitioned over this many GPUs of the machine (builds with `--multi-gpu on`,
    /// where the program allows it; `irglc emit partition` says whether it does).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub gpus: Option<u32>,
    #[command(flatten)]
    pub opts: OptArgs,
    /// Flags for the program itself (its params, `--output`, ...), after `--`.
    #[arg(last = true)]
    pub program_args: Vec<String>,
}

/// The program's name: its file name without `.irgl` (dots before it kept).
fn program_name(file: &Path) -> String {
    irgl_files::names::stem(file)
}

/// Refuses to write CUDA or an executable under an IrGL source's name (`-o y.irgl`).
fn refuse_source_name(out: &Path) -> Result<(), Failure> {
    if out.extension().is_some_and(|e| e == "irgl") {
        say!(
            "error: {}: a .irgl name is for IrGL programs; name the output otherwise (such as {}.cu)",
            out.display(),
            program_name(out)
        );
        return Err(Failure::User);
    }
    Ok(())
}

/// Refuses to write `outputs` where they are inputs of the command, before any work.
pub(crate) fn refuse_inputs(outputs: &[&Path], inputs: &[&Path]) -> Result<(), Failure> {
    irgl_files::refuse_inputs(outputs, inputs).map_err(|clash| {
        say!("error: {clash}");
        Failure::User
    })
}

/// Checks and compiles a program to CUDA source text; also returns what the program needs of
/// its input graph.
fn generate(file: &PathBuf, opts: &OptArgs) -> Result<(String, irgl_cuda::GraphNeeds), Failure> {
    let mut sources = SourceMap::new();
    let compiled = compile_file(&mut sources, file, opts)?;
    Ok((compiled.cuda, compiled.needs))
}

pub fn compile(args: &CompileArgs) -> Result<(), Failure> {
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.cu", program_name(&args.file))));
    refuse_inputs(&[&out], &[&args.file])?;
    refuse_source_name(&out)?;
    let (cu, _) = generate(&args.file, &args.opts)?;
    irgl_files::write_bytes(&out, cu.as_bytes()).map_err(|e| {
        say!("error: cannot write {}: {e}", out.display());
        Failure::User
    })
}

/// The oldest architecture the generated programs run on: their threads wait for threads of
/// their own warp (the asynchronous queue's pushers and takers, `Atomic`'s locks, a grid
/// barrier's leader), which needs the independent thread scheduling of Volta (sm_70) on.
pub(crate) const OLDEST_ARCH: u32 = 70;

/// The compute capability of an nvcc architecture name (`sm_90`, `sm_90a`: 90).
fn arch_number(arch: &str) -> Option<u32> {
    let digits: String = arch
        .strip_prefix("sm_")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let rest = &arch[3 + digits.len()..];
    (!digits.is_empty() && rest.chars().all(|c| c.is_ascii_lowercase()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The nvcc architecture: the flag, else the GPU of this machine; sm_70 or newer.
pub(crate) fn arch(flag: &Option<String>) -> Result<String, Failure> {
    let arch = match flag {
        Some(a) => a.clone(),
        None => toolchain::detect_gpu().map(|(arch, _)| arch).map_err(|e| {
            say!("error: cannot choose a GPU architecture: {e}; pass one with --arch sm_90");
            Failure::User
        })?,
    };
    match arch_number(&arch) {
        None => {
            say!("error: --arch {arch}: expected an architecture such as sm_90");
            Err(Failure::User)
        }
        Some(n) if n < OLDEST_ARCH => {
            say!(
                "error: {arch}: irglc's programs need sm_{OLDEST_ARCH} or newer (threads of a warp wait for each other, which needs independent thread scheduling)"
            );
            Err(Failure::User)
        }
        Some(_) => Ok(arch),
    }
}

pub fn build(args: &BuildArgs) -> Result<(), Failure> {
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(program_name(&args.file)));
    refuse_inputs(&[&out], &[&args.file])?;
    refuse_source_name(&out)?;
    let arch = arch(&args.arch)?;
    let (cu_text, _) = generate(&args.file, &args.opts)?;
    let exe = crate::build_cache::build_single(&program_name(&args.file), &cu_text, &arch, false)?;
    irgl_files::copy_whole(&exe, &out).map_err(|e| {
        say!("error: cannot write {}: {e}", out.display());
        Failure::User
    })
}

pub fn run(args: &RunArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(Failure::User) => ExitCode::from(1),
    }
}

/// The value of the program's own flag `name` (`--output X` or `--output=X`).
fn program_flag(args: &[String], name: &str) -> Option<String> {
    let eq = format!("{name}=");
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| {
            args.iter()
                .find_map(|a| a.strip_prefix(eq.as_str()).map(str::to_string))
        })
}

fn run_inner(args: &RunArgs) -> Result<ExitCode, Failure> {
    // The output file: the program's own `--output` if given, else `<program>.out`; it and a
    // mesh program's `--mesh-output` must not be an input.
    let output = program_flag(&args.program_args, "--output")
        .unwrap_or_else(|| format!("{}.out", program_name(&args.file)));
    let mesh_output = program_flag(&args.program_args, "--mesh-output");
    let outputs: Vec<&Path> = std::iter::once(Path::new(&output))
        .chain(mesh_output.as_deref().map(Path::new))
        .collect();
    refuse_inputs(&outputs, &[&args.file, &args.graph])?;
    let arch = arch(&args.arch)?;
    let mut opts = args.opts.clone();
    // A folder of parts runs one part a GPU: the partitioned build.
    let parts = crate::parts_folder::is_parts_folder(&args.graph);
    if parts && opts.multi_gpu == Some(false) {
        say!(
            "error: {} is a folder of parts, which only the partitioned build reads (one part a GPU): drop --multi-gpu off",
            args.graph.display()
        );
        return Err(Failure::User);
    }
    if parts {
        opts.multi_gpu = Some(true);
    }
    if args.gpus.is_some() {
        if opts.multi_gpu == Some(false) {
            say!(
                "error: --gpus: the program runs on several GPUs only when built with --multi-gpu on"
            );
            return Err(Failure::User);
        }
        opts.multi_gpu = Some(true);
    }
    let (mut cu_text, needs) = generate(&args.file, &opts)?;
    let graph = prepare_graph(&args.graph, &needs, args.weights_seed)?;
    refuse_inputs(&outputs, &[&graph])?;
    if !needs.mesh && args.opts.wide_edges.is_none() {
        let edges = if parts {
            crate::parts_folder::PartsFolder::open(&graph)
                .map(|f| irgl_graph::verify::PartSource::edges(&f))
        } else {
            irgl_graph::format::gr::edge_count(&graph)
        }
        .map_err(|e| {
            say!("error: {e}");
            Failure::User
        })?;
        if edges > u64::from(u32::MAX) {
            say!(
                "note: {} has {edges} edges, more than 32-bit edge indices hold: building with --wide-edges on",
                graph.display()
            );
            let wide = OptArgs {
                wide_edges: Some(true),
                ..opts.clone()
            };
            cu_text = generate(&args.file, &wide)?.0;
        }
    }
    // Build into the cache (`build_cache`).
    let exe = crate::build_cache::build_single(&program_name(&args.file), &cu_text, &arch, false)?;
    if graph != args.graph {
        // Where a checker of the user's own finds the graph the program read.
        say!(
            "note: the program reads {} ({} of {})",
            graph.display(),
            conversion_of(&needs),
            args.graph.display()
        );
    }
    let mut cmd = std::process::Command::new(&exe);
    cmd.arg(&graph).args(&args.program_args);
    if let Some(n) = args.gpus {
        cmd.args(["--gpus", &n.to_string()]);
    }
    if !args.program_args.iter().any(|a| a.starts_with("--output")) {
        cmd.args(["--output", &output]);
    }
    let status = crate::process::status(&mut cmd).map_err(|e| {
        say!("error: cannot run {}: {e}", exe.display());
        Failure::User
    })?;
    match status.code() {
        Some(0) => {}
        Some(c) => return Ok(ExitCode::from(u8::try_from(c).unwrap_or(1))),
        None => return Ok(ExitCode::from(1)),
    }
    if let Some(c) = &args.check {
        // No time limit: the user runs their own check, as they would by hand.
        return match c.check(&graph, Path::new(&output), std::time::Duration::MAX) {
            Ok((true, _)) => {
                crate::print_out("match (the check command accepted the output)\n");
                Ok(ExitCode::SUCCESS)
            }
            Ok((false, why)) => {
                crate::print_out(&format!("MISMATCH: {}\n", why.join("; ")));
                Ok(ExitCode::from(1))
            }
            Err(e) => {
                say!("error: {e}");
                Ok(ExitCode::from(1))
            }
        };
    }
    let Some(crate::output_check::VerifyArg::Family(family)) = args.verify else {
        return Ok(ExitCode::SUCCESS);
    };
    Ok(crate::verify_cmd::run(crate::verify_cmd::VerifyArgs {
        program: family,
        graph,
        output: PathBuf::from(output),
        input_options: crate::graph_cmd::InputOptions {
            format: None,
            keep_ids: false,
        },
    }))
}

/// What [`prepare_graph`] made of an input for a program that needs `needs`, for messages.
fn conversion_of(needs: &irgl_cuda::GraphNeeds) -> String {
    if needs.mesh {
        return "the exactly Delaunay .mesh".to_string();
    }
    let mut parts = vec!["the .gr"];
    if needs.symmetric {
        parts.push("symmetrized");
    }
    if needs.simple {
        parts.push("without self-loops and parallel edges");
    }
    if needs.weights {
        parts.push("weighted where it had no weights");
    }
    parts.join(", ")
}

/// The graph as the program needs it: a `.gr` file, symmetrized and weighted if the program
/// asks for that (weights from `seed` where the input has none). Converted graphs are cached,
/// keyed by the input's path, size, modification time and the conversion.
pub(crate) fn prepare_graph(
    graph: &Path,
    needs: &irgl_cuda::GraphNeeds,
    seed: u64,
) -> Result<PathBuf, Failure> {
    if needs.mesh {
        return prepare_mesh(graph);
    }
    // A folder of parts as it is: nothing converts it (its generation gave it weights and
    // both directions or not; the program checks them as it loads).
    if crate::parts_folder::is_parts_folder(graph) {
        let folder = crate::parts_folder::PartsFolder::open(graph).map_err(|e| {
            say!("error: {e}");
            Failure::User
        })?;
        if needs.weights && !folder.weighted() {
            say!(
                "error: {} has no edge weights, which the program reads: generate it with --weights SEED",
                graph.display()
            );
            return Err(Failure::User);
        }
        return Ok(graph.to_path_buf());
    }
    // A binary `.gr` as it is (a DIMACS text file named `.gr` is converted like any other).
    let is_gr = graph.extension().is_some_and(|e| e == "gr") && {
        let mut head = [0u8; 8];
        std::fs::File::open(graph)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
            .is_ok()
            && irgl_graph::load::detect("x.gr", &head) == Some(irgl_graph::load::Format::Gr)
    };
    if is_gr && !needs.symmetric && !needs.simple && !needs.weights {
        return Ok(graph.to_path_buf());
    }
    let stamp = toolchain::file_stamp(graph).map_err(|e| {
        say!("error: cannot read {}: {e}", graph.display());
        Failure::User
    })?;
    let key = fnv1a(&[&stamp.to_le_bytes(), format!("{needs:?} {seed}").as_bytes()]);
    let dir = toolchain::cache_dir().join("graphs");
    let out = dir.join(format!("{key:016x}.gr"));
    if out.is_file() {
        return Ok(out);
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        say!("error: cannot create {}: {e}", dir.display());
        Failure::User
    })?;
    convert(graph, &out, needs, seed).map_err(|e| {
        say!("error: {e}");
        Failure::User
    })?;
    Ok(out)
}

/// The mesh as a mesh program reads it: a `.mesh` file as it is, Triangle files converted
/// and made exactly Delaunay (cached like converted graphs).
fn prepare_mesh(input: &Path) -> Result<PathBuf, Failure> {
    if input.extension().is_some_and(|e| e == "mesh") {
        return Ok(input.to_path_buf());
    }
    let fail = |e: String| {
        say!("error: {e}");
        Failure::User
    };
    // Keyed by the .node file's (or the named file's) stamp.
    let stamp_of = if input.is_file() {
        input.to_path_buf()
    } else {
        irgl_files::names::with_added_extension(input, "node")
    };
    let stamp = toolchain::file_stamp(&stamp_of)
        .map_err(|e| fail(format!("cannot read {}: {e}", stamp_of.display())))?;
    let key = fnv1a(&[&stamp.to_le_bytes(), b"mesh"]);
    let dir = toolchain::cache_dir().join("meshes");
    let out = dir.join(format!("{key:016x}.mesh"));
    if out.is_file() {
        return Ok(out);
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
    let mut mesh = crate::mesh_cmd::read_mesh(input).map_err(|e| fail(e.to_string()))?;
    // Snapping to the grid can break the Delaunay property that refinement needs.
    mesh.make_delaunay();
    irgl_graph::mesh::binary::write_file(&mesh, &out).map_err(|e| fail(e.to_string()))?;
    Ok(out)
}

/// Converts `input` to a `.gr` at `out` with what the program needs.
fn convert(
    input: &Path,
    out: &Path,
    needs: &irgl_cuda::GraphNeeds,
    seed: u64,
) -> Result<(), irgl_graph::GraphError> {
    use irgl_graph::format::snap::SnapIds;
    use irgl_graph::load::LoadOptions;
    use irgl_graph::transform::TransformOptions;
    let opts = LoadOptions {
        format: None,
        snap_ids: SnapIds::Remap,
    };
    let loaded = irgl_graph::load::load(input, &opts, &irgl_graph::NoProgress)?;
    let transform = TransformOptions {
        drop_self_loops: needs.simple,
        symmetrize: needs.symmetric,
        dedup: needs.simple,
        weights_seed: (needs.weights && loaded.csr.weights.is_none()).then_some(seed),
    };
    let (g, notes) = irgl_graph::transform::apply(loaded.csr, &transform);
    for note in notes {
        say!("note: {note}");
    }
    irgl_files::write_whole(out, |w| irgl_graph::format::gr::write(&g, w))
        .map_err(|e| io_error(out, e))
}

fn io_error(path: &Path, e: std::io::Error) -> irgl_graph::GraphError {
    irgl_graph::GraphError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_are_read_and_old_ones_refused() {
        assert_eq!(arch_number("sm_90"), Some(90));
        assert_eq!(arch_number("sm_90a"), Some(90));
        assert_eq!(arch_number("sm_100"), Some(100));
        for bad in ["90", "sm_", "sm_x", "sm_9é", "compute_90", "sm_90-"] {
            assert_eq!(arch_number(bad), None, "{bad}");
        }
        assert!(arch(&Some("sm_60".into())).is_err());
        assert!(arch(&Some("sm_70".into())).is_ok());
        assert!(arch(&Some("sm_9é".into())).is_err());
    }
}
