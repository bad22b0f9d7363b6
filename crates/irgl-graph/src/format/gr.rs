//! Galois binary `.gr`, versions 1 and 2, little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | version: 1 (u32 destinations) or 2 (u64 destinations) |
//! | 8 | edge data size: 0 (no weights) or 4 (u32 weights) |
//! | 8 | N, the node count |
//! | 8 | E, the edge count |
//! | 8 N | `out_index[v]`: the END offset of node v's edges |
//! | 4 E (v1) or 8 E (v2) | destinations |
//! | 4 | padding, v1 only, when E is odd |
//! | 4 E | edge data (weights), when the edge data size is 4 |
//!
//! The writer always writes v1 and writes the padding whenever E is odd, as Galois does; the
//! reader accepts v1 files without edge data either with or without that trailing padding.
//! Files are read in their stored edge order (not re-sorted), so edge ids match every program
//! that reads the same file.

use std::io::{self, Read, Write};

use rayon::prelude::*;

use super::{Pos, capped};
use crate::csr::Csr;
use crate::error::{GraphError, Result};
use crate::progress::{Progress, Unit};

const HEADER: u64 = 32;
const CHUNK: usize = 1 << 20;

impl<R: Read> Pos<R> {
    /// Reads `count` little-endian words of `width` bytes (4 or 8), calling `each(index, value)`.
    fn words(
        &mut self,
        count: u64,
        width: usize,
        what: &str,
        progress: &dyn Progress,
        mut each: impl FnMut(u64, u64, u64) -> Result<()>,
    ) -> Result<()> {
        let mut buf = vec![0u8; CHUNK];
        let mut done = 0u64;
        while done < count {
            let k = ((count - done) as usize).min(CHUNK / width);
            let bytes = &mut buf[..k * width];
            let start = self.offset;
            self.read_exact(bytes, &|| format!("{count} {what} ({width} bytes each)"))?;
            for (i, w) in bytes.chunks_exact(width).enumerate() {
                let x = if width == 4 {
                    u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                } else {
                    u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
                };
                each(done + i as u64, x, start + (i * width) as u64)?;
            }
            done += k as u64;
            progress.set(self.offset);
        }
        Ok(())
    }
}

/// What a `.gr` header says.
struct Header {
    data_size: u64,
    n: u64,
    m: u64,
    n32: u32,
    /// Bytes per destination: 4 (v1) or 8 (v2).
    dst_width: usize,
    /// Bytes of padding between the destinations and the weights (v1 with an odd E).
    pad: u64,
}

/// Parses the 32-byte header and checks it against the file's length `len` when known.
fn header(h: &[u8], path: &str, len: Option<u64>) -> Result<Header> {
    let word = |i: usize| u64::from_le_bytes(h[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
    let (version, data_size, n, m) = (word(0), word(1), word(2), word(3));
    let dst_width = match version {
        1 => 4usize,
        2 => 8usize,
        _ => {
            return Err(GraphError::byte(
                path,
                0,
                format!(
                    "expected .gr version 1 or 2, found {version} (is this a Galois binary graph?)"
                ),
            ));
        }
    };
    if data_size != 0 && data_size != 4 {
        return Err(GraphError::byte(
            path,
            8,
            format!(
                "edge data size {data_size} is not supported, expected 0 (none) or 4 (u32 weights)"
            ),
        ));
    }
    let n32 = super::node_count(n).map_err(|m| GraphError::byte(path, 16, m))?;
    let dst_bytes = m.checked_mul(dst_width as u64);
    let pad = if version == 1 && m % 2 == 1 { 4 } else { 0 };
    let expected = n
        .checked_mul(8)
        .and_then(|o| dst_bytes.and_then(|d| o.checked_add(d)))
        .and_then(|x| x.checked_add(HEADER))
        .and_then(|x| {
            if data_size > 0 {
                x.checked_add(pad + m.checked_mul(data_size)?)
            } else {
                Some(x)
            }
        });
    let Some(expected) = expected else {
        return Err(GraphError::byte(
            path,
            24,
            format!("edge count {m} is impossibly large"),
        ));
    };
    if let Some(len) = len {
        let ok = len == expected || (data_size == 0 && pad == 4 && len == expected + 4);
        if !ok {
            let what = if len < expected {
                "truncated"
            } else {
                "has trailing bytes"
            };
            return Err(GraphError::byte(
                path,
                len.min(expected),
                format!(
                    "file {what}: a version {version} header with N = {n} nodes, E = {m} edges and edge data size {data_size} needs {expected} bytes, but the file has {len}"
                ),
            ));
        }
    }
    Ok(Header {
        data_size,
        n,
        m,
        n32,
        dst_width,
        pad,
    })
}

/// The error of `out_index[i] = x` (at byte `at`) after `prev`, if it is one.
fn offset_error(h: &Header, path: &str, i: u64, x: u64, prev: u64, at: u64) -> Option<GraphError> {
    if x < prev {
        return Some(GraphError::byte(
            path,
            at,
            format!(
                "out_index[{i}] = {x} is smaller than out_index[{}] = {prev}: offsets must not decrease",
                i.saturating_sub(1)
            ),
        ));
    }
    (x > h.m).then(|| {
        GraphError::byte(
            path,
            at,
            format!("out_index[{i}] = {x} exceeds the edge count E = {}", h.m),
        )
    })
}

/// The error of a last offset that is not the edge count.
fn last_offset_error(h: &Header, path: &str, last: u64) -> Option<GraphError> {
    (last != h.m).then(|| {
        GraphError::byte(
            path,
            HEADER + 8 * h.n.saturating_sub(1),
            format!(
                "the last offset out_index[{}] is {last}, expected the edge count E = {}",
                h.n.saturating_sub(1),
                h.m
            ),
        )
    })
}

/// The error of destination `x` of edge `e` (at byte `at`), if it is one.
fn destination_error(h: &Header, path: &str, e: u64, x: u64, at: u64) -> Option<GraphError> {
    (x >= h.n).then(|| {
        GraphError::byte(
            path,
            at,
            format!(
                "destination {x} of edge {e} is out of range: expected a node id below N = {}",
                h.n
            ),
        )
    })
}

/// The edge count E of the `.gr` file at `path`, from its header (checked against the file's
/// length), without reading the rest.
pub fn edge_count(path: &std::path::Path) -> Result<u64> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| GraphError::io(&name, e))?;
    let len = file.metadata().map_err(|e| GraphError::io(&name, e))?.len();
    let mut r = Pos {
        inner: file,
        offset: 0,
        path: name,
    };
    Ok(read_header(&mut r, Some(len))?.m)
}

