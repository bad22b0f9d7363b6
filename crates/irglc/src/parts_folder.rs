//! Reading a folder of parts, as `irglc graph gen rmat --parts N -o FOLDER` writes it
//! (docs/graphs.md): `parts.json`, and per part `part-P.gr` and `part-P.mirrors`.

use std::ops::Range;
use std::path::{Path, PathBuf};

use irgl_graph::GraphError;
use irgl_graph::load::{self, Format, LoadOptions};
use irgl_graph::parts::GeneratedPart;
use irgl_graph::progress::NoProgress;
use irgl_graph::verify::PartSource;
use serde::Deserialize;

/// The manifest's name inside a folder of parts.
pub const MANIFEST: &str = "parts.json";

#[derive(Deserialize)]
struct Manifest {
    format: String,
    version: u32,
    nodes: u32,
    edges: u64,
    weighted: bool,
    starts: Vec<u32>,
    parts: Vec<PartEntry>,
}

#[derive(Deserialize)]
struct PartEntry {
    graph: String,
    mirrors: String,
    masters: u32,
    edges: u64,
    mirror_count: u64,
}

/// A folder of parts, its manifest read and checked; the parts are read one at a time.
pub struct PartsFolder {
    dir: PathBuf,
    manifest: Manifest,
}

/// Whether `path` is a folder of parts (a folder with a `parts.json`).
pub fn is_parts_folder(path: &Path) -> bool {
    path.is_dir() && path.join(MANIFEST).is_file()
}

impl PartsFolder {
    /// Whether the parts carry edge weights.
    pub fn weighted(&self) -> bool {
        self.manifest.weighted
    }

    pub fn open(dir: &Path) -> Result<Self, GraphError> {
        let path = dir.join(MANIFEST);
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|e| io(&name, e))?;
        let manifest: Manifest = serde_json::from_str(&text).map_err(|e| GraphError::Line {
            path: name.clone(),
            line: e.line() as u64,
            message: format!("not a parts manifest: {e}"),
        })?;
        let bad = |m: String| Err(file(&name, m));
        if manifest.format != "irglc-parts" || manifest.version != 1 {
            return bad(format!(
                "format `{}` version {}: expected irglc-parts version 1",
                manifest.format, manifest.version
            ));
        }
        let parts = manifest.parts.len();
        let starts = &manifest.starts;
        if parts == 0
            || starts.len() != parts + 1
            || starts[0] != 0
            || starts[parts] != manifest.nodes
            || starts.windows(2).any(|w| w[0] > w[1])
        {
            return bad(format!(
                "`starts` must rise from 0 to the {} nodes with one entry more than the {parts} parts",
                manifest.nodes
            ));
        }
        for (p, e) in manifest.parts.iter().enumerate() {
            if e.masters != starts[p + 1] - starts[p] {
                return bad(format!(
                    "part {p} has {} masters, but `starts` gives it {}",
                    e.masters,
                    starts[p + 1] - starts[p]
                ));
            }
            for file in [&e.graph, &e.mirrors] {
                if Path::new(file).components().count() != 1 || file.starts_with('.') {
                    return bad(format!(
                        "part {p}: `{file}` is not a file name inside the folder"
                    ));
                }
            }
        }
        let total: u64 = manifest.parts.iter().map(|e| e.edges).sum();
        if total != manifest.edges {
            return bad(format!(
                "the parts hold {total} edges, but `edges` is {}",
                manifest.edges
            ));
        }
        Ok(PartsFolder {
            dir: dir.to_path_buf(),
            manifest,
        })
    }
}

impl PartSource for PartsFolder {
    fn nodes(&self) -> u32 {
        self.manifest.nodes
    }

    fn edges(&self) -> u64 {
        self.manifest.edges
    }

    fn count(&self) -> usize {
        self.manifest.parts.len()
    }

    fn part(&self, p: usize) -> Result<GeneratedPart, GraphError> {
        let e = &self.manifest.parts[p];
        let graph = self.dir.join(&e.graph);
        let name = graph.display().to_string();
        // Mapped, not copied: a part may be most of the host's memory.
        let opts = LoadOptions {
            format: Some(Format::Gr),
            ..LoadOptions::default()
        };
        let csr = load::load(&graph, &opts, &NoProgress)?.csr;
        if csr.num_edges() != e.edges {
            return Err(file(
                &name,
                format!(
                    "{} edges, but parts.json gives part {p} {}",
                    csr.num_edges(),
                    e.edges
                ),
            ));
        }
        let mirrors_path = self.dir.join(&e.mirrors);
        let mname = mirrors_path.display().to_string();
        let raw = std::fs::read(&mirrors_path).map_err(|err| io(&mname, err))?;
        if raw.len() as u64 != e.mirror_count * 4 {
            return Err(file(
                &mname,
                format!(
                    "{} bytes, but parts.json gives part {p} {} mirrors of 4 bytes",
                    raw.len(),
                    e.mirror_count
                ),
            ));
        }
        let mirrors = raw
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let starts = &self.manifest.starts;
        let masters: Range<u32> = starts[p]..starts[p + 1];
        Ok(GeneratedPart {
            masters,
            csr,
            mirrors,
        })
    }

    fn name(&self, p: usize) -> String {
        self.dir
            .join(&self.manifest.parts[p].graph)
            .display()
            .to_string()
    }
}

fn io(path: &str, source: std::io::Error) -> GraphError {
    GraphError::Io {
        path: path.to_string(),
        source,
    }
}

fn file(path: &str, message: String) -> GraphError {
    GraphError::File {
        path: path.to_string(),
        message,
    }
}
