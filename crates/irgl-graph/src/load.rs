//! Opening graph files: format detection, transparent gzip, binary `.gr` files mapped into
//! memory, progress by bytes read.
//!
//! The format comes from the file name, after removing a `.gz` suffix: `.gr` (Galois binary, or
//! DIMACS shortest-path text: the first bytes tell which), `.mtx` (Matrix Market), `.txt`,
//! `.el`, `.edges`, `.tsv`, `.snap` (SNAP edge list), `.graph`, `.metis` (METIS), `.dimacs`
//! (DIMACS). Anything else is recognised by its first bytes where possible.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::csr::Csr;
use crate::error::{GraphError, Result};
use crate::format::{dimacs, gr, metis, mtx, snap, snap::SnapIds};
use crate::progress::{NoProgress, Progress, Unit};

/// The graph file formats irglc reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Galois binary `.gr`, version 1 or 2.
    Gr,
    /// DIMACS shortest-path text (`p sp`, `a u v w`).
    Dimacs,
    /// Matrix Market coordinate.
    Mtx,
    /// SNAP edge list.
    Snap,
    /// METIS.
    Metis,
}

impl Format {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Gr => "gr",
            Format::Dimacs => "dimacs",
            Format::Mtx => "mtx",
            Format::Snap => "snap",
            Format::Metis => "metis",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(s: &str) -> Option<Format> {
        [
            Format::Gr,
            Format::Dimacs,
            Format::Mtx,
            Format::Snap,
            Format::Metis,
        ]
        .into_iter()
        .find(|f| f.name() == s)
    }
}

/// Options for reading a graph.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Force a format instead of detecting it.
    pub format: Option<Format>,
    /// How SNAP ids become node ids.
    pub snap_ids: SnapIds,
}

/// A graph read from a file.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub csr: Csr,
    pub format: Format,
    /// Things the user should know (rounded values, renumbered ids).
    pub notes: Vec<String>,
}

/// Reads a graph file, gzip-compressed when its name ends in `.gz`.
///
/// Text formats give a CSR with sorted neighbours; `.gr` keeps the stored order.
pub fn load(path: &Path, opts: &LoadOptions, progress: &dyn Progress) -> Result<Loaded> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| GraphError::io(&name, e))?;
    let len = file.metadata().map_err(|e| GraphError::io(&name, e))?.len();
    let gz = name.ends_with(".gz");
    progress.start("reading", Some(len), Unit::Bytes);
    let stem = name.strip_suffix(".gz").unwrap_or(&name).to_string();
    if !gz && let Some(map) = mapped_gr(&file, &stem, opts) {
        let csr = gr::read_bytes(&map, &name, &NoProgress);
        progress.set(len);
        progress.finish();
        return csr.map(|csr| Loaded {
            csr,
            format: Format::Gr,
            notes: Vec::new(),
        });
    }
    let counted = Counting {
        inner: file,
        read: 0,
        reported: 0,
        progress,
    };
    let result = if gz {
        let reader = BufReader::with_capacity(
            1 << 20,
            GzErrors(MultiGzDecoder::new(BufReader::new(counted))),
        );
        read_from(reader, &name, &stem, None, opts, &NoProgress)
    } else {
        let reader = BufReader::with_capacity(1 << 20, counted);
        read_from(reader, &name, &stem, Some(len), opts, &NoProgress)
    };
    progress.finish();
    result
}

/// The file mapped into memory when it is a binary `.gr` (by `opts.format` or its name and
/// first bytes) and the system can map it; `None` sends it to the stream readers.
fn mapped_gr(file: &File, stem: &str, opts: &LoadOptions) -> Option<memmap2::Mmap> {
    // SAFETY: the map is only read, and irglc does not write a graph file while reading it.
    // Another program truncating the file meanwhile would fault the read (SIGBUS): the price
    // of mapping, which every reader of mapped files pays.
    let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
    let gr = match opts.format {
        Some(f) => f == Format::Gr,
        None => detect(stem, &map[..map.len().min(64)]) == Some(Format::Gr),
    };
    gr.then_some(map)
}

