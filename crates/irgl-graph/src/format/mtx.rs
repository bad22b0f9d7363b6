//! Matrix Market coordinate files (SuiteSparse).
//!
//! ```text
//! %%MatrixMarket matrix coordinate pattern symmetric
//! % comment
//! 3 3 2           (rows cols nnz)
//! 2 1             (1-based row, column [, value])
//! 3 2
//! ```
//!
//! Entry `(i, j)` is the edge `i -> j`. A `symmetric` file stores one triangle; the reader emits
//! both directions of each off-diagonal entry (a diagonal entry once). Fields: `pattern` (no
//! weights), `integer` (must be non-negative and fit `u32`), `real` (rounded to the nearest
//! integer, ties away from zero; negative, non-finite or too large values are errors, and the
//! reader notes how many values were not integers). The matrix must be square. `array`,
//! `complex`, `skew-symmetric` and `hermitian` are rejected.

use std::io::BufRead;

use super::{Lines, Tokens, capped, node_count, one_based, show};
use crate::csr::EdgeList;
use crate::error::{GraphError, Result};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

/// Reads a Matrix Market coordinate file. Notes (such as rounding of real values) are appended
/// to `notes`.
pub fn read<R: BufRead>(reader: R, path: &str, notes: &mut Vec<String>) -> Result<EdgeList> {
    let mut lines = Lines::new(reader, path);
    let Some((no, banner)) = lines.next_line()? else {
        return Err(GraphError::line(
            path,
            1,
            "expected the banner `%%MatrixMarket matrix coordinate <field> <symmetry>`, found an empty file",
        ));
    };
    let (field, symmetric) = parse_banner(banner).map_err(|m| GraphError::line(path, no, m))?;
    // Size line.
    let (n, nnz, size_line) = loop {
        let Some((no, line)) = lines.next_line()? else {
            return Err(GraphError::line(
                path,
                lines.line,
                "expected the size line `rows cols nnz`, found end of file",
            ));
        };
        if line.first() == Some(&b'%') || Tokens::new(line).is_done() {
            continue;
        }
        let mut t = Tokens::new(line);
        let parsed = (|| {
            let rows = t.u64("the row count")?;
            let cols = t.u64("the column count")?;
            let nnz = t.u64("the entry count nnz")?;
            t.end("`rows cols nnz`")?;
            if rows != cols {
                return Err(format!(
                    "expected a square matrix (a graph's adjacency matrix), found {rows} x {cols}"
                ));
            }
            Ok((node_count(rows)?, nnz))
        })()
        .map_err(|m| GraphError::line(path, no, m))?;
        break (parsed.0, parsed.1, no);
    };
    let mut list = EdgeList::new(n, field != Field::Pattern);
    let reserve = capped(if symmetric {
        nnz.saturating_mul(2)
    } else {
        nnz
    });
    list.src.reserve(reserve);
    list.dst.reserve(reserve);
    if let Some(w) = &mut list.weights {
        w.reserve(reserve);
    }
    let mut entries = 0u64;
    let mut rounded = 0u64;
    while let Some((no, line)) = lines.next_line()? {
        if line.first() == Some(&b'%') {
            continue;
        }
        let mut t = Tokens::new(line);
        if t.is_done() {
            continue;
        }
        if entries == nnz {
            return Err(GraphError::line(
                path,
                no,
                format!(
                    "more entries than the {nnz} declared by the size line at line {size_line}"
                ),
            ));
        }
        let entry = (|| {
            let i = one_based(t.u64("the row index")?, n, "row index")?;
            let j = one_based(t.u64("the column index")?, n, "column index")?;
            let w = match field {
                Field::Pattern => 0,
                Field::Integer => {
                    let tok = t.next_token();
                    match tok.and_then(super::parse_u64) {
                        Some(w) => u32::try_from(w)
                            .map_err(|_| format!("value {w} does not fit a u32 weight"))?,
                        None => {
                            return Err(match tok {
                                None => "expected the entry's integer value, found end of line"
                                    .to_string(),
                                Some(x) => format!(
                                    "expected the entry's value, a non-negative integer (weights are u32), found `{}`",
                                    show(x)
                                ),
                            });
                        }
                    }
                }
                Field::Real => {
                    let x = t.f64("the entry's real value")?;
                    if !x.is_finite() || x < 0.0 || x.round() > f64::from(u32::MAX) {
                        return Err(format!(
                            "value {x} cannot be a weight: expected a finite number in [0, 4294967295]"
                        ));
                    }
                    if x.fract() != 0.0 {
                        rounded += 1;
                    }
                    x.round() as u32
                }
            };
            t.end("the entry")?;
            Ok((i, j, w))
        })()
        .map_err(|m| GraphError::line(path, no, m))?;
        let (i, j, w) = entry;
        entries += 1;
        list.push(i, j, w);
        if symmetric && i != j {
            list.push(j, i, w);
        }
    }
    if entries < nnz {
        return Err(GraphError::line(
            path,
            lines.line,
            format!(
                "file ends after {entries} entries, but the size line at line {size_line} declared {nnz}"
            ),
        ));
    }
    if rounded > 0 {
        notes.push(format!(
            "{path}: {rounded} real values were not integers and were rounded to the nearest integer weight"
        ));
    }
    Ok(list)
}

