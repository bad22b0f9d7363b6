//! Comparing a program's output file with the CPU reference.
//!
//! | program | reads | check |
//! |---|---|---|
//! | `bfs` | node `level`, param `src` | exact equality per node |
//! | `sssp` | node `dist`, param `src` | exact equality per node (Dijkstra on the edge data) |
//! | `cc` | node `comp` | same partition as union-find components of the undirected view |
//! | `pr` | node `rank`, params `alpha`, `tol`, `max_iter` | `|gpu(v) - ref(v)| <= 10 tol / (1 - alpha) + 1e-4 ref(v)` |
//! | `tc` | scalar `triangles` | equality |
//! | `mis` | node `in_mis` | independence and maximality on the undirected view |
//! | `mst` | scalar `mst_weight`, edge `in_mst` | marked edges: no self-loop, no cycle, N - #components edges, weight = reference = scalar |
//! | `traverse` | node `hits` | exact equality with the in-degree: the pushed multiset is the destinations of all edges |
//! | `kcore` | node `core` | exact equality with the core numbers (Batagelj-Zaversnik on the adjacency lists) |
//! | `bc` | node `bc`, param `src` | `|gpu(v) - ref(v)| <= 1e-6 max(1, ref(v))` against Brandes from `src` (f64); nodes where the reference's path counts overflow f64 are counted, not compared |
//! | `color` | node `color` | every node colored, no edge between two distinct nodes of one color |
//!
//! Problems with the file itself (a missing array, a wrong node count) are errors; answers that
//! differ from the reference give a [`Verdict`] that is not ok.
//!
//! A [`Verifier`] checks many outputs against one graph (the tuner's variants) and computes
//! each reference once per its parameters: a triangle count or a PageRank of a large graph
//! takes seconds.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use crate::INF_U32;
use crate::csr::Csr;
use crate::error::{GraphError, Result};
use crate::output::{Array, OutputFile, Value, ValueType, Values};
use crate::reference::{bc, bfs, cc, kcore, mis, msf, pagerank, sssp, tc};

mod parts;
pub use parts::{PART_PROGRAMS, PartSource, verify_parts};

/// How many mismatches a verdict lists.
pub const SHOWN_MISMATCHES: usize = 10;

/// Relative part of the PageRank tolerance, for `f32` summation rounding.
pub const PR_RELATIVE_TOLERANCE: f64 = 1e-4;

/// The program families `verify` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    Bfs,
    Sssp,
    Cc,
    Pr,
    Tc,
    Mis,
    Mst,
    Traverse,
    Kcore,
    Color,
    Bc,
}

impl Program {
    pub const ALL: [Program; 11] = [
        Program::Bfs,
        Program::Sssp,
        Program::Cc,
        Program::Pr,
        Program::Tc,
        Program::Mis,
        Program::Mst,
        Program::Traverse,
        Program::Kcore,
        Program::Color,
        Program::Bc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Program::Bfs => "bfs",
            Program::Sssp => "sssp",
            Program::Cc => "cc",
            Program::Pr => "pr",
            Program::Tc => "tc",
            Program::Mis => "mis",
            Program::Mst => "mst",
            Program::Traverse => "traverse",
            Program::Kcore => "kcore",
            Program::Color => "color",
            Program::Bc => "bc",
        }
    }

    pub fn from_name(s: &str) -> Option<Program> {
        Program::ALL.into_iter().find(|p| p.name() == s)
    }
}

/// The outcome of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub program: Program,
    /// Whether the answer is accepted.
    pub ok: bool,
    /// What was compared, counts, tolerances.
    pub summary: Vec<String>,
    /// The first [`SHOWN_MISMATCHES`] mismatches, as `node 17: expected 3, got 4`.
    pub mismatches: Vec<String>,
    /// Total number of mismatches.
    pub mismatch_count: u64,
}

impl Verdict {
    fn new(program: Program) -> Self {
        Verdict {
            program,
            ok: true,
            summary: Vec::new(),
            mismatches: Vec::new(),
            mismatch_count: 0,
        }
    }

