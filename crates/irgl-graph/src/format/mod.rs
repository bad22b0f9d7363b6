//! Readers and writers for the graph file formats irglc accepts.
//!
//! Text readers stream line by line (no whole-file buffering), count lines for error messages,
//! accept `\r\n` line ends, and produce an [`EdgeList`](crate::csr::EdgeList) or a
//! [`Csr`](crate::Csr). Binary `.gr` is validated against its header and read from a mapped
//! file on every core, or in chunks from a stream (gzip).

pub mod dimacs;
pub mod egr;
pub mod gr;
pub mod metis;
pub mod mtx;
pub mod sg;
pub mod snap;

use std::io::{self, BufRead, Read};

use crate::error::{GraphError, Result};

/// The longest line a text reader accepts, line end included: far more than any line of an edge
/// list, a Matrix Market or DIMACS file or an output file needs (a few numbers), so that a
/// file that is not text at all (gigabytes without a newline) is an error after 1 MiB instead of
/// a buffer as large as the file.
pub const MAX_LINE: u64 = 1 << 20;

/// The longest line of a METIS file, whose lines list all the neighbours of one node: 256 MiB,
/// a node of about 25 million neighbours.
pub const MAX_METIS_LINE: u64 = 256 << 20;

/// Reads a text file line by line, keeping the 1-based number of the current line. A line
/// longer than the limit is an error; what is buffered never exceeds it.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// Number of the line last returned (0 before the first).
    pub line: u64,
    /// Length of the last line without its line end.
    end: usize,
    /// The longest line accepted, in bytes with its line end.
    limit: u64,
    pub path: String,
}

impl<R: BufRead> Lines<R> {
    /// Lines of at most [`MAX_LINE`] bytes.
    pub fn new(reader: R, path: &str) -> Self {
        Self::with_limit(reader, path, MAX_LINE)
    }

    pub fn with_limit(reader: R, path: &str, limit: u64) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(256),
            line: 0,
            end: 0,
            limit,
            path: path.to_string(),
        }
    }

    /// The next line's number and content without its line end, or `None` at end of file.
    pub fn next_line(&mut self) -> Result<Option<(u64, &[u8])>> {
        self.buf.clear();
        // At most one byte past the limit, so that a longer line is seen without reading it.
        let read = (&mut self.reader)
            .take(self.limit + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| {
                GraphError::line(
                    &self.path,
                    self.line + 1,
                    format!("read error: {e} (is the file truncated or corrupt?)"),
                )
            })?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.buf.len() as u64 > self.limit {
            return Err(GraphError::line(
                &self.path,
                self.line,
                format!(
                    "line {} longer than {} bytes (is this a text graph file?)",
                    self.line, self.limit
                ),
            ));
        }
        let mut end = self.buf.len();
        while end > 0 && matches!(self.buf[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        self.end = end;
        Ok(Some((self.line, &self.buf[..end])))
    }

    /// The line last returned by [`Lines::next_line`].
    pub fn current(&self) -> &[u8] {
        &self.buf[..self.end]
    }
}

/// Whitespace-separated tokens of one line, with parsing helpers whose errors say what was
/// expected. Errors are plain messages; the caller adds file and line.
pub(crate) struct Tokens<'a> {
    rest: &'a [u8],
}

impl<'a> Tokens<'a> {
    pub fn new(line: &'a [u8]) -> Self {
        Tokens { rest: line }
    }

    /// The next token, if any.
    pub fn next_token(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|b| !b.is_ascii_whitespace())?;
        let rest = &self.rest[start..];
        let len = rest
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        self.rest = &rest[len..];
        Some(&rest[..len])
    }

    /// Whether only whitespace remains.
    pub fn is_done(&self) -> bool {
        self.rest.iter().all(|b| b.is_ascii_whitespace())
    }

    /// The next token as an unsigned integer; `what` names it in the error.
    pub fn u64(&mut self, what: &str) -> std::result::Result<u64, String> {
        match self.next_token() {
            None => Err(format!("expected {what}, found end of line")),
            Some(t) => parse_u64(t).ok_or_else(|| {
                format!("expected {what} (an unsigned integer), found `{}`", show(t))
            }),
        }
    }

    /// The next token as a floating-point number.
    pub fn f64(&mut self, what: &str) -> std::result::Result<f64, String> {
        match self.next_token() {
            None => Err(format!("expected {what}, found end of line")),
            Some(t) => std::str::from_utf8(t)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .ok_or_else(|| format!("expected {what} (a number), found `{}`", show(t))),
        }
    }

    /// Fails if anything but whitespace remains.
    pub fn end(&mut self, after: &str) -> std::result::Result<(), String> {
        match self.next_token() {
            None => Ok(()),
            Some(t) => Err(format!(
                "expected end of line after {after}, found `{}`",
                show(t)
            )),
        }
    }
}