/// Reads a graph from any reader. `name` is used in messages; `stem` (the name without `.gz`)
/// chooses the format unless `opts.format` is set; `len` is the byte length when known.
pub fn read_from<R: BufRead>(
    mut reader: R,
    name: &str,
    stem: &str,
    len: Option<u64>,
    opts: &LoadOptions,
    progress: &dyn Progress,
) -> Result<Loaded> {
    let format = match opts.format {
        Some(f) => f,
        None => {
            let head = reader.fill_buf().map_err(|e| GraphError::io(name, e))?;
            detect(stem, head).ok_or_else(|| {
                GraphError::file(
                    name,
                    "cannot tell the graph format from the file name or its first bytes; expected .gr, .mtx, .txt/.el (SNAP), .graph (METIS) or .dimacs, optionally .gz (or pass --format)",
                )
            })?
        }
    };
    let mut notes = Vec::new();
    let list = match format {
        Format::Gr => {
            let csr = gr::read(reader, name, len, progress)?;
            return Ok(Loaded { csr, format, notes });
        }
        Format::Dimacs => dimacs::read(reader, name)?,
        Format::Mtx => mtx::read(reader, name, &mut notes)?,
        Format::Snap => snap::read(reader, name, opts.snap_ids, &mut notes)?,
        Format::Metis => metis::read(reader, name)?,
    };
    Ok(Loaded {
        csr: Csr::from_edge_list(list),
        format,
        notes,
    })
}

/// Chooses a format from the name (without `.gz`) and the first bytes.
pub fn detect(stem: &str, head: &[u8]) -> Option<Format> {
    let ext = Path::new(stem)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let binary_gr = head.len() >= 8 && matches!(head[0], 1 | 2) && head[1..8] == [0; 7];
    // A `.gr` with NUL bytes up front is binary (a bad version is then reported as such).
    let looks_binary = head.iter().take(8).any(|&b| b == 0);
    match ext.as_deref() {
        Some("gr") if binary_gr || looks_binary => Some(Format::Gr),
        Some("gr" | "dimacs") => Some(Format::Dimacs),
        Some("mtx") => Some(Format::Mtx),
        Some("txt" | "el" | "edges" | "tsv" | "snap") => Some(Format::Snap),
        Some("graph" | "metis") => Some(Format::Metis),
        _ if binary_gr => Some(Format::Gr),
        _ if head.starts_with(b"%%MatrixMarket") => Some(Format::Mtx),
        _ if head.starts_with(b"p sp") || head.starts_with(b"c ") => Some(Format::Dimacs),
        _ => None,
    }
}

/// Says that a read error comes from gzip decoding.
struct GzErrors<R>(R);

impl<R: Read> Read for GzErrors<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("gzip: {e} (the file is truncated or is not gzip)"),
            )
        })
    }
}

/// Counts bytes read from the underlying file and reports them every few megabytes.
struct Counting<'a, R> {
    inner: R,
    read: u64,
    reported: u64,
    progress: &'a dyn Progress,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.read += k as u64;
        if self.read - self.reported >= 4 << 20 {
            self.reported = self.read;
            self.progress.set(self.read);
        }
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_extension_and_content() {
        assert_eq!(detect("a.gr", b"\x01\0\0\0\0\0\0\0"), Some(Format::Gr));
        assert_eq!(detect("a.gr", b"c comment"), Some(Format::Dimacs));
        assert_eq!(detect("a.mtx", b""), Some(Format::Mtx));
        assert_eq!(detect("a.txt", b""), Some(Format::Snap));
        assert_eq!(detect("a.graph", b""), Some(Format::Metis));
        assert_eq!(detect("a.bin", b"%%MatrixMarket"), Some(Format::Mtx));
        assert_eq!(detect("a.bin", b"hello"), None);
    }
}
