//! The GAP benchmark suite as a peer: built from a source tree the user
//! names (a copy of it is built in the cache, the tree itself is left as it is), run on the
//! same converted graphs as the programs, with matched parameters:
//!
//! | program family | GAP kernel and arguments |
//! |---|---|
//! | bfs | `bfs -r SRC` |
//! | sssp | `sssp -r SRC -d DELTA` (the program's `delta`, else the suite's) |
//! | pr | `pr -i ROUNDS -t 0`: as many iterations as the program ran, damping 0.85 for both |
//! | cc | `cc` |
//! | tc | `tc` |
//!
//! with `-s` where the program reads a symmetric graph, and `-n RUNS`. irglc writes the graph
//! as an edge list (`.el`, or `.wel` with the weights) once per converted graph, and GAP's own
//! converter builds it into GAP's serialized form (`.sg`, `.wsg`; undirected where the program
//! is symmetric) once, which every kernel then reads; its time per trial excludes reading and
//! building the graph, as the programs' times do.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use irgl_graph::Csr;
use irgl_tune::Outcome;

use crate::Failure;
use crate::tune_run::run_limited;

/// What is built: GAP's kernels that `irglc bench` runs, and its converter, which serializes
/// each graph once so that every kernel reads it in a fraction of the time its text takes.
const TARGETS: &[&str] = &["bfs", "sssp", "pr", "cc", "tc", "converter"];

/// A built copy of GAP.
pub struct Gap {
    dir: PathBuf,
}

impl Gap {
    /// Copies the tree at `src` into the cache (once per its path) and builds the kernels
    /// with its Makefile. The copy is made and built under a temporary name and renamed into
    /// place once every kernel is built: an interrupted build leaves nothing that counts.
    pub fn build(src: &Path) -> Result<Gap, Failure> {
        let fail = |what: String| {
            say!("error: GAP benchmark suite at {}: {what}", src.display());
            Failure::User
        };
        if !src.join("src/bfs.cc").is_file() || !src.join("Makefile").is_file() {
            return Err(fail(
                "not a GAP source tree (no Makefile and src/bfs.cc)".into(),
            ));
        }
        let (abs, dir) = super::build_dir("gapbs", src, &[]).map_err(fail)?;
        if TARGETS.iter().all(|k| dir.join(k).is_file()) {
            return Ok(Gap { dir });
        }
        let pending = super::pending_build(&dir).map_err(fail)?;
        let tree = pending.path();
        let copied =
            crate::process::output(Command::new("cp").arg("-r").arg(abs.join(".")).arg(tree));
        // The copy must be writable for make, whatever the tree's own permissions.
        let writable = crate::process::output(Command::new("chmod").arg("-R").arg("u+w").arg(tree));
        if !copied.is_ok_and(|o| o.status.success()) || !writable.is_ok_and(|o| o.status.success())
        {
            return Err(fail(format!("cannot copy it to {}", tree.display())));
        }
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        say!("building the GAP benchmark suite in {}", dir.display());
        let out = crate::process::output(
            Command::new("make")
                .arg("-C")
                .arg(tree)
                .arg(format!("-j{jobs}"))
                .args(TARGETS),
        )
        .map_err(|e| fail(format!("cannot run make: {e}")))?;
        if !out.status.success() {
            let first = super::first_lines(&String::from_utf8_lossy(&out.stderr), 6);
            return Err(fail(format!("make failed:\n  {first}")));
        }
        super::commit_build(pending, &dir, "").map_err(fail)?;
        Ok(Gap { dir })
    }

    /// `el` (an edge list from [`edge_list`]) as GAP's serialized graph (`.sg`, `.wsg` with
    /// weights), made once by GAP's converter as its kernels would build it (`-s`: undirected)
    /// and kept beside the edge list. GAP reads an edge list of 31 M arcs in 2 s, its
    /// serialized graph in 0.06 s: once per graph instead of once per kernel.
    pub fn serialized(
        &self,
        el: &Path,
        symmetric: bool,
        timeout: Duration,
    ) -> Result<PathBuf, Outcome> {
        let weighted = el.extension().is_some_and(|e| e == "wel");
        let name = format!(
            "{}{}.{}",
            el.file_stem().unwrap_or_default().to_string_lossy(),
            if symmetric { ".s" } else { "" },
            if weighted { "wsg" } else { "sg" }
        );
        let path = el.with_file_name(name);
        if path.is_file() {
            return Ok(path);
        }
        let failed = |why: String| Outcome::Failed {
            why: format!("GAP's converter: {why}"),
        };
        let pending = irgl_files::Pending::beside(&path).map_err(|e| failed(e.to_string()))?;
        let mut cmd = Command::new(self.dir.join("converter"));
        cmd.arg("-f").arg(el);
        if symmetric {
            cmd.arg("-s");
        }
        if weighted {
            cmd.arg("-w");
        }
        cmd.arg("-b").arg(pending.path());
        run_limited(cmd, timeout)?;
        pending.commit().map_err(|e| failed(e.to_string()))?;
        Ok(path)
    }

