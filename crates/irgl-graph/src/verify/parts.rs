//! Verifying an output against a graph held as parts (`irglc graph gen rmat --parts`), one
//! part in memory at a time: for graphs that the host cannot hold whole (docs/multi-gpu.md,
//! *A graph larger than one GPU*).
//!
//! No reference is computed over the whole graph; each answer is checked by a certificate
//! that one pass over every part's arcs decides:
//!
//! | program | certificate |
//! |---|---|
//! | `bfs` | `level[src] = 0`; every arc `u -> v` from a reached `u` has `level[v] <= level[u] + 1`; every other reached `v` has an arc from a `u` with `level[u] + 1 = level[v]` |
//! | `sssp` | the same with `dist` and the arc's weight `w >= 1`: `dist[v] <= dist[u] + w`, and a tight arc into every other reached node |
//! | `cc` | the same partition as a union-find of every arc's ends |
//! | `pr` | one Jacobi step from the program's ranks moves no node by more than `10 tol + 1e-4 r(v)` |
//! | `mis` | no arc joins two members; every other node has a member at one end of an arc (the undirected view) |
//! | `color` | every node colored; no arc joins two nodes of one color (self-loops aside) |
//! | `traverse` | each node's count equals the arcs into it |
//!
//! For bfs and sssp the two conditions together give exactly the distances: the first keeps
//! every label at or below the distance (along a shortest path from `src`), the second, above
//! it (a chain of tight arcs with strictly decreasing labels ends at `src`). For pr the step's
//! change is the residual of the fixed-point equation, and a run that stops when no rank
//! changes by `tol` leaves a residual of about `tol`; a run stopped by `max_iter` before that
//! fails the check, where the whole-graph check compares with a reference stopped there too.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{
    PR_RELATIVE_TOLERANCE, Program, Verdict, components_verdict, mis_output, node_array, param,
    pr_output, show_u32, unsigned,
};
use crate::INF_U32;
use crate::error::{GraphError, Result};
use crate::output::OutputFile;
use crate::parts::GeneratedPart;
use crate::reference::cc;

/// A graph split into parts: each part's masters (a contiguous range of global ids), its
/// local graph (masters, then mirrors; only masters have arcs) and its mirrors' global ids.
pub trait PartSource: Sync {
    /// The whole graph's nodes and arcs.
    fn nodes(&self) -> u32;
    fn edges(&self) -> u64;
    fn count(&self) -> usize;
    /// Part `p`, read from wherever the parts are kept.
    fn part(&self, p: usize) -> Result<GeneratedPart>;
    /// Where part `p` comes from, for messages.
    fn name(&self, p: usize) -> String;
}

/// The programs whose answers a pass over the parts can check.
pub const PART_PROGRAMS: [Program; 7] = [
    Program::Bfs,
    Program::Sssp,
    Program::Cc,
    Program::Pr,
    Program::Mis,
    Program::Color,
    Program::Traverse,
];

/// Checks `out` for `program` on the graph of `parts`.
pub fn verify_parts(program: Program, parts: &dyn PartSource, out: &OutputFile) -> Result<Verdict> {
    if out.nodes != u64::from(parts.nodes()) || out.edges != parts.edges() {
        return Err(GraphError::file(
            &out.path,
            format!(
                "the output is for a graph with {} nodes and {} edges, but the parts hold {} nodes and {} edges (verify against the parts the program read)",
                out.nodes,
                out.edges,
                parts.nodes(),
                parts.edges()
            ),
        ));
    }
    match program {
        Program::Bfs => verify_distances(program, parts, out, "level"),
        Program::Sssp => verify_distances(program, parts, out, "dist"),
        Program::Cc => verify_cc(parts, out),
        Program::Pr => verify_pr(parts, out),
        Program::Mis => verify_mis(parts, out),
        Program::Color => verify_color(parts, out),
        Program::Traverse => verify_traverse(parts, out),
        _ => Err(GraphError::Invalid(format!(
            "`{}` cannot be verified over parts: its check needs the whole graph in memory (over parts: {})",
            program.name(),
            PART_PROGRAMS.map(Program::name).join(", ")
        ))),
    }
}

