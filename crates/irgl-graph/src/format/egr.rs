//! The ECL codes' binary graphs (`.egr`), written for the ECL peers in benchmarks (ECL-CC,
//! ECL-MIS, ECL-MST, ECL-GC read nothing else).
//!
//! Layout, little-endian `i32` throughout: the number of nodes, the number of arcs, the
//! `n + 1` offsets, the destinations, then (only where the graph has them) one weight per arc.
//! The ECL codes expect an undirected graph stored with both directions of every edge; the
//! writer stores the lists as they are, and the caller gives it a symmetric graph. ECL's
//! counts, offsets, ids and weights are `i32`, and it refuses a graph without nodes: such
//! graphs are refused here.

use std::io::{self, Write};

use crate::csr::Csr;
use crate::error::{GraphError, Result};

/// Checks that `g` fits ECL's graphs (see the module header).
pub fn check_writable(g: &Csr) -> Result<()> {
    g.validate()
        .map_err(|m| GraphError::Internal(format!("invalid CSR: {m}")))?;
    let max = i32::MAX as u64;
    if g.n == 0 {
        return Err(GraphError::Invalid(
            "the graph has no nodes; ECL's graphs hold at least one".into(),
        ));
    }
    if u64::from(g.n) > max || g.num_edges() > max {
        return Err(GraphError::Invalid(format!(
            "the graph has {} nodes and {} arcs; ECL's graphs hold fewer than 2^31 of each",
            g.n,
            g.num_edges()
        )));
    }
    if let Some(w) = &g.weights
        && let Some(e) = w.iter().position(|&x| u64::from(x) > max)
    {
        return Err(GraphError::Invalid(format!(
            "edge {e} has weight {}; ECL's weights are below 2^31",
            w[e]
        )));
    }
    Ok(())
}

/// Writes `g` as an ECL graph, with its weights where it has them. Precondition:
/// [`check_writable`].
pub fn write<W: Write>(g: &Csr, out: W) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 22, out);
    let word = |out: &mut io::BufWriter<W>, x: u64| out.write_all(&(x as i32).to_le_bytes());
    word(&mut out, u64::from(g.n))?;
    word(&mut out, g.num_edges())?;
    for &o in &g.offsets {
        word(&mut out, o)?;
    }
    for &v in &g.dst {
        word(&mut out, u64::from(v))?;
    }
    for &w in g.weights.iter().flatten() {
        word(&mut out, u64::from(w))?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(bytes: &[u8]) -> Vec<i32> {
        bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn lists_and_weights_are_written_as_ecl_reads_them() {
        let mut g = Csr {
            n: 3,
            offsets: vec![0, 2, 3, 4],
            dst: vec![1, 2, 0, 0],
            weights: Some(vec![5, 6, 5, 6]),
        };
        let mut out = Vec::new();
        check_writable(&g).unwrap();
        write(&g, &mut out).unwrap();
        assert_eq!(words(&out), [3, 4, 0, 2, 3, 4, 1, 2, 0, 0, 5, 6, 5, 6]);
        g.weights = None;
        out.clear();
        write(&g, &mut out).unwrap();
        assert_eq!(words(&out), [3, 4, 0, 2, 3, 4, 1, 2, 0, 0]);
    }

    #[test]
    fn what_ecl_cannot_hold_is_refused() {
        let empty = Csr {
            n: 0,
            offsets: vec![0],
            dst: vec![],
            weights: None,
        };
        assert!(
            check_writable(&empty)
                .unwrap_err()
                .to_string()
                .contains("no nodes")
        );
        let heavy = Csr {
            n: 2,
            offsets: vec![0, 1, 1],
            dst: vec![1],
            weights: Some(vec![1 << 31]),
        };
        let e = check_writable(&heavy).unwrap_err().to_string();
        assert!(e.contains("edge 0 has weight 2147483648"), "{e}");
    }
}
