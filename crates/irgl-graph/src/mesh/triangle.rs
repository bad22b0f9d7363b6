//! Jonathan Shewchuk's Triangle formats: `.node`, `.ele` and `.poly`, read into a grid
//! [`Mesh`] and written from one.
//!
//! ```text
//! # comments run from `#` to the end of the line; blank lines are skipped
//! 4 2 0 1            .node header: #vertices, dimension (2), #attributes, #boundary markers (0|1)
//! 1 0.0 0.0 1        id x y [attributes] [marker]
//! ...
//! 2 3 0              .ele header: #triangles, nodes per triangle (3|6), #attributes
//! 1 1 2 3            id n1 n2 n3 [three more nodes] [attributes]
//! ...
//! 0 2 0 1            .poly: a .node header (0 vertices: they come from the .node) [vertices],
//! 4 1                #segments, #boundary markers (0|1)
//! 1 1 2 1            id a b [marker]
//! 0                  #holes, then: id x y
//!                    optionally #regional attributes, then: id x y attribute [max area]
//! ```
//!
//! Ids are consecutive from 0 or 1, as the first vertex's id says; triangles, segments, holes
//! and node references use the same base. Trailing header fields may be left out (dimension 2,
//! no attributes, no markers, 3 nodes per triangle). Every error is `path:line:column: what`.
//!
//! [`from_triangle`] builds the mesh: vertices that no triangle uses are dropped (six-node
//! triangles' extra nodes among them), the others keep their order; world coordinates snap to
//! the grid with one scale, `max(width, height) / 2^28` of their bounding box, and the origin at
//! its lower left corner, rounding to the nearest grid point. Two vertices on one grid point and
//! triangles that become degenerate are errors; clockwise triangles are turned
//! counterclockwise. A `.poly` is checked against the triangulation: its segments must be
//! boundary edges (the mesh constrains only its boundary), and its holes must already be empty
//! (irglc does not carve holes).
//!
//! The writers write world coordinates with 17 significant digits, ids from 1, and the
//! boundary edges as the `.poly`'s segments.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{EdgeIndex, GRID, MAX_COUNT, Mesh, NONE, Point, orient};
use crate::error::{GraphError, Result};
use crate::format::{Lines, capped, parse_u64, show};

/// The vertices of a `.node` file (or of a `.poly` that lists its own).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeFile {
    pub path: String,
    /// The first id, 0 or 1.
    pub base: u64,
    /// World coordinates.
    pub points: Vec<[f64; 2]>,
    /// The line of each vertex.
    pub lines: Vec<u64>,
}

/// The triangles of an `.ele` file: corner vertices as indices into the [`NodeFile`] (0-based),
/// in the order written.
#[derive(Clone, Debug, PartialEq)]
pub struct EleFile {
    pub path: String,
    pub triangles: Vec<[u32; 3]>,
    /// The line of each triangle.
    pub lines: Vec<u64>,
    /// Nodes per triangle in the file (3, or 6 for second-order triangles).
    pub nodes_per_triangle: u32,
}

/// The segments and holes of a `.poly` file (vertex indices 0-based into the [`NodeFile`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PolyFile {
    pub path: String,
    pub segments: Vec<[u32; 2]>,
    /// The line of each segment.
    pub segment_lines: Vec<u64>,
    /// World coordinates and line of each hole.
    pub holes: Vec<([f64; 2], u64)>,
}

/// Reads lines, skipping blank and comment-only ones, and remembers where the file ended.
struct Src<R> {
    lines: Lines<R>,
    path: String,
    /// The number and length of the last line read.
    last: (u64, usize),
}

impl<R: BufRead> Src<R> {
    fn new(reader: R, path: &str) -> Self {
        Src {
            lines: Lines::new(reader, path),
            path: path.to_string(),
            last: (0, 0),
        }
    }

    /// Moves to the next line with content; `false` at end of file.
    fn next_record(&mut self) -> Result<bool> {
        while let Some((no, line)) = self.lines.next_line()? {
            self.last = (no, line.len());
            if Toks::new(line, &self.path, no).peek().is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The tokens of the current line.
    fn toks(&self) -> Toks<'_> {
        Toks::new(self.lines.current(), &self.path, self.last.0)
    }

    /// An error at the end of the file.
    fn at_end(&self, message: impl Into<String>) -> GraphError {
        GraphError::at(
            &self.path,
            self.last.0.max(1),
            self.last.1 as u64 + 1,
            message,
        )
    }

    /// The next line with content, or an error saying what was expected instead.
    fn expect_record(&mut self, what: &str) -> Result<()> {
        if self.next_record()? {
            Ok(())
        } else {
            Err(self.at_end(format!("expected {what}, found end of file")))
        }
    }
}

/// The tokens of one line, with their 1-based columns; `#` starts a comment.
struct Toks<'a> {
    line: &'a [u8],
    pos: usize,
    path: &'a str,
    no: u64,
}

impl<'a> Toks<'a> {
    fn new(line: &'a [u8], path: &'a str, no: u64) -> Self {
        let end = line.iter().position(|&b| b == b'#').unwrap_or(line.len());
        Toks {
            line: &line[..end],
            pos: 0,
            path,
            no,
        }
    }

    fn peek(&self) -> Option<(u64, &'a [u8])> {
        let rest = &self.line[self.pos..];
        let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
        let len = rest[start..]
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(rest.len() - start);
        Some(((self.pos + start + 1) as u64, &rest[start..start + len]))
    }

    fn next(&mut self) -> Option<(u64, &'a [u8])> {
        let (col, t) = self.peek()?;
        self.pos = col as usize - 1 + t.len();
        Some((col, t))
    }

