//! What a signal handler does before it ends the process (`irgl_files::remove_pending`): the
//! temporaries being written are removed and no new one is made. In a process of its own,
//! since it stops every writer of the process.

use std::fs;

use irgl_files::{Pending, PendingDir, remove_pending, write_bytes};

#[test]
fn pending_temporaries_are_removed_and_no_new_one_is_made() {
    let dir = std::env::temp_dir().join(format!("irgl-files-stop-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let p = Pending::beside(&dir.join("a")).unwrap();
    let d = PendingDir::beside(&dir.join("b")).unwrap();
    let (pt, dt) = (p.path().to_path_buf(), d.path().to_path_buf());
    fs::write(dt.join("inner"), "x").unwrap();
    // As a signal handler would, while both are pending (their destructors never run).
    std::mem::forget(p);
    std::mem::forget(d);
    remove_pending();
    assert!(!pt.exists() && !dt.exists());
    let e = write_bytes(&dir.join("c"), b"late").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
    let _ = fs::remove_dir_all(&dir);
}
