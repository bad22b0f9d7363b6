//! `irglc tune`: the optimization space of a program. For now it lists the variants (the
//! product of the dimensions the program's structure allows) and which of them generate the
//! same CUDA; building, timing and verifying them on a GPU come next.

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
    /// List the variants and exit (the only mode so far: measuring them on a GPU is not
    /// implemented yet).
    #[arg(long)]
    pub list: bool,
    /// Block sizes to try, comma-separated (default: 256).
    #[arg(long, value_delimiter = ',', value_name = "N,...")]
    pub block_sizes: Vec<u32>,
    /// Nested-loop schedules to try, comma-separated (default: serial, tb, wp, fg, tb+wp,
    /// tb+fg, wp+fg, tb+wp+fg, eb, tb+wp+eb).
    #[arg(long, value_delimiter = ',', value_name = "SCHEDULE,...")]
    pub schedules: Vec<String>,
}

pub fn tune(args: &TuneArgs) -> Result<(), Failure> {
    if !args.list {
        eprintln!(
            "error: irglc tune measures nothing yet: building, timing and verifying the variants on a GPU is not implemented; `irglc tune {} --list` lists them",
            args.file.display()
        );
        return Err(Failure::User);
    }
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
    Ok(())
}