/// A part checked against the whole graph's shape, with its arcs in global ids.
struct Checked {
    part: GeneratedPart,
}

impl Checked {
    fn new(parts: &dyn PartSource, p: usize, expected_first: u32) -> Result<Self> {
        let part = parts.part(p)?;
        let bad = |m: String| GraphError::file(&parts.name(p), m);
        let Range { start, end } = part.masters.clone();
        if start != expected_first || end < start || end > parts.nodes() {
            return Err(bad(format!(
                "its masters are nodes {start}..{end}, expected a range from {expected_first} within the graph's {} nodes",
                parts.nodes()
            )));
        }
        let masters = end - start;
        let local = u64::from(masters) + part.mirrors.len() as u64;
        if u64::from(part.csr.n) != local {
            return Err(bad(format!(
                "its graph has {} nodes, but it holds {masters} masters and {} mirrors",
                part.csr.n,
                part.mirrors.len()
            )));
        }
        let arcs = part.csr.offsets[masters as usize];
        if arcs != part.csr.num_edges() {
            return Err(bad("a mirror has arcs: only masters have".into()));
        }
        let mut previous = None;
        for &m in &part.mirrors {
            if m >= parts.nodes() || (start..end).contains(&m) || previous.is_some_and(|x| x >= m) {
                return Err(bad(format!(
                    "mirror {m}: mirrors are other parts' nodes, in increasing order"
                )));
            }
            previous = Some(m);
        }
        Ok(Checked { part })
    }

    /// The global id of local node `l`.
    fn global(&self, l: u32) -> u32 {
        let masters = self.part.masters.end - self.part.masters.start;
        if l < masters {
            self.part.masters.start + l
        } else {
            self.part.mirrors[(l - masters) as usize]
        }
    }

    /// Calls `f(u, v, weight)` for every arc, in global ids, masters in parallel.
    fn arcs(&self, f: impl Fn(u32, u32, Option<u32>) + Sync) {
        let g = &self.part.csr;
        let masters = self.part.masters.end - self.part.masters.start;
        (0..masters)
            .into_par_iter()
            .with_min_len(1 << 10)
            .for_each(|l| {
                let u = self.part.masters.start + l;
                let range = g.offsets[l as usize] as usize..g.offsets[l as usize + 1] as usize;
                for e in range {
                    f(u, self.global(g.dst[e]), g.weights.as_ref().map(|w| w[e]));
                }
            });
    }
}

/// Every part in turn, checked: each covers the nodes after the one before, and together all.
fn each_part(
    parts: &dyn PartSource,
    mut f: impl FnMut(usize, &Checked) -> Result<()>,
) -> Result<()> {
    let mut first = 0u32;
    let mut arcs = 0u64;
    for p in 0..parts.count() {
        let c = Checked::new(parts, p, first)?;
        first = c.part.masters.end;
        arcs += c.part.csr.num_edges();
        f(p, &c)?;
    }
    if first != parts.nodes() || arcs != parts.edges() {
        return Err(GraphError::Invalid(format!(
            "the parts hold nodes 0..{first} and {arcs} arcs, but the graph has {} nodes and {} arcs",
            parts.nodes(),
            parts.edges()
        )));
    }
    Ok(())
}

/// What a pass found wrong: a count, and the first few as lines.
#[derive(Default)]
struct Faults {
    count: AtomicU64,
    shown: std::sync::Mutex<Vec<String>>,
}

impl Faults {
    fn add(&self, line: impl FnOnce() -> String) {
        if self.count.fetch_add(1, Ordering::Relaxed) < super::SHOWN_MISMATCHES as u64 {
            self.shown
                .lock()
                .expect("no panics under the lock")
                .push(line());
        }
    }

    fn into_verdict(self, v: &mut Verdict) {
        let mut shown = self.shown.into_inner().expect("no panics under the lock");
        shown.sort();
        for line in shown {
            v.mismatch(|| line);
        }
        let count = self.count.into_inner();
        v.mismatch_count = v.mismatch_count.max(count);
        v.ok &= count == 0;
    }
}

