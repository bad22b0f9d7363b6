//! Reader for the output files of generated programs, as specified in `docs/output-format.md`:
//!
//! ```text
//! irgl-output 1
//! program bfs
//! nodes 3
//! edges 2
//! param src 0
//! scalar iterations u32 2
//! node level u32
//! 0
//! 1
//! 4294967295
//! ```
//!
//! The reader checks the header, the order of sections (header, `param`, `scalar`, then `node`
//! and `edge` sections), that every array has exactly `nodes` or `edges` values, and that each
//! value is valid for its type. Lines starting with `#` and blank lines are skipped everywhere.

use std::io::BufRead;

use crate::error::{GraphError, Result};
use crate::format::{Lines, Tokens, parse_u64, show};

/// The value types of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    Bool,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    Node,
    Edge,
}

impl ValueType {
    fn parse(t: &[u8]) -> Option<ValueType> {
        Some(match t {
            b"bool" => ValueType::Bool,
            b"u32" => ValueType::U32,
            b"i32" => ValueType::I32,
            b"u64" => ValueType::U64,
            b"i64" => ValueType::I64,
            b"f32" => ValueType::F32,
            b"f64" => ValueType::F64,
            b"node" => ValueType::Node,
            b"edge" => ValueType::Edge,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ValueType::Bool => "bool",
            ValueType::U32 => "u32",
            ValueType::I32 => "i32",
            ValueType::U64 => "u64",
            ValueType::I64 => "i64",
            ValueType::F32 => "f32",
            ValueType::F64 => "f64",
            ValueType::Node => "node",
            ValueType::Edge => "edge",
        }
    }

    /// Whether values are unsigned integers (bool, u32, u64, node, edge).
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            ValueType::Bool | ValueType::U32 | ValueType::U64 | ValueType::Node | ValueType::Edge
        )
    }
}

/// One value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Unsigned(x) => write!(f, "{x}"),
            Value::Signed(x) => write!(f, "{x}"),
            Value::Float(x) => write!(f, "{x}"),
        }
    }
}

/// The values of an array, stored by kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Unsigned(Vec<u64>),
    Signed(Vec<i64>),
    Float(Vec<f64>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Unsigned(v) => v.len(),
            Values::Signed(v) => v.len(),
            Values::Float(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&mut self, v: Value) {
        match (self, v) {
            (Values::Unsigned(a), Value::Unsigned(x)) => a.push(x),
            (Values::Signed(a), Value::Signed(x)) => a.push(x),
            (Values::Float(a), Value::Float(x)) => a.push(x),
            _ => {}
        }
    }
}

/// A `scalar` line.
#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub name: String,
    pub ty: ValueType,
    pub value: Value,
    pub line: u64,
}

/// A `node` or `edge` section.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub name: String,
    pub ty: ValueType,
    pub values: Values,
    /// Line of the section header.
    pub line: u64,
}

/// A parsed output file.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputFile {
    /// The file name, for messages.
    pub path: String,
    pub program: String,
    pub nodes: u64,
    pub edges: u64,
    /// `(name, value, line)`.
    pub params: Vec<(String, String, u64)>,
    pub scalars: Vec<Scalar>,
    pub node_arrays: Vec<Array>,
    pub edge_arrays: Vec<Array>,
}

impl OutputFile {
    /// A `param`'s value and line.
    pub fn param(&self, name: &str) -> Option<(&str, u64)> {
        self.params
            .iter()
            .find(|p| p.0 == name)
            .map(|p| (p.1.as_str(), p.2))
    }

    pub fn scalar(&self, name: &str) -> Option<&Scalar> {
        self.scalars.iter().find(|s| s.name == name)
    }

    pub fn node_array(&self, name: &str) -> Option<&Array> {
        self.node_arrays.iter().find(|a| a.name == name)
    }