    /// The column just after the line's content.
    fn eol(&self) -> u64 {
        let end = self
            .line
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map_or(0, |i| i + 1);
        end as u64 + 1
    }

    fn err(&self, col: u64, message: impl Into<String>) -> GraphError {
        GraphError::at(self.path, self.no, col, message)
    }

    fn missing(&self, what: &str) -> GraphError {
        self.err(self.eol(), format!("expected {what}, found end of line"))
    }

    /// An unsigned integer, and its column.
    fn uint(&mut self, what: &str) -> Result<(u64, u64)> {
        let (col, t) = self.next().ok_or_else(|| self.missing(what))?;
        parse_u64(t).map(|x| (x, col)).ok_or_else(|| {
            self.err(
                col,
                format!(
                    "expected {what} (a non-negative integer), found `{}`",
                    show(t)
                ),
            )
        })
    }

    /// An optional unsigned integer header field: `default` when the line ends.
    fn uint_or(&mut self, what: &str, default: u64) -> Result<(u64, u64)> {
        if self.peek().is_none() {
            Ok((default, self.eol()))
        } else {
            self.uint(what)
        }
    }

    /// A (possibly negative) integer: a boundary marker.
    fn int(&mut self, what: &str) -> Result<i64> {
        let (col, t) = self.next().ok_or_else(|| self.missing(what))?;
        std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| {
                self.err(
                    col,
                    format!("expected {what} (an integer), found `{}`", show(t)),
                )
            })
    }

    /// A finite number.
    fn float(&mut self, what: &str) -> Result<f64> {
        let (col, t) = self.next().ok_or_else(|| self.missing(what))?;
        let x = std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| {
                self.err(
                    col,
                    format!("expected {what} (a number), found `{}`", show(t)),
                )
            })?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.err(
                col,
                format!("{what} is `{}`, expected a finite number", show(t)),
            ))
        }
    }

    fn end(&mut self, after: &str) -> Result<()> {
        match self.next() {
            None => Ok(()),
            Some((col, t)) => Err(self.err(
                col,
                format!("expected end of line after {after}, found `{}`", show(t)),
            )),
        }
    }
}

/// A count from a header that must fit the mesh's `u32` ids.
fn count(t: &Toks, (n, col): (u64, u64), what: &str) -> Result<usize> {
    if n > MAX_COUNT {
        return Err(t.err(col, format!("{n} {what} is too many: at most {MAX_COUNT}")));
    }
    Ok(n as usize)
}

