//! The files irglc writes: whole or not at all, named from their inputs' whole names, and
//! never over an input of the same command.
//!
//! - [`write_whole`], [`Pending`] and [`PendingDir`]: every file and folder is first written
//!   under a temporary name beside its destination (`.NAME.XXXXXX.tmp`), flushed to disk, then
//!   renamed over the destination in one step. A reader, a later run or a second irglc sees
//!   the old file or the new one, never a part; an interrupted write leaves only the
//!   temporary, which [`remove_pending`] (on a signal) or [`sweep_stale`] (later) removes.
//! - [`names`]: the one place where a file name is derived from another (`bfs.v2.irgl` is the
//!   program `bfs.v2`, `box.1` gives `box.1.node`).
//! - [`refuse_inputs`]: an output that is an input of the same command (by path or by file
//!   identity: links, `./x`, `../d/x`) is refused before anything runs.

use std::fmt;
use std::fs::{self, File, Permissions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

pub mod names;

/// The temporaries of this process not yet renamed into place or removed, and whether the
/// process is stopping (then no new one is made).
static PENDING: Mutex<(Vec<PathBuf>, bool)> = Mutex::new((Vec::new(), false));

/// Makes a temporary with `make` and registers it, both under the lock, so that
/// [`remove_pending`] either sees it or forbids it.
fn make_registered<T>(
    make: impl FnOnce() -> io::Result<T>,
    path: impl Fn(&T) -> &Path,
) -> io::Result<T> {
    let mut pending = PENDING
        .lock()
        .map_err(|_| io::Error::other("a writer panicked"))?;
    if pending.1 {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "irglc is stopping",
        ));
    }
    let t = make()?;
    pending.0.push(path(&t).to_path_buf());
    Ok(t)
}

fn unregister(path: &Path) {
    if let Ok(mut p) = PENDING.lock() {
        p.0.retain(|q| q != path);
    }
}

/// Removes every temporary of this process that was not renamed into place, and refuses
/// new ones from now on: for a signal handler that ends the process without running
/// destructors.
pub fn remove_pending() {
    let mut pending = match PENDING.lock() {
        Ok(p) => p,
        Err(e) => e.into_inner(),
    };
    pending.1 = true;
    for p in std::mem::take(&mut pending.0) {
        if p.is_dir() {
            let _ = fs::remove_dir_all(&p);
        } else {
            let _ = fs::remove_file(&p);
        }
    }
}

/// The name a temporary beside `dest` starts with: `.NAME.`, the name cut to 100 characters.
fn temp_prefix(dest: &Path) -> String {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_string());
    let short: String = name.chars().take(100).collect();
    format!(".{short}.")
}

