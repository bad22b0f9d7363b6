//! LonestarGPU as a peer: the IrGL paper's own generated CUDA, built by its `build.sh` into the
//! cache (irglc's nvcc, the run's GPU architecture), each app run on the program's own `.gr`.
//!
//! An app computes once per process, so each timed run is a process; its time is the
//! `Total time: N ns` it prints (its `gg_main`: loading and copies excluded, as for the
//! programs). The first run writes its output file (`-o`), read back into irglc's output
//! format and checked by the program family's reference:
//!
//! | app | arguments | output read as |
//! |---|---|---|
//! | bfs | `-s SRC` | node `level` (its `1073741823` = unreachable) |
//! | sssp | `-s SRC`, `-d DELTA` where the program has `delta` (else its own default) | node `dist` |
//! | pagerank | none | node `rank` divided by N (its ranks sum to N, irglc's to 1), checked with alpha 0.85 and the tolerance of its residual 1e-6, divided by N |
//! | cc | none | node `comp` |
//! | tc | none | scalar `triangles` (printed on standard output) |
//! | mis | none | node `in_mis` |
//! | mst | none | edge `in_mst` from the edges it lists, and scalar `mst_weight` their weight (an edge listed both ways once) |

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use irgl_graph::{Csr, INF_U32};
use irgl_tune::Outcome;

use super::{PeerJob, build_dir, check_translated, commit_build, first_lines, pending_build};
use crate::Failure;
use crate::tune_run::run_limited_both;

/// The apps `build.sh` builds.
const APPS: [&str; 7] = ["bfs", "sssp", "pagerank", "cc", "tc", "mis", "mst"];

/// What LonestarGPU's bfs and sssp print for an unreachable node.
const LSG_INF: u64 = (u32::MAX / 4) as u64;

/// LonestarGPU's pagerank: its damping and the residual below which it stops.
const LSG_ALPHA: f64 = 0.85;
const LSG_EPSILON: f64 = 1e-6;

/// A built LonestarGPU.
pub struct Lonestar {
    /// The apps' folder, and the build's logs.
    bin: PathBuf,
    logs: PathBuf,
}

impl Lonestar {
    /// Builds the apps of the tree at `src` with its `build.sh` (once per tree, architecture
    /// and compiler), into a temporary folder renamed into place when done: an interrupted
    /// build leaves nothing that counts. Apps that do not build are reported and left out.
    pub fn build(src: &Path, arch: &str) -> Result<Lonestar, Failure> {
        let fail = |what: String| {
            say!("error: LonestarGPU at {}: {what}", src.display());
            Failure::User
        };
        if !src.join("build.sh").is_file() || !src.join("src/lonestar").is_dir() {
            return Err(fail(
                "not a LonestarGPU tree (no build.sh and src/lonestar)".into(),
            ));
        }
        let tc = crate::toolchain::find_toolchain().map_err(fail)?;
        let (abs, dir) = build_dir(
            "lonestargpu",
            src,
            &[arch, crate::toolchain::nvcc_identity(&tc)],
        )
        .map_err(fail)?;
        let built = Lonestar {
            bin: dir.join("bin-base"),
            logs: dir.join("logs"),
        };
        if dir.join("built").is_file() {
            return Ok(built);
        }
        let pending = pending_build(&dir).map_err(fail)?;
        let out = pending.path();
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut cmd = Command::new("bash");
        cmd.arg(abs.join("build.sh"))
            .arg(out)
            .env("NVCC", &tc.nvcc)
            .env("ARCH", arch)
            .env("JOBS", jobs.to_string());
        // A toolkit from PyPI keeps CCCL's headers apart and its libraries beside bin/.
        if let Some(cccl) = tc
            .nvcc
            .parent()
            .map(|b| b.join("../include/cccl"))
            .filter(|d| d.is_dir())
        {
            cmd.env("NVCC_EXTRA", format!("-I{}", cccl.display()));
        }
        let libs: Vec<String> = tc
            .lib_dirs
            .iter()
            .map(|d| format!("-L{}", d.display()))
            .collect();
        cmd.env("NVCC_LDEXTRA", libs.join(" "));
        say!("building LonestarGPU in {}", dir.display());
        let output =
            crate::process::output(&mut cmd).map_err(|e| fail(format!("cannot run bash: {e}")))?;
        let missing: Vec<&str> = APPS
            .iter()
            .copied()
            .filter(|a| !out.join("bin-base").join(a).is_file())
            .collect();
        if missing.len() == APPS.len() {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            return Err(fail(format!(
                "build.sh built no app:\n  {}",
                first_lines(&text, 8)
            )));
        }
        if !missing.is_empty() {
            say!(
                "warning: LonestarGPU: {} did not build (their logs: {}); their runs are recorded as failed",
                missing.join(", "),
                built.logs.display()
            );
        }
        commit_build(pending, &dir, &missing.join(" ")).map_err(fail)?;
        Ok(built)
    }

