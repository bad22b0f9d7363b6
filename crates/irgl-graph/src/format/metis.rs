//! METIS graph files (the format of METIS, ParMETIS, KaHIP and the DIMACS 10th challenge).
//!
//! ```text
//! % comment
//! 3 2          (n nodes, m undirected edges [, fmt [, ncon]])
//! 2 3          (neighbours of node 1, 1-based)
//! 1            (neighbours of node 2)
//! 1            (neighbours of node 3; an empty line is a node without neighbours)
//! ```
//!
//! `fmt` is up to three digits `abc`: `a` = node sizes present, `b` = `ncon` node weights
//! present, `c` = edge weights present (then each neighbour is followed by its weight). Node
//! sizes and node weights are skipped. Every undirected edge is listed from both ends, so the
//! file must hold exactly `2 m` neighbour entries; the graph read has those `2 m` arcs.

use std::io::BufRead;

use super::{Lines, Tokens, capped, node_count, one_based, show};
use crate::csr::EdgeList;
use crate::error::{GraphError, Result};

/// Reads a METIS graph file.
pub fn read<R: BufRead>(reader: R, path: &str) -> Result<EdgeList> {
    let mut lines = Lines::with_limit(reader, path, super::MAX_METIS_LINE);
    let (n, m, sizes, ncon, edge_weights, header_line) = loop {
        let Some((no, line)) = lines.next_line()? else {
            return Err(GraphError::file(
                path,
                "expected a header line `n m [fmt [ncon]]`, found end of file",
            ));
        };
        if line.first() == Some(&b'%') || Tokens::new(line).is_done() {
            continue;
        }
        let mut t = Tokens::new(line);
        let h = (|| {
            let n = node_count(t.u64("the node count n")?)?;
            let m = t.u64("the edge count m")?;
            let fmt = match t.next_token() {
                None => 0,
                Some(f) if f.len() <= 3 && f.iter().all(|b| matches!(b, b'0' | b'1')) => {
                    super::parse_u64(f).unwrap_or(0)
                }
                Some(f) => {
                    return Err(format!(
                        "expected fmt, up to three digits 0 or 1 (sizes, node weights, edge weights), found `{}`",
                        show(f)
                    ));
                }
            };
            let ncon = if t.is_done() { 1 } else { t.u64("ncon")? };
            t.end("`n m [fmt [ncon]]`")?;
            Ok((n, m, fmt / 100 == 1, if (fmt / 10) % 10 == 1 { ncon } else { 0 }, fmt % 10 == 1))
        })()
        .map_err(|msg| GraphError::line(path, no, msg))?;
        break (h.0, h.1, h.2, h.3, h.4, no);
    };
    let arcs = m.saturating_mul(2);
    let mut list = EdgeList::new(n, edge_weights);
    list.src.reserve(capped(arcs));
    list.dst.reserve(capped(arcs));
    let mut node = 0u32;
    while let Some((no, line)) = lines.next_line()? {
        if line.first() == Some(&b'%') {
            continue;
        }
        let mut t = Tokens::new(line);
        if node == n {
            if t.is_done() {
                continue;
            }
            return Err(GraphError::line(
                path,
                no,
                format!(
                    "more node lines than the {n} declared by the header at line {header_line}"
                ),
            ));
        }
        let res = (|| {
            if sizes {
                t.u64("the node size")?;
            }
            for _ in 0..ncon {
                t.u64("a node weight")?;
            }
            while let Some(tok) = t.next_token() {
                let id = super::parse_u64(tok).ok_or_else(|| {
                    format!(
                        "expected a neighbour id (an unsigned integer), found `{}`",
                        show(tok)
                    )
                })?;
                let v = one_based(id, n, "neighbour")?;
                let w = if edge_weights {
                    let w = t.u64("the edge weight after the neighbour")?;
                    u32::try_from(w).map_err(|_| format!("weight {w} does not fit u32"))?
                } else {
                    0
                };
                if list.len() as u64 == arcs {
                    return Err(format!(
                        "more than 2 m = {arcs} neighbour entries (the header at line {header_line} says m = {m} edges, each listed from both ends)"
                    ));
                }
                list.push(node, v, w);
            }
            Ok(())
        })();
        res.map_err(|msg| GraphError::line(path, no, msg))?;
        node += 1;
    }
    if node < n {
        return Err(GraphError::line(
            path,
            lines.line,
            format!(
                "file ends after {node} node lines, but the header at line {header_line} declared {n}"
            ),
        ));
    }
    if (list.len() as u64) != arcs {
        return Err(GraphError::line(
            path,
            lines.line,
            format!(
                "found {} neighbour entries, but the header at line {header_line} says m = {m} edges, so expected 2 m = {arcs}",
                list.len()
            ),
        ));
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_and_weighted() {
        let l = read(&b"% c\n3 2\n2 3\n1\n1\n"[..], "t.graph").unwrap();
        assert_eq!(
            (l.n, l.src.clone(), l.dst.clone()),
            (3, vec![0, 0, 1, 2], vec![1, 2, 0, 0])
        );
        let l = read(&b"3 1 011 2\n5 6 2 9\n9 9 1 9\n1 1\n"[..], "t.graph").unwrap();
        assert_eq!(l.dst, vec![1, 0]);
        assert_eq!(l.weights, Some(vec![9, 9]));
    }

    #[test]
    fn blank_line_is_an_isolated_node() {
        let l = read(&b"3 1\n3\n\n1\n"[..], "t.graph").unwrap();
        assert_eq!(l.src, vec![0, 2]);
    }

    #[test]
    fn wrong_edge_count_is_reported() {
        let e = read(&b"2 2\n2\n1\n"[..], "t.graph").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.graph:3: found 2 neighbour entries, but the header at line 1 says m = 2 edges, so expected 2 m = 4"
        );
    }
}