    fn mismatch(&mut self, line: impl FnOnce() -> String) {
        self.ok = false;
        if self.mismatches.len() < SHOWN_MISMATCHES {
            self.mismatches.push(line());
        }
        self.mismatch_count += 1;
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_verdict(
            f,
            self.program.name(),
            self.ok,
            &self.summary,
            &self.mismatches,
            self.mismatch_count,
        )
    }
}

/// A verdict as `irglc verify` prints it: `NAME: match` (or `MISMATCH`), the summary lines,
/// then the first mismatches.
pub(crate) fn write_verdict(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    ok: bool,
    summary: &[String],
    mismatches: &[String],
    mismatch_count: u64,
) -> fmt::Result {
    let word = if ok { "match" } else { "MISMATCH" };
    writeln!(f, "{name}: {word}")?;
    for s in summary {
        writeln!(f, "  {s}")?;
    }
    if !mismatches.is_empty() {
        writeln!(
            f,
            "  first {} of {mismatch_count} mismatches:",
            mismatches.len()
        )?;
        for m in mismatches {
            writeln!(f, "    {m}")?;
        }
    }
    Ok(())
}

/// Compares `out` with the reference for `program` on `g`.
pub fn verify(program: Program, g: &Csr, out: &OutputFile) -> Result<Verdict> {
    Verifier::new(g).verify(program, out)
}

/// Compares outputs with the references on one graph, computing each reference once.
pub struct Verifier<'g> {
    g: &'g Csr,
    /// The references computed so far, by program and parameters.
    memo: RefCell<HashMap<String, Rc<dyn Any>>>,
}

impl<'g> Verifier<'g> {
    pub fn new(g: &'g Csr) -> Self {
        Verifier {
            g,
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// Compares `out` with the reference for `program`.
    pub fn verify(&self, program: Program, out: &OutputFile) -> Result<Verdict> {
        verify_with(self, program, out)
    }

    /// The reference named `key`, computed by `f` the first time.
    fn memo<T: 'static>(&self, key: String, f: impl FnOnce(&Csr) -> T) -> Rc<T> {
        if let Some(r) = self.memo.borrow().get(&key) {
            return Rc::clone(r).downcast::<T>().expect("one type per key");
        }
        let r = Rc::new(f(self.g));
        self.memo.borrow_mut().insert(key, r.clone());
        r
    }
}

fn verify_with(vf: &Verifier<'_>, program: Program, out: &OutputFile) -> Result<Verdict> {
    let g = vf.g;
    if out.nodes != u64::from(g.n) || out.edges != g.num_edges() {
        return Err(GraphError::file(
            &out.path,
            format!(
                "the output is for a graph with {} nodes and {} edges, but the graph has {} nodes and {} edges (verify against the same .gr the program read)",
                out.nodes,
                out.edges,
                g.n,
                g.num_edges()
            ),
        ));
    }
    match program {
        Program::Bfs => verify_bfs(vf, out),
        Program::Sssp => verify_sssp(vf, out),
        Program::Cc => verify_cc(vf, out),
        Program::Pr => verify_pr(vf, out),
        Program::Tc => verify_tc(vf, out),
        Program::Mis => verify_mis(g, out),
        Program::Mst => verify_mst(vf, out),
        Program::Traverse => verify_traverse(vf, out),
        Program::Kcore => verify_kcore(vf, out),
        Program::Color => verify_color(g, out),
        Program::Bc => verify_bc(vf, out),
    }
}

fn missing(out: &OutputFile, what: &str, program: Program) -> GraphError {
    GraphError::file(
        &out.path,
        format!(
            "expected {what}, which `{}` programs output (see docs/output-format.md)",
            program.name()
        ),
    )
}

fn node_array<'a>(out: &'a OutputFile, name: &str, program: Program) -> Result<&'a Array> {
    out.node_array(name)
        .ok_or_else(|| missing(out, &format!("a node array `{name}`"), program))
}