    /// Runs `app` with `args` on `job`'s graph `runs` times: the outcome (times if its output
    /// matches the reference), and how it was checked.
    pub fn run(
        &self,
        app: &str,
        job: &PeerJob<'_>,
        args: &[String],
        runs: u32,
        timeout: Duration,
    ) -> (Outcome, String) {
        let check = format!("irglc's {} reference", job.family.name());
        let exe = self.bin.join(app);
        if !exe.is_file() {
            let why = format!("{app} did not build (its log: {})", self.logs.display());
            return (Outcome::Failed { why }, check);
        }
        if matches!(app, "cc" | "tc" | "mis" | "mst") && !job.symmetric {
            let why = format!(
                "LonestarGPU's {app} reads symmetric graphs; this program's graph is directed"
            );
            return (Outcome::Failed { why }, check);
        }
        let file = match tempfile::Builder::new()
            .prefix("irglc-lonestargpu-")
            .tempfile()
        {
            Ok(f) => f,
            Err(e) => {
                let why = format!("cannot create a temporary file: {e}");
                return (Outcome::Failed { why }, check);
            }
        };
        let mut times_ms = Vec::new();
        let mut first_stdout = String::new();
        for run in 0..runs {
            let mut cmd = Command::new(&exe);
            cmd.args(args);
            if run == 0 && app != "tc" {
                cmd.arg("-o").arg(file.path());
            } else {
                cmd.arg("-q");
            }
            cmd.arg(job.gr);
            let (stdout, stderr) = match run_limited_both(cmd, timeout) {
                Ok(out) => out,
                Err(o) => return (o, check),
            };
            let Some(t) = total_time_ms(&stderr) else {
                let why = "it printed no `Total time: N ns`".to_string();
                return (Outcome::Failed { why }, check);
            };
            times_ms.push(t);
            if run == 0 {
                first_stdout = stdout;
            }
        }
        let text = if app == "tc" {
            Ok(first_stdout)
        } else {
            std::fs::read_to_string(file.path())
                .map_err(|e| format!("cannot read its output file: {e}"))
        };
        let translated = text.and_then(|t| translate(app, job, &t));
        (
            check_translated(job.family, job.verifier, translated, times_ms),
            check,
        )
    }
}

/// The arguments of LonestarGPU's `app` matched to the program's run.
pub fn args(app: &str, job: &PeerJob<'_>) -> Vec<String> {
    let src = job.param("src").unwrap_or("0").to_string();
    match app {
        "bfs" => vec!["-s".into(), src],
        "sssp" => {
            let mut a = vec!["-s".into(), src];
            if let Some(d) = job.param("delta") {
                a.extend(["-d".to_string(), d.to_string()]);
            }
            a
        }
        _ => Vec::new(),
    }
}

/// The time of an app's `gg_main`: the last `Total time: N ns` line, in ms.
fn total_time_ms(stderr: &str) -> Option<f64> {
    stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Total time:"))
        .filter_map(|t| t.trim().strip_suffix("ns"))
        .filter_map(|t| t.trim().parse::<u64>().ok())
        .next_back()
        .map(|ns| ns as f64 / 1e6)
}