/// Reads and checks the header of the `.gr` stream `r` (against the file's length `len` when
/// known).
fn read_header<R: Read>(r: &mut Pos<R>, len: Option<u64>) -> Result<Header> {
    let mut head = [0u8; HEADER as usize];
    r.read_exact(&mut head, &|| {
        "a 32-byte header (version, edge data size, N, E)".into()
    })?;
    header(&head, &r.path, len)
}

/// Reads a `.gr` file. `len` is the file's length when known (a plain file), used to reject a
/// truncated or oversized file before reading it; without it (gzip) truncation is found when the
/// data runs out.
pub fn read<R: Read>(
    reader: R,
    path: &str,
    len: Option<u64>,
    progress: &dyn Progress,
) -> Result<Csr> {
    let mut r = Pos {
        inner: reader,
        offset: 0,
        path: path.to_string(),
    };
    let h = read_header(&mut r, len)?;
    progress.start("reading .gr", len, Unit::Bytes);
    let mut offsets = Vec::with_capacity(capped(h.n) + 1);
    offsets.push(0u64);
    r.words(h.n, 8, "node offsets", progress, |i, x, at| {
        let prev = offsets[offsets.len() - 1];
        if let Some(e) = offset_error(&h, path, i, x, prev, at) {
            return Err(e);
        }
        offsets.push(x);
        Ok(())
    })?;
    if let Some(e) = last_offset_error(&h, path, offsets[offsets.len() - 1]) {
        return Err(e);
    }
    let mut dst: Vec<u32> = Vec::with_capacity(capped(h.m));
    r.words(h.m, h.dst_width, "destinations", progress, |e, x, at| {
        if let Some(e) = destination_error(&h, path, e, x, at) {
            return Err(e);
        }
        dst.push(x as u32);
        Ok(())
    })?;
    let weights = if h.data_size == 4 {
        if h.pad == 4 {
            let mut p = [0u8; 4];
            r.read_exact(&mut p, &|| {
                "4 bytes of padding after an odd number of destinations".into()
            })?;
        }
        let mut w: Vec<u32> = Vec::with_capacity(capped(h.m));
        r.words(h.m, 4, "edge weights", progress, |_, x, _| {
            w.push(x as u32);
            Ok(())
        })?;
        Some(w)
    } else {
        None
    };
    progress.finish();
    Ok(Csr {
        n: h.n32,
        offsets,
        dst,
        weights,
    })
}