/// The folder `dest` is written in (`.` for a bare name).
fn folder_of(dest: &Path) -> &Path {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Where a write goes: `dest` itself, or, where `dest` is a link, the file it names (so that
/// writing through a link updates its target, as an in-place write would).
fn resolve(dest: &Path) -> PathBuf {
    match fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(dest).unwrap_or(dest.to_path_buf()),
        _ => dest.to_path_buf(),
    }
}

/// Flushes a folder's entries to disk (a rename is durable once its folder is). Folders that
/// cannot be opened or synced (some file systems) are left as they are.
fn sync_folder(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// A file being written under a temporary name beside its destination; [`Pending::commit`]
/// renames it into place. Dropped without a commit, the temporary is removed.
pub struct Pending {
    temp: Option<tempfile::TempPath>,
    dest: PathBuf,
    /// The permissions of the file it replaces, kept by the new one.
    keep: Option<Permissions>,
}

impl Pending {
    /// A new empty temporary beside `dest` (the folder is created if needed), readable as a
    /// new file would be (`umask` applies).
    pub fn beside(dest: &Path) -> io::Result<Pending> {
        let dest = resolve(dest);
        if is_special(&dest) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file: cannot be replaced whole",
            ));
        }
        let dir = folder_of(&dest);
        fs::create_dir_all(dir)?;
        let temp = make_registered(
            || {
                Ok(tempfile::Builder::new()
                    .prefix(&temp_prefix(&dest))
                    .suffix(".tmp")
                    .permissions(default_permissions())
                    .tempfile_in(dir)?
                    .into_temp_path())
            },
            |t| t,
        )?;
        let keep = fs::metadata(&dest).ok().map(|m| m.permissions());
        Ok(Pending {
            temp: Some(temp),
            dest,
            keep,
        })
    }

    /// The temporary's path, for a tool that writes the file itself (`nvcc -o PATH`).
    pub fn path(&self) -> &Path {
        self.temp
            .as_deref()
            .expect("a pending file has its temporary")
    }

    /// Where the file goes.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes the temporary to disk and renames it over the destination.
    pub fn commit(mut self) -> io::Result<()> {
        let temp = self.temp.take().expect("a pending file has its temporary");
        let result = (|| {
            File::open(&temp)?.sync_all()?;
            if let Some(p) = &self.keep {
                fs::set_permissions(&temp, p.clone())?;
            }
            Ok(())
        })();
        if let Err(e) = result {
            unregister(&temp);
            return Err(e);
        }
        let path = temp.to_path_buf();
        match temp.persist(&self.dest) {
            Ok(()) => {
                unregister(&path);
                sync_folder(folder_of(&self.dest));
                Ok(())
            }
            Err(e) => {
                unregister(&path);
                Err(e.error)
            }
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(t) = &self.temp {
            unregister(t);
        }
    }
}

fn default_permissions() -> Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Permissions::from_mode(0o666)
    }
    #[cfg(not(unix))]
    {
        File::open(".")
            .and_then(|f| f.metadata())
            .map(|m| m.permissions())
            .unwrap_or_else(|_| unreachable!("only unix is supported"))
    }
}

/// Whether `dest` is there and not a regular file: a device (`/dev/null`, `/dev/stdout`), a
/// pipe or a socket, which is written as it is (there is nothing to replace).
fn is_special(dest: &Path) -> bool {
    fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Writes `dest` whole or not at all: `write` fills a temporary beside it, which is flushed,
/// synced and renamed over `dest` once `write` succeeded. On an error nothing at `dest`
/// changes. A device or a pipe (`-o /dev/stdout`) is written directly.
pub fn write_whole(
    dest: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    if is_special(dest) {
        let mut w = BufWriter::new(fs::OpenOptions::new().write(true).open(dest)?);
        write(&mut w)?;
        return w.flush();
    }
    let pending = Pending::beside(dest)?;
    let file = fs::OpenOptions::new().write(true).open(pending.path())?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    write(&mut w)?;
    w.flush()?;
    drop(w);
    pending.commit()
}

/// Writes `bytes` to `dest` whole or not at all ([`write_whole`]).
pub fn write_bytes(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    write_whole(dest, |w| w.write_all(bytes))
}

/// Copies `src` to `dest` whole or not at all, with `src`'s permissions (an executable stays
/// one). A device or a pipe is written directly.
pub fn copy_whole(src: &Path, dest: &Path) -> io::Result<()> {
    if is_special(dest) {
        return write_whole(dest, |w| io::copy(&mut File::open(src)?, w).map(|_| ()));
    }
    let perms = fs::metadata(src)?.permissions();
    let mut pending = Pending::beside(dest)?;
    pending.keep = Some(perms);
    let mut from = File::open(src)?;
    let mut to = fs::OpenOptions::new().write(true).open(pending.path())?;
    io::copy(&mut from, &mut to)?;
    drop(to);
    pending.commit()
}

/// A folder being filled under a temporary name beside its destination; [`PendingDir::commit`]
/// renames it into place unless another process put one there first (the same content, by
/// the caller's naming: the first stays). Dropped without a commit, it is removed.
pub struct PendingDir {
    temp: Option<tempfile::TempDir>,
    dest: PathBuf,
}

impl PendingDir {
    pub fn beside(dest: &Path) -> io::Result<PendingDir> {
        let dir = folder_of(dest);
        fs::create_dir_all(dir)?;
        let temp = make_registered(
            || {
                tempfile::Builder::new()
                    .prefix(&temp_prefix(dest))
                    .suffix(".tmp")
                    .tempdir_in(dir)
            },
            |t| t.path(),
        )?;
        Ok(PendingDir {
            temp: Some(temp),
            dest: dest.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        self.temp
            .as_ref()
            .expect("a pending folder has its temporary")
            .path()
    }

    /// Renames the folder into place; where a folder is there already, keeps that one.
    pub fn commit(mut self) -> io::Result<()> {
        let temp = self
            .temp
            .take()
            .expect("a pending folder has its temporary");
        unregister(temp.path());
        let path = temp.keep();
        match fs::rename(&path, &self.dest) {
            Ok(()) => {
                sync_folder(folder_of(&self.dest));
                Ok(())
            }
            Err(_) if self.dest.is_dir() => {
                let _ = fs::remove_dir_all(&path);
                Ok(())
            }
            Err(e) => {
                let _ = fs::remove_dir_all(&path);
                Err(e)
            }
        }
    }
}

impl Drop for PendingDir {
    fn drop(&mut self) {
        if let Some(t) = &self.temp {
            unregister(t.path());
        }
    }
}

/// Whether `name` is a temporary of this crate (`.NAME.XXXXXX.tmp`).
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp") && name.len() > 5
}

/// Removes the temporaries in `dir` (files and folders) last modified more than `age` ago:
/// what an irglc killed outright (SIGKILL, a power cut) left behind. A live write renews its
/// temporary's time as it writes; `age` should exceed the longest write.
pub fn sweep_stale(dir: &Path, age: Duration) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !is_temporary(&name) {
            continue;
        }
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|d| d > age);
        if old {
            let p = e.path();
            let _ = if p.is_dir() {
                fs::remove_dir_all(&p)
            } else {
                fs::remove_file(&p)
            };
        }
    }
}