    pub fn edge_array(&self, name: &str) -> Option<&Array> {
        self.edge_arrays.iter().find(|a| a.name == name)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Params,
    Scalars,
    Arrays,
}

/// Parses an output file.
pub fn parse<R: BufRead>(reader: R, path: &str) -> Result<OutputFile> {
    let mut lines = Lines::new(reader, path);
    let err = |no: u64, m: String| GraphError::line(path, no, m);
    // Header: four fixed lines.
    let mut header: Vec<u64> = Vec::new();
    let mut program = String::new();
    let expected_header = ["irgl-output", "program", "nodes", "edges"];
    while header.len() < 4 {
        let Some((no, line)) = next_content(&mut lines)? else {
            return Err(GraphError::line(
                path,
                lines.line,
                format!(
                    "expected the header line `{} ...`, found end of file",
                    expected_header[header.len()]
                ),
            ));
        };
        let mut t = Tokens::new(line);
        let key = t.next_token().unwrap_or_default();
        let want = expected_header[header.len()];
        if key != want.as_bytes() {
            return Err(err(
                no,
                format!(
                    "expected the header line `{want} ...`, found `{}`",
                    show(line)
                ),
            ));
        }
        match header.len() {
            0 => {
                let v = t.u64("the format version").map_err(|m| err(no, m))?;
                if v != 1 {
                    return Err(err(no, format!("expected format version 1, found {v}")));
                }
                header.push(v);
            }
            1 => {
                program = t
                    .next_token()
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .ok_or_else(|| err(no, "expected the program name after `program`".into()))?;
                header.push(0);
            }
            _ => {
                let v = t
                    .u64(&format!("the {want} count"))
                    .map_err(|m| err(no, m))?;
                header.push(v);
            }
        }
        t.end(want).map_err(|m| err(no, m))?;
    }
    let (nodes, edges) = (header[2], header[3]);
    let mut out = OutputFile {
        path: path.to_string(),
        program,
        nodes,
        edges,
        params: Vec::new(),
        scalars: Vec::new(),
        node_arrays: Vec::new(),
        edge_arrays: Vec::new(),
    };
    let mut stage = Stage::Params;
    let mut seen: Vec<String> = Vec::new();
    let order = "sections must come in the order header, param, scalar, node/edge";
    while let Some((no, line)) = next_content(&mut lines)? {
        let mut t = Tokens::new(line);
        let key = t.next_token().unwrap_or_default();
        let (this_stage, kind) = match key {
            b"param" => (Stage::Params, "param"),
            b"scalar" => (Stage::Scalars, "scalar"),
            b"node" => (Stage::Arrays, "node"),
            b"edge" => (Stage::Arrays, "edge"),
            _ => {
                return Err(err(
                    no,
                    format!(
                        "expected a `param`, `scalar`, `node` or `edge` line, found `{}`",
                        show(line)
                    ),
                ));
            }
        };
        if this_stage < stage {
            let after = if stage == Stage::Arrays {
                "a `node` or `edge` section"
            } else {
                "a `scalar` line"
            };
            return Err(err(no, format!("`{kind}` line after {after}: {order}")));
        }
        stage = this_stage;
        let name = t
            .next_token()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .ok_or_else(|| err(no, format!("expected a name after `{kind}`")))?;
        let dup_key = format!("{kind} {name}");
        if seen.contains(&dup_key) {
            return Err(err(no, format!("{kind} `{name}` appears twice")));
        }
        seen.push(dup_key);
        if kind == "param" {
            let rest = String::from_utf8_lossy(line).into_owned();
            let value = rest
                .trim()
                .strip_prefix("param")
                .map(str::trim_start)
                .and_then(|r| r.strip_prefix(name.as_str()))
                .map(str::trim)
                .unwrap_or_default()
                .to_string();
            if value.is_empty() {
                return Err(err(no, format!("expected a value for param `{name}`")));
            }
            out.params.push((name, value, no));
            continue;
        }
        let ty_tok = t.next_token();
        let ty = ty_tok.and_then(ValueType::parse).ok_or_else(|| {
            err(
                no,
                format!(
                    "expected a type (bool u32 i32 u64 i64 f32 f64 node edge) after `{kind} {name}`, found `{}`",
                    show(ty_tok.unwrap_or_default())
                ),
            )
        })?;
        if kind == "scalar" {
            let tok = t.next_token().unwrap_or_default();
            let value = parse_value(tok, ty).map_err(|m| err(no, m))?;
            t.end("the scalar's value").map_err(|m| err(no, m))?;
            out.scalars.push(Scalar {
                name,
                ty,
                value,
                line: no,
            });
            continue;
        }
        t.end(&format!("`{kind} {name} {}`", ty.name()))
            .map_err(|m| err(no, m))?;
        let count = if kind == "node" { nodes } else { edges };
        let mut values = if ty.is_unsigned() {
            Values::Unsigned(Vec::with_capacity(crate::format::capped(count)))
        } else if matches!(ty, ValueType::I32 | ValueType::I64) {
            Values::Signed(Vec::with_capacity(crate::format::capped(count)))
        } else {
            Values::Float(Vec::with_capacity(crate::format::capped(count)))
        };
        for i in 0..count {
            let Some((vno, vline)) = next_content(&mut lines)? else {
                return Err(GraphError::line(
                    path,
                    lines.line,
                    format!(
                        "{kind} array `{name}` (line {no}) needs {count} values, one per {kind}, but the file ends after {i}"
                    ),
                ));
            };
            let mut vt = Tokens::new(vline);
            let tok = vt.next_token().unwrap_or_default();
            let v = parse_value(tok, ty).map_err(|m| {
                err(
                    vno,
                    format!("{m} (value {i} of {kind} array `{name}` from line {no})"),
                )
            })?;
            vt.end("the value").map_err(|m| err(vno, m))?;
            values.push(v);
        }
        let array = Array {
            name,
            ty,
            values,
            line: no,
        };
        if kind == "node" {
            out.node_arrays.push(array);
        } else {
            out.edge_arrays.push(array);
        }
    }
    Ok(out)
}

/// The next line that is neither blank nor a `#` comment, trimmed.
fn next_content<R: BufRead>(lines: &mut Lines<R>) -> Result<Option<(u64, &[u8])>> {
    loop {
        let no = match lines.next_line()? {
            None => return Ok(None),
            Some((no, line)) => {
                let t = line.trim_ascii();
                if t.is_empty() || t[0] == b'#' {
                    continue;
                }
                no
            }
        };
        return Ok(Some((no, lines.current().trim_ascii())));
    }
}

/// Parses one value of type `ty`.
fn parse_value(tok: &[u8], ty: ValueType) -> std::result::Result<Value, String> {
    if tok.is_empty() {
        return Err(format!("expected a {} value, found end of line", ty.name()));
    }
    let bad = || format!("expected a {} value, found `{}`", ty.name(), show(tok));
    match ty {
        ValueType::Bool => match tok {
            b"0" => Ok(Value::Unsigned(0)),
            b"1" => Ok(Value::Unsigned(1)),
            _ => Err(format!(
                "expected a bool value, 0 or 1, found `{}`",
                show(tok)
            )),
        },
        ValueType::U32 | ValueType::Node => {
            let x = parse_u64(tok).ok_or_else(bad)?;
            if x > u64::from(u32::MAX) {
                return Err(format!("{x} does not fit {}", ty.name()));
            }
            Ok(Value::Unsigned(x))
        }
        ValueType::U64 | ValueType::Edge => parse_u64(tok).map(Value::Unsigned).ok_or_else(bad),
        ValueType::I32 | ValueType::I64 => {
            let x: i64 = std::str::from_utf8(tok)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(bad)?;
            if ty == ValueType::I32 && i32::try_from(x).is_err() {
                return Err(format!("{x} does not fit i32"));
            }
            Ok(Value::Signed(x))
        }
        ValueType::F32 | ValueType::F64 => std::str::from_utf8(tok)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .map(Value::Float)
            .ok_or_else(bad),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "irgl-output 1\n# a comment\nprogram bfs\nnodes 3\nedges 2\n\nparam src 0\nscalar iterations u32 2\nnode level u32\n0\n1\n4294967295\nedge used bool\n1\n# mid-array comment\n0\nnode rank f64\n0.5\ninf\nnan\n";

    #[test]
    fn parses_the_documented_layout() {
        let o = parse(SAMPLE.as_bytes(), "o.out").unwrap();
        assert_eq!((o.program.as_str(), o.nodes, o.edges), ("bfs", 3, 2));
        assert_eq!(o.param("src"), Some(("0", 7)));
        assert_eq!(o.scalar("iterations").unwrap().value, Value::Unsigned(2));
        assert_eq!(
            o.node_array("level").unwrap().values,
            Values::Unsigned(vec![0, 1, 4294967295])
        );
        assert_eq!(
            o.edge_array("used").unwrap().values,
            Values::Unsigned(vec![1, 0])
        );
        let Values::Float(r) = &o.node_array("rank").unwrap().values else {
            panic!("rank is f64")
        };
        assert!(r[1].is_infinite() && r[2].is_nan());
    }

    #[test]
    fn reports_short_arrays_and_bad_values() {
        let e = parse(
            &b"irgl-output 1\nprogram p\nnodes 2\nedges 0\nnode x u32\n1\n"[..],
            "o",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "o:6: node array `x` (line 5) needs 2 values, one per node, but the file ends after 1"
        );
        let e = parse(
            &b"irgl-output 1\nprogram p\nnodes 1\nedges 0\nnode x bool\n2\n"[..],
            "o",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "o:6: expected a bool value, 0 or 1, found `2` (value 0 of node array `x` from line 5)"
        );
        let e = parse(
            &b"irgl-output 1\nprogram p\nnodes 0\nedges 0\nscalar s u32 1\nparam a 1\n"[..],
            "o",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("o:6: `param` line after"), "{e}");
    }
}
