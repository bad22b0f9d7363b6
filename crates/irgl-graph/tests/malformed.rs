//! Every file in `tests/malformed/` has exactly one defect and must be rejected with a message
//! naming the file, the line or byte, and what was expected. The messages are snapshotted
//! together (one line per file) in `snapshots/malformed__graph_inputs.snap`; the same for
//! output files in `tests/malformed-output/`.

use std::fs;
use std::io::BufReader;
use std::path::Path;

use irgl_graph::NoProgress;
use irgl_graph::load::{LoadOptions, load};
use irgl_graph::output;

/// Files of a corpus folder, sorted, as paths relative to the crate (stable in messages).
fn corpus(dir: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = fs::read_dir(root.join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(!names.is_empty(), "{dir} is empty");
    names.into_iter().map(|n| format!("{dir}/{n}")).collect()
}

#[test]
fn graph_inputs() {
    // Tests run in the crate's folder, so relative paths resolve and stay short in messages.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut report = String::new();
    for path in corpus("tests/malformed") {
        match load(Path::new(&path), &LoadOptions::default(), &NoProgress) {
            Ok(g) => panic!(
                "{path} was accepted: {} nodes, {} edges",
                g.csr.n,
                g.csr.num_edges()
            ),
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.starts_with(&path),
                    "message does not name the file: {msg}"
                );
                report.push_str(&msg);
                report.push('\n');
            }
        }
    }
    insta::assert_snapshot!("graph_inputs", report);
}

#[test]
fn output_files() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut report = String::new();
    for path in corpus("tests/malformed-output") {
        let file = fs::File::open(&path).unwrap();
        match output::parse(BufReader::new(file), &path) {
            Ok(_) => panic!("{path} was accepted"),
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.starts_with(&path),
                    "message does not name the file: {msg}"
                );
                report.push_str(&msg);
                report.push('\n');
            }
        }
    }
    insta::assert_snapshot!("output_files", report);
}