fn unsigned<'a>(out: &OutputFile, a: &'a Array, program: Program) -> Result<&'a [u64]> {
    match &a.values {
        Values::Unsigned(v) => Ok(v),
        _ => Err(GraphError::line(
            &out.path,
            a.line,
            format!(
                "`{}` has type {}, expected an unsigned integer type for `{}`",
                a.name,
                a.ty.name(),
                program.name()
            ),
        )),
    }
}

fn param<T: std::str::FromStr>(
    out: &OutputFile,
    name: &str,
    program: Program,
    what: &str,
) -> Result<T> {
    let (value, line) = out
        .param(name)
        .ok_or_else(|| missing(out, &format!("a `param {name}` line"), program))?;
    value.parse().map_err(|_| {
        GraphError::line(
            &out.path,
            line,
            format!("param `{name}` is `{value}`, expected {what}"),
        )
    })
}

fn source(g: &Csr, out: &OutputFile, program: Program) -> Result<u32> {
    let src: u64 = param(out, "src", program, "a node id")?;
    if src >= u64::from(g.n) {
        let line = out.param("src").map_or(0, |p| p.1);
        return Err(GraphError::line(
            &out.path,
            line,
            format!("param `src` is {src}, but the graph has {} nodes", g.n),
        ));
    }
    Ok(src as u32)
}

fn show_u32(x: u64) -> String {
    if x == u64::from(INF_U32) {
        format!("{x} (INF)")
    } else {
        x.to_string()
    }
}

fn compare_exact(v: &mut Verdict, expected: impl Iterator<Item = u64>, got: &[u64]) {
    for (i, (e, &g)) in expected.zip(got).enumerate() {
        if e != g {
            v.mismatch(|| format!("node {i}: expected {}, got {}", show_u32(e), show_u32(g)));
        }
    }
}

fn verify_bfs(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let (g, p) = (vf.g, Program::Bfs);
    let src = source(g, out, p)?;
    let got = unsigned(out, node_array(out, "level", p)?, p)?;
    let levels = vf.memo(format!("bfs {src}"), |g| bfs::bfs_levels(g, src));
    let mut v = Verdict::new(p);
    compare_exact(&mut v, levels.iter().map(|&x| u64::from(x)), got);
    let reached = levels.iter().filter(|&&x| x != INF_U32).count();
    v.summary.push(format!(
        "compared the levels of {} nodes from src = {src} ({reached} reachable, max level {}): {} differ",
        g.n,
        levels.iter().filter(|&&x| x != INF_U32).max().unwrap_or(&0),
        v.mismatch_count
    ));
    Ok(v)
}

/// The number of edges into each node: what `traverse` counts of its pushes.
fn in_degrees(g: &Csr) -> Vec<u64> {
    let mut d = vec![0u64; g.n as usize];
    for v in 0..g.n {
        for &w in g.neighbours(v) {
            d[w as usize] += 1;
        }
    }
    d
}

fn verify_traverse(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let (g, p) = (vf.g, Program::Traverse);
    let got = unsigned(out, node_array(out, "hits", p)?, p)?;
    let expected = vf.memo("in-degrees".to_string(), in_degrees);
    let mut v = Verdict::new(p);
    compare_exact(&mut v, expected.iter().copied(), got);
    let pushed: u64 = got.iter().sum();
    v.summary.push(format!(
        "compared the pushes counted at {} nodes with their in-degrees ({} edges, {pushed} pushes counted): {} differ",
        g.n,
        g.num_edges(),
        v.mismatch_count
    ));
    Ok(v)
}

fn verify_kcore(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let (g, p) = (vf.g, Program::Kcore);
    let got = unsigned(out, node_array(out, "core", p)?, p)?;
    let cores = vf.memo("kcore".to_string(), kcore::core_numbers);
    let mut v = Verdict::new(p);
    compare_exact(&mut v, cores.iter().map(|&x| u64::from(x)), got);
    v.summary.push(format!(
        "compared the core numbers of {} nodes (largest {}): {} differ",
        g.n,
        cores.iter().max().unwrap_or(&0),
        v.mismatch_count
    ));
    Ok(v)
}

