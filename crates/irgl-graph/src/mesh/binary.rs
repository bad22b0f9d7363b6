//! The binary `.mesh` file, little-endian, the one the CUDA runtime reads and writes:
//!
//! | offset | bytes | content |
//! |---|---|---|
//! | 0 | 8 | magic `IRGLMESH` |
//! | 8 | 4 | u32 version = 1 |
//! | 12 | 4 | u32 reserved = 0 |
//! | 16 | 8 | u64 V, the vertex count |
//! | 24 | 8 | u64 T, the triangle count |
//! | 32 | 8 | f64 origin_x |
//! | 40 | 8 | f64 origin_y |
//! | 48 | 8 | f64 scale (finite, > 0) |
//! | 56 | 8 V | i32 coordinates, x then y per vertex, each in `[0, 2^28]` |
//! | 56 + 8 V | 12 T | u32 `tri_v`, three per triangle, counterclockwise |
//! | 56 + 8 V + 12 T | 12 T | u32 `tri_n`: neighbour across `(tri_v[3t+i], tri_v[3t+(i+1)%3])`, `0xffffffff` on the boundary |
//!
//! The file is exactly `56 + 8 V + 24 T` bytes, and `V, T < 2^32 - 1`. The reader checks the
//! header, the length, every coordinate and id as it reads them (errors name the byte offset),
//! then the whole mesh with [`Mesh::validate`] (errors name the triangle or vertex).

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

use super::{GRID, MAX_COUNT, Mesh, NONE, Point};
use crate::error::{GraphError, Result};
use crate::format::Pos;

/// The first 8 bytes of every `.mesh` file.
pub const MAGIC: &[u8; 8] = b"IRGLMESH";
/// The version this crate reads and writes.
pub const VERSION: u32 = 1;
/// The header's length in bytes.
pub const HEADER: u64 = 56;

const CHUNK: usize = 1 << 20;

/// The length of a `.mesh` file with `v` vertices and `t` triangles, if it fits a `u64`.
pub fn file_len(v: u64, t: u64) -> Option<u64> {
    v.checked_mul(8)?
        .checked_add(t.checked_mul(24)?)?
        .checked_add(HEADER)
}

/// Reads a `.mesh` file from disk (its length is checked against the header before the data
/// is read).
pub fn read_file(path: &Path) -> Result<Mesh> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| GraphError::io(&name, e))?;
    let len = file.metadata().ok().map(|m| m.len());
    read(BufReader::with_capacity(CHUNK, file), &name, len)
}

/// Writes a `.mesh` file to disk, whole or not at all.
pub fn write_file(mesh: &Mesh, path: &Path) -> Result<()> {
    let name = path.display().to_string();
    irgl_files::write_whole(path, |w| write(mesh, w)).map_err(|e| GraphError::io(&name, e))
}

impl<R: Read> Pos<R> {
    /// Reads `count` 4-byte little-endian words, calling `each(index, word, offset)`.
    fn mesh_words(
        &mut self,
        count: u64,
        what: &str,
        mut each: impl FnMut(u64, [u8; 4], u64) -> Result<()>,
    ) -> Result<()> {
        let mut buf = vec![0u8; CHUNK];
        let mut done = 0u64;
        while done < count {
            let k = ((count - done) as usize).min(CHUNK / 4);
            let bytes = &mut buf[..k * 4];
            let start = self.offset;
            self.read_exact(bytes, &|| format!("{count} {what} (4 bytes each)"))?;
            for (i, w) in bytes.chunks_exact(4).enumerate() {
                each(
                    done + i as u64,
                    [w[0], w[1], w[2], w[3]],
                    start + (i * 4) as u64,
                )?;
            }
            done += k as u64;
        }
        Ok(())
    }
}