/// Reads a whole `.gr` file held in memory (a mapped file), converting and checking its
/// arrays on every core. The graph and the errors are [`read`]'s: an error names the first bad
/// word in file order.
pub fn read_bytes(bytes: &[u8], path: &str, progress: &dyn Progress) -> Result<Csr> {
    let len = bytes.len() as u64;
    let Some(head) = bytes.get(..HEADER as usize) else {
        return Err(GraphError::byte(
            path,
            len,
            "file truncated: expected a 32-byte header (version, edge data size, N, E), found end of file",
        ));
    };
    // The header checks the length, so every slice below is in the file.
    let h = header(head, path, Some(len))?;
    progress.start("reading .gr", Some(len), Unit::Bytes);
    let (n, m) = (h.n as usize, h.m as usize);
    let word = |c: &[u8]| match *c {
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        [a, b, c, d, e, f, g, i] => u64::from_le_bytes([a, b, c, d, e, f, g, i]),
        _ => unreachable!("words are 4 or 8 bytes"),
    };
    let at = |start: usize, width: usize, i: usize| (start + i * width) as u64;
    let offsets_at = HEADER as usize;
    let mut offsets: Vec<u64> = Vec::with_capacity(n + 1);
    offsets.push(0);
    offsets.par_extend(
        bytes[offsets_at..offsets_at + 8 * n]
            .par_chunks_exact(8)
            .map(word),
    );
    let bad = (0..n).into_par_iter().find_map_first(|i| {
        offset_error(
            &h,
            path,
            i as u64,
            offsets[i + 1],
            offsets[i],
            at(offsets_at, 8, i),
        )
    });
    if let Some(e) = bad.or_else(|| last_offset_error(&h, path, offsets[n])) {
        return Err(e);
    }
    progress.set(at(offsets_at, 8, n));
    let dst_at = offsets_at + 8 * n;
    let dst_bytes = &bytes[dst_at..dst_at + h.dst_width * m];
    let bad = dst_bytes
        .par_chunks_exact(h.dst_width)
        .enumerate()
        .find_map_first(|(e, c)| {
            destination_error(&h, path, e as u64, word(c), at(dst_at, h.dst_width, e))
        });
    if let Some(e) = bad {
        return Err(e);
    }
    let dst: Vec<u32> = dst_bytes
        .par_chunks_exact(h.dst_width)
        .map(|c| word(c) as u32)
        .collect();
    let weights = (h.data_size == 4).then(|| {
        let w_at = dst_at + h.dst_width * m + h.pad as usize;
        bytes[w_at..w_at + 4 * m]
            .par_chunks_exact(4)
            .map(|c| word(c) as u32)
            .collect()
    });
    progress.set(len);
    progress.finish();
    Ok(Csr {
        n: h.n32,
        offsets,
        dst,
        weights,
    })
}

/// Checks that `g` can be written as `.gr` v1 by irglc: a valid CSR. (Any edge count: v1's
/// offsets are 64-bit; programs read a graph of more than 2^32 - 1 edges when built with
/// `--wide-edges on`.)
pub fn check_writable(g: &Csr) -> Result<()> {
    g.validate()
        .map_err(|m| GraphError::Internal(format!("invalid CSR: {m}")))
}