fn verify_bc(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let (g, p) = (vf.g, Program::Bc);
    let src = source(g, out, p)?;
    let a = node_array(out, "bc", p)?;
    let Values::Float(got) = &a.values else {
        return Err(GraphError::line(
            &out.path,
            a.line,
            format!("`bc` has type {}, expected f32 or f64", a.ty.name()),
        ));
    };
    let expected = vf.memo(format!("bc {src}"), |g| bc::dependencies(g, src));
    let mut v = Verdict::new(p);
    let mut worst = 0f64;
    let mut overflowed = 0u64;
    for (i, (&e, &x)) in expected.iter().zip(got).enumerate() {
        if !e.is_finite() {
            // More shortest paths than an f64 holds (a large grid): nothing to compare.
            overflowed += 1;
            continue;
        }
        let err = (x - e).abs();
        worst = worst.max(err / e.max(1.0));
        // NaN never passes.
        if err.is_nan() || err > 1e-6 * e.max(1.0) {
            v.mismatch(|| format!("node {i}: expected {e}, got {x}"));
        }
    }
    v.summary.push(format!(
        "compared the dependencies of {} nodes on src = {src} (largest {:.6e}) within 1e-6 relative: {} differ (worst relative error {worst:.2e})",
        g.n,
        expected.iter().copied().fold(0.0, f64::max),
        v.mismatch_count
    ));
    if overflowed > 0 {
        v.summary.push(format!(
            "not compared: {overflowed} nodes whose path counts overflow f64 in the reference too (the program's `overflowed` says how many of its own did)"
        ));
    }
    Ok(v)
}

fn verify_color(g: &Csr, out: &OutputFile) -> Result<Verdict> {
    let p = Program::Color;
    let got = unsigned(out, node_array(out, "color", p)?, p)?;
    let mut v = Verdict::new(p);
    for (i, &c) in got.iter().enumerate() {
        if c >= u64::from(INF_U32) {
            v.mismatch(|| format!("node {i}: not colored (color {})", show_u32(c)));
        }
    }
    let mut conflicts = 0u64;
    for a in 0..g.n {
        for &b in g.neighbours(a) {
            let (ca, cb) = (got[a as usize], got[b as usize]);
            if a < b && ca == cb && ca < u64::from(INF_U32) {
                conflicts += 1;
                v.mismatch(|| format!("nodes {a} and {b}: neighbours with the same color {ca}"));
            }
        }
    }
    let colors: std::collections::BTreeSet<u64> = got
        .iter()
        .copied()
        .filter(|&c| c < u64::from(INF_U32))
        .collect();
    let max_degree = (0..g.n).map(|a| g.degree(a)).max().unwrap_or(0);
    v.summary.push(format!(
        "checked the colors of {} nodes: {} colors (largest {}; the largest degree is {max_degree}), {conflicts} edges join one color",
        g.n,
        colors.len(),
        colors.iter().next_back().map_or("none".to_string(), |c| c.to_string()),
    ));
    Ok(v)
}

fn verify_sssp(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let (g, p) = (vf.g, Program::Sssp);
    let src = source(g, out, p)?;
    let got = unsigned(out, node_array(out, "dist", p)?, p)?;
    let dist = vf.memo(format!("sssp {src}"), |g| sssp::dijkstra(g, src));
    let dist = dist.as_ref().as_ref().ok_or_else(|| {
        GraphError::Invalid(
            "sssp needs edge weights, but the graph has none (convert it with --weights SEED)"
                .into(),
        )
    })?;
    let mut v = Verdict::new(p);
    let as_u32 = |d: u64| {
        if d == sssp::UNREACHABLE {
            u64::from(INF_U32)
        } else {
            d
        }
    };
    compare_exact(&mut v, dist.iter().map(|&d| as_u32(d)), got);
    if let Some(big) = dist
        .iter()
        .find(|&&d| d != sssp::UNREACHABLE && d >= u64::from(INF_U32))
    {
        v.summary.push(format!(
            "note: some distances (e.g. {big}) do not fit u32; a u32 program cannot be right here"
        ));
    }
    v.summary.push(format!(
        "compared the distances of {} nodes from src = {src}: {} differ",
        g.n, v.mismatch_count
    ));
    Ok(v)
}

