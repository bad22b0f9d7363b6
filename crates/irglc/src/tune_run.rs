//! `irglc tune`: running one built variant on one graph: the program with `--repeat`,
//! stopped at a time limit, its run record read for the times of its runs. What the output
//! means is the caller's to check (against a CPU reference).

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
}

/// Runs the variant: its times in ms (one per timed run), or why not
/// ([`Outcome::Timeout`], [`Outcome::Failed`]).
pub fn run_variant(spec: &RunSpec<'_>) -> Result<Vec<f64>, Outcome> {
    let mut child = Command::new(spec.exe)
        .arg(spec.graph)
        .arg("--output")
        .arg(spec.output)
        .arg("--repeat")
        .arg(spec.repeat.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Outcome::Failed {
            why: format!("cannot run {}: {e}", spec.exe.display()),
        })?;
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
            Ok(None) if start.elapsed() >= spec.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Outcome::Timeout {
                    limit_s: spec.timeout.as_secs_f64(),
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                return Err(Outcome::Failed {
                    why: format!("cannot wait for {}: {e}", spec.exe.display()),
                });
            }
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if !status.success() {
        let first = err
            .lines()
            .find(|l| !l.trim().is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| format!("{status}"));
        return Err(Outcome::Failed { why: first });
    }
    times_of(&out).ok_or_else(|| Outcome::Failed {
        why: "its run record (a JSON line with times_ms) is missing".to_string(),
    })
}

/// The `times_ms` of the last JSON line of a program's standard output.
pub fn times_of(stdout: &str) -> Option<Vec<f64>> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))?;
    let record: serde_json::Value = serde_json::from_str(line).ok()?;
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
        assert_eq!(
            times_of("note: x\n{\"program\":\"bfs\",\"times_ms\":[1.5,2,3e-1]}\n"),
            Some(vec![1.5, 2.0, 0.3])
        );
        assert_eq!(times_of("{\"times_ms\":[]}"), None);
        assert_eq!(times_of("{\"time_ms\":1}"), None);
        assert_eq!(times_of("no record"), None);
        assert_eq!(times_of("{\"times_ms\":[1,\"x\"]}"), None);
    }
}