/// `app`'s output (its `-o` file, or for tc its standard output) in irglc's output format.
fn translate(app: &str, job: &PeerJob<'_>, text: &str) -> Result<String, String> {
    let g = job.csr;
    let mut out = format!(
        "irgl-output 1\nprogram lonestargpu-{app}\nnodes {}\nedges {}\n",
        g.n,
        g.num_edges()
    );
    let push_node_section = |out: &mut String, name: &str, ty: &str, values: &[String]| {
        out.push_str(&format!("node {name} {ty}\n"));
        for v in values {
            out.push_str(v);
            out.push('\n');
        }
    };
    match app {
        "bfs" | "sssp" => {
            let src = job.param("src").unwrap_or("0");
            out.push_str(&format!("param src {src}\n"));
            let values = per_node(g, text, |v| {
                let d: u64 = v.parse().map_err(|_| format!("`{v}` is not a distance"))?;
                Ok(if d == LSG_INF { u64::from(INF_U32) } else { d }.to_string())
            })?;
            let name = if app == "bfs" { "level" } else { "dist" };
            push_node_section(&mut out, name, "u32", &values);
        }
        "cc" => {
            let values = per_node(g, text, |v| {
                v.parse::<u32>()
                    .map(|c| c.to_string())
                    .map_err(|_| format!("`{v}` is not a component"))
            })?;
            push_node_section(&mut out, "comp", "u32", &values);
        }
        "pagerank" => {
            let n = f64::from(g.n.max(1));
            out.push_str(&format!(
                "param alpha {LSG_ALPHA}\nparam tol {:e}\nparam max_iter 100000\n",
                LSG_EPSILON / n
            ));
            let values = per_node(g, text, |v| {
                let r: f64 = v.parse().map_err(|_| format!("`{v}` is not a rank"))?;
                Ok(format!("{:e}", r / n))
            })?;
            push_node_section(&mut out, "rank", "f64", &values);
        }
        "tc" => {
            let count = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("triangles:"))
                .ok_or("it printed no `triangles: N`")?;
            let count: u64 = count
                .trim()
                .parse()
                .map_err(|_| format!("`triangles: {}` is not a count", count.trim()))?;
            out.push_str(&format!("scalar triangles u64 {count}\n"));
        }
        "mis" => {
            let mut members = vec![false; g.n as usize];
            for (i, line) in text.lines().skip(1).enumerate() {
                let v: usize = line
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&v| v < members.len())
                    .ok_or_else(|| format!("line {}: `{line}` is not a node", i + 2))?;
                members[v] = true;
            }
            let values: Vec<String> = members.iter().map(|&m| u8::from(m).to_string()).collect();
            push_node_section(&mut out, "in_mis", "bool", &values);
        }
        "mst" => {
            let mut marked = vec![false; g.dst.len()];
            for (i, line) in text.lines().enumerate() {
                let f: Vec<&str> = line.split_whitespace().collect();
                let e = (f.len() == 4)
                    .then(|| f[1].parse::<usize>().ok())
                    .flatten()
                    .filter(|&e| e < marked.len())
                    .ok_or_else(|| {
                        format!("line {}: `{line}` is not `i edge dst weight`", i + 1)
                    })?;
                marked[e] = true;
            }
            // The weight of the marked edges, an edge marked both ways counted once.
            let weight = irgl_graph::reference::msf::check_marked(g, &marked)
                .ok_or("mst needs edge weights, but the graph has none")?
                .weight;
            out.push_str(&format!(
                "scalar mst_weight u64 {weight}\nedge in_mst bool\n"
            ));
            for m in marked {
                out.push_str(if m { "1\n" } else { "0\n" });
            }
        }
        other => return Err(format!("no reading of LonestarGPU's {other} output")),
    }
    Ok(out)
}

