//! DIMACS shortest-path text (the 9th DIMACS challenge's `.gr`).
//!
//! ```text
//! c a comment
//! p sp 3 2        (N nodes, M arcs)
//! a 1 2 7         (arc 1 -> 2 of weight 7; ids are 1-based)
//! a 2 3 1
//! ```
//!
//! The `p sp` line must come before any arc, and exactly M arcs must follow. Weights are
//! non-negative integers that fit `u32`.

use std::io::BufRead;

use super::{Lines, Tokens, capped, node_count, one_based};
use crate::csr::EdgeList;
use crate::error::{GraphError, Result};

/// Reads a DIMACS shortest-path file into a weighted edge list.
pub fn read<R: BufRead>(reader: R, path: &str) -> Result<EdgeList> {
    let mut lines = Lines::new(reader, path);
    let mut header: Option<(u32, u64, u64)> = None; // (n, m, line)
    let mut list = EdgeList::new(0, true);
    while let Some((no, line)) = lines.next_line()? {
        let mut t = Tokens::new(line);
        let Some(kind) = t.next_token() else {
            continue;
        };
        match kind {
            b"c" => continue,
            b"p" => {
                if let Some((_, _, at)) = header {
                    return Err(GraphError::line(
                        path,
                        no,
                        format!(
                            "a second `p` line; the problem line was already given at line {at}"
                        ),
                    ));
                }
                let (n, m) = problem_line(&mut t).map_err(|m| GraphError::line(path, no, m))?;
                list = EdgeList::new(n, true);
                list.src.reserve(capped(m));
                list.dst.reserve(capped(m));
                if let Some(w) = &mut list.weights {
                    w.reserve(capped(m));
                }
                header = Some((n, m, no));
            }
            b"a" => {
                let Some((n, m, at)) = header else {
                    return Err(GraphError::line(
                        path,
                        no,
                        "expected the problem line `p sp N M` before the first arc",
                    ));
                };
                if list.len() as u64 == m {
                    return Err(GraphError::line(
                        path,
                        no,
                        format!("more arcs than the {m} declared by `p sp` at line {at}"),
                    ));
                }
                let (u, v, w) = arc(&mut t, n).map_err(|m| GraphError::line(path, no, m))?;
                list.push(u, v, w);
            }
            other => {
                return Err(GraphError::line(
                    path,
                    no,
                    format!(
                        "expected a line starting with `c`, `p` or `a`, found `{}`",
                        super::show(other)
                    ),
                ));
            }
        }
    }
    let Some((_, m, at)) = header else {
        return Err(GraphError::file(
            path,
            "expected a problem line `p sp N M`, found none (is this a DIMACS shortest-path file?)",
        ));
    };
    if (list.len() as u64) < m {
        return Err(GraphError::line(
            path,
            lines.line,
            format!(
                "file ends after {} arcs, but `p sp` at line {at} declared {m}",
                list.len()
            ),
        ));
    }
    Ok(list)
}

fn problem_line(t: &mut Tokens) -> std::result::Result<(u32, u64), String> {
    match t.next_token() {
        Some(b"sp") => {}
        Some(other) => {
            return Err(format!(
                "expected problem type `sp` (shortest path), found `{}`",
                super::show(other)
            ));
        }
        None => return Err("expected `p sp N M`, found end of line after `p`".into()),
    }
    let n = node_count(t.u64("the node count N")?)?;
    let m = t.u64("the arc count M")?;
    t.end("`p sp N M`")?;
    Ok((n, m))
}

fn arc(t: &mut Tokens, n: u32) -> std::result::Result<(u32, u32, u32), String> {
    let u = one_based(t.u64("the arc's tail")?, n, "tail")?;
    let v = one_based(t.u64("the arc's head")?, n, "head")?;
    let w = t.u64("the arc's weight")?;
    let w = u32::try_from(w).map_err(|_| format!("weight {w} does not fit u32"))?;
    t.end("`a u v w`")?;
    Ok((u, v, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_arcs_with_weights() {
        let l = read(&b"c hi\np sp 3 2\na 1 2 7\n\na 3 1 0\n"[..], "t.gr").unwrap();
        assert_eq!(l.n, 3);
        assert_eq!(l.src, vec![0, 2]);
        assert_eq!(l.dst, vec![1, 0]);
        assert_eq!(l.weights, Some(vec![7, 0]));
    }

    #[test]
    fn rejects_out_of_range_and_wrong_count() {
        let e = read(&b"p sp 2 1\na 1 3 1\n"[..], "t.gr").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.gr:2: head 3 is out of range: ids are 1-based, expected 1..=2"
        );
        let e = read(&b"p sp 2 2\na 1 2 1\n"[..], "t.gr").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.gr:2: file ends after 1 arcs, but `p sp` at line 1 declared 2"
        );
    }
}
