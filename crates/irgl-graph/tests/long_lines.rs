//! A text graph file that is not text: gigabytes without a newline (a compressed stream of
//! zero bytes compresses a thousandfold). Every text reader stops after one line's limit with a
//! located error, having read (and buffered) no more than that limit.

use std::cell::Cell;
use std::io::{self, BufReader, Read, Write};
use std::rc::Rc;

use flate2::Compression;
use flate2::write::GzEncoder;
use irgl_graph::NoProgress;
use irgl_graph::format::{MAX_LINE, MAX_METIS_LINE};
use irgl_graph::load::{Format, LoadOptions, load, read_from};

/// Counts the bytes read through it.
struct Counted<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

const BUFFER: usize = 64 << 10;

/// Reads `len` bytes of `byte` as `format`; returns the error and the bytes read.
fn read_endless(format: Format, byte: u8, len: u64) -> (String, u64) {
    let read = Rc::new(Cell::new(0));
    let reader = BufReader::with_capacity(
        BUFFER,
        Counted {
            inner: io::repeat(byte).take(len),
            read: read.clone(),
        },
    );
    let opts = LoadOptions {
        format: Some(format),
        ..LoadOptions::default()
    };
    let err = match read_from(reader, "endless", "endless", None, &opts, &NoProgress) {
        Ok(_) => panic!("{format:?}: a line of {len} bytes was accepted"),
        Err(e) => e.to_string(),
    };
    (err, read.get())
}

#[test]
fn every_text_reader_stops_at_its_line_limit() {
    for (format, limit) in [
        (Format::Snap, MAX_LINE),
        (Format::Mtx, MAX_LINE),
        (Format::Dimacs, MAX_LINE),
        (Format::Metis, MAX_METIS_LINE),
    ] {
        for byte in [b'0', b'%', b'#', b' '] {
            let (err, read) = read_endless(format, byte, 4 * limit);
            assert_eq!(
                err,
                format!("endless:1: line 1 longer than {limit} bytes (is this a text graph file?)"),
                "{format:?}, byte {byte}"
            );
            assert!(
                read <= limit + BUFFER as u64,
                "{format:?} read {read} bytes for a limit of {limit}"
            );
        }
    }
}

/// The report's case, through a real `.txt.gz` file and `load`: 64 MiB of zero bytes.
#[test]
fn a_gzip_stream_of_one_huge_line_is_an_error() {
    let dir = std::env::temp_dir().join(format!("irgl-long-line-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zeros.txt.gz");
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..64 {
        gz.write_all(&chunk).unwrap();
    }
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let err = load(&path, &LoadOptions::default(), &NoProgress)
        .expect_err("rejected")
        .to_string();
    assert!(
        err.ends_with(&format!(
            "zeros.txt.gz:1: line 1 longer than {MAX_LINE} bytes (is this a text graph file?)"
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
