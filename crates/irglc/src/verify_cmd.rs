//! `irglc verify`: compare a generated program's output file with the CPU reference.
//!
//! Prints the verdict (`match` or `MISMATCH`), what was compared, and the first mismatches.
//! Graph programs take `--graph G --output OUT`; `dmr` takes the mesh it refined and the mesh it
//! wrote, `--mesh IN.mesh --output OUT.mesh` (checked by `irgl_graph::mesh::verify`).
//! Exit status: 0 match, 1 mismatch or a problem with the inputs, 2 an internal error.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use irgl_graph::GraphError;
use irgl_graph::output;
use irgl_graph::verify::{self, Program};

use crate::graph_cmd::{InputOptions, finish, load_graph};
use crate::parts_folder;

/// What `irglc verify` checks: a graph program's output, or a refined mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Graph(Program),
    Dmr,
}

/// The command line of `irglc verify`.
#[derive(clap::Args)]
pub struct VerifyCli {
    /// Program family: bfs, sssp, cc, pr, tc, mis, mst, traverse, or dmr.
    #[arg(long, value_parser = parse_family)]
    pub program: Family,
    /// The graph the program ran on (the same .gr file, so that edge ids agree), or the
    /// folder of parts it ran on (`graph gen rmat --parts`: bfs, sssp, cc, pr, mis, color
    /// and traverse, checked by certificates a part at a time); graph programs only.
    #[arg(long)]
    pub graph: Option<PathBuf>,
    /// The mesh the program refined (a .mesh file, or Triangle files); dmr only.
    #[arg(long)]
    pub mesh: Option<PathBuf>,
    /// The program's output file (docs/output-format.md); for dmr, the refined mesh it wrote.
    #[arg(long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub input_options: InputOptions,
}

/// A graph program's verification, as `irglc run --verify` asks for it too.
pub struct VerifyArgs {
    pub program: Program,
    pub graph: PathBuf,
    pub output: PathBuf,
    pub input_options: InputOptions,
}

pub(crate) fn parse_program(s: &str) -> Result<Program, String> {
    Program::from_name(s)
        .ok_or_else(|| format!("unknown program `{s}`: expected bfs, sssp, cc, pr, tc, mis or mst"))
}

fn parse_family(s: &str) -> Result<Family, String> {
    if s == "dmr" {
        return Ok(Family::Dmr);
    }
    Program::from_name(s).map(Family::Graph).ok_or_else(|| {
        format!("unknown program `{s}`: expected bfs, sssp, cc, pr, tc, mis, mst, traverse or dmr")
    })
}

/// `irglc verify`: checks which inputs the family takes, then verifies.
pub fn run_cli(args: VerifyCli) -> ExitCode {
    let usage = |m: String| finish(Err(GraphError::Invalid(m)));
    match args.program {
        Family::Graph(program) => {
            if args.mesh.is_some() {
                return usage(format!(
                    "--mesh is for --program dmr; `{}` verifies against a graph: give --graph",
                    program.name()
                ));
            }
            let Some(graph) = args.graph else {
                return usage(format!(
                    "--program {} needs --graph, the graph the program ran on",
                    program.name()
                ));
            };
            run(VerifyArgs {
                program,
                graph,
                output: args.output,
                input_options: args.input_options,
            })
        }
        Family::Dmr => {
            if args.graph.is_some() {
                return usage(
                    "--program dmr verifies a mesh: give --mesh IN.mesh (the mesh it refined), not --graph"
                        .into(),
                );
            }
            let Some(mesh) = args.mesh else {
                return usage(
                    "--program dmr needs --mesh IN.mesh, the mesh the program refined".into(),
                );
            };
            finish(verify_dmr(&mesh, &args.output))
        }
    }
}

fn verify_dmr(input: &std::path::Path, output: &std::path::Path) -> Result<ExitCode, GraphError> {
    let before = crate::mesh_cmd::read_mesh(input)?;
    let after = crate::mesh_cmd::read_mesh(output)?;
    let verdict = irgl_graph::mesh::verify_refinement(&before, &after).map_err(|e| match e {
        GraphError::Invalid(message) => GraphError::File {
            path: input.display().to_string(),
            message,
        },
        e => e,
    })?;
    crate::print_out(&verdict.to_string());
    Ok(if verdict.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

pub fn run(args: VerifyArgs) -> ExitCode {
    finish(verify_files(&args))
}

fn verify_files(args: &VerifyArgs) -> Result<ExitCode, GraphError> {
    let name = args.output.display().to_string();
    let file = File::open(&args.output).map_err(|e| GraphError::Io {
        path: name.clone(),
        source: e,
    })?;
    let out = output::parse(BufReader::with_capacity(1 << 20, file), &name)?;
    let verdict = if parts_folder::is_parts_folder(&args.graph) {
        // A graph held as parts: each answer checked by a certificate, a part at a time.
        let parts = parts_folder::PartsFolder::open(&args.graph)?;
        verify::verify_parts(args.program, &parts, &out)?
    } else {
        let (g, _) = load_graph(&args.graph, &args.input_options)?;
        verify::verify(args.program, &g, &out)?
    };
    crate::print_out(&verdict.to_string());
    Ok(if verdict.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