fn parse_banner(line: &[u8]) -> std::result::Result<(Field, bool), String> {
    let mut t = Tokens::new(line);
    let expected = "expected the banner `%%MatrixMarket matrix coordinate <field> <symmetry>`";
    if t.next_token()
        .map(|b| b.eq_ignore_ascii_case(b"%%MatrixMarket"))
        != Some(true)
    {
        return Err(format!("{expected}, found `{}`", show(line)));
    }
    let lower = |x: Option<&[u8]>| x.map(|b| b.to_ascii_lowercase());
    if lower(t.next_token()).as_deref() != Some(b"matrix") {
        return Err(format!("{expected}: only `matrix` objects are graphs"));
    }
    match lower(t.next_token()).as_deref() {
        Some(b"coordinate") => {}
        Some(b"array") => {
            return Err("dense `array` matrices are not supported, expected `coordinate`".into());
        }
        _ => return Err(format!("{expected}: missing `coordinate`")),
    }
    let field = match lower(t.next_token()).as_deref() {
        Some(b"pattern") => Field::Pattern,
        Some(b"integer") => Field::Integer,
        Some(b"real" | b"double") => Field::Real,
        Some(other) => {
            return Err(format!(
                "field `{}` is not supported, expected `pattern`, `integer` or `real`",
                show(other)
            ));
        }
        None => return Err(format!("{expected}: missing the field")),
    };
    let symmetric = match lower(t.next_token()).as_deref() {
        Some(b"general") => false,
        Some(b"symmetric") => true,
        Some(other) => {
            return Err(format!(
                "symmetry `{}` is not supported, expected `general` or `symmetric`",
                show(other)
            ));
        }
        None => return Err(format!("{expected}: missing the symmetry")),
    };
    Ok((field, symmetric))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_pattern_emits_both_directions() {
        let src =
            b"%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 3\n2 1\n3 2\n3 3\n";
        let l = read(&src[..], "t.mtx", &mut Vec::new()).unwrap();
        assert_eq!(l.n, 3);
        assert_eq!(l.src, vec![1, 0, 2, 1, 2]);
        assert_eq!(l.dst, vec![0, 1, 1, 2, 2]);
        assert_eq!(l.weights, None);
    }

    #[test]
    fn real_values_are_rounded_with_a_note() {
        let src = b"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0.6\n2 1 2\n";
        let mut notes = Vec::new();
        let l = read(&src[..], "t.mtx", &mut notes).unwrap();
        assert_eq!(l.weights, Some(vec![1, 2]));
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn negative_integer_is_an_error() {
        let src = b"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -3\n";
        let e = read(&src[..], "t.mtx", &mut Vec::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.mtx:3: expected the entry's value, a non-negative integer (weights are u32), found `-3`"
        );
    }
}
