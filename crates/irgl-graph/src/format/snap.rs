//! SNAP edge lists: `#` (or `%`) comment lines, then one edge per line, `src dst` separated by
//! tabs or spaces, with an optional third column of `u32` weights (the first edge line decides
//! whether the file is weighted; every line must then agree).
//!
//! Ids are arbitrary non-negative integers and need not be contiguous. By default
//! ([`SnapIds::Remap`]) they are renumbered densely **in increasing order of the original id**:
//! the smallest id becomes node 0, and a node exists only if it appears in some edge. With
//! [`SnapIds::Keep`] ids are used as they are and the graph has `max id + 1` nodes.

use std::io::{BufRead, Write};

use super::{Lines, Tokens, node_count};
use crate::csr::{Csr, EdgeList};
use crate::error::{GraphError, Result};

/// How SNAP ids become node ids.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SnapIds {
    /// Renumber densely in increasing order of the original id.
    #[default]
    Remap,
    /// Keep ids; nodes are `0..=max id`.
    Keep,
}

/// Raw ids as read, `src, dst` interleaved; narrow while every id fits `u32`.
enum Raw {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Raw {
    fn push(&mut self, x: u64) {
        match self {
            Raw::Narrow(v) => match u32::try_from(x) {
                Ok(x) => v.push(x),
                Err(_) => {
                    let mut w: Vec<u64> = Vec::with_capacity(v.capacity().max(v.len() + 2));
                    w.extend(v.iter().map(|&x| u64::from(x)));
                    w.push(x);
                    *self = Raw::Wide(w);
                }
            },
            Raw::Wide(v) => v.push(x),
        }
    }
}

/// Reads a SNAP edge list.
pub fn read<R: BufRead>(
    reader: R,
    path: &str,
    ids: SnapIds,
    notes: &mut Vec<String>,
) -> Result<EdgeList> {
    let mut lines = Lines::new(reader, path);
    let mut raw = Raw::Narrow(Vec::new());
    let mut weights: Option<Vec<u32>> = None;
    let mut first_edge_line = 0u64;
    let mut max_id = 0u64;
    let mut count = 0u64;
    while let Some((no, line)) = lines.next_line()? {
        if matches!(line.first(), Some(b'#' | b'%')) {
            continue;
        }
        let mut t = Tokens::new(line);
        if t.is_done() {
            continue;
        }
        let parsed = (|| {
            let u = t.u64("the source id")?;
            let v = t.u64("the destination id")?;
            Ok::<_, String>((u, v))
        })()
        .map_err(|m| GraphError::line(path, no, m))?;
        if first_edge_line == 0 {
            first_edge_line = no;
            if !t.is_done() {
                weights = Some(Vec::new());
            }
        }
        if let Some(ws) = &mut weights {
            let w = t
                .u64("a weight in the third column")
                .and_then(|w| {
                    u32::try_from(w).map_err(|_| format!("weight {w} does not fit u32"))
                })
                .map_err(|m| {
                    GraphError::line(path, no, format!(
                        "{m} (line {first_edge_line} has three columns, so every edge line must)"
                    ))
                })?;
            ws.push(w);
        }
        let after = if weights.is_some() {
            "`src dst weight`"
        } else {
            "`src dst` (a file is weighted only if its first edge line has three columns)"
        };
        t.end(after).map_err(|m| GraphError::line(path, no, m))?;
        raw.push(parsed.0);
        raw.push(parsed.1);
        max_id = max_id.max(parsed.0).max(parsed.1);
        count += 1;
    }
    let (n, src, dst) = match ids {
        SnapIds::Keep => {
            let n = if count == 0 {
                0
            } else {
                node_count(max_id + 1).map_err(|m| GraphError::file(path, m))?
            };
            let Raw::Narrow(pairs) = raw else {
                return Err(GraphError::file(
                    path,
                    format!("id {max_id} does not fit u32; remap ids instead of keeping them"),
                ));
            };
            let (src, dst) = split(pairs.into_iter());
            (n, src, dst)
        }
        SnapIds::Remap => {
            let (n, mapped) = remap(raw, max_id, count).map_err(|m| GraphError::file(path, m))?;
            if n as u64 != max_id + 1 && count > 0 {
                notes.push(format!(
                    "{path}: ids renumbered densely in increasing order: {n} distinct ids, largest was {max_id}"
                ));
            }
            let (src, dst) = split(mapped.into_iter());
            (n, src, dst)
        }
    };
    Ok(EdgeList {
        n,
        src,
        dst,
        weights,
    })
}

fn split(pairs: impl ExactSizeIterator<Item = u32>) -> (Vec<u32>, Vec<u32>) {
    let m = pairs.len() / 2;
    let mut src = Vec::with_capacity(m);
    let mut dst = Vec::with_capacity(m);
    let mut it = pairs;
    while let (Some(u), Some(v)) = (it.next(), it.next()) {
        src.push(u);
        dst.push(v);
    }
    (src, dst)
}

/// Renumbers `ids` densely in increasing order by sorting the distinct ones.
fn remap_sorted<T: Ord + Copy>(ids: &[T]) -> std::result::Result<(u32, Vec<u32>), String> {
    let mut distinct = ids.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let n = node_count(distinct.len() as u64)?;
    let mapped = ids
        .iter()
        .map(|x| distinct.binary_search(x).map_or(0, |i| i as u32))
        .collect();
    Ok((n, mapped))
}

/// Renumbers ids densely in increasing order. Uses a direct table when the largest id is not
/// much larger than the number of edges, sorting otherwise.
fn remap(raw: Raw, max_id: u64, count: u64) -> std::result::Result<(u32, Vec<u32>), String> {
    match raw {
        Raw::Narrow(mut ids)
            if max_id < u64::from(u32::MAX) && max_id <= (4 * count).max(1 << 20) =>
        {
            let mut table = vec![u32::MAX; max_id as usize + 1];
            for &x in &ids {
                table[x as usize] = 0;
            }
            let mut next = 0u32;
            for slot in table.iter_mut() {
                if *slot == 0 {
                    *slot = next;
                    next += 1;
                }
            }
            for x in ids.iter_mut() {
                *x = table[*x as usize];
            }
            Ok((next, ids))
        }
        Raw::Narrow(ids) => remap_sorted(&ids),
        Raw::Wide(ids) => remap_sorted(&ids),
    }
}

/// Writes `g` as a SNAP edge list (tab-separated, 0-based, weights as a third column).
pub fn write<W: Write>(g: &Csr, mut out: W) -> std::io::Result<()> {
    writeln!(
        out,
        "# irglc edge list: {} nodes, {} edges",
        g.n,
        g.num_edges()
    )?;
    let mut line = Vec::with_capacity(40);
    for u in 0..g.n {
        let ws = g.weights_of(u);
        for (i, &v) in g.neighbours(u).iter().enumerate() {
            line.clear();
            push_u64(&mut line, u64::from(u));
            line.push(b'\t');
            push_u64(&mut line, u64::from(v));
            if let Some(ws) = ws {
                line.push(b'\t');
                push_u64(&mut line, u64::from(ws[i]));
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
    }
    out.flush()
}

/// Appends the decimal digits of `x`.
pub(crate) fn push_u64(buf: &mut Vec<u8>, mut x: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaps_sorted_and_dense() {
        let src = b"# c\r\n30\t1412\r\n30\t7\r\n7\t30\r\n";
        let mut notes = Vec::new();
        let l = read(&src[..], "t.txt", SnapIds::Remap, &mut notes).unwrap();
        assert_eq!(l.n, 3);
        assert_eq!(l.src, vec![1, 1, 0]);
        assert_eq!(l.dst, vec![2, 0, 1]);
        assert_eq!(notes.len(), 1);
        let k = read(&src[..], "t.txt", SnapIds::Keep, &mut notes).unwrap();
        assert_eq!(k.n, 1413);
    }

    #[test]
    fn sparse_huge_ids_use_the_sorting_path() {
        let src = b"99999999999 5\n5 4000000000\n";
        let l = read(&src[..], "t.txt", SnapIds::Remap, &mut Vec::new()).unwrap();
        assert_eq!(l.n, 3);
        assert_eq!(l.src, vec![2, 0]);
        assert_eq!(l.dst, vec![0, 1]);
    }

    #[test]
    fn weighted_lines_must_agree() {
        let e = read(
            &b"0 1 5\n1 2\n"[..],
            "t.txt",
            SnapIds::Remap,
            &mut Vec::new(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.txt:2: expected a weight in the third column, found end of line (line 1 has three columns, so every edge line must)"
        );
    }

    #[test]
    fn writer_round_trips() {
        let src = b"0\t1\t3\n1\t0\t4\n2\t2\t5\n";
        let l = read(&src[..], "t.txt", SnapIds::Keep, &mut Vec::new()).unwrap();
        let g = Csr::from_edge_list(l);
        let mut out = Vec::new();
        write(&g, &mut out).unwrap();
        let back =
            Csr::from_edge_list(read(&out[..], "o", SnapIds::Keep, &mut Vec::new()).unwrap());
        assert_eq!(g, back);
    }
}
