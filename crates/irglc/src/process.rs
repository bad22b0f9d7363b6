//! The processes irglc starts (nvcc, the programs it built, GAP, make) die with it.
//!
//! Each child runs in its own process group, so that stopping it stops what it started too
//! (nvcc's compilers, a script's commands), and is told by the kernel to die with irglc
//! (`PR_SET_PDEATHSIG` on Linux, for an irglc killed outright). On SIGINT, SIGTERM or SIGHUP,
//! irglc kills every group it started, removes the temporaries it was writing
//! (`irgl_files::remove_pending`) and exits with 128 + the signal's number. A child that is
//! still running when its handle is dropped (an error, a time limit) is killed with its group.

use std::collections::BTreeSet;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Output};
use std::sync::Mutex;

/// The process groups of the running children, and whether irglc is stopping (then no new
/// child starts).
static GROUPS: Mutex<(BTreeSet<i32>, bool)> = Mutex::new((BTreeSet::new(), false));

/// Stops every running child's process group, and every child started from now on.
fn kill_all() {
    let mut groups = match GROUPS.lock() {
        Ok(g) => g,
        Err(e) => e.into_inner(),
    };
    groups.1 = true;
    for &g in &groups.0 {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
        unsafe {
            libc::kill(-g, libc::SIGKILL);
        }
    }
}

/// Installs the handler of SIGINT, SIGTERM and SIGHUP (once, at start).
pub fn install_signal_handlers() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("irglc-signals".to_string())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                kill_all();
                irgl_files::remove_pending();
                std::process::exit(128 + sig);
            }
        });
}

/// A running child; dropped while it runs, it is killed with its group.
pub struct Running {
    child: Option<Child>,
    group: i32,
}

impl Running {
    pub fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("a running child")
    }

    /// Kills the child's whole group (a time limit) and reaps the child.
    pub fn kill(&mut self) {
        // SAFETY: as in `kill_all`.
        unsafe {
            libc::kill(-self.group, libc::SIGKILL);
        }
        let _ = self.child().wait();
    }

    /// Waits for the child and collects its piped output.
    pub fn wait_with_output(mut self) -> io::Result<Output> {
        let child = self.child.take().expect("a running child");
        let out = child.wait_with_output();
        self.forget();
        out
    }

    fn forget(&mut self) {
        if let Ok(mut g) = GROUPS.lock() {
            g.0.remove(&self.group);
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child
            && matches!(child.try_wait(), Ok(None))
        {
            // SAFETY: as in `kill_all`.
            unsafe {
                libc::kill(-self.group, libc::SIGKILL);
            }
            let _ = child.wait();
        }
        self.forget();
    }
}

/// Starts `cmd` in its own process group, to die with irglc.
pub fn spawn(cmd: &mut Command) -> io::Result<Running> {
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: between fork and exec only async-signal-safe calls: prctl and getppid.
        let parent = std::process::id() as libc::pid_t;
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // irglc may have died before the call took effect.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    // Started and registered under the lock, so that `kill_all` either sees the child or
    // forbids it.
    let mut groups = GROUPS
        .lock()
        .map_err(|_| io::Error::other("a thread panicked while starting a process"))?;
    if groups.1 {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "irglc is stopping",
        ));
    }
    let child = cmd.spawn()?;
    let group = child.id() as i32;
    groups.0.insert(group);
    drop(groups);
    Ok(Running {
        child: Some(child),
        group,
    })
}

/// Runs `cmd` to its end with its output piped ([`Command::output`], in its own group).
pub fn output(cmd: &mut Command) -> io::Result<Output> {
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    spawn(cmd)?.wait_with_output()
}

/// Runs `cmd` to its end with irglc's own standard streams ([`Command::status`]).
pub fn status(cmd: &mut Command) -> io::Result<ExitStatus> {
    let mut running = spawn(cmd)?;
    let status = running.child().wait();
    running.forget();
    status
}
