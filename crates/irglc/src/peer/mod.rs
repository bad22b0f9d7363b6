//! The peers of `irglc bench`: other codes for the same problems, built from source trees the
//! user names and run on the same converted graphs as the programs, right after the programs
//! on each graph, with matched parameters, their outputs checked where they give one.
//!
//! | peer | kernels | reads | checked |
//! |---|---|---|---|
//! | GAP (`gap`) | bfs, sssp, pr, cc, tc (CPU, every core) | an edge list | not (GAP checks nothing by default; its times only) |
//! | LonestarGPU (`lonestar`) | bfs, sssp, pagerank, cc, tc, mis, mst | the program's `.gr` | by irglc's reference, its output file read back |
//! | ECL (`ecl`) | ECL-CC, ECL-MIS, ECL-MST, ECL-GC | ECL's binary graph | ECL's own verification, and for CC the component count against irglc's |
//!
//! Each peer's kernel beside a program family is `irgl_tune::bench::peer_kernel`. A peer kernel
//! runs once per graph and command line, however many programs of its family ran there.

mod ecl;
mod gap;
mod lonestar;

use std::path::{Path, PathBuf};
use std::time::Duration;

use irgl_graph::Csr;
use irgl_graph::verify::{Program, Verifier};
use irgl_tune::Outcome;
use irgl_tune::bench::{PeerRecord, peer_kernel};

use crate::Failure;

pub use gap::Gap;

/// What a peer needs of a program's runs on one graph.
pub struct PeerJob<'a> {
    pub family: Program,
    /// The graph's name in the suite.
    pub graph: &'a str,
    /// The converted graph the program read, and the same graph in memory.
    pub gr: &'a Path,
    pub csr: &'a Csr,
    /// The CPU references on that graph.
    pub verifier: &'a Verifier<'a>,
    /// Whether the program's graph is symmetric (undirected).
    pub symmetric: bool,
    /// The program's parameters (`src`, `delta`, ...), from its output file.
    pub params: &'a [(String, String)],
    /// The rounds of its host loops.
    pub rounds: Option<u64>,
}

impl PeerJob<'_> {
    /// The value of the program's parameter `name`.
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The source trees of the peers a run uses.
#[derive(Default)]
pub struct PeerDirs {
    pub gapbs: Option<PathBuf>,
    pub lonestargpu: Option<PathBuf>,
    pub ecl: Option<PathBuf>,
}

/// The peers of a run, built.
pub struct Peers {
    gap: Option<(Gap, u64)>,
    lonestar: Option<lonestar::Lonestar>,
    ecl: Option<ecl::Ecl>,
}

impl Peers {
    /// Builds each peer named in `dirs` (each once into the cache; `arch` for the GPU peers).
    /// `gap_delta`: GAP's delta for programs without a `delta` parameter.
    pub fn build(dirs: &PeerDirs, arch: &str, gap_delta: u64) -> Result<Peers, Failure> {
        let gap = match &dirs.gapbs {
            Some(d) => Some((Gap::build(d)?, gap_delta)),
            None => None,
        };
        let lonestar = match &dirs.lonestargpu {
            Some(d) => Some(lonestar::Lonestar::build(d, arch)?),
            None => None,
        };
        let ecl = match &dirs.ecl {
            Some(d) => Some(ecl::Ecl::build(d, arch)?),
            None => None,
        };
        Ok(Peers { gap, lonestar, ecl })
    }

    /// Whether any peer runs.
    pub fn any(&self) -> bool {
        self.gap.is_some() || self.lonestar.is_some() || self.ecl.is_some()
    }

