//! How a run's outputs are checked, for `irglc run`, `irglc tune` and `irglc bench`: against
//! the CPU reference of a program family (`--verify bfs`), by the user's own command
//! (`--check 'CMD {graph} {output}'`, exit status 0 = correct), or not at all (`--verify
//! none`: the runs are timed only, and every report says so). A mesh program (dmr) is checked
//! by its refined mesh.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use irgl_graph::verify::Program;

/// What `--verify` names: a family's CPU reference, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyArg {
    Family(Program),
    None,
}

/// `--verify`'s value: a family, or `none`.
pub(crate) fn parse_verify(s: &str) -> Result<VerifyArg, String> {
    if s == "none" {
        return Ok(VerifyArg::None);
    }
    crate::verify_cmd::parse_program(s)
        .map(VerifyArg::Family)
        .map_err(|e| format!("{e}, or none (time without checking)"))
}

/// A user's check command: a template with `{graph}` and `{output}`, run by `sh -c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckCommand {
    pub template: String,
}

impl CheckCommand {
    /// `--check`'s value: a command that names `{output}` (what else would it check?).
    pub fn parse(s: &str) -> Result<CheckCommand, String> {
        if !s.contains("{output}") {
            return Err(format!(
                "`{s}`: the command must name the output file as {{output}} (and may name the graph as {{graph}}), such as 'python3 check.py {{graph}} {{output}}'"
            ));
        }
        Ok(CheckCommand {
            template: s.to_string(),
        })
    }

    /// The command line with the paths in place, each quoted for the shell.
    fn line(&self, graph: &Path, output: &Path) -> String {
        self.template
            .replace("{graph}", &shell_quote(&graph.display().to_string()))
            .replace("{output}", &shell_quote(&output.display().to_string()))
    }

    /// Runs the command on one run's graph and output, stopped at `timeout`: whether it
    /// accepted the output, and the first line it printed (its reason) when it did not; or
    /// why it could not be run.
    pub fn check(
        &self,
        graph: &Path,
        output: &Path,
        timeout: Duration,
    ) -> Result<(bool, Vec<String>), String> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(self.line(graph, output));
        match crate::tune_run::run_limited(cmd, timeout) {
            Ok(_) => Ok((true, Vec::new())),
            Err(irgl_tune::Outcome::Failed { why }) => {
                Ok((false, vec![format!("the check command rejected it: {why}")]))
            }
            Err(irgl_tune::Outcome::Timeout { limit_s }) => {
                Err(format!("the check command ran past {limit_s} s"))
            }
            Err(o) => Err(format!("the check command: {o:?}")),
        }
    }

    /// What identifies the check in the measurement cache: the template and the stamps of
    /// the files its words name (the checker's script), so that an edited checker checks again.
    pub fn identity(&self) -> String {
        let stamps: Vec<String> = self
            .template
            .split_whitespace()
            .filter_map(|w| crate::toolchain::file_stamp(Path::new(w)).ok())
            .map(|s| format!("{s:016x}"))
            .collect();
        format!("command `{}` {}", self.template, stamps.join(" "))
    }
}

/// `s` quoted for `sh`: in single quotes, each single quote written as `'\''`.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_name_the_output_and_paths_are_quoted() {
        assert!(CheckCommand::parse("true").is_err());
        let c = CheckCommand::parse("check {graph} {output}").unwrap();
        assert_eq!(
            c.line(Path::new("g r.gr"), Path::new("it's.out")),
            "check 'g r.gr' 'it'\\''s.out'"
        );
        assert_eq!(parse_verify("none"), Ok(VerifyArg::None));
        assert_eq!(parse_verify("bfs"), Ok(VerifyArg::Family(Program::Bfs)));
        assert!(parse_verify("zz").unwrap_err().contains("or none"));
    }

    #[test]
    fn a_command_accepts_or_rejects_with_its_first_line() {
        let dir = std::env::temp_dir().join(format!("irglc-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("x.out");
        std::fs::write(&out, "ok\n").unwrap();
        let t = Duration::from_secs(10);
        let accept = CheckCommand::parse("grep -q ok {output}").unwrap();
        assert_eq!(accept.check(&dir, &out, t), Ok((true, Vec::new())));
        let reject = CheckCommand::parse("echo 'level 3 is wrong' >&2; false {output}").unwrap();
        let (ok, why) = reject.check(&dir, &out, t).unwrap();
        assert!(!ok);
        assert!(why[0].contains("level 3 is wrong"), "{why:?}");
        let slow = CheckCommand::parse("sleep 5; cat {output}").unwrap();
        assert!(
            slow.check(&dir, &out, Duration::from_millis(200))
                .unwrap_err()
                .contains("ran past")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