/// Writes `g` as `.gr` version 1 (u32 destinations), with edge data when `g` has weights.
pub fn write<W: Write>(g: &Csr, out: W) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(CHUNK, out);
    let m = g.num_edges();
    let data_size: u64 = if g.weights.is_some() { 4 } else { 0 };
    for x in [1u64, data_size, u64::from(g.n), m] {
        out.write_all(&x.to_le_bytes())?;
    }
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK);
    let put = |out: &mut io::BufWriter<W>, bytes: &[u8], buf: &mut Vec<u8>| -> io::Result<()> {
        buf.extend_from_slice(bytes);
        if buf.len() >= CHUNK - 8 {
            out.write_all(buf)?;
            buf.clear();
        }
        Ok(())
    };
    for &o in &g.offsets[1..] {
        put(&mut out, &o.to_le_bytes(), &mut buf)?;
    }
    for &d in &g.dst {
        put(&mut out, &d.to_le_bytes(), &mut buf)?;
    }
    if m % 2 == 1 {
        put(&mut out, &[0u8; 4], &mut buf)?;
    }
    if let Some(w) = &g.weights {
        for &x in w {
            put(&mut out, &x.to_le_bytes(), &mut buf)?;
        }
    }
    out.write_all(&buf)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoProgress;

    fn sample(weights: bool) -> Csr {
        Csr {
            n: 3,
            offsets: vec![0, 2, 2, 3],
            dst: vec![1, 2, 0],
            weights: weights.then(|| vec![5, 6, 7]),
        }
    }

    #[test]
    fn round_trips_with_and_without_weights() {
        for w in [false, true] {
            let g = sample(w);
            let mut bytes = Vec::new();
            write(&g, &mut bytes).unwrap();
            let expected = 32 + 3 * 8 + 3 * 4 + 4 + if w { 12 } else { 0 };
            assert_eq!(bytes.len(), expected);
            let back = read(&bytes[..], "t.gr", Some(bytes.len() as u64), &NoProgress).unwrap();
            assert_eq!(back, g);
            // Without the length (as for gzip).
            assert_eq!(read(&bytes[..], "t.gr", None, &NoProgress).unwrap(), g);
        }
    }

    #[test]
    fn reads_version_2_and_unpadded_v1() {
        let mut b = Vec::new();
        for x in [2u64, 0, 2, 1, 1, 1] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&1u64.to_le_bytes());
        let g = read(&b[..], "t.gr", Some(b.len() as u64), &NoProgress).unwrap();
        assert_eq!(g.dst, vec![1]);
        let mut b = Vec::new();
        for x in [1u64, 0, 2, 1, 1, 1] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&1u32.to_le_bytes());
        let g = read(&b[..], "t.gr", Some(b.len() as u64), &NoProgress).unwrap();
        assert_eq!(g.dst, vec![1]);
    }

    /// What a reader gives, comparable: the graph or the error's message.
    fn outcome(r: Result<Csr>) -> std::result::Result<Csr, String> {
        r.map_err(|e| e.to_string())
    }

    #[test]
    fn the_mapped_reader_gives_the_streams_graph_and_errors() {
        // A larger graph than `sample`, so that the parallel paths split the arrays.
        let n = 500u32;
        let pairs: Vec<(u32, u32)> = (0..4_001u32).map(|i| (i % n, (i * 7919) % n)).collect();
        let mut g = Csr::from_pairs(n, &pairs);
        for weights in [false, true] {
            g.weights = weights.then(|| (0..g.num_edges() as u32).collect());
            let mut bytes = Vec::new();
            write(&g, &mut bytes).unwrap();
            assert_eq!(read_bytes(&bytes, "t.gr", &NoProgress).unwrap(), g);
            // Corruptions anywhere, and truncations: the same graph or the same message.
            let len = bytes.len();
            let places = (0..64).chain((64..len).step_by(97)).chain(len - 40..len);
            for at in places {
                for value in [0u8, 0x7f, 0xff] {
                    let mut bad = bytes.clone();
                    bad[at] = value;
                    let stream = read(&bad[..], "t.gr", Some(len as u64), &NoProgress);
                    let mapped = read_bytes(&bad, "t.gr", &NoProgress);
                    assert_eq!(outcome(mapped), outcome(stream), "byte {at} set to {value}");
                }
            }
            for cut in [0, 7, 31, 32, 40, len / 2, len - 4, len - 1] {
                let bad = &bytes[..cut];
                let stream = read(bad, "t.gr", Some(cut as u64), &NoProgress);
                let mapped = read_bytes(bad, "t.gr", &NoProgress);
                assert_eq!(outcome(mapped), outcome(stream), "cut at {cut}");
            }
        }
        // Version 2 (u64 destinations) and an unpadded v1 file without weights.
        let mut v2 = Vec::new();
        for x in [2u64, 0, 2, 1, 1, 1] {
            v2.extend_from_slice(&x.to_le_bytes());
        }
        let mut v1 = v2.clone();
        v1[0] = 1;
        v2.extend_from_slice(&1u64.to_le_bytes());
        v1.extend_from_slice(&1u32.to_le_bytes());
        for b in [v1, v2] {
            let stream = read(&b[..], "t.gr", Some(b.len() as u64), &NoProgress);
            assert_eq!(
                outcome(read_bytes(&b, "t.gr", &NoProgress)),
                outcome(stream)
            );
        }
        // A destination out of range is reported at the first one.
        let mut b = Vec::new();
        write(&sample(false), &mut b).unwrap();
        b[32 + 24 + 4..32 + 24 + 8].copy_from_slice(&9u32.to_le_bytes());
        b[32 + 24 + 8..32 + 24 + 12].copy_from_slice(&8u32.to_le_bytes());
        assert_eq!(
            read_bytes(&b, "t.gr", &NoProgress).unwrap_err().to_string(),
            "t.gr: byte 60: destination 9 of edge 1 is out of range: expected a node id below N = 3"
        );
    }

    #[test]
    fn truncation_is_reported_with_offsets() {
        let mut bytes = Vec::new();
        write(&sample(true), &mut bytes).unwrap();
        bytes.truncate(60);
        let e = read(&bytes[..], "t.gr", Some(60), &NoProgress).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.gr: byte 60: file truncated: a version 1 header with N = 3 nodes, E = 3 edges and edge data size 4 needs 84 bytes, but the file has 60"
        );
        let e = read(&bytes[..], "t.gr", None, &NoProgress).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.gr: byte 60: file truncated: expected 3 destinations (4 bytes each), found end of file"
        );
    }
}