/// Reads a `.mesh` file. `len` is the file's length when known (a plain file): a truncated or
/// oversized file is then rejected before its data is read; without it, truncation is found
/// when the data runs out and trailing bytes after it.
pub fn read<R: Read>(reader: R, path: &str, len: Option<u64>) -> Result<Mesh> {
    let mut r = Pos {
        inner: reader,
        offset: 0,
        path: path.to_string(),
    };
    let mut h = [0u8; HEADER as usize];
    r.read_exact(&mut h, &|| {
        "a 56-byte header (magic, version, counts, origin, scale)".into()
    })?;
    if &h[0..8] != MAGIC {
        return Err(GraphError::byte(
            path,
            0,
            format!(
                "expected the magic `IRGLMESH`, found `{}` (is this an irglc .mesh file?)",
                h[0..8]
                    .iter()
                    .map(|&b| if b.is_ascii_graphic() {
                        char::from(b).to_string()
                    } else {
                        format!("\\x{b:02x}")
                    })
                    .collect::<String>()
            ),
        ));
    }
    let u32_at = |o: usize| u32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]]);
    let u64_at = |o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&h[o..o + 8]);
        u64::from_le_bytes(b)
    };
    let f64_at = |o: usize| f64::from_bits(u64_at(o));
    let version = u32_at(8);
    if version != VERSION {
        return Err(GraphError::byte(
            path,
            8,
            format!("expected .mesh version {VERSION}, found {version}"),
        ));
    }
    let reserved = u32_at(12);
    if reserved != 0 {
        return Err(GraphError::byte(
            path,
            12,
            format!("the reserved word must be 0, found {reserved}"),
        ));
    }
    let (nv, nt) = (u64_at(16), u64_at(24));
    for (what, n, at) in [("vertex", nv, 16), ("triangle", nt, 24)] {
        if n > MAX_COUNT {
            return Err(GraphError::byte(
                path,
                at,
                format!(
                    "{n} is too large a {what} count: at most {MAX_COUNT} (ids are u32, 0xffffffff is reserved)"
                ),
            ));
        }
    }
    let (ox, oy, scale) = (f64_at(32), f64_at(40), f64_at(48));
    for (what, x, at) in [("origin_x", ox, 32), ("origin_y", oy, 40)] {
        if !x.is_finite() {
            return Err(GraphError::byte(
                path,
                at,
                format!("{what} is {x}, expected a finite number"),
            ));
        }
    }
    if !(scale.is_finite() && scale > 0.0) {
        return Err(GraphError::byte(
            path,
            48,
            format!("scale is {scale}, expected a finite number > 0"),
        ));
    }
    let Some(expected) = file_len(nv, nt) else {
        return Err(GraphError::byte(
            path,
            16,
            "the counts overflow a file length",
        ));
    };
    if let Some(len) = len
        && len != expected
    {
        let what = if len < expected {
            "truncated"
        } else {
            "has trailing bytes"
        };
        return Err(GraphError::byte(
            path,
            len.min(expected),
            format!(
                "file {what}: V = {nv} vertices and T = {nt} triangles need 56 + 8 V + 24 T = {expected} bytes, but the file has {len}"
            ),
        ));
    }
    let grid = GRID as i32;
    let mut coords: Vec<i32> = Vec::with_capacity(crate::format::capped(nv * 2));
    r.mesh_words(nv * 2, "coordinates", |i, w, at| {
        let c = i32::from_le_bytes(w);
        if !(0..=grid).contains(&c) {
            return Err(GraphError::byte(
                path,
                at,
                format!(
                    "vertex {}: {} = {c} is outside the grid [0, {GRID}]",
                    i / 2,
                    if i % 2 == 0 { "x" } else { "y" }
                ),
            ));
        }
        coords.push(c);
        Ok(())
    })?;
    let points: Vec<Point> = coords
        .chunks_exact(2)
        .map(|c| Point { x: c[0], y: c[1] })
        .collect();
    drop(coords);
    let mut tri_v: Vec<[u32; 3]> = Vec::with_capacity(crate::format::capped(nt));
    let mut cur = [0u32; 3];
    r.mesh_words(nt * 3, "vertex ids of triangles", |i, w, at| {
        let x = u32::from_le_bytes(w);
        if u64::from(x) >= nv {
            return Err(GraphError::byte(
                path,
                at,
                format!(
                    "triangle {}: vertex id {x} is out of range: the mesh has {nv} vertices",
                    i / 3
                ),
            ));
        }
        cur[(i % 3) as usize] = x;
        if i % 3 == 2 {
            tri_v.push(cur);
        }
        Ok(())
    })?;
    let mut tri_n: Vec<[u32; 3]> = Vec::with_capacity(crate::format::capped(nt));
    r.mesh_words(nt * 3, "neighbours of triangles", |i, w, at| {
        let x = u32::from_le_bytes(w);
        if x != NONE && u64::from(x) >= nt {
            return Err(GraphError::byte(
                path,
                at,
                format!(
                    "triangle {}: neighbour {x} is out of range: the mesh has {nt} triangles (0xffffffff marks the boundary)",
                    i / 3
                ),
            ));
        }
        cur[(i % 3) as usize] = x;
        if i % 3 == 2 {
            tri_n.push(cur);
        }
        Ok(())
    })?;
    if len.is_none() {
        let mut extra = [0u8; 1];
        loop {
            match r.inner.read(&mut extra) {
                Ok(0) => break,
                Ok(_) => {
                    return Err(GraphError::byte(
                        path,
                        expected,
                        format!(
                            "file has trailing bytes: V = {nv} vertices and T = {nt} triangles end at byte {expected}"
                        ),
                    ));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(GraphError::io(path, e)),
            }
        }
    }
    let mesh = Mesh {
        points,
        tri_v,
        tri_n,
        origin_x: ox,
        origin_y: oy,
        scale,
    };
    mesh.validate()
        .map_err(|p| GraphError::file(path, format!("not a valid mesh: {p}")))?;
    Ok(mesh)
}

