//! The GAP benchmark suite's serialized graphs, written for GAP as a peer in benchmarks
//! (`.sg`, and `.wsg` with weights): GAP reads them without building the graph from text.
//!
//! Layout, little-endian: a byte `directed` (0 or 1), the number of arcs and the number of
//! nodes (i64 each), the `n + 1` offsets (i64), then each node's list (i32 destinations;
//! with weights, `(i32 destination, i32 weight)` pairs), sorted by destination as GAP's own
//! builder leaves it. A symmetric graph is written undirected (its lists serve GAP as both
//! out- and in-lists); any other graph as directed, followed by its reverse in the same
//! layout (the in-lists, by source). GAP's ids and weights are `i32`: node counts and
//! weights from 2^31 up are refused.

use std::io::{self, Write};

use crate::csr::Csr;
use crate::error::{GraphError, Result};

/// Checks that `g` fits GAP's serialized graphs (see the module header); `weights`: whether
/// they are written (`.wsg`).
pub fn check_writable(g: &Csr, weights: bool) -> Result<()> {
    g.validate()
        .map_err(|m| GraphError::Internal(format!("invalid CSR: {m}")))?;
    if g.n > i32::MAX as u32 {
        return Err(GraphError::Invalid(format!(
            "the graph has {} nodes; GAP's serialized graphs hold node ids below 2^31",
            g.n
        )));
    }
    match (&g.weights, weights) {
        (None, true) => Err(GraphError::Invalid(
            "a .wsg file holds weights and the graph has none (add them with --weights SEED, or name the output .sg)".into(),
        )),
        (Some(w), true) => match w.iter().position(|&x| x > i32::MAX as u32) {
            Some(e) => Err(GraphError::Invalid(format!(
                "edge {e} has weight {}; GAP's weights are below 2^31",
                w[e]
            ))),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Writes `g` as a GAP serialized graph, with its weights when `weights` (`.wsg`), else
/// without them (`.sg`). Precondition: [`check_writable`].
pub fn write<W: Write>(g: &Csr, weights: bool, out: W) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 22, out);
    let directed = !g.is_symmetric();
    let weights = if weights { g.weights.as_deref() } else { None };
    out.write_all(&[u8::from(directed)])?;
    out.write_all(&(g.dst.len() as u64).to_le_bytes())?;
    out.write_all(&u64::from(g.n).to_le_bytes())?;
    write_lists(&mut out, &g.offsets, &g.dst, weights)?;
    if directed {
        let r = g.reverse();
        let rw = if weights.is_some() {
            r.weights.as_deref()
        } else {
            None
        };
        write_lists(&mut out, &r.offsets, &r.src, rw)?;
    }
    out.flush()
}

/// The offsets, then each list sorted by node (a list already sorted as it is).
fn write_lists<W: Write>(
    out: &mut W,
    offsets: &[u64],
    nodes: &[u32],
    weights: Option<&[u32]>,
) -> io::Result<()> {
    for &o in offsets {
        out.write_all(&o.to_le_bytes())?;
    }
    let mut list: Vec<(u32, u32)> = Vec::new();
    for u in 0..offsets.len().saturating_sub(1) {
        let (lo, hi) = (offsets[u] as usize, offsets[u + 1] as usize);
        list.clear();
        list.extend((lo..hi).map(|e| (nodes[e], weights.map_or(0, |w| w[e]))));
        if !nodes[lo..hi].is_sorted() {
            list.sort_unstable();
        }
        for &(v, w) in &list {
            out.write_all(&v.to_le_bytes())?;
            if weights.is_some() {
                out.write_all(&w.to_le_bytes())?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file's words after the header: (directed, arcs, nodes, the rest as u32 words).
    fn parse(bytes: &[u8]) -> (u8, u64, u64, Vec<u32>) {
        let word = |i: usize| u64::from_le_bytes(bytes[1 + 8 * i..9 + 8 * i].try_into().unwrap());
        let rest = bytes[17..]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        (bytes[0], word(0), word(1), rest)
    }

    /// Offsets as pairs of u32 words (little-endian u64 values below 2^32).
    fn offsets(o: &[u64]) -> Vec<u32> {
        o.iter().flat_map(|&x| [x as u32, 0]).collect()
    }

    #[test]
    fn a_symmetric_graph_is_written_undirected_with_sorted_lists() {
        // 0 - 1, 0 - 2, 1 - 2; node 0's list out of order, with weights.
        let g = Csr {
            n: 3,
            offsets: vec![0, 2, 4, 6],
            dst: vec![2, 1, 0, 2, 0, 1],
            weights: Some(vec![5, 4, 4, 6, 5, 6]),
        };
        let mut bytes = Vec::new();
        write(&g, true, &mut bytes).unwrap();
        let (directed, arcs, n, rest) = parse(&bytes);
        assert_eq!((directed, arcs, n), (0, 6, 3));
        let mut want = offsets(&[0, 2, 4, 6]);
        want.extend([1, 4, 2, 5, 0, 4, 2, 6, 0, 5, 1, 6]);
        assert_eq!(rest, want);
        // Without the weights.
        let mut bytes = Vec::new();
        write(&g, false, &mut bytes).unwrap();
        let mut want = offsets(&[0, 2, 4, 6]);
        want.extend([1, 2, 0, 2, 0, 1]);
        assert_eq!(parse(&bytes).3, want);
    }

    #[test]
    fn a_directed_graph_is_followed_by_its_reverse() {
        // 0 -> 1, 0 -> 2, 2 -> 1.
        let g = Csr {
            n: 3,
            offsets: vec![0, 2, 2, 3],
            dst: vec![1, 2, 1],
            weights: None,
        };
        let mut bytes = Vec::new();
        write(&g, false, &mut bytes).unwrap();
        let (directed, arcs, n, rest) = parse(&bytes);
        assert_eq!((directed, arcs, n), (1, 3, 3));
        let mut want = offsets(&[0, 2, 2, 3]);
        want.extend([1, 2, 1]);
        want.extend(offsets(&[0, 0, 2, 3]));
        want.extend([0, 2, 0]);
        assert_eq!(rest, want);
    }

    #[test]
    fn what_gap_cannot_hold_is_refused() {
        let mut g = Csr {
            n: 2,
            offsets: vec![0, 1, 1],
            dst: vec![1],
            weights: None,
        };
        assert!(check_writable(&g, false).is_ok());
        let e = check_writable(&g, true).unwrap_err().to_string();
        assert!(e.contains("has none"), "{e}");
        g.weights = Some(vec![1 << 31]);
        let e = check_writable(&g, true).unwrap_err().to_string();
        assert!(e.contains("edge 0 has weight 2147483648"), "{e}");
        assert!(check_writable(&g, false).is_ok());
    }
}