fn verify_cc(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let (g, p) = (vf.g, Program::Cc);
    let got = unsigned(out, node_array(out, "comp", p)?, p)?;
    let expected = vf.memo("cc".to_string(), cc::components_union_find);
    Ok(components_verdict(
        &expected,
        got,
        &format!("{} nodes", g.n),
    ))
}

/// cc's verdict: `got` against the components `expected`, compared as partitions of `what`.
fn components_verdict(expected: &[u32], got: &[u64], what: &str) -> Verdict {
    let got32: Vec<u32> = got.iter().map(|&x| x as u32).collect();
    let mut v = Verdict::new(Program::Cc);
    for m in cc::same_partition(expected, &got32) {
        v.mismatch(|| {
            format!(
                "node {}: expected in the component of node {}, got grouped with node {} (label {})",
                m.node, m.expected_with, m.got_with, got[m.node as usize]
            )
        });
    }
    v.summary.push(format!(
        "compared as partitions of {what}: expected {} components, got {}; {} nodes misplaced",
        cc::count(expected),
        cc::count(&got32),
        v.mismatch_count
    ));
    v
}

/// A PageRank output's `alpha` and `tol`, checked, and its ranks.
fn pr_output(out: &OutputFile) -> Result<(f64, f64, &[f64])> {
    let p = Program::Pr;
    let alpha: f64 = param(out, "alpha", p, "a number in [0, 1)")?;
    let tol: f64 = param(out, "tol", p, "a non-negative number")?;
    if !(0.0..1.0).contains(&alpha) || tol.is_nan() || tol < 0.0 {
        return Err(GraphError::file(
            &out.path,
            format!("params alpha = {alpha} and tol = {tol}: expected 0 <= alpha < 1 and tol >= 0"),
        ));
    }
    let a = node_array(out, "rank", p)?;
    let Values::Float(rank) = &a.values else {
        return Err(GraphError::line(
            &out.path,
            a.line,
            format!("`rank` has type {}, expected f32 or f64", a.ty.name()),
        ));
    };
    Ok((alpha, tol, rank))
}

fn verify_pr(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let (g, p) = (vf.g, Program::Pr);
    let (alpha, tol, got) = pr_output(out)?;
    let max_iter: u64 = param(out, "max_iter", p, "a non-negative integer")?;
    let r = vf.memo(format!("pr {alpha:e} {tol:e} {max_iter}"), |g| {
        pagerank::pagerank(
            g,
            pagerank::PageRankParams {
                alpha,
                tol,
                max_iter,
            },
        )
    });
    let abs = 10.0 * tol / (1.0 - alpha);
    let mut v = Verdict::new(p);
    let mut worst = (0.0f64, 0usize);
    for (i, (&e, &x)) in r.rank.iter().zip(got).enumerate() {
        let diff = (x - e).abs();
        if diff > worst.0 || diff.is_nan() {
            worst = (if diff.is_nan() { f64::INFINITY } else { diff }, i);
        }
        let within = diff <= abs + PR_RELATIVE_TOLERANCE * e;
        if !within {
            v.mismatch(|| {
                format!("node {i}: expected {e:.9e}, got {x:.9e} (difference {diff:.3e})")
            });
        }
    }
    let sum_ref: f64 = r.rank.iter().sum();
    let sum_got: f64 = got.iter().sum();
    v.summary.push(format!(
        "reference: alpha = {alpha}, tol = {tol}, max_iter = {max_iter}, {} iterations (last change {:.3e}), ranks sum to {sum_ref:.9}",
        r.iterations, r.last_change
    ));
    v.summary.push(format!(
        "tolerance per node: {abs:.3e} + {PR_RELATIVE_TOLERANCE:e} * ref(v); largest difference {:.3e} at node {}; the program's ranks sum to {sum_got:.9}",
        worst.0, worst.1
    ));
    v.summary.push(format!(
        "{} of {} nodes outside the tolerance",
        v.mismatch_count, g.n
    ));
    Ok(v)
}