    /// Runs `kernel` with `args` on `graph` (from [`Gap::serialized`]): the time of each
    /// trial, in ms, or why not.
    pub fn run(
        &self,
        kernel: &str,
        graph: &Path,
        args: &[String],
        timeout: Duration,
    ) -> Result<Vec<f64>, Outcome> {
        let mut cmd = Command::new(self.dir.join(kernel));
        cmd.arg("-f").arg(graph).args(args);
        let out = run_limited(cmd, timeout)?;
        let times = trial_times(&out);
        if times.is_empty() {
            return Err(Outcome::Failed {
                why: "GAP printed no `Trial Time`".to_string(),
            });
        }
        Ok(times)
    }
}

/// The arguments of GAP's `kernel` matched to a program's run (`job`): its parameters (`src`,
/// `delta`, else `default_delta`), its rounds, whether its graph is symmetric; `-n runs`.
pub fn gap_args(
    kernel: &str,
    job: &super::PeerJob<'_>,
    default_delta: u64,
    runs: u32,
) -> Option<Vec<String>> {
    let src = job.param("src").unwrap_or("0").to_string();
    let mut args: Vec<String> = match kernel {
        "bfs" => vec!["-r".into(), src],
        "sssp" => vec![
            "-r".into(),
            src,
            "-d".into(),
            job.param("delta")
                .map_or_else(|| default_delta.to_string(), str::to_string),
        ],
        "pr" => vec![
            "-i".into(),
            job.rounds?.max(1).to_string(),
            "-t".into(),
            "0".into(),
        ],
        "cc" | "tc" => Vec::new(),
        _ => return None,
    };
    if job.symmetric {
        args.push("-s".into());
    }
    args.extend(["-n".to_string(), runs.to_string()]);
    Some(args)
}

/// The `Trial Time:` lines of GAP's output, in ms.
pub fn trial_times(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("Trial Time:"))
        .filter_map(|t| t.trim().parse::<f64>().ok())
        .map(|s| s * 1000.0)
        .collect()
}

/// The graph `g` (read from `gr`) as an edge list GAP reads: `.wel` with the weights, else
/// `.el`, written into the cache once per converted graph.
pub fn edge_list(gr: &Path, g: &Csr) -> Result<PathBuf, Failure> {
    let key = crate::toolchain::file_stamp(gr).map_err(|e| {
        say!("error: cannot read {}: {e}", gr.display());
        Failure::User
    })?;
    let ext = if g.weights.is_some() { "wel" } else { "el" };
    let dir = crate::toolchain::cache_dir().join("peer-graphs");
    let path = dir.join(format!("{key:016x}.{ext}"));
    if path.is_file() {
        return Ok(path);
    }
    irgl_files::write_whole(&path, |w| write_edge_list(g, w)).map_err(|e| {
        say!("error: cannot write {}: {e}", path.display());
        Failure::User
    })?;
    Ok(path)
}

/// One edge a line, `SRC DST` or `SRC DST WEIGHT`, in the graph's order.
fn write_edge_list(g: &Csr, mut w: impl std::io::Write) -> std::io::Result<()> {
    for u in 0..g.n {
        let (lo, hi) = (g.offsets[u as usize], g.offsets[u as usize + 1]);
        for e in lo..hi {
            let v = g.dst[e as usize];
            match &g.weights {
                Some(ws) => writeln!(w, "{u} {v} {}", ws[e as usize])?,
                None => writeln!(w, "{u} {v}")?,
            }
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_match_the_program() {
        let g = super::super::tests::triangle();
        let vf = irgl_graph::verify::Verifier::new(&g);
        let params = super::super::tests::params(&[("src", "5"), ("delta", "64")]);
        let args = |k, rounds, symmetric| {
            let job = super::super::tests::job(&g, &vf, &params, rounds, symmetric);
            gap_args(k, &job, 256, 3)
        };
        assert_eq!(args("bfs", None, false).unwrap(), ["-r", "5", "-n", "3"]);
        assert_eq!(
            args("sssp", None, false).unwrap(),
            ["-r", "5", "-d", "64", "-n", "3"]
        );
        let job = super::super::tests::job(&g, &vf, &[], None, false);
        assert_eq!(
            gap_args("sssp", &job, 256, 3).unwrap(),
            ["-r", "0", "-d", "256", "-n", "3"]
        );
        assert_eq!(
            args("pr", Some(45), false).unwrap(),
            ["-i", "45", "-t", "0", "-n", "3"]
        );
        assert_eq!(args("pr", None, false), None, "pr needs the rounds");
        assert_eq!(args("tc", None, true).unwrap(), ["-s", "-n", "3"]);
        assert_eq!(args("mst", None, true), None);
    }

    #[test]
    fn trial_times_are_read_in_ms() {
        let out = "Read Time:           0.10000000\nTrial Time:          0.00123400\n\
                   Trial Time:          0.00200000\nAverage Time:        0.00161700\n";
        assert_eq!(trial_times(out), [1.234, 2.0]);
        assert!(trial_times("nothing").is_empty());
    }

    #[test]
    fn edge_lists_hold_every_edge() {
        let g = Csr {
            n: 3,
            offsets: vec![0, 2, 2, 3],
            dst: vec![1, 2, 0],
            weights: Some(vec![7, 8, 9]),
        };
        let mut out = Vec::new();
        write_edge_list(&g, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "0 1 7\n0 2 8\n2 0 9\n");
    }
}
