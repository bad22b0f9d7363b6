//! The ECL codes as peers (ECL-CC, ECL-MIS, ECL-MST, ECL-GC): each `.cu` file of the tree
//! compiled alone with irglc's nvcc for the run's GPU, run on the program's graph written in
//! ECL's binary format (`irgl_graph::format::egr`, once per converted graph), without its
//! self-loops, which irglc's references ignore and ECL-MIS does not.
//!
//! A code computes once per process, so each timed run is a process; its time is what it
//! prints of its own kernels (`compute time`, `Dev+`/`Dev-`, `runtime`: graph transfers
//! excluded). The codes write no output file; each checks its own result, and a run counts
//! only where that check passed:
//!
//! | code | its time | its check | and irglc's |
//! |---|---|---|---|
//! | ECL-CC | `compute time: S s` | `verification passed` (adjacent nodes share a label, labels unique per component) | the number of components against irglc's reference |
//! | ECL-MIS | `compute time: S s` | exits with an error unless the set is independent and maximal | |
//! | ECL-MST | `Dev+: S s` or `Dev-: S s` | `all good` (the same edges as its own CPU spanning forest) | |
//! | ECL-GC | `runtime: S s` | `result verification passed` (a proper coloring) | |
//!
//! They read undirected graphs: a program whose graph is not symmetric has no ECL peer run
//! (recorded as failed, with the reason).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use irgl_graph::Csr;
use irgl_graph::reference::cc;
use irgl_tune::Outcome;

use super::{PeerJob, build_dir, commit_build, first_lines, pending_build};
use crate::Failure;
use crate::tune_run::run_limited;

/// Each code: its name in the records, its source file, the line prefix of its time, the line
/// that says its own check passed.
const CODES: [(&str, &str, &[&str], &str); 4] = [
    (
        "ecl-cc",
        "ECL-CC_11.cu",
        &["compute time:"],
        "verification passed",
    ),
    (
        "ecl-mis",
        "ECL-MIS.cu",
        &["compute time:"],
        "elements in set:",
    ),
    ("ecl-mst", "ECL-MST_10.cu", &["Dev+:", "Dev-:"], "all good"),
    (
        "ecl-gc",
        "ECL-GC_12.cu",
        &["runtime:"],
        "result verification passed",
    ),
];

/// The ECL codes, built.
pub struct Ecl {
    dir: PathBuf,
}

impl Ecl {
    /// Compiles each code of the tree at `src` (once per tree, architecture and compiler),
    /// into a temporary folder renamed into place when done. Codes that do not compile are
    /// reported and left out.
    pub fn build(src: &Path, arch: &str) -> Result<Ecl, Failure> {
        let fail = |what: String| {
            say!("error: ECL codes at {}: {what}", src.display());
            Failure::User
        };
        if !src.join("ECLgraph.h").is_file() {
            return Err(fail("not the ECL codes' folder (no ECLgraph.h)".into()));
        }
        let tc = crate::toolchain::find_toolchain().map_err(fail)?;
        let (abs, dir) =
            build_dir("ecl", src, &[arch, crate::toolchain::nvcc_identity(&tc)]).map_err(fail)?;
        if dir.join("built").is_file() {
            return Ok(Ecl { dir });
        }
        let pending = pending_build(&dir).map_err(fail)?;
        say!("building the ECL codes in {}", dir.display());
        let mut failed = Vec::new();
        for (name, file, _, _) in CODES {
            if !abs.join(file).is_file() {
                failed.push(format!("{name} (no {file})"));
                continue;
            }
            let mut cmd = Command::new(&tc.nvcc);
            cmd.args(["-O3", "-std=c++17"])
                .arg(format!("-arch={arch}"))
                .arg("-I")
                .arg(&abs)
                .arg(abs.join(file))
                .arg("-o")
                .arg(pending.path().join(name));
            for d in &tc.lib_dirs {
                cmd.arg("-L").arg(d);
            }
            match crate::process::output(&mut cmd) {
                Ok(o) if o.status.success() => {}
                Ok(o) => failed.push(format!(
                    "{name}:\n  {}",
                    first_lines(&String::from_utf8_lossy(&o.stderr), 4)
                )),
                Err(e) => failed.push(format!("{name} (cannot run nvcc: {e})")),
            }
        }
        if failed.len() == CODES.len() {
            return Err(fail(format!("no code compiled: {}", failed.join("; "))));
        }
        if !failed.is_empty() {
            say!(
                "warning: ECL: {}; their runs are recorded as failed",
                failed.join("; ")
            );
        }
        commit_build(pending, &dir, &failed.join("\n")).map_err(fail)?;
        Ok(Ecl { dir })
    }