/// An output of a command that is one of its inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clash {
    pub output: PathBuf,
    pub input: PathBuf,
}

impl fmt::Display for Clash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.output == self.input {
            write!(
                f,
                "{} is an input of this command: writing it would destroy it; choose another output name",
                self.output.display()
            )
        } else {
            write!(
                f,
                "{} is the same file as {}, an input of this command: writing it would destroy the input; choose another output name",
                self.output.display(),
                self.input.display()
            )
        }
    }
}

/// Refuses outputs that are inputs: the same path, or the same file reached another way (a
/// link, a different spelling of the path). Outputs that do not exist yet clash with nothing.
pub fn refuse_inputs(outputs: &[&Path], inputs: &[&Path]) -> Result<(), Clash> {
    for &o in outputs {
        for &i in inputs {
            if same_file::is_same_file(o, i).unwrap_or(false) || o == i {
                return Err(Clash {
                    output: o.to_path_buf(),
                    input: i.to_path_buf(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("irgl-files-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = scratch("failed");
        let dest = dir.join("x.gr");
        fs::write(&dest, "old").unwrap();
        let err = write_whole(&dest, |w| {
            w.write_all(b"half of the new")?;
            Err(io::Error::other("the disk is full"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read_to_string(&dest).unwrap(), "old");
        assert_eq!(listing(&dir), ["x.gr"]);
        write_bytes(&dest, b"new").unwrap();
        assert_eq!(fs::read_to_string(&dest).unwrap(), "new");
        assert_eq!(listing(&dir), ["x.gr"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_pending_file_is_renamed_into_place_or_removed() {
        let dir = scratch("pending");
        let dest = dir.join("sub/bfs.v2-00ff");
        let p = Pending::beside(&dest).unwrap();
        let temp = p.path().to_path_buf();
        let name = temp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".bfs.v2-00ff.") && is_temporary(&name),
            "{name}"
        );
        fs::write(&temp, "built").unwrap();
        assert!(
            !dest.exists(),
            "nothing at the destination before the commit"
        );
        p.commit().unwrap();
        assert_eq!(fs::read_to_string(&dest).unwrap(), "built");
        let p = Pending::beside(&dest).unwrap();
        let temp = p.path().to_path_buf();
        drop(p);
        assert!(!temp.exists());
        assert_eq!(listing(&dir.join("sub")), ["bfs.v2-00ff"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_pending_folder_keeps_the_first_one_in_place() {
        let dir = scratch("dir");
        let dest = dir.join("runtime-1");
        let a = PendingDir::beside(&dest).unwrap();
        fs::write(a.path().join("h"), "first").unwrap();
        let b = PendingDir::beside(&dest).unwrap();
        fs::write(b.path().join("h"), "second").unwrap();
        a.commit().unwrap();
        b.commit().unwrap();
        assert_eq!(fs::read_to_string(dest.join("h")).unwrap(), "first");
        assert_eq!(listing(&dir), ["runtime-1"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept_and_copies_stay_executable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("perms");
        let src = dir.join("prog");
        fs::write(&src, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&src, Permissions::from_mode(0o755)).unwrap();
        let copy = dir.join("copy");
        copy_whole(&src, &copy).unwrap();
        assert_eq!(
            fs::metadata(&copy).unwrap().permissions().mode() & 0o777,
            0o755
        );
        let kept = dir.join("kept");
        fs::write(&kept, "a").unwrap();
        fs::set_permissions(&kept, Permissions::from_mode(0o640)).unwrap();
        write_bytes(&kept, b"b").unwrap();
        assert_eq!(
            fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_as_they_are() {
        write_bytes(Path::new("/dev/null"), b"anything").unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().is_file());
        let e = write_bytes(Path::new("/dev/full"), b"x").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(28), "ENOSPC: {e}");
    }

    #[cfg(unix)]
    #[test]
    fn writing_through_a_link_updates_its_target() {
        let dir = scratch("link");
        let target = dir.join("real.irgl");
        fs::write(&target, "old").unwrap();
        std::os::unix::fs::symlink(&target, dir.join("link.irgl")).unwrap();
        write_bytes(&dir.join("link.irgl"), b"new").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert!(
            fs::symlink_metadata(dir.join("link.irgl"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn stale_temporaries_are_swept_and_others_kept() {
        let dir = scratch("sweep");
        fs::write(dir.join(".bfs-1.abc123.tmp"), "left by a killed run").unwrap();
        fs::write(dir.join("bfs-1"), "built").unwrap();
        fs::write(dir.join(".hidden"), "not ours").unwrap();
        sweep_stale(&dir, Duration::from_secs(3600));
        assert_eq!(listing(&dir).len(), 3, "young temporaries are kept");
        sweep_stale(&dir, Duration::ZERO);
        assert_eq!(listing(&dir), [".hidden", "bfs-1"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn outputs_that_are_inputs_are_refused() {
        let dir = scratch("clash");
        let input = dir.join("k.mtx");
        fs::write(&input, "%%MatrixMarket\n").unwrap();
        std::os::unix::fs::symlink(&input, dir.join("link.mtx")).unwrap();
        fs::hard_link(&input, dir.join("hard.mtx")).unwrap();
        fs::create_dir_all(dir.join("sub")).unwrap();
        let other = dir.join("sub/../k.mtx");
        for out in [
            input.clone(),
            dir.join("link.mtx"),
            dir.join("hard.mtx"),
            other,
        ] {
            let e = refuse_inputs(&[&out], &[&input]).unwrap_err();
            assert_eq!(e.output, out);
            assert!(e.to_string().contains("choose another output name"), "{e}");
        }
        assert!(refuse_inputs(&[&dir.join("k.gr")], &[&input]).is_ok());
        assert!(refuse_inputs(&[&dir.join("new")], &[&dir.join("new")]).is_err());
        let _ = fs::remove_dir_all(&dir);
    }
}