fn scalar_u64(out: &OutputFile, name: &str, program: Program) -> Result<u64> {
    let s = out
        .scalar(name)
        .ok_or_else(|| missing(out, &format!("a `scalar {name}`"), program))?;
    match s.value {
        Value::Unsigned(x) => Ok(x),
        Value::Signed(x) if x >= 0 => Ok(x as u64),
        _ => Err(GraphError::line(
            &out.path,
            s.line,
            format!(
                "scalar `{name}` is {} of type {}, expected an unsigned integer",
                s.value,
                s.ty.name()
            ),
        )),
    }
}

fn verify_tc(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let p = Program::Tc;
    let got = scalar_u64(out, "triangles", p)?;
    let expected = *vf.memo("tc".to_string(), tc::triangles);
    let mut v = Verdict::new(p);
    if got != expected {
        v.mismatch(|| format!("triangles: expected {expected}, got {got}"));
    }
    v.summary.push(format!(
        "triangles of the graph taken as undirected and simple: expected {expected}, got {got}"
    ));
    Ok(v)
}

/// mis's `in_mis`, checked to hold 0 or 1 at every node.
fn mis_output(out: &OutputFile) -> Result<&[u64]> {
    let p = Program::Mis;
    let a = node_array(out, "in_mis", p)?;
    let got = unsigned(out, a, p)?;
    if a.ty != ValueType::Bool && got.iter().any(|&x| x > 1) {
        return Err(GraphError::line(
            &out.path,
            a.line,
            "`in_mis` must hold 0 or 1 for every node",
        ));
    }
    Ok(got)
}

fn verify_mis(g: &Csr, out: &OutputFile) -> Result<Verdict> {
    let p = Program::Mis;
    let got = mis_output(out)?;
    let set: Vec<bool> = got.iter().map(|&x| x == 1).collect();
    let mut v = Verdict::new(p);
    for problem in mis::check(g, &set) {
        v.mismatch(|| problem.to_string());
    }
    v.summary.push(format!(
        "checked independence and maximality of a set of {} of {} nodes (graph taken as undirected): {} problems",
        set.iter().filter(|&&b| b).count(),
        g.n,
        v.mismatch_count
    ));
    Ok(v)
}