/// Checks that an item's id is the next one: `base + index`. The first vertex's id sets the
/// base (0 or 1) when `base` is `None`.
fn item_id(
    t: &mut Toks,
    what: &str,
    index: usize,
    base: &mut Option<u64>,
    base_from: &str,
) -> Result<()> {
    let (id, col) = t.uint(&format!("the {what}'s id"))?;
    match *base {
        None => {
            if id > 1 {
                return Err(t.err(
                    col,
                    format!(
                        "the first {what}'s id must be 0 or 1 (where numbering starts), found {id}"
                    ),
                ));
            }
            *base = Some(id);
        }
        Some(b) => {
            let want = b + index as u64;
            if id != want {
                return Err(t.err(
                    col,
                    format!(
                        "expected {what} id {want} (ids are consecutive from {b}, as {base_from}), found {id}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Reads a node header and its vertex lines (a `.node` file, or the start of a `.poly`).
/// Returns the vertices and the header's line.
fn vertices<R: BufRead>(
    src: &mut Src<R>,
    base: Option<u64>,
    base_from: &str,
) -> Result<(NodeFile, u64)> {
    src.expect_record("the header `<#vertices> <dimension> <#attributes> <#boundary markers>`")?;
    let header_line = src.last.0;
    let (n, attrs, markers) = {
        let mut t = src.toks();
        let n = t.uint("the number of vertices")?;
        let n = count(&t, n, "vertices")?;
        let (dim, col) = t.uint_or("the dimension", 2)?;
        if dim != 2 {
            return Err(t.err(col, format!("the dimension must be 2, found {dim}")));
        }
        let (attrs, _) = t.uint_or("the number of attributes", 0)?;
        let (markers, col) = t.uint_or("the number of boundary markers", 0)?;
        if markers > 1 {
            return Err(t.err(
                col,
                format!("the number of boundary markers must be 0 or 1, found {markers}"),
            ));
        }
        t.end("the header")?;
        (n, attrs, markers)
    };
    let mut nodes = NodeFile {
        path: src.path.clone(),
        base: base.unwrap_or(0),
        points: Vec::with_capacity(capped(n as u64)),
        lines: Vec::with_capacity(capped(n as u64)),
    };
    let mut base = base;
    for i in 0..n {
        if !src.next_record()? {
            return Err(src.at_end(format!(
                "file ends after {i} of the {n} vertices declared at line {header_line}"
            )));
        }
        let mut t = src.toks();
        item_id(&mut t, "vertex", i, &mut base, base_from)?;
        let x = t.float("the x coordinate")?;
        let y = t.float("the y coordinate")?;
        for _ in 0..attrs {
            t.float("an attribute")?;
        }
        if markers == 1 {
            t.int("a boundary marker")?;
        }
        t.end("the vertex")?;
        nodes.points.push([x, y]);
        nodes.lines.push(src.last.0);
    }
    nodes.base = base.unwrap_or(0);
    Ok((nodes, header_line))
}

/// Reads a `.node` file.
pub fn read_node<R: BufRead>(reader: R, path: &str) -> Result<NodeFile> {
    let mut src = Src::new(reader, path);
    let (nodes, header_line) = vertices(&mut src, None, "the first vertex's")?;
    if nodes.points.is_empty() {
        return Err(GraphError::at(
            path,
            header_line,
            1,
            "a .node file for a mesh needs vertices, found 0",
        ));
    }
    if src.next_record()? {
        let t = src.toks();
        let col = t.peek().map_or(1, |(c, _)| c);
        return Err(t.err(
            col,
            format!(
                "expected end of file after the {} vertices declared at line {header_line}",
                nodes.points.len()
            ),
        ));
    }
    Ok(nodes)
}

/// A vertex reference, checked against the `.node` file and made 0-based.
fn node_ref(t: &mut Toks, what: &str, nodes: &NodeFile) -> Result<u32> {
    let (id, col) = t.uint(what)?;
    let n = nodes.points.len() as u64;
    if id < nodes.base || id - nodes.base >= n {
        return Err(t.err(
            col,
            format!(
                "{what} {id} is out of range: {} has vertices {}..={}",
                nodes.path,
                nodes.base,
                nodes.base + n - 1
            ),
        ));
    }
    Ok((id - nodes.base) as u32)
}

/// Reads an `.ele` file whose vertices are those of `nodes`.
pub fn read_ele<R: BufRead>(reader: R, path: &str, nodes: &NodeFile) -> Result<EleFile> {
    let mut src = Src::new(reader, path);
    src.expect_record("the header `<#triangles> <nodes per triangle> <#attributes>`")?;
    let header_line = src.last.0;
    let (n, per, attrs) = {
        let mut t = src.toks();
        let n = t.uint("the number of triangles")?;
        let n = count(&t, n, "triangles")?;
        let (per, col) = t.uint_or("the number of nodes per triangle", 3)?;
        if per != 3 && per != 6 {
            return Err(t.err(
                col,
                format!("the number of nodes per triangle must be 3 or 6, found {per}"),
            ));
        }
        let (attrs, _) = t.uint_or("the number of attributes", 0)?;
        t.end("the header")?;
        (n, per, attrs)
    };
    if n == 0 {
        return Err(GraphError::at(
            path,
            header_line,
            1,
            "an .ele file for a mesh needs triangles, found 0",
        ));
    }
    let mut ele = EleFile {
        path: path.to_string(),
        triangles: Vec::with_capacity(capped(n as u64)),
        lines: Vec::with_capacity(capped(n as u64)),
        nodes_per_triangle: per as u32,
    };
    let mut base = Some(nodes.base);
    let from = format!("in {}", nodes.path);
    for i in 0..n {
        if !src.next_record()? {
            return Err(src.at_end(format!(
                "file ends after {i} of the {n} triangles declared at line {header_line}"
            )));
        }
        let mut t = src.toks();
        item_id(&mut t, "triangle", i, &mut base, &from)?;
        let mut v = [0u32; 3];
        for (k, slot) in v.iter_mut().enumerate() {
            *slot = node_ref(&mut t, &format!("corner {}", k + 1), nodes)?;
        }
        for k in 3..per {
            node_ref(&mut t, &format!("node {}", k + 1), nodes)?;
        }
        for _ in 0..attrs {
            t.float("an attribute")?;
        }
        t.end("the triangle")?;
        ele.triangles.push(v);
        ele.lines.push(src.last.0);
    }
    if src.next_record()? {
        let t = src.toks();
        let col = t.peek().map_or(1, |(c, _)| c);
        return Err(t.err(
            col,
            format!("expected end of file after the {n} triangles declared at line {header_line}"),
        ));
    }
    Ok(ele)
}

/// Reads a `.poly` file whose segments refer to the vertices of `nodes`. If it lists vertices
/// itself, they must be the same as the `.node`'s.
pub fn read_poly<R: BufRead>(reader: R, path: &str, nodes: &NodeFile) -> Result<PolyFile> {
    let mut src = Src::new(reader, path);
    let from = format!("in {}", nodes.path);
    let (own, header_line) = vertices(&mut src, Some(nodes.base), &from)?;
    if !own.points.is_empty() {
        if own.points.len() != nodes.points.len() {
            return Err(GraphError::at(
                path,
                header_line,
                1,
                format!(
                    "the .poly lists {} vertices but {} has {}: give a .poly with 0 vertices (they come from the .node) or the same ones",
                    own.points.len(),
                    nodes.path,
                    nodes.points.len()
                ),
            ));
        }
        for (i, (a, b)) in own.points.iter().zip(&nodes.points).enumerate() {
            if a != b {
                return Err(GraphError::at(
                    path,
                    own.lines[i],
                    1,
                    format!(
                        "vertex {} is at ({}, {}), but at ({}, {}) in {} (line {})",
                        nodes.base + i as u64,
                        a[0],
                        a[1],
                        b[0],
                        b[1],
                        nodes.path,
                        nodes.lines[i]
                    ),
                ));
            }
        }
    }
    src.expect_record("the segment header `<#segments> <#boundary markers>`")?;
    let seg_header = src.last.0;
    let (ns, markers) = {
        let mut t = src.toks();
        let n = t.uint("the number of segments")?;
        let n = count(&t, n, "segments")?;
        let (markers, col) = t.uint_or("the number of boundary markers", 0)?;
        if markers > 1 {
            return Err(t.err(
                col,
                format!("the number of boundary markers must be 0 or 1, found {markers}"),
            ));
        }
        t.end("the segment header")?;
        (n, markers)
    };
    let mut poly = PolyFile {
        path: path.to_string(),
        segments: Vec::with_capacity(capped(ns as u64)),
        segment_lines: Vec::with_capacity(capped(ns as u64)),
        holes: Vec::new(),
    };
    let mut base = Some(nodes.base);
    for i in 0..ns {
        if !src.next_record()? {
            return Err(src.at_end(format!(
                "file ends after {i} of the {ns} segments declared at line {seg_header}"
            )));
        }
        let mut t = src.toks();
        item_id(&mut t, "segment", i, &mut base, &from)?;
        let a = node_ref(&mut t, "the segment's first endpoint", nodes)?;
        let b = node_ref(&mut t, "the segment's second endpoint", nodes)?;
        if markers == 1 {
            t.int("a boundary marker")?;
        }
        t.end("the segment")?;
        poly.segments.push([a, b]);
        poly.segment_lines.push(src.last.0);
    }
    src.expect_record("the hole count `<#holes>`")?;
    let hole_header = src.last.0;
    let nh = {
        let mut t = src.toks();
        let n = t.uint("the number of holes")?;
        let n = count(&t, n, "holes")?;
        t.end("the number of holes")?;
        n
    };
    let mut base = Some(nodes.base);
    for i in 0..nh {
        if !src.next_record()? {
            return Err(src.at_end(format!(
                "file ends after {i} of the {nh} holes declared at line {hole_header}"
            )));
        }
        let mut t = src.toks();
        item_id(&mut t, "hole", i, &mut base, &from)?;
        let x = t.float("the hole's x coordinate")?;
        let y = t.float("the hole's y coordinate")?;
        t.end("the hole")?;
        poly.holes.push(([x, y], src.last.0));
    }
    // Optional regional attributes: read and ignored.
    if src.next_record()? {
        let region_header = src.last.0;
        let nr = {
            let mut t = src.toks();
            let n = t.uint("the number of regional attributes")?;
            let n = count(&t, n, "regional attributes")?;
            t.end("the number of regional attributes")?;
            n
        };
        let mut base = Some(nodes.base);
        for i in 0..nr {
            if !src.next_record()? {
                return Err(src.at_end(format!(
                    "file ends after {i} of the {nr} regional attributes declared at line {region_header}"
                )));
            }
            let mut t = src.toks();
            item_id(&mut t, "region", i, &mut base, &from)?;
            t.float("the region's x coordinate")?;
            t.float("the region's y coordinate")?;
            t.float("the regional attribute")?;
            if t.peek().is_some() {
                t.float("the region's maximum area")?;
            }
            t.end("the region")?;
        }
        if src.next_record()? {
            let t = src.toks();
            let col = t.peek().map_or(1, |(c, _)| c);
            return Err(t.err(col, "expected end of file after the regional attributes"));
        }
    }
    Ok(poly)
}

/// The world-to-grid transform of [`from_triangle`].
struct Snap {
    origin: [f64; 2],
    scale: f64,
}

impl Snap {
    /// The nearest grid point, unclamped (a hole may lie outside the grid).
    fn raw(&self, p: [f64; 2]) -> [f64; 2] {
        [
            ((p[0] - self.origin[0]) / self.scale).round(),
            ((p[1] - self.origin[1]) / self.scale).round(),
        ]
    }

    fn point(&self, p: [f64; 2]) -> Point {
        let r = self.raw(p);
        let g = GRID as f64;
        Point {
            x: r[0].clamp(0.0, g) as i32,
            y: r[1].clamp(0.0, g) as i32,
        }
    }
}

/// Builds a grid mesh from Triangle files (see the module documentation). Returns the mesh and
/// notes for the user (dropped vertices, reoriented triangles, accepted holes).
pub fn from_triangle(
    node: &NodeFile,
    ele: &EleFile,
    poly: Option<&PolyFile>,
) -> Result<(Mesh, Vec<String>)> {
    let mut notes = Vec::new();
    let nv_file = node.points.len();
    // Vertices used by some triangle keep their order.
    let mut new_id = vec![NONE; nv_file];
    for t in &ele.triangles {
        for &v in t {
            new_id[v as usize] = 0;
        }
    }
    let mut used: Vec<u32> = Vec::new();
    for (v, id) in new_id.iter_mut().enumerate() {
        if *id == 0 {
            *id = used.len() as u32;
            used.push(v as u32);
        }
    }
    if used.len() < nv_file {
        notes.push(format!(
            "{}: {} of {} vertices are corners of no triangle and were dropped{}",
            node.path,
            nv_file - used.len(),
            nv_file,
            if ele.nodes_per_triangle == 6 {
                " (the extra nodes of six-node triangles among them)"
            } else {
                ""
            }
        ));
    }
    // The bounding box of the used vertices, and the grid.
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for &v in &used {
        let p = node.points[v as usize];
        for k in 0..2 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let size = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    if !(size.is_finite() && size > 0.0) {
        return Err(GraphError::file(
            &node.path,
            format!(
                "the vertices' bounding box has size {size}: the mesh needs an extent to put on the grid"
            ),
        ));
    }
    let snap = Snap {
        origin: lo,
        scale: size / GRID as f64,
    };
    let points: Vec<Point> = used
        .iter()
        .map(|&v| snap.point(node.points[v as usize]))
        .collect();
    // Two vertices on one grid point.
    let mut order: Vec<u32> = (0..points.len() as u32).collect();
    order.sort_unstable_by_key(|&v| (points[v as usize], v));
    let mut dup: Option<(u32, u32)> = None;
    for w in order.windows(2) {
        if points[w[0] as usize] == points[w[1] as usize] {
            let (a, b) = (w[0].min(w[1]), w[0].max(w[1]));
            if dup.is_none_or(|(_, d)| b < d) {
                dup = Some((a, b));
            }
        }
    }
    if let Some((a, b)) = dup {
        let (fa, fb) = (used[a as usize] as usize, used[b as usize] as usize);
        return Err(GraphError::at(
            &node.path,
            node.lines[fb],
            1,
            format!(
                "vertex {} snaps to the grid point {} as vertex {} (line {}) does: vertices closer than 1/2^28 of the mesh's extent ({}) cannot be told apart",
                node.base + fb as u64,
                points[b as usize],
                node.base + fa as u64,
                node.lines[fa],
                size
            ),
        ));
    }
    // Triangles, counterclockwise.
    let mut tri_v = Vec::with_capacity(ele.triangles.len());
    let mut flipped = 0u64;
    for (t, v) in ele.triangles.iter().enumerate() {
        let w = v.map(|x| new_id[x as usize]);
        let [a, b, c] = w.map(|x| points[x as usize]);
        let file_ids = || v.map(|x| (u64::from(x) + node.base).to_string()).join(" ");
        match orient(a, b, c) {
            1 => tri_v.push(w),
            -1 => {
                flipped += 1;
                tri_v.push([w[0], w[2], w[1]]);
            }
            _ => {
                return Err(GraphError::at(
                    &ele.path,
                    ele.lines[t],
                    1,
                    format!(
                        "triangle {} (vertices {}) is degenerate after snapping to the grid: its corners {a} {b} {c} are collinear",
                        node.base + t as u64,
                        file_ids()
                    ),
                ));
            }
        }
    }
    if flipped > 0 {
        notes.push(format!(
            "{}: {flipped} clockwise triangles were made counterclockwise",
            ele.path
        ));
    }
    // Each directed edge once, reported at the later triangle with file ids.
    let index = EdgeIndex::new(points.len(), &tri_v);
    for (t, w) in tri_v.iter().enumerate() {
        for i in 0..3 {
            let (a, b) = (w[i], w[(i + 1) % 3]);
            if let Some((u, _)) = index
                .half_edges(&tri_v, a, b)
                .find(|&(u, _)| (u as usize) < t)
            {
                let file = |x: u32| u64::from(used[x as usize]) + node.base;
                return Err(GraphError::at(
                    &ele.path,
                    ele.lines[t],
                    1,
                    format!(
                        "triangle {} has the edge from vertex {} to {} in the same direction as triangle {} (line {}): triangles overlap, or more than two share an edge",
                        node.base + t as u64,
                        file(a),
                        file(b),
                        node.base + u64::from(u),
                        ele.lines[u as usize]
                    ),
                ));
            }
        }
    }
    drop(index);
    let mut mesh = Mesh {
        points,
        tri_n: Vec::new(),
        tri_v,
        origin_x: snap.origin[0],
        origin_y: snap.origin[1],
        scale: snap.scale,
    };
    let located = |p: super::Problems| {
        let first = p.first.first();
        match first.map(|q| q.site) {
            Some(super::Site::Triangle(t)) => GraphError::at(
                &ele.path,
                ele.lines[t as usize],
                1,
                format!("not a valid mesh: {p}"),
            ),
            _ => GraphError::file(&ele.path, format!("not a valid mesh: {p}")),
        }
    };
    mesh.compute_neighbours().map_err(located)?;
    mesh.validate().map_err(located)?;
    if let Some(poly) = poly {
        check_poly(&mesh, node, &new_id, &snap, poly, ele, &mut notes)?;
    }
    Ok((mesh, notes))
}

/// Segments must be boundary edges; holes must lie outside every triangle.
fn check_poly(
    mesh: &Mesh,
    node: &NodeFile,
    new_id: &[u32],
    snap: &Snap,
    poly: &PolyFile,
    ele: &EleFile,
    notes: &mut Vec<String>,
) -> Result<()> {
    let boundary: HashSet<(u32, u32)> = mesh
        .boundary_edges()
        .into_iter()
        .map(|(t, i)| {
            let w = mesh.tri_v[t as usize];
            let (a, b) = (w[i as usize], w[(i as usize + 1) % 3]);
            (a.min(b), a.max(b))
        })
        .collect();
    let index = EdgeIndex::new(mesh.points.len(), &mesh.tri_v);
    for (s, (&[a, b], &line)) in poly.segments.iter().zip(&poly.segment_lines).enumerate() {
        let id = node.base + s as u64;
        let (fa, fb) = (u64::from(a) + node.base, u64::from(b) + node.base);
        let (na, nb) = (new_id[a as usize], new_id[b as usize]);
        if na == NONE || nb == NONE {
            let v = if na == NONE { fa } else { fb };
            return Err(GraphError::at(
                &poly.path,
                line,
                1,
                format!("segment {id} ({fa}, {fb}): vertex {v} is a corner of no triangle"),
            ));
        }
        if boundary.contains(&(na.min(nb), na.max(nb))) {
            continue;
        }
        let is_edge = index.half_edges(&mesh.tri_v, na, nb).next().is_some()
            || index.half_edges(&mesh.tri_v, nb, na).next().is_some();
        return Err(GraphError::at(
            &poly.path,
            line,
            1,
            if is_edge {
                format!(
                    "segment {id} ({fa}, {fb}) is an interior edge of the triangulation: irglc meshes constrain only their boundary"
                )
            } else {
                format!(
                    "segment {id} ({fa}, {fb}) is not an edge of the triangulation: every segment must be a boundary edge"
                )
            },
        ));
    }
    for (h, &(p, line)) in poly.holes.iter().enumerate() {
        let id = node.base + h as u64;
        let g = snap.raw(p);
        let inside = (-(GRID as f64)..=2.0 * GRID as f64).contains(&g[0])
            && (-(GRID as f64)..=2.0 * GRID as f64).contains(&g[1]);
        if !inside {
            continue; // far outside the grid: outside every triangle
        }
        let q = Point {
            x: g[0] as i32,
            y: g[1] as i32,
        };
        let hit = (0..mesh.tri_v.len()).find(|&t| {
            let [a, b, c] = mesh.corners(t as u32);
            orient(a, b, q) >= 0 && orient(b, c, q) >= 0 && orient(c, a, q) >= 0
        });
        if let Some(t) = hit {
            return Err(GraphError::at(
                &poly.path,
                line,
                1,
                format!(
                    "hole {id} at ({}, {}) is inside the triangle of {} line {}: irglc does not carve holes; the triangulation must leave them empty",
                    p[0], p[1], ele.path, ele.lines[t]
                ),
            ));
        }
    }
    if !poly.holes.is_empty() {
        notes.push(format!(
            "{}: {} holes are outside the triangulation already",
            poly.path,
            poly.holes.len()
        ));
    }
    Ok(())
}

/// Reads `node`, `ele` and, if given, `poly` from disk and builds the mesh.
pub fn read_files(node: &Path, ele: &Path, poly: Option<&Path>) -> Result<(Mesh, Vec<String>)> {
    let open = |p: &Path| {
        let name = p.display().to_string();
        File::open(p)
            .map(|f| (BufReader::with_capacity(1 << 20, f), name.clone()))
            .map_err(|e| GraphError::io(&name, e))
    };
    let (r, name) = open(node)?;
    let nodes = read_node(r, &name)?;
    let (r, name) = open(ele)?;
    let ele = read_ele(r, &name, &nodes)?;
    let poly = match poly {
        Some(p) => {
            let (r, name) = open(p)?;
            Some(read_poly(r, &name, &nodes)?)
        }
        None => None,
    };
    from_triangle(&nodes, &ele, poly.as_ref())
}

/// A number with 17 significant digits (enough to read back the same `f64`).
fn num(x: f64) -> String {
    format!("{x:.16e}")
}

/// Writes the vertices in world coordinates, ids from 1, boundary marker 1 on the boundary.
pub fn write_node<W: Write>(mesh: &Mesh, mut out: W) -> io::Result<()> {
    let mut on_boundary = vec![false; mesh.points.len()];
    for (t, i) in mesh.boundary_edges() {
        let w = mesh.tri_v[t as usize];
        on_boundary[w[i as usize] as usize] = true;
        on_boundary[w[(i as usize + 1) % 3] as usize] = true;
    }
    writeln!(
        out,
        "# irglc mesh: {} vertices; grid origin ({}, {}), scale {}",
        mesh.points.len(),
        num(mesh.origin_x),
        num(mesh.origin_y),
        num(mesh.scale)
    )?;
    writeln!(out, "{} 2 0 1", mesh.points.len())?;
    for (i, &p) in mesh.points.iter().enumerate() {
        let (x, y) = mesh.world(p);
        writeln!(
            out,
            "{} {} {} {}",
            i + 1,
            num(x),
            num(y),
            u8::from(on_boundary[i])
        )?;
    }
    out.flush()
}

/// Writes the triangles, counterclockwise, ids from 1.
pub fn write_ele<W: Write>(mesh: &Mesh, mut out: W) -> io::Result<()> {
    writeln!(out, "{} 3 0", mesh.tri_v.len())?;
    for (i, t) in mesh.tri_v.iter().enumerate() {
        writeln!(out, "{} {} {} {}", i + 1, t[0] + 1, t[1] + 1, t[2] + 1)?;
    }
    out.flush()
}

/// Writes a `.poly` whose vertices come from the `.node` and whose segments are the boundary
/// edges (marker 1), without holes.
pub fn write_poly<W: Write>(mesh: &Mesh, mut out: W) -> io::Result<()> {
    let edges = mesh.boundary_edges();
    writeln!(out, "0 2 0 1")?;
    writeln!(out, "{} 1", edges.len())?;
    for (k, (t, i)) in edges.into_iter().enumerate() {
        let w = mesh.tri_v[t as usize];
        writeln!(
            out,
            "{} {} {} 1",
            k + 1,
            w[i as usize] + 1,
            w[(i as usize + 1) % 3] + 1
        )?;
    }
    writeln!(out, "0")?;
    out.flush()
}

/// The files of the Triangle mesh named `base`: `BASE.node`, `BASE.ele` and `BASE.poly`, the
/// whole base kept (`box.1` gives `box.1.node`).
pub fn files(base: &Path) -> [PathBuf; 3] {
    ["node", "ele", "poly"].map(|ext| irgl_files::names::with_added_extension(base, ext))
}

/// Writes `BASE.node`, `BASE.ele` and `BASE.poly`, each whole or not at all; none is renamed
/// into place until all three are written.
pub fn write_files(mesh: &Mesh, base: &Path) -> Result<()> {
    type Writer = fn(&Mesh, &mut BufWriter<File>) -> io::Result<()>;
    let writers: [Writer; 3] = [
        |m, w| write_node(m, w),
        |m, w| write_ele(m, w),
        |m, w| write_poly(m, w),
    ];
    let mut pending = Vec::new();
    for (path, write) in files(base).into_iter().zip(writers) {
        let name = path.display().to_string();
        let p = irgl_files::Pending::beside(&path).map_err(|e| GraphError::io(&name, e))?;
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(p.path())
            .map_err(|e| GraphError::io(&name, e))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        write(mesh, &mut w)
            .and_then(|()| w.flush())
            .map_err(|e| GraphError::io(&name, e))?;
        pending.push((name, p));
    }
    for (name, p) in pending {
        p.commit().map_err(|e| GraphError::io(&name, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate::generate;

    const NODE: &str = "# a square with a centre\n4 2 0 1\n1 0 0 1\n2 2 0 1\n3 2 2 1\n\n4 0 2 1\n";

    fn node(text: &str) -> Result<NodeFile> {
        read_node(text.as_bytes(), "t.node")
    }

    fn ele(text: &str, n: &NodeFile) -> Result<EleFile> {
        read_ele(text.as_bytes(), "t.ele", n)
    }

    fn poly(text: &str, n: &NodeFile) -> Result<PolyFile> {
        read_poly(text.as_bytes(), "t.poly", n)
    }

    fn build(n: &str, e: &str, p: Option<&str>) -> Result<(Mesh, Vec<String>)> {
        let n = node(n)?;
        let e = ele(e, &n)?;
        let p = match p {
            Some(p) => Some(poly(p, &n)?),
            None => None,
        };
        from_triangle(&n, &e, p.as_ref())
    }

    #[test]
    fn reads_a_square_and_snaps_it() {
        let (m, notes) = build(
            NODE,
            "2 3 0\n1 1 2 3 # first\n2 1 4 3\n",
            Some("0 2 0 1\n4 1\n1 1 2 1\n2 2 3 1\n3 3 4 1\n4 4 1 1\n0\n"),
        )
        .unwrap();
        assert_eq!(m.points[2], Point::new(1 << 28, 1 << 28));
        assert_eq!(m.scale, 2.0 / (1u64 << 28) as f64);
        assert_eq!((m.origin_x, m.origin_y), (0.0, 0.0));
        // The second triangle (1 4 3) is clockwise and was turned.
        assert_eq!(m.tri_v[1], [0, 2, 3]);
        assert_eq!(
            notes,
            vec!["t.ele: 1 clockwise triangles were made counterclockwise"]
        );
        m.validate().unwrap();
    }

    #[test]
    fn zero_based_numbering_and_defaults() {
        let (m, _) = build("3\n0 0 0\n1 1 0\n2 0 1\n", "1\n0 0 1 2\n", None).unwrap();
        assert_eq!(m.tri_v, vec![[0, 1, 2]]);
    }

    #[test]
    fn six_node_triangles_and_unused_vertices_are_dropped() {
        let (m, notes) = build(
            "6 2 0 0\n1 0 0\n2 2 0\n3 0 2\n4 1 0\n5 1 1\n6 0 1\n",
            "1 6 1\n1 1 2 3 5 6 4 0.5\n",
            None,
        )
        .unwrap();
        assert_eq!(m.points.len(), 3);
        assert_eq!(
            notes,
            vec![
                "t.node: 3 of 6 vertices are corners of no triangle and were dropped (the extra nodes of six-node triangles among them)"
            ]
        );
    }

    fn err(n: &str, e: &str, p: Option<&str>) -> String {
        build(n, e, p).unwrap_err().to_string()
    }

    #[test]
    fn bad_files_give_located_errors() {
        let e2 = "2 3 0\n1 1 2 3\n2 1 3 4\n";
        let cases: &[(&str, &str, Option<&str>, &str)] = &[
            (
                "",
                e2,
                None,
                "t.node:1:1: expected the header `<#vertices> <dimension> <#attributes> <#boundary markers>`, found end of file",
            ),
            (
                "4 3 0 0\n",
                e2,
                None,
                "t.node:1:3: the dimension must be 2, found 3",
            ),
            (
                "4 2 0 2\n",
                e2,
                None,
                "t.node:1:7: the number of boundary markers must be 0 or 1, found 2",
            ),
            (
                "4 2 0 0 9\n",
                e2,
                None,
                "t.node:1:9: expected end of line after the header, found `9`",
            ),
            (
                "x\n",
                e2,
                None,
                "t.node:1:1: expected the number of vertices (a non-negative integer), found `x`",
            ),
            (
                "2 2 0 0\n2 0 0\n3 1 1\n",
                e2,
                None,
                "t.node:2:1: the first vertex's id must be 0 or 1 (where numbering starts), found 2",
            ),
            (
                "2 2 0 0\n1 0 0\n3 1 1\n",
                e2,
                None,
                "t.node:3:1: expected vertex id 2 (ids are consecutive from 1, as the first vertex's), found 3",
            ),
            (
                "2 2 0 0\n1 0 0\n2 1\n",
                e2,
                None,
                "t.node:3:4: expected the y coordinate, found end of line",
            ),
            (
                "2 2 0 0\n1 0 0\n2 1 nan\n",
                e2,
                None,
                "t.node:3:5: the y coordinate is `nan`, expected a finite number",
            ),
            (
                "2 2 0 0\n1 0 0\n2 1 1q\n",
                e2,
                None,
                "t.node:3:5: expected the y coordinate (a number), found `1q`",
            ),
            (
                "2 2 0 1\n1 0 0 1\n2 1 1\n",
                e2,
                None,
                "t.node:3:6: expected a boundary marker, found end of line",
            ),
            (
                "3 2 0 0\n1 0 0\n2 1 1 # two of three\n",
                e2,
                None,
                "t.node:3:21: file ends after 2 of the 3 vertices declared at line 1",
            ),
            (
                "1 2 0 0\n1 0 0\n2 1 1\n",
                e2,
                None,
                "t.node:3:1: expected end of file after the 1 vertices declared at line 1",
            ),
            (
                NODE,
                "",
                None,
                "t.ele:1:1: expected the header `<#triangles> <nodes per triangle> <#attributes>`, found end of file",
            ),
            (
                NODE,
                "2 4 0\n",
                None,
                "t.ele:1:3: the number of nodes per triangle must be 3 or 6, found 4",
            ),
            (
                NODE,
                "2 3 0\n1 1 2 3\n2 1 3 5\n",
                None,
                "t.ele:3:7: corner 3 5 is out of range: t.node has vertices 1..=4",
            ),
            (
                NODE,
                "2 3 0\n1 1 2 3\n2 1 3 0\n",
                None,
                "t.ele:3:7: corner 3 0 is out of range: t.node has vertices 1..=4",
            ),
            (
                NODE,
                "2 3 0\n0 1 2 3\n",
                None,
                "t.ele:2:1: expected triangle id 1 (ids are consecutive from 1, as in t.node), found 0",
            ),
            (
                NODE,
                "2 3 0\n1 1 2 3\n",
                None,
                "t.ele:2:8: file ends after 1 of the 2 triangles declared at line 1",
            ),
            (
                NODE,
                "1 3 1\n1 1 2 3\n",
                None,
                "t.ele:2:8: expected an attribute, found end of line",
            ),
            // Snapping and geometry.
            (
                "4 2 0 0\n1 0 0\n2 1 0\n3 0 1\n4 1e-12 0\n",
                "2 3 0\n1 1 2 3\n2 4 2 3\n",
                None,
                "t.node:5:1: vertex 4 snaps to the grid point (0, 0) as vertex 1 (line 2) does: vertices closer than 1/2^28 of the mesh's extent (1) cannot be told apart",
            ),
            (
                "4 2 0 0\n1 0 0\n2 1 0\n3 0 1\n4 0.5 1e-12\n",
                "2 3 0\n1 1 2 3\n2 1 4 2\n",
                None,
                "t.ele:3:1: triangle 2 (vertices 1 4 2) is degenerate after snapping to the grid: its corners (0, 0) (134217728, 0) (268435456, 0) are collinear",
            ),
            (
                NODE,
                "2 3 0\n1 1 2 3\n2 1 2 4\n",
                None,
                "t.ele:3:1: triangle 2 has the edge from vertex 1 to 2 in the same direction as triangle 1 (line 2): triangles overlap, or more than two share an edge",
            ),
            (
                "1 2 0 0\n1 5 5\n",
                "1 3 0\n1 1 1 1\n",
                None,
                "t.node: the vertices' bounding box has size 0: the mesh needs an extent to put on the grid",
            ),
            // .poly.
            (
                NODE,
                e2,
                Some("0 2 0 1\n1 1\n1 1 3 1\n0\n"),
                "t.poly:3:1: segment 1 (1, 3) is an interior edge of the triangulation: irglc meshes constrain only their boundary",
            ),
            (
                "5 2 0 0\n1 0 0\n2 2 0\n3 2 2\n4 0 2\n5 9 9\n",
                e2,
                Some("0 2 0 0\n2 0\n1 1 2\n2 2 5\n0\n"),
                "t.poly:4:1: segment 2 (2, 5): vertex 5 is a corner of no triangle",
            ),
            (
                NODE,
                e2,
                Some("0 2 0 0\n1 0\n1 2 4\n0\n"),
                "t.poly:3:1: segment 1 (2, 4) is not an edge of the triangulation: every segment must be a boundary edge",
            ),
            (
                NODE,
                e2,
                Some("0 2 0 0\n0 0\n1\n1 0.5 0.2\n"),
                "t.poly:4:1: hole 1 at (0.5, 0.2) is inside the triangle of t.ele line 2: irglc does not carve holes; the triangulation must leave them empty",
            ),
            (
                NODE,
                e2,
                Some("0 2 0 0\n0 0\n"),
                "t.poly:2:4: expected the hole count `<#holes>`, found end of file",
            ),
            (
                NODE,
                e2,
                Some("0 2 0 0\n1 0\n1 1 7\n0\n"),
                "t.poly:3:5: the segment's second endpoint 7 is out of range: t.node has vertices 1..=4",
            ),
            (
                NODE,
                e2,
                Some("3 2 0 0\n1 0 0\n2 1 0\n3 0 1\n0 0\n0\n"),
                "t.poly:1:1: the .poly lists 3 vertices but t.node has 4: give a .poly with 0 vertices (they come from the .node) or the same ones",
            ),
            (
                NODE,
                e2,
                Some("0 2 0 0\n0 0\n0\n1\n1 0 0 5 0.1 7\n"),
                "t.poly:5:13: expected end of line after the region, found `7`",
            ),
        ];
        for (i, (n, e, p, want)) in cases.iter().enumerate() {
            assert_eq!(err(n, e, *p), *want, "case {i}");
        }
    }

    #[test]
    fn holes_outside_the_triangulation_are_accepted() {
        // An L of three triangles; the hole is in the notch.
        let n = "5 2 0 0\n1 0 0\n2 2 0\n3 2 1\n4 1 1\n5 0 2\n";
        let e = "3 3 0\n1 1 2 3\n2 1 3 4\n3 1 4 5\n";
        let p = "0 2 0 0\n0 0\n1\n1 1.5 1.5\n";
        let (_, notes) = build(n, e, Some(p)).unwrap();
        assert_eq!(
            notes,
            vec!["t.poly: 1 holes are outside the triangulation already"]
        );
    }

    #[test]
    fn writing_and_reading_back_gives_the_same_mesh() {
        let m = generate(300, 9).unwrap();
        let (mut n, mut e, mut p) = (Vec::new(), Vec::new(), Vec::new());
        write_node(&m, &mut n).unwrap();
        write_ele(&m, &mut e).unwrap();
        write_poly(&m, &mut p).unwrap();
        let nodes = read_node(&n[..], "g.node").unwrap();
        let ele = read_ele(&e[..], "g.ele", &nodes).unwrap();
        let poly = read_poly(&p[..], "g.poly", &nodes).unwrap();
        assert_eq!(poly.segments.len(), 4);
        let (back, notes) = from_triangle(&nodes, &ele, Some(&poly)).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(back, m);
        let text = String::from_utf8(n).unwrap();
        assert!(
            text.contains("\n2 1.0000000000000000e0 0.0000000000000000e0 1\n"),
            "{text}"
        );
    }
}