/// The values of `node value` lines, one per node in order (lines starting with a blank,
/// such as cc's edge lines, skipped), each converted by `value`.
fn per_node(
    g: &Csr,
    text: &str,
    value: impl Fn(&str) -> Result<String, String>,
) -> Result<Vec<String>, String> {
    let mut values = Vec::with_capacity(g.n as usize);
    for (i, line) in text.lines().enumerate() {
        if line.starts_with([' ', '\t']) || line.trim().is_empty() {
            continue;
        }
        let mut f = line.split_whitespace();
        let (node, v) = (f.next(), f.next());
        let at = |why: String| format!("its output, line {}: {why}", i + 1);
        if node.and_then(|n| n.parse::<usize>().ok()) != Some(values.len()) {
            return Err(at(format!(
                "expected node {} first, found `{line}`",
                values.len()
            )));
        }
        let v = v.ok_or_else(|| at("no value".into()))?;
        values.push(value(v).map_err(at)?);
    }
    if values.len() != g.n as usize {
        return Err(format!(
            "its output has {} nodes, the graph {}",
            values.len(),
            g.n
        ));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peer::tests::{job, params, triangle};
    use irgl_graph::verify::{Program, Verifier};

    fn checked(family: Program, app: &str, text: &str, p: &[(&str, &str)]) -> Outcome {
        let g = triangle();
        let vf = Verifier::new(&g);
        let params = params(p);
        let mut j = job(&g, &vf, &params, None, true);
        j.family = family;
        check_translated(family, &vf, translate(app, &j, text), vec![1.0])
    }

    fn ok(o: &Outcome) -> bool {
        matches!(o, Outcome::Ok { .. })
    }

    #[test]
    fn times_are_the_apps_total_in_ms() {
        let err = "OPTIONS: x\nTotal time: 12 ms\nTotal time: 12345678 ns\n";
        assert_eq!(total_time_ms(err), Some(12.345678));
        assert_eq!(total_time_ms("nothing"), None);
    }

    #[test]
    fn outputs_are_checked_by_the_references() {
        // bfs from node 1: levels 1, 0, 1.
        assert!(ok(&checked(
            Program::Bfs,
            "bfs",
            "0 1\n1 0\n2 1\n",
            &[("src", "1")]
        )));
        let wrong = checked(Program::Bfs, "bfs", "0 1\n1 0\n2 2\n", &[("src", "1")]);
        assert!(matches!(wrong, Outcome::Wrong { .. }), "{wrong:?}");
        // sssp from 0 over weights 0-1: 1, 1-2: 2, 0-2: 3.
        assert!(ok(&checked(Program::Sssp, "sssp", "0 0\n1 1\n2 3\n", &[])));
        // cc: one component, any label; edge lines skipped.
        let cc = "0 7\n\te 0: 1 1 7\n1 7\n2 7\n";
        assert!(ok(&checked(Program::Cc, "cc", cc, &[])));
        assert!(!ok(&checked(Program::Cc, "cc", "0 7\n1 7\n2 8\n", &[])));
        assert!(ok(&checked(Program::Tc, "tc", "triangles: 1\n", &[])));
        assert!(!ok(&checked(Program::Tc, "tc", "triangles: 2\n", &[])));
        assert!(ok(&checked(Program::Mis, "mis", "1\n2\n", &[])));
        assert!(!ok(&checked(Program::Mis, "mis", "2\n0\n2\n", &[])));
        // mst: edges 0 (0-1, weight 1) and 3 (1-2, weight 2).
        assert!(ok(&checked(Program::Mst, "mst", "0 0 1 1\n1 3 2 2\n", &[])));
        // Both directions of an edge listed: counted once.
        let both = "0 0 1 1\n1 2 0 1\n2 3 2 2\n";
        assert!(ok(&checked(Program::Mst, "mst", both, &[])));
        assert!(!ok(&checked(
            Program::Mst,
            "mst",
            "0 0 1 1\n1 1 2 3\n",
            &[]
        )));
    }

    #[test]
    fn pagerank_is_compared_on_irglcs_scale() {
        // A triangle: every rank is 1 in LonestarGPU's scale (sum N), 1/3 in irglc's.
        assert!(ok(&checked(
            Program::Pr,
            "pagerank",
            "0 1.000000\n1 1.000000\n2 1.000000\n",
            &[]
        )));
        assert!(!ok(&checked(
            Program::Pr,
            "pagerank",
            "0 1.000000\n1 1.000000\n2 1.200000\n",
            &[]
        )));
    }

    #[test]
    fn malformed_outputs_say_where() {
        let o = checked(Program::Bfs, "bfs", "0 1\n2 0\n", &[]);
        let Outcome::Wrong { why } = o else {
            panic!("{o:?}")
        };
        assert!(why.contains("line 2: expected node 1 first"), "{why}");
        let o = checked(Program::Bfs, "bfs", "0 1\n1 0\n", &[]);
        let Outcome::Wrong { why } = o else {
            panic!("{o:?}")
        };
        assert!(why.contains("2 nodes, the graph 3"), "{why}");
        let o = checked(Program::Tc, "tc", "nothing\n", &[]);
        assert!(matches!(o, Outcome::Wrong { why } if why.contains("triangles: N")));
    }

    #[test]
    fn arguments_follow_the_program() {
        let g = triangle();
        let vf = Verifier::new(&g);
        let p = params(&[("src", "2"), ("delta", "64")]);
        let j = job(&g, &vf, &p, None, false);
        assert_eq!(args("bfs", &j), ["-s", "2"]);
        assert_eq!(args("sssp", &j), ["-s", "2", "-d", "64"]);
        assert!(args("cc", &j).is_empty());
        let j = job(&g, &vf, &[], None, false);
        assert_eq!(args("sssp", &j), ["-s", "0"]);
    }
}