/// A bit per node, set by many threads.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(n: u32) -> Self {
        Bits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }
    fn set(&self, v: u32) {
        self.0[(v / 64) as usize].fetch_or(1 << (v % 64), Ordering::Relaxed);
    }
    fn get(&self, v: u32) -> bool {
        self.0[(v / 64) as usize].load(Ordering::Relaxed) & (1 << (v % 64)) != 0
    }
}

/// bfs levels (every arc of length 1) or sssp distances (the arcs' weights), by the
/// certificate of the module's table.
fn verify_distances(
    p: Program,
    parts: &dyn PartSource,
    out: &OutputFile,
    array: &str,
) -> Result<Verdict> {
    let src: u64 = param(out, "src", p, "a node id")?;
    if src >= u64::from(parts.nodes()) {
        let line = out.param("src").map_or(0, |x| x.1);
        return Err(GraphError::line(
            &out.path,
            line,
            format!(
                "param `src` is {src}, but the graph has {} nodes",
                parts.nodes()
            ),
        ));
    }
    let got = unsigned(out, node_array(out, array, p)?, p)?;
    let inf = u64::from(INF_U32);
    let faults = Faults::default();
    let tight = Bits::new(parts.nodes());
    let weighted = p == Program::Sssp;
    each_part(parts, |i, c| {
        if weighted && c.part.csr.weights.is_none() && c.part.csr.num_edges() != 0 {
            return Err(GraphError::file(
                &parts.name(i),
                "sssp needs edge weights, but the parts have none (generate them with --weights SEED)",
            ));
        }
        let zero = AtomicU64::new(0);
        c.arcs(|u, v, w| {
            let w = if weighted { u64::from(w.unwrap_or(0)) } else { 1 };
            if w == 0 {
                zero.fetch_add(1, Ordering::Relaxed);
                return;
            }
            let (du, dv) = (got[u as usize], got[v as usize]);
            if du == inf {
                return;
            }
            let bound = du + w;
            if dv > bound {
                faults.add(|| {
                    format!(
                        "node {v}: {array} {}, but the arc from node {u} ({array} {du}{}) gives at most {bound}",
                        show_u32(dv),
                        if weighted { format!(", weight {w}") } else { String::new() }
                    )
                });
            } else if dv == bound {
                tight.set(v);
            }
        });
        match zero.into_inner() {
            0 => Ok(()),
            n => Err(GraphError::file(
                &parts.name(i),
                format!(
                    "{n} arcs of weight 0: checking distances over parts needs weights of 1 or more"
                ),
            )),
        }
    })?;
    if got[src as usize] != 0 {
        faults.add(|| {
            format!(
                "node {src}: {array} {}, expected 0 at src",
                show_u32(got[src as usize])
            )
        });
    }
    let reached = (0..parts.nodes())
        .into_par_iter()
        .filter(|&v| {
            let d = got[v as usize];
            if d == inf {
                return false;
            }
            if u64::from(v) != src && !tight.get(v) {
                faults.add(|| {
                    format!(
                        "node {v}: {array} {d}, but no arc into it comes from a node {} less",
                        if weighted { "its weight" } else { "one level" }
                    )
                });
            }
            true
        })
        .count();
    let mut verdict = Verdict::new(p);
    faults.into_verdict(&mut verdict);
    verdict.summary.push(format!(
        "checked the {array}s of {} nodes from src = {src} over {} parts ({reached} reached): every arc's bound, and a tight arc into each reached node but src; {} faults",
        parts.nodes(),
        parts.count(),
        verdict.mismatch_count
    ));
    Ok(verdict)
}

fn verify_cc(parts: &dyn PartSource, out: &OutputFile) -> Result<Verdict> {
    let p = Program::Cc;
    let got = unsigned(out, node_array(out, "comp", p)?, p)?;
    let forest = cc::Forest::new(parts.nodes());
    each_part(parts, |_, c| {
        c.arcs(|u, v, _| forest.unite(u, v));
        Ok(())
    })?;
    let what = format!("{} nodes over {} parts", parts.nodes(), parts.count());
    Ok(components_verdict(&forest.labels(), got, &what))
}

