//! `irglc verify`: compare a generated program's output file with the CPU reference.
//!
//! Prints the verdict (`match` or `MISMATCH`), what was compared, and the first mismatches.
//! Exit status: 0 match, 1 mismatch or a problem with the inputs, 2 an internal error.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use irgl_graph::GraphError;
use irgl_graph::output;
use irgl_graph::verify::{self, Program};

use crate::graph_cmd::{InputOptions, finish, load_graph};

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Program family: bfs, sssp, cc, pr, tc, mis, mst.
    #[arg(long, value_parser = parse_program)]
    pub program: Program,
    /// The graph the program ran on (the same .gr file, so that edge ids agree).
    #[arg(long)]
    pub graph: PathBuf,
    /// The program's output file (docs/output-format.md).
    #[arg(long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub input_options: InputOptions,
}

pub(crate) fn parse_program(s: &str) -> Result<Program, String> {
    Program::from_name(s)
        .ok_or_else(|| format!("unknown program `{s}`: expected bfs, sssp, cc, pr, tc, mis or mst"))
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
    let (g, _) = load_graph(&args.graph, &args.input_options)?;
    let verdict = verify::verify(args.program, &g, &out)?;
    crate::print_out(&verdict.to_string());
    Ok(if verdict.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