    /// Runs every peer's kernel for `job`'s family on its graph, `runs` times each, adding a
    /// record per kernel to `records` (none for one already there with the same command).
    pub fn run(
        &self,
        job: &PeerJob<'_>,
        runs: u32,
        timeout: Duration,
        records: &mut Vec<PeerRecord>,
    ) -> Result<(), Failure> {
        let family = job.family.name();
        let mut calls: Vec<(&str, &str, Vec<String>)> = Vec::new();
        if let Some((_, delta)) = &self.gap
            && let Some(k) = peer_kernel("gapbs", family)
            && let Some(args) = gap::gap_args(k, job, *delta, runs)
        {
            calls.push(("gapbs", k, args));
        }
        if self.lonestar.is_some()
            && let Some(k) = peer_kernel("lonestargpu", family)
        {
            calls.push(("lonestargpu", k, lonestar::args(k, job)));
        }
        if self.ecl.is_some()
            && let Some(k) = peer_kernel("ecl", family)
        {
            calls.push(("ecl", k, Vec::new()));
        }
        for (peer, kernel, args) in calls {
            if records.iter().any(|r| {
                r.peer == peer && r.kernel == kernel && r.graph == job.graph && r.args == args
            }) {
                continue;
            }
            let (outcome, check) = match peer {
                "gapbs" => {
                    let (gap, _) = self.gap.as_ref().expect("GAP is built");
                    let el = gap::edge_list(job.gr, job.csr)?;
                    let outcome = match gap
                        .serialized(&el, job.symmetric, timeout)
                        .and_then(|graph| gap.run(kernel, &graph, &args, timeout))
                    {
                        Ok(times_ms) => Outcome::Ok { times_ms },
                        Err(o) => o,
                    };
                    (outcome, None)
                }
                "lonestargpu" => {
                    let lsg = self.lonestar.as_ref().expect("LonestarGPU is built");
                    let (o, c) = lsg.run(kernel, job, &args, runs, timeout);
                    (o, Some(c))
                }
                _ => {
                    let ecl = self.ecl.as_ref().expect("ECL is built");
                    let (o, c) = ecl.run(kernel, job, runs, timeout)?;
                    (o, Some(c))
                }
            };
            let median_ms = match &outcome {
                Outcome::Ok { times_ms } if !times_ms.is_empty() => {
                    Some(irgl_tune::median(times_ms))
                }
                _ => None,
            };
            say!(
                "{peer} {kernel} on {} ({}): {}",
                job.graph,
                args.join(" "),
                median_ms.map_or_else(|| outcome.describe(), |t| format!("{t:.3} ms"))
            );
            records.push(PeerRecord {
                peer: peer.to_string(),
                kernel: kernel.to_string(),
                graph: job.graph.to_string(),
                args,
                outcome,
                median_ms,
                check,
            });
        }
        Ok(())
    }
}

/// A peer's build folder in the cache for the source tree `src` (its path, `arch` and the
/// compiler): `NAME-KEY`.
fn build_dir(name: &str, src: &Path, parts: &[&str]) -> Result<(PathBuf, PathBuf), String> {
    let abs = src
        .canonicalize()
        .map_err(|e| format!("cannot read it: {e}"))?;
    let mut key_parts: Vec<&[u8]> = vec![abs.as_os_str().as_encoded_bytes()];
    key_parts.extend(parts.iter().map(|p| p.as_bytes()));
    let key = crate::toolchain::fnv1a(&key_parts);
    Ok((
        abs,
        crate::toolchain::cache_dir().join(format!("{name}-{key:016x}")),
    ))
}

/// A temporary folder beside `dir` to build a peer in, renamed to `dir` by [`commit_build`]
/// when the build is done, so that an interrupted build leaves nothing that counts; what an
/// older irglc left half built at `dir` is removed first.
fn pending_build(dir: &Path) -> Result<irgl_files::PendingDir, String> {
    let _ = std::fs::remove_dir_all(dir);
    irgl_files::PendingDir::beside(dir)
        .map_err(|e| format!("cannot create a folder beside {}: {e}", dir.display()))
}

/// Marks a finished build with a file `built` (holding `left_out`: what did not build) and
/// puts it at `dir`.
fn commit_build(pending: irgl_files::PendingDir, dir: &Path, left_out: &str) -> Result<(), String> {
    std::fs::write(pending.path().join("built"), left_out)
        .map_err(|e| format!("cannot write in {}: {e}", pending.path().display()))?;
    pending
        .commit()
        .map_err(|e| format!("cannot put the build at {}: {e}", dir.display()))
}

/// The first lines of a failed build's output, for an error message.
fn first_lines(text: &str, n: usize) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .collect::<Vec<_>>()
        .join("\n  ")
}

/// A peer's output checked by irglc's reference: `text` is the output translated into
/// irglc's output format (docs/output-format.md), checked as a program of `family`.
fn check_translated(
    family: Program,
    vf: &Verifier<'_>,
    text: Result<String, String>,
    times_ms: Vec<f64>,
) -> Outcome {
    let verdict = text
        .and_then(|t| {
            irgl_graph::output::parse(t.as_bytes(), "the peer's output").map_err(|e| e.to_string())
        })
        .and_then(|out| vf.verify(family, &out).map_err(|e| e.to_string()))
        .map(|v| (v.ok, v.mismatches));
    crate::tune_cmd::outcome(verdict, "its output does not match the reference", times_ms)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A triangle 0-1-2 with both directions of each edge, weights 1, 2, 3 (both ways).
    pub fn triangle() -> Csr {
        Csr {
            n: 3,
            offsets: vec![0, 2, 4, 6],
            dst: vec![1, 2, 0, 2, 0, 1],
            weights: Some(vec![1, 3, 1, 2, 3, 2]),
        }
    }

    pub fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// A job on `g` of family bfs (the callers' kernels name their own).
    pub fn job<'a>(
        g: &'a Csr,
        vf: &'a Verifier<'a>,
        params: &'a [(String, String)],
        rounds: Option<u64>,
        symmetric: bool,
    ) -> PeerJob<'a> {
        PeerJob {
            family: Program::Bfs,
            graph: "g",
            gr: Path::new("g.gr"),
            csr: g,
            verifier: vf,
            symmetric,
            params,
            rounds,
        }
    }
}