    /// Runs `code` on `job`'s graph `runs` times: the outcome and how it was checked.
    pub fn run(
        &self,
        code: &str,
        job: &PeerJob<'_>,
        runs: u32,
        timeout: Duration,
    ) -> Result<(Outcome, String), Failure> {
        let &(_, _, time_prefixes, passed) =
            CODES.iter().find(|c| c.0 == code).expect("a code of CODES");
        let check = match code {
            "ecl-cc" => "ECL-CC's own verification, and its component count against irglc's",
            "ecl-mis" => "ECL-MIS's own check (independent and maximal)",
            "ecl-mst" => "ECL-MST's own comparison with its CPU spanning forest",
            _ => "ECL-GC's own check (a proper coloring)",
        }
        .to_string();
        let exe = self.dir.join(code);
        if !exe.is_file() {
            let why = format!(
                "{code} did not compile (see {})",
                self.dir.join("built").display()
            );
            return Ok((Outcome::Failed { why }, check));
        }
        if !job.symmetric {
            let why = "the ECL codes read undirected graphs; this program's graph is directed"
                .to_string();
            return Ok((Outcome::Failed { why }, check));
        }
        if let Err(e) = irgl_graph::format::egr::check_writable(job.csr) {
            return Ok((Outcome::Failed { why: e.to_string() }, check));
        }
        let graph = ecl_graph(job.gr, job.csr)?;
        let mut times_ms = Vec::new();
        let mut first = String::new();
        for run in 0..runs {
            let mut cmd = Command::new(&exe);
            cmd.arg(&graph);
            let out = match run_limited(cmd, timeout) {
                Ok(out) => out,
                Err(o) => return Ok((o, check)),
            };
            let Some(t) = seconds_after(&out, time_prefixes) else {
                let why = format!("it printed no `{}`", time_prefixes[0]);
                return Ok((Outcome::Failed { why }, check));
            };
            times_ms.push(t * 1000.0);
            if run == 0 {
                first = out;
            }
        }
        if !first.lines().any(|l| l.trim().starts_with(passed)) {
            let why = format!("its own check did not pass (no `{passed}` line)");
            return Ok((Outcome::Wrong { why }, check));
        }
        if code == "ecl-cc" {
            let expected = cc::count(&cc::components_union_find(job.csr));
            let got = first
                .lines()
                .find_map(|l| l.trim().strip_prefix("number of connected components:"))
                .and_then(|c| c.trim().parse::<u64>().ok());
            if got != Some(expected) {
                let why = format!(
                    "{} components, the reference {expected}",
                    got.map_or("no count of".to_string(), |c| c.to_string())
                );
                return Ok((Outcome::Wrong { why }, check));
            }
        }
        Ok((Outcome::Ok { times_ms }, check))
    }
}

/// `g` without its self-loops (itself where it has none).
fn without_self_loops(g: &Csr) -> std::borrow::Cow<'_, Csr> {
    if (0..g.n).any(|u| g.neighbours(u).contains(&u)) {
        let mut copy = g.clone();
        irgl_graph::transform::drop_self_loops(&mut copy);
        std::borrow::Cow::Owned(copy)
    } else {
        std::borrow::Cow::Borrowed(g)
    }
}

/// The seconds on the first line that starts with one of `prefixes` (`Dev+:    0.001 s`).
fn seconds_after(stdout: &str, prefixes: &[&str]) -> Option<f64> {
    stdout.lines().find_map(|l| {
        let l = l.trim();
        let rest = prefixes.iter().find_map(|p| l.strip_prefix(p))?;
        rest.split_whitespace().next()?.parse::<f64>().ok()
    })
}

/// The graph `g` (read from `gr`) in ECL's format without its self-loops, written into the
/// cache once per converted graph. irglc's references ignore self-loops in all four families
/// (components, an independent set, a spanning forest, a coloring), while ECL-MIS counts a
/// node its own neighbour: on the three shared graphs with self-loops its runs printed nothing
/// before the time limit.
fn ecl_graph(gr: &Path, g: &Csr) -> Result<PathBuf, Failure> {
    let key = crate::toolchain::file_stamp(gr).map_err(|e| {
        say!("error: cannot read {}: {e}", gr.display());
        Failure::User
    })?;
    let path = crate::toolchain::cache_dir()
        .join("peer-graphs")
        .join(format!("{key:016x}.simple.egr"));
    if path.is_file() {
        return Ok(path);
    }
    let g = without_self_loops(g);
    irgl_files::write_whole(&path, |w| irgl_graph::format::egr::write(&g, w)).map_err(|e| {
        say!("error: cannot write {}: {e}", path.display());
        Failure::User
    })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ecl_graph_has_no_self_loops() {
        // 0 - 1 both ways, and a loop on 1.
        let g = Csr {
            n: 2,
            offsets: vec![0, 1, 3],
            dst: vec![1, 0, 1],
            weights: Some(vec![4, 4, 9]),
        };
        let simple = without_self_loops(&g);
        assert_eq!(simple.dst, [1, 0]);
        assert_eq!(simple.offsets, [0, 1, 2]);
        assert_eq!(simple.weights.as_deref(), Some(&[4, 4][..]));
        let triangle = super::super::tests::triangle();
        assert!(matches!(
            without_self_loops(&triangle),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn times_are_read_from_each_codes_line() {
        let cc = "gpu: H100\ncompute time: 0.000123000 s\nthroughput: 1 Mnodes/s\n";
        assert_eq!(seconds_after(cc, &["compute time:"]), Some(0.000123));
        let mst = "ECL-MST v1.0\n\nDev+:  0.001500000 s\nall good\n";
        assert_eq!(seconds_after(mst, &["Dev+:", "Dev-:"]), Some(0.0015));
        let gc = "runtime:    0.000200000 s\n";
        assert_eq!(seconds_after(gc, &["runtime:"]), Some(0.0002));
        assert_eq!(seconds_after("nothing", &["runtime:"]), None);
    }
}
