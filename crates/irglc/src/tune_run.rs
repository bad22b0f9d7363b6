//! `irglc tune` and `irglc bench`: running one built variant on one graph: the program with
//! `--repeat`, stopped at a time limit, its run record read for the times of its runs. What
//! the output means is the caller's to check (against a CPU reference). [`run_limited`] runs
//! any command under a time limit (the peers too).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use irgl_tune::Outcome;

/// How to run a variant.
#[derive(Clone, Debug)]
pub struct RunSpec<'a> {
    /// The program's executable.
    pub exe: &'a Path,
    /// The `.gr` file it reads.
    pub graph: &'a Path,
    /// Where it writes its outputs.
    pub output: &'a Path,
    /// Timed runs in the one process (`--repeat`).
    pub repeat: u32,
    /// The limit for the whole process, loading included.
    pub timeout: Duration,
    /// The program's own arguments (its parameters).
    pub args: &'a [String],
}

/// What a run of a variant reported.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// One time per timed run, in ms.
    pub times_ms: Vec<f64>,
    /// Rounds of the host loops.
    pub iterations: Option<u64>,
    /// The GPU's name.
    pub device: Option<String>,
    /// Each kernel's median time in ms (`--kernel-times`), in the order the program lists them.
    pub kernels: Vec<(String, f64)>,
}

/// Runs the variant: what its run record says, or why not ([`Outcome::Timeout`],
/// [`Outcome::Failed`]).
pub fn run_variant(spec: &RunSpec<'_>) -> Result<RunResult, Outcome> {
    let mut cmd = Command::new(spec.exe);
    cmd.arg(spec.graph)
        .args(spec.args)
        .arg("--output")
        .arg(spec.output)
        .arg("--repeat")
        .arg(spec.repeat.to_string());
    let out = run_limited(cmd, spec.timeout)?;
    record_of(&out).ok_or_else(|| Outcome::Failed {
        why: "its run record (a JSON line with times_ms) is missing".to_string(),
    })
}

/// Runs `cmd` to its end, stopped at `timeout`: its standard output if it succeeds, else
/// why not (the first line of its standard error for a failure).
pub fn run_limited(cmd: Command, timeout: Duration) -> Result<String, Outcome> {
    run_limited_both(cmd, timeout).map(|(out, _)| out)
}

/// [`run_limited`], giving the standard error as well.
pub fn run_limited_both(mut cmd: Command, timeout: Duration) -> Result<(String, String), Outcome> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // In its own process group, to die with irglc; at the time limit, the whole group is
    // killed (a program's own children would hold its pipes open).
    let mut running = crate::process::spawn(&mut cmd).map_err(|e| Outcome::Failed {
        why: format!("cannot run {program}: {e}"),
    })?;
    let child = running.child();
    // Both pipes are drained while the program runs, so that it never blocks on a full one.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= timeout => {
                running.kill();
                return Err(Outcome::Timeout {
                    limit_s: timeout.as_secs_f64(),
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                return Err(Outcome::Failed {
                    why: format!("cannot wait for {program}: {e}"),
                });
            }
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if !status.success() {
        let first = err
            .lines()
            .chain(out.lines())
            .find(|l| !l.trim().is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| format!("{status}"));
        return Err(Outcome::Failed { why: first });
    }
    Ok((out, err))
}

/// The run record: the last JSON line of a program's standard output, with its times.
pub fn record_of(stdout: &str) -> Option<RunResult> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))?;
    let record: serde_json::Value = serde_json::from_str(line).ok()?;
    Some(RunResult {
        times_ms: times_of(&record)?,
        iterations: record.get("iterations").and_then(serde_json::Value::as_u64),
        device: record
            .get("device")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string),
        kernels: record
            .get("kernels")
            .and_then(serde_json::Value::as_array)
            .map(|ks| {
                ks.iter()
                    .filter_map(|k| {
                        Some((k.get("name")?.as_str()?.to_string(), k.get("ms")?.as_f64()?))
                    })
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// The `times_ms` of a run record.
fn times_of(record: &serde_json::Value) -> Option<Vec<f64>> {
    let times: Vec<f64> = record
        .get("times_ms")?
        .as_array()?
        .iter()
        .map(serde_json::Value::as_f64)
        .collect::<Option<_>>()?;
    (!times.is_empty()).then_some(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_times_come_from_the_last_record() {
        let times = |s: &str| record_of(s).map(|r| r.times_ms);
        assert_eq!(
            record_of(
                "note: x\n{\"program\":\"bfs\",\"times_ms\":[1.5,2,3e-1],\"iterations\":7,\"device\":\"G\"}\n"
            ),
            Some(RunResult {
                times_ms: vec![1.5, 2.0, 0.3],
                iterations: Some(7),
                device: Some("G".to_string()),
                kernels: Vec::new(),
            })
        );
        assert_eq!(
            record_of(
                "{\"times_ms\":[2],\"kernels\":[{\"name\":\"push_all\",\"ms\":0.5,\"launches\":1},{\"name\":\"tally\",\"ms\":1.25,\"launches\":1}]}"
            )
            .map(|r| r.kernels),
            Some(vec![
                ("push_all".to_string(), 0.5),
                ("tally".to_string(), 1.25)
            ])
        );
        assert_eq!(times("{\"times_ms\":[]}"), None);
        assert_eq!(times("{\"time_ms\":1}"), None);
        assert_eq!(times("no record"), None);
        assert_eq!(times("{\"times_ms\":[1,\"x\"]}"), None);
    }
}