/// Parses a decimal unsigned integer (an optional leading `+` allowed), without overflow.
pub(crate) fn parse_u64(t: &[u8]) -> Option<u64> {
    let digits = t.strip_prefix(b"+").unwrap_or(t);
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    let mut x: u64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        x = x.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(x)
}

/// A token for an error message: lossy UTF-8, shortened.
pub(crate) fn show(t: &[u8]) -> String {
    let s = String::from_utf8_lossy(t);
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

/// Converts a 1-based id read from a file to a 0-based node, checking `1 <= id <= n`.
pub(crate) fn one_based(id: u64, n: u32, what: &str) -> std::result::Result<u32, String> {
    if id == 0 || id > u64::from(n) {
        Err(format!(
            "{what} {id} is out of range: ids are 1-based, expected 1..={n}"
        ))
    } else {
        Ok((id - 1) as u32)
    }
}

/// Checks a node count from a header fits the `u32` ids irglc uses.
pub(crate) fn node_count(n: u64) -> std::result::Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n < u32::MAX)
        .ok_or_else(|| format!("{n} nodes is too many: irglc supports at most 4294967294"))
}

/// Reserves at most this many elements up front from a count found in a header, so that a
/// corrupt header cannot make us allocate terabytes before the data proves it.
pub(crate) const RESERVE_CAP: u64 = 1 << 26;

pub(crate) fn capped(n: u64) -> usize {
    n.min(RESERVE_CAP) as usize
}

/// A reader that knows its byte offset, for error messages (the binary formats: `.gr`,
/// `.mesh`; each adds its own word readers).
pub(crate) struct Pos<R> {
    pub(crate) inner: R,
    pub(crate) offset: u64,
    pub(crate) path: String,
}

impl<R: Read> Pos<R> {
    /// Fills `buf` or fails naming the offset and what was being read.
    pub(crate) fn read_exact(&mut self, buf: &mut [u8], what: &dyn Fn() -> String) -> Result<()> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.inner.read(&mut buf[filled..]) {
                Ok(0) => {
                    return Err(GraphError::byte(
                        &self.path,
                        self.offset + filled as u64,
                        format!("file truncated: expected {}, found end of file", what()),
                    ));
                }
                Ok(k) => filled += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(GraphError::byte(
                        &self.path,
                        self.offset + filled as u64,
                        format!("read error while reading {}: {e}", what()),
                    ));
                }
            }
        }
        self.offset += buf.len() as u64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_u64_rejects_junk_and_overflow() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"+17"), Some(17));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b"1x"), None);
        assert_eq!(parse_u64(b""), None);
    }

    #[test]
    fn tokens_split_on_any_whitespace() {
        let mut t = Tokens::new(b"  a\tbb  c ");
        assert_eq!(t.next_token(), Some(&b"a"[..]));
        assert_eq!(t.next_token(), Some(&b"bb"[..]));
        assert_eq!(t.next_token(), Some(&b"c"[..]));
        assert!(t.is_done());
        assert_eq!(t.next_token(), None);
    }

    #[test]
    fn lines_strip_crlf_and_count() {
        let mut l = Lines::new(&b"a\r\n\nb"[..], "x");
        assert_eq!(l.next_line().unwrap(), Some((1, &b"a"[..])));
        assert_eq!(l.next_line().unwrap(), Some((2, &b""[..])));
        assert_eq!(l.next_line().unwrap(), Some((3, &b"b"[..])));
        assert_eq!(l.line, 3);
        assert_eq!(l.next_line().unwrap(), None);
    }

    #[test]
    fn a_line_may_be_as_long_as_the_limit_and_no_longer() {
        // 8 bytes with the line end: accepted at a limit of 8, refused at 7.
        let text = b"1234567\nab";
        let mut l = Lines::with_limit(&text[..], "x", 8);
        assert_eq!(l.next_line().unwrap(), Some((1, &b"1234567"[..])));
        assert_eq!(l.next_line().unwrap(), Some((2, &b"ab"[..])));
        let mut l = Lines::with_limit(&text[..], "x", 7);
        let e = l.next_line().unwrap_err().to_string();
        assert_eq!(
            e,
            "x:1: line 1 longer than 7 bytes (is this a text graph file?)"
        );
        // The last line, without a line end, exactly at the limit.
        let mut l = Lines::with_limit(&b"123"[..], "x", 3);
        assert_eq!(l.next_line().unwrap(), Some((1, &b"123"[..])));
        let mut l = Lines::with_limit(&b"1234"[..], "x", 3);
        assert!(l.next_line().is_err());
    }
}