fn verify_pr(parts: &dyn PartSource, out: &OutputFile) -> Result<Verdict> {
    let p = Program::Pr;
    let (alpha, tol, rank) = pr_output(out)?;
    // The pushed shares, f64 bits added by compare-and-swap.
    let sum: Vec<AtomicU64> = (0..parts.nodes())
        .into_par_iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    each_part(parts, |_, c| {
        let g = &c.part.csr;
        let first = c.part.masters.start;
        c.arcs(|u, v, _| {
            let share = alpha * rank[u as usize] / g.degree(u - first) as f64;
            let _ = sum[v as usize].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |x| {
                Some((f64::from_bits(x) + share).to_bits())
            });
        });
        Ok(())
    })?;
    let base = (1.0 - alpha) / f64::from(parts.nodes().max(1));
    let abs = 10.0 * tol;
    let faults = Faults::default();
    let worst = (0..parts.nodes())
        .into_par_iter()
        .map(|v| {
            let next = base + f64::from_bits(sum[v as usize].load(Ordering::Relaxed));
            let x = rank[v as usize];
            let step = (next - x).abs();
            let within = step <= abs + PR_RELATIVE_TOLERANCE * next;
            if !within {
                faults.add(|| format!("node {v}: rank {x:.9e}, one step from the ranks gives {next:.9e} (change {step:.3e})"));
            }
            (if step.is_nan() { f64::INFINITY } else { step }, v)
        })
        .reduce(|| (0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
    let mut verdict = Verdict::new(p);
    faults.into_verdict(&mut verdict);
    verdict.summary.push(format!(
        "one Jacobi step from the program's ranks over {} parts (alpha = {alpha}, tol = {tol}): largest change {:.3e} at node {}, allowed {abs:.3e} + {PR_RELATIVE_TOLERANCE:e} * r(v)",
        parts.count(),
        worst.0,
        worst.1
    ));
    verdict.summary.push(format!(
        "{} of {} nodes outside it (a run stopped by max_iter before converging fails here)",
        verdict.mismatch_count,
        parts.nodes()
    ));
    Ok(verdict)
}

fn verify_mis(parts: &dyn PartSource, out: &OutputFile) -> Result<Verdict> {
    let p = Program::Mis;
    let got = mis_output(out)?;
    let member = |v: u32| got[v as usize] == 1;
    let faults = Faults::default();
    let covered = Bits::new(parts.nodes());
    each_part(parts, |_, c| {
        c.arcs(|u, v, _| {
            if u == v {
                return;
            }
            match (member(u), member(v)) {
                (true, true) => {
                    faults.add(|| format!("nodes {u} and {v}: both in the set, joined by an arc"))
                }
                (true, false) => covered.set(v),
                (false, true) => covered.set(u),
                (false, false) => {}
            }
        });
        Ok(())
    })?;
    let size = (0..parts.nodes())
        .into_par_iter()
        .filter(|&v| {
            if !member(v) && !covered.get(v) {
                faults.add(|| {
                    format!(
                        "node {v}: not in the set, and no neighbour is (the set is not maximal)"
                    )
                });
            }
            member(v)
        })
        .count();
    let mut v = Verdict::new(p);
    faults.into_verdict(&mut v);
    v.summary.push(format!(
        "checked independence and maximality of a set of {size} of {} nodes over {} parts (arcs taken as undirected): {} problems",
        parts.nodes(),
        parts.count(),
        v.mismatch_count
    ));
    Ok(v)
}

fn verify_color(parts: &dyn PartSource, out: &OutputFile) -> Result<Verdict> {
    let p = Program::Color;
    let got = unsigned(out, node_array(out, "color", p)?, p)?;
    let inf = u64::from(INF_U32);
    let faults = Faults::default();
    each_part(parts, |_, c| {
        c.arcs(|u, v, _| {
            let (cu, cv) = (got[u as usize], got[v as usize]);
            if u != v && cu == cv && cu < inf {
                faults.add(|| format!("nodes {u} and {v}: neighbours with the same color {cu}"));
            }
        });
        Ok(())
    })?;
    for (i, &c) in got.iter().enumerate() {
        if c >= inf {
            faults.add(|| format!("node {i}: not colored (color {})", show_u32(c)));
        }
    }
    let colors = got.iter().filter(|&&c| c < inf).max().map_or(0, |&c| c + 1);
    let mut v = Verdict::new(p);
    faults.into_verdict(&mut v);
    v.summary.push(format!(
        "checked the colors of {} nodes over {} parts (colors 0..{colors}): {} problems",
        parts.nodes(),
        parts.count(),
        v.mismatch_count
    ));
    Ok(v)
}

fn verify_traverse(parts: &dyn PartSource, out: &OutputFile) -> Result<Verdict> {
    let p = Program::Traverse;
    let got = unsigned(out, node_array(out, "hits", p)?, p)?;
    let into: Vec<AtomicU64> = (0..parts.nodes())
        .into_par_iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    each_part(parts, |_, c| {
        c.arcs(|_, v, _| {
            into[v as usize].fetch_add(1, Ordering::Relaxed);
        });
        Ok(())
    })?;
    let mut v = Verdict::new(p);
    for (i, (d, &g)) in into.iter().zip(got).enumerate() {
        let d = d.load(Ordering::Relaxed);
        if d != g {
            v.mismatch(|| format!("node {i}: expected {d}, got {g}"));
        }
    }
    v.summary.push(format!(
        "compared the pushes counted at {} nodes with the arcs into them over {} parts ({} arcs): {} differ",
        parts.nodes(),
        parts.count(),
        parts.edges(),
        v.mismatch_count
    ));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::Csr;
    use crate::generate::{RmatParams, rmat};
    use crate::output::parse;
    use crate::partition::{balanced_ranges, partition_at};
    use crate::progress::NoProgress;
    use crate::reference::{bfs, pagerank, sssp};
    use crate::transform::{TransformOptions, apply};
    use crate::verify::verify;

    /// Parts kept in memory.
    struct Memory {
        n: u32,
        edges: u64,
        parts: Vec<GeneratedPart>,
    }

    impl PartSource for Memory {
        fn nodes(&self) -> u32 {
            self.n
        }
        fn edges(&self) -> u64 {
            self.edges
        }
        fn count(&self) -> usize {
            self.parts.len()
        }
        fn part(&self, p: usize) -> Result<GeneratedPart> {
            Ok(self.parts[p].clone())
        }
        fn name(&self, p: usize) -> String {
            format!("part-{p}.gr")
        }
    }

    /// A symmetric weighted RMAT graph of scale 10 (with isolated nodes) and its 3 parts.
    fn graph() -> (Csr, Memory) {
        let list = rmat(10, 4, RmatParams::default(), 5, &NoProgress).unwrap();
        let t = TransformOptions {
            symmetrize: true,
            drop_self_loops: true,
            dedup: true,
            weights_seed: Some(7),
        };
        let g = apply(Csr::from_edge_list(list), &t).0;
        let cut = partition_at(&g, balanced_ranges(&g, 3));
        let parts = cut
            .parts
            .into_iter()
            .map(|p| GeneratedPart {
                masters: p.masters,
                csr: p.csr,
                mirrors: p.mirrors,
            })
            .collect();
        let m = Memory {
            n: g.n,
            edges: g.num_edges(),
            parts,
        };
        (g, m)
    }

    fn file(g: &Csr, head: &str, array: &str, values: &[String]) -> OutputFile {
        let text = format!(
            "irgl-output 1\nprogram t\nnodes {}\nedges {}\n{head}{array}\n{}\n",
            g.n,
            g.num_edges(),
            values.join("\n")
        );
        parse(text.as_bytes(), "t.out").unwrap()
    }

    /// Both verdicts on `values`, which must agree.
    fn both(p: Program, g: &Csr, m: &Memory, head: &str, array: &str, values: &[String]) -> bool {
        let out = file(g, head, array, values);
        let whole = verify(p, g, &out).unwrap();
        let parts = verify_parts(p, m, &out).unwrap();
        assert_eq!(whole.ok, parts.ok, "whole:\n{whole}\nparts:\n{parts}");
        parts.ok
    }

    fn show(x: &[u64]) -> Vec<String> {
        x.iter().map(u64::to_string).collect()
    }

    /// Changes that a wrong program could make to a labelling by distance: one node one more,
    /// one less, unreached, or reached where it is not.
    fn wrong_distances(right: &[u64], src: usize) -> Vec<Vec<u64>> {
        let inf = u64::from(INF_U32);
        let mut out = Vec::new();
        for (v, &d) in right.iter().enumerate().step_by(37) {
            let mut w = right.to_vec();
            w[v] = if d == inf { 3 } else { d + 1 };
            out.push(w.clone());
            if d != inf && d > 0 {
                w[v] = d - 1;
                out.push(w.clone());
                w[v] = inf;
                out.push(w);
            }
        }
        let mut w = right.to_vec();
        w[src] = 1;
        out.push(w);
        if let Some(v) = right.iter().position(|&d| d == inf) {
            let mut w = right.to_vec();
            w[v] = 1;
            out.push(w);
        }
        out
    }

    #[test]
    fn bfs_levels_are_checked_by_their_certificate() {
        let (g, m) = graph();
        let src = 3;
        let right: Vec<u64> = bfs::bfs_levels(&g, src)
            .into_iter()
            .map(u64::from)
            .collect();
        assert!(
            right.contains(&u64::from(INF_U32)),
            "the test wants unreached nodes"
        );
        let head = format!("param src {src}\n");
        assert!(both(
            Program::Bfs,
            &g,
            &m,
            &head,
            "node level u32",
            &show(&right)
        ));
        for w in wrong_distances(&right, src as usize) {
            assert!(!both(
                Program::Bfs,
                &g,
                &m,
                &head,
                "node level u32",
                &show(&w)
            ));
        }
    }

    #[test]
    fn sssp_distances_are_checked_by_their_certificate() {
        let (g, m) = graph();
        let src = 3;
        let right: Vec<u64> = sssp::dijkstra(&g, src)
            .unwrap()
            .into_iter()
            .map(|d| {
                if d == sssp::UNREACHABLE {
                    u64::from(INF_U32)
                } else {
                    d
                }
            })
            .collect();
        let head = format!("param src {src}\n");
        assert!(both(
            Program::Sssp,
            &g,
            &m,
            &head,
            "node dist u32",
            &show(&right)
        ));
        for w in wrong_distances(&right, src as usize) {
            assert!(!both(
                Program::Sssp,
                &g,
                &m,
                &head,
                "node dist u32",
                &show(&w)
            ));
        }
    }

    #[test]
    fn components_are_compared_as_partitions() {
        let (g, m) = graph();
        let right: Vec<u64> = cc::components_union_find(&g)
            .into_iter()
            .map(u64::from)
            .collect();
        // Labels need not be node ids: any labelling of the same partition matches.
        let renamed: Vec<u64> = right.iter().map(|&l| 5_000 + 2 * l).collect();
        assert!(both(
            Program::Cc,
            &g,
            &m,
            "",
            "node comp u32",
            &show(&renamed)
        ));
        let big = (0..g.n).max_by_key(|&v| g.degree(v)).unwrap() as usize;
        let lone = (0..g.n as usize)
            .find(|&v| g.degree(v as u32) == 0)
            .unwrap();
        let mut split = right.clone();
        split[big] = 99_999;
        let mut merged = right.clone();
        merged[lone] = right[big];
        for w in [split, merged] {
            assert!(!both(Program::Cc, &g, &m, "", "node comp u32", &show(&w)));
        }
    }

    #[test]
    fn pagerank_is_checked_by_one_step() {
        let (g, m) = graph();
        let params = pagerank::PageRankParams {
            alpha: 0.85,
            tol: 1e-7,
            max_iter: 1000,
        };
        let r = pagerank::pagerank(&g, params).rank;
        let head = "param alpha 0.85\nparam tol 1e-7\nparam max_iter 1000\n";
        let shown = |r: &[f64]| r.iter().map(|x| format!("{x:e}")).collect::<Vec<_>>();
        let out = file(&g, head, "node rank f64", &shown(&r));
        let v = verify_parts(Program::Pr, &m, &out).unwrap();
        assert!(v.ok, "{v}");
        let hub = (0..g.n).max_by_key(|&v| g.degree(v)).unwrap() as usize;
        for (node, by) in [(hub, 1e-4), (0, 1e-5)] {
            let mut w = r.clone();
            w[node] += by;
            let out = file(&g, head, "node rank f64", &shown(&w));
            assert!(!verify_parts(Program::Pr, &m, &out).unwrap().ok);
        }
    }

    /// A set chosen greedily (each node joins unless a neighbour has) and a greedy coloring.
    fn greedy(g: &Csr) -> (Vec<u64>, Vec<u64>) {
        let mut set = vec![0u64; g.n as usize];
        let mut color = vec![u64::from(INF_U32); g.n as usize];
        for v in 0..g.n {
            if g.neighbours(v).iter().all(|&w| set[w as usize] == 0) {
                set[v as usize] = 1;
            }
            let used: std::collections::BTreeSet<u64> =
                g.neighbours(v).iter().map(|&w| color[w as usize]).collect();
            color[v as usize] = (0..).find(|c| !used.contains(c)).unwrap();
        }
        (set, color)
    }

    #[test]
    fn sets_colorings_and_counts_are_checked_arc_by_arc() {
        let (g, m) = graph();
        let (set, color) = greedy(&g);
        let hub = (0..g.n).max_by_key(|&v| g.degree(v)).unwrap();
        let member = (0..g.n)
            .find(|&v| set[v as usize] == 1 && g.degree(v) > 0)
            .unwrap() as usize;
        let beside = g.neighbours(member as u32)[0] as usize;
        assert!(both(
            Program::Mis,
            &g,
            &m,
            "",
            "node in_mis bool",
            &show(&set)
        ));
        let mut joined = set.clone();
        joined[beside] = 1;
        let mut dropped = set.clone();
        dropped[member] = 0;
        for w in [joined, dropped] {
            assert!(!both(
                Program::Mis,
                &g,
                &m,
                "",
                "node in_mis bool",
                &show(&w)
            ));
        }
        assert!(both(
            Program::Color,
            &g,
            &m,
            "",
            "node color u32",
            &show(&color)
        ));
        let mut clash = color.clone();
        clash[beside] = clash[member];
        let mut blank = color.clone();
        blank[hub as usize] = u64::from(INF_U32);
        for w in [clash, blank] {
            assert!(!both(
                Program::Color,
                &g,
                &m,
                "",
                "node color u32",
                &show(&w)
            ));
        }
        let hits: Vec<u64> = (0..g.n)
            .map(|v| {
                (0..g.n)
                    .map(|u| g.neighbours(u).iter().filter(|&&w| w == v).count() as u64)
                    .sum()
            })
            .collect();
        assert!(both(
            Program::Traverse,
            &g,
            &m,
            "",
            "node hits u64",
            &show(&hits)
        ));
        let mut more = hits.clone();
        more[hub as usize] += 1;
        assert!(!both(
            Program::Traverse,
            &g,
            &m,
            "",
            "node hits u64",
            &show(&more)
        ));
    }

    #[test]
    fn malformed_parts_and_other_programs_are_errors() {
        let (g, mut m) = graph();
        let levels = show(&vec![0; g.n as usize]);
        let out = file(&g, "param src 0\n", "node level u32", &levels);
        let err = verify_parts(Program::Tc, &m, &out).unwrap_err().to_string();
        assert!(err.contains("cannot be verified over parts"), "{err}");
        let right = m.parts[1].mirrors[0];
        m.parts[1].mirrors[0] = m.parts[1].masters.start;
        let err = verify_parts(Program::Bfs, &m, &out)
            .unwrap_err()
            .to_string();
        assert!(err.contains("part-1.gr") && err.contains("mirror"), "{err}");
        m.parts[1].mirrors[0] = right;
        m.parts.pop();
        let err = verify_parts(Program::Cc, &m, &file(&g, "", "node comp u32", &levels))
            .unwrap_err()
            .to_string();
        assert!(err.contains("the parts hold nodes"), "{err}");
    }
}