fn verify_mst(vf: &Verifier<'_>, out: &OutputFile) -> Result<Verdict> {
    let (g, p) = (vf.g, Program::Mst);
    let reported = scalar_u64(out, "mst_weight", p)?;
    let a = out
        .edge_array("in_mst")
        .ok_or_else(|| missing(out, "an edge array `in_mst`", p))?;
    let marks = unsigned(out, a, p)?;
    let marked: Vec<bool> = marks.iter().map(|&x| x != 0).collect();
    let no_weights = || {
        GraphError::Invalid(
            "mst needs edge weights, but the graph has none (convert it with --weights SEED)"
                .into(),
        )
    };
    let forest = vf.memo("mst".to_string(), msf::kruskal);
    let forest = forest.as_ref().as_ref().ok_or_else(no_weights)?;
    let m = msf::check_marked(g, &marked).ok_or_else(no_weights)?;
    let mut v = Verdict::new(p);
    for &e in &m.self_loops {
        v.mismatch(|| format!("edge {e}: a self-loop is marked in_mst"));
    }
    for &(a, b) in &m.cycle_edges {
        v.mismatch(|| {
            format!("edge ({a}, {b}): marked, but closes a cycle with other marked edges")
        });
    }
    if m.edges != forest.edges {
        v.mismatch(|| {
            format!(
                "marked edges: expected {} (N - {} components), got {} distinct undirected edges",
                forest.edges, forest.components, m.edges
            )
        });
    }
    if m.weight != forest.weight {
        v.mismatch(|| {
            format!(
                "weight of marked edges: expected {}, got {}",
                forest.weight, m.weight
            )
        });
    }
    if reported != forest.weight {
        v.mismatch(|| {
            format!(
                "scalar mst_weight: expected {}, got {reported}",
                forest.weight
            )
        });
    }
    v.summary.push(format!(
        "reference forest: weight {}, {} edges, {} components; marked: {} undirected edges of weight {}; reported mst_weight {reported}",
        forest.weight, forest.edges, forest.components, m.edges, m.weight
    ));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;
    use crate::output::parse;

    fn path3() -> Csr {
        let mut l = EdgeList::new(3, true);
        for (u, v, w) in [(0, 1, 2), (1, 0, 2), (1, 2, 5), (2, 1, 5)] {
            l.push(u, v, w);
        }
        Csr::from_edge_list(l)
    }

    fn file(body: &str) -> OutputFile {
        let text = format!("irgl-output 1\nprogram t\nnodes 3\nedges 4\n{body}");
        parse(text.as_bytes(), "t.out").unwrap()
    }

    #[test]
    fn bfs_match_and_mismatch() {
        let g = path3();
        let ok = verify(
            Program::Bfs,
            &g,
            &file("param src 0\nnode level u32\n0\n1\n2\n"),
        )
        .unwrap();
        assert!(ok.ok, "{ok}");
        let bad = verify(
            Program::Bfs,
            &g,
            &file("param src 0\nnode level u32\n0\n1\n3\n"),
        )
        .unwrap();
        assert!(!bad.ok);
        assert_eq!(bad.mismatches, vec!["node 2: expected 2, got 3"]);
    }

    #[test]
    fn mst_accepts_one_or_both_directions() {
        let g = path3();
        let one = verify(
            Program::Mst,
            &g,
            &file("scalar mst_weight u64 7\nedge in_mst bool\n1\n0\n1\n0\n"),
        )
        .unwrap();
        assert!(one.ok, "{one}");
        let both = verify(
            Program::Mst,
            &g,
            &file("scalar mst_weight u64 7\nedge in_mst bool\n1\n1\n1\n1\n"),
        )
        .unwrap();
        assert!(both.ok, "{both}");
        let short = verify(
            Program::Mst,
            &g,
            &file("scalar mst_weight u64 7\nedge in_mst bool\n1\n1\n0\n0\n"),
        )
        .unwrap();
        assert!(!short.ok);
    }

    #[test]
    fn a_verifier_computes_each_reference_once() {
        let g = path3();
        let vf = Verifier::new(&g);
        for (body, ok) in [
            ("param src 0\nnode level u32\n0\n1\n2\n", true),
            ("param src 0\nnode level u32\n0\n1\n3\n", false),
            ("param src 2\nnode level u32\n2\n1\n0\n", true),
        ] {
            let v = vf.verify(Program::Bfs, &file(body)).unwrap();
            assert_eq!(v.ok, ok, "{body}: {v}");
            assert_eq!(v, verify(Program::Bfs, &g, &file(body)).unwrap());
        }
        // One reference per source node.
        assert_eq!(vf.memo.borrow().len(), 2);
        let t = vf
            .verify(Program::Tc, &file("scalar triangles u64 0\n"))
            .unwrap();
        assert!(t.ok, "{t}");
        assert_eq!(vf.memo.borrow().len(), 3);
    }

    #[test]
    fn wrong_graph_is_an_error() {
        let g = Csr::empty(2);
        let e = verify(Program::Tc, &g, &file("scalar triangles u64 0\n")).unwrap_err();
        assert!(e.to_string().contains("the graph has 2 nodes"), "{e}");
    }
}