/// Writes a mesh in the `.mesh` layout. The mesh should be valid (the writer does not check).
pub fn write<W: Write>(mesh: &Mesh, mut out: W) -> io::Result<()> {
    let mut h = Vec::with_capacity(HEADER as usize);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    h.extend_from_slice(&(mesh.points.len() as u64).to_le_bytes());
    h.extend_from_slice(&(mesh.tri_v.len() as u64).to_le_bytes());
    h.extend_from_slice(&mesh.origin_x.to_le_bytes());
    h.extend_from_slice(&mesh.origin_y.to_le_bytes());
    h.extend_from_slice(&mesh.scale.to_le_bytes());
    out.write_all(&h)?;
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK);
    let flush = |buf: &mut Vec<u8>, out: &mut W, force: bool| -> io::Result<()> {
        if force || buf.len() + 16 > CHUNK {
            out.write_all(buf)?;
            buf.clear();
        }
        Ok(())
    };
    for p in &mesh.points {
        buf.extend_from_slice(&p.x.to_le_bytes());
        buf.extend_from_slice(&p.y.to_le_bytes());
        flush(&mut buf, &mut out, false)?;
    }
    for tris in [&mesh.tri_v, &mesh.tri_n] {
        for t in tris.iter() {
            for x in t {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            flush(&mut buf, &mut out, false)?;
        }
    }
    flush(&mut buf, &mut out, true)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate::generate;

    fn bytes(m: &Mesh) -> Vec<u8> {
        let mut v = Vec::new();
        write(m, &mut v).unwrap();
        v
    }

    fn small() -> Mesh {
        let p = Point::new;
        Mesh::new(
            vec![p(0, 0), p(4, 0), p(4, 4), p(0, 4), p(2, 2)],
            vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]],
            -1.5,
            2.0,
            0.25,
        )
        .unwrap()
    }

    fn err(b: &[u8], len: bool) -> String {
        read(b, "m.mesh", len.then_some(b.len() as u64))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn round_trip() {
        let m = small();
        let b = bytes(&m);
        assert_eq!(b.len() as u64, file_len(5, 4).unwrap());
        assert_eq!(&b[..8], b"IRGLMESH");
        assert_eq!(read(&b[..], "m.mesh", Some(b.len() as u64)).unwrap(), m);
        assert_eq!(read(&b[..], "m.mesh", None).unwrap(), m);
        let g = generate(500, 3).unwrap();
        assert_eq!(read(&bytes(&g)[..], "g.mesh", None).unwrap(), g);
    }

    #[test]
    fn layout_is_as_documented() {
        let b = bytes(&small());
        assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()), 1);
        assert_eq!(u64::from_le_bytes(b[16..24].try_into().unwrap()), 5);
        assert_eq!(u64::from_le_bytes(b[24..32].try_into().unwrap()), 4);
        assert_eq!(f64::from_le_bytes(b[32..40].try_into().unwrap()), -1.5);
        assert_eq!(f64::from_le_bytes(b[48..56].try_into().unwrap()), 0.25);
        // Vertex 1 = (4, 0) at 56 + 8.
        assert_eq!(i32::from_le_bytes(b[64..68].try_into().unwrap()), 4);
        // Triangle 1 = [1, 2, 4] at 56 + 40 + 12.
        let tv = 56 + 40;
        assert_eq!(
            u32::from_le_bytes(b[tv + 12..tv + 16].try_into().unwrap()),
            1
        );
        // Triangle 0's first neighbour is the boundary.
        let tn = tv + 48;
        assert_eq!(
            u32::from_le_bytes(b[tn..tn + 4].try_into().unwrap()),
            0xffff_ffff
        );
    }

    /// Damages a file's bytes.
    type Corrupt = Box<dyn Fn(&mut Vec<u8>)>;

    fn put(b: &mut [u8], at: usize, v: &[u8]) {
        b[at..at + v.len()].copy_from_slice(v);
    }

    #[test]
    fn corrupt_files_are_located() {
        let good = bytes(&small());
        let tv = 56 + 40;
        let tn = tv + 48;
        let cases: Vec<(Corrupt, bool, &str)> = vec![
            (
                Box::new(|b| b.truncate(30)),
                false,
                "m.mesh: byte 30: file truncated: expected a 56-byte header (magic, version, counts, origin, scale), found end of file",
            ),
            (
                Box::new(|b| put(b, 0, b"IRGLMESX")),
                true,
                "m.mesh: byte 0: expected the magic `IRGLMESH`, found `IRGLMESX` (is this an irglc .mesh file?)",
            ),
            (
                Box::new(|b| put(b, 8, &2u32.to_le_bytes())),
                true,
                "m.mesh: byte 8: expected .mesh version 1, found 2",
            ),
            (
                Box::new(|b| put(b, 12, &7u32.to_le_bytes())),
                true,
                "m.mesh: byte 12: the reserved word must be 0, found 7",
            ),
            (
                Box::new(|b| put(b, 24, &u64::from(u32::MAX).to_le_bytes())),
                true,
                "m.mesh: byte 24: 4294967295 is too large a triangle count: at most 4294967294 (ids are u32, 0xffffffff is reserved)",
            ),
            (
                Box::new(|b| put(b, 40, &f64::NAN.to_le_bytes())),
                true,
                "m.mesh: byte 40: origin_y is NaN, expected a finite number",
            ),
            (
                Box::new(|b| put(b, 48, &(-1.0f64).to_le_bytes())),
                true,
                "m.mesh: byte 48: scale is -1, expected a finite number > 0",
            ),
            (
                Box::new(|b| b.truncate(b.len() - 4)),
                true,
                "m.mesh: byte 188: file truncated: V = 5 vertices and T = 4 triangles need 56 + 8 V + 24 T = 192 bytes, but the file has 188",
            ),
            (
                Box::new(|b| b.truncate(b.len() - 4)),
                false,
                "m.mesh: byte 188: file truncated: expected 12 neighbours of triangles (4 bytes each), found end of file",
            ),
            (
                Box::new(|b| b.push(0)),
                true,
                "m.mesh: byte 192: file has trailing bytes: V = 5 vertices and T = 4 triangles need 56 + 8 V + 24 T = 192 bytes, but the file has 193",
            ),
            (
                Box::new(|b| b.push(0)),
                false,
                "m.mesh: byte 192: file has trailing bytes: V = 5 vertices and T = 4 triangles end at byte 192",
            ),
            (
                Box::new(|b| put(b, 60, &(-3i32).to_le_bytes())),
                true,
                "m.mesh: byte 60: vertex 0: y = -3 is outside the grid [0, 268435456]",
            ),
            (
                Box::new(move |b| put(b, tv + 4, &9u32.to_le_bytes())),
                true,
                "m.mesh: byte 100: triangle 0: vertex id 9 is out of range: the mesh has 5 vertices",
            ),
            (
                Box::new(move |b| put(b, tn + 16, &4u32.to_le_bytes())),
                true,
                "m.mesh: byte 160: triangle 1: neighbour 4 is out of range: the mesh has 4 triangles (0xffffffff marks the boundary)",
            ),
            (
                // Triangle 1 = [1, 2, 4] becomes [2, 1, 4]: clockwise.
                Box::new(move |b| {
                    put(b, tv + 12, &2u32.to_le_bytes());
                    put(b, tv + 16, &1u32.to_le_bytes());
                }),
                true,
                "m.mesh: not a valid mesh: triangle 1: vertices 2 1 4 at (4, 4) (4, 0) (2, 2) are clockwise, expected counterclockwise (and 2 more problems)",
            ),
            (
                // Triangle 0's neighbour across (1, 4) is 1; make it 2.
                Box::new(move |b| put(b, tn + 4, &2u32.to_le_bytes())),
                true,
                "m.mesh: not a valid mesh: triangle 0: neighbour 2 across (1, 4) does not hold the edge (4, 1): its vertices are 2 3 4 (and 1 more problems)",
            ),
            (
                // Vertex 4 moved onto vertex 0.
                Box::new(|b| put(b, 56 + 32, &[0; 8])),
                true,
                "m.mesh: not a valid mesh: triangle 0: vertices 0 1 4 at (0, 0) (4, 0) (0, 0) are collinear (a degenerate triangle) (and 2 more problems)",
            ),
        ];
        for (i, (corrupt, len, expected)) in cases.into_iter().enumerate() {
            let mut b = good.clone();
            corrupt(&mut b);
            assert_eq!(err(&b, len), expected, "case {i}");
        }
    }
}
