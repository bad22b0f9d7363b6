//! The outline tree (the IrGL paper, section 4.1 and Figure 4): the `Iterate` and `Pipe`
//! regions of `main`, nested as in the source, each a candidate for iteration outlining (its
//! loop moved into one persistent control kernel with a grid barrier between launches).
//! Beyond the paper, a host loop of `main` outside any region that launches kernels
//! (`while (Any Invoke ...)`, as in pr and mst) is a node too: its rounds pay the same launch
//! and copy costs. Loops inside a region (the region's own loop, the re-invocation loop of
//! `Retry`) are part of it.
//!
//! Each node records the kernels launched directly in it and whether it can be outlined,
//! with the reason when not:
//! - it launches no kernel, itself or in a nested region (nothing to gain);
//! - a kernel it launches has an outermost loop that is not grid-stride (a control kernel
//!   runs every kernel on one resident grid, so each must cover its iterations with any grid);
//! - a nested region cannot be outlined (the parent would contain it);
//! - it holds host work the device cannot do (none of the IR's host statements today: a
//!   worklist's size, a reduction's result, host scalars and property elements are all
//!   readable on the device; the rule is kept for what the language may add).

use irgl_ir::*;

/// The outline trees of a module: one root per outermost region of `main`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutlineTree {
    pub roots: Vec<OutlineNode>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutlineNode {
    /// The region or loop statement in `main`.
    pub stmt: StmtId,
    pub kind: OutlineKind,
    /// The kernels launched in this region outside its nested regions, in order, each once.
    pub launches: Vec<KernelId>,
    pub children: Vec<OutlineNode>,
    /// Whether the region can become a control kernel, and why not.
    pub outlinable: Result<(), String>,
}

/// What a node of the tree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutlineKind {
    Region(RegionId, RegionKind),
    /// A loop of `main` that launches kernels.
    Loop,
}

impl OutlineNode {
    /// `r0` for a region, `s12` for a loop.
    pub fn name(&self) -> String {
        match self.kind {
            OutlineKind::Region(id, _) => id.to_string(),
            OutlineKind::Loop => self.stmt.to_string(),
        }
    }
}

impl OutlineTree {
    /// The outline tree of `m`'s `main`.
    pub fn build(m: &Module) -> OutlineTree {
        OutlineTree {
            roots: regions_in(m, &m.host.block, false),
        }
    }

    /// Every node, parents before children.
    pub fn nodes(&self) -> Vec<&OutlineNode> {
        fn walk<'a>(n: &'a OutlineNode, out: &mut Vec<&'a OutlineNode>) {
            out.push(n);
            for c in &n.children {
                walk(c, out);
            }
        }
        let mut out = Vec::new();
        for r in &self.roots {
            walk(r, &mut out);
        }
        out
    }

    /// The tree as `irglc emit outline` prints it: one node a line, indented by depth.
    pub fn render(&self, m: &Module) -> String {
        fn node(m: &Module, n: &OutlineNode, depth: usize, out: &mut String) {
            let kind = match n.kind {
                OutlineKind::Region(_, RegionKind::Iterate(k)) => {
                    format!("iterate {}", m.kernels[k].name)
                }
                OutlineKind::Region(_, RegionKind::Pipe { once: true }) => "pipe once".to_string(),
                OutlineKind::Region(_, RegionKind::Pipe { once: false }) => "pipe".to_string(),
                OutlineKind::Loop => "loop".to_string(),
            };
            let launches: Vec<&str> = n
                .launches
                .iter()
                .map(|&k| m.kernels[k].name.as_str())
                .collect();
            let launches = if launches.is_empty() {
                String::new()
            } else {
                format!("; launches {}", launches.join(", "))
            };
            let verdict = match &n.outlinable {
                Ok(()) => "outlinable".to_string(),
                Err(why) => format!("not outlinable: {why}"),
            };
            out.push_str(&format!(
                "{}{} {kind}: {verdict}{launches}\n",
                "  ".repeat(depth),
                n.name()
            ));
            for c in &n.children {
                node(m, c, depth + 1, out);
            }
        }
        let mut out = String::new();
        if self.roots.is_empty() {
            out.push_str("no Iterate, Pipe or loop with launches in main: nothing to outline\n");
        }
        for r in &self.roots {
            node(m, r, 0, &mut out);
        }
        out
    }
}

/// The regions and launching loops (outside regions) in `block`, outermost first, each with
/// its subtree.
fn regions_in(m: &Module, block: &Block, in_region: bool) -> Vec<OutlineNode> {
    let body = &m.host;
    let mut out = Vec::new();
    for &s in block.iter() {
        match &body.stmts[s].kind {
            StmtKind::Region(r) => {
                out.push(node(m, s, OutlineKind::Region(r.id, r.kind), &[&r.body]))
            }
            StmtKind::Loop(l) if !in_region && launches_any(body, &l.body) => {
                out.push(node(m, s, OutlineKind::Loop, &[&l.init, &l.body, &l.step]));
            }
            kind => {
                for b in visit::child_blocks(kind) {
                    out.extend(regions_in(m, b, in_region));
                }
            }
        }
    }
    out
}

fn node(m: &Module, stmt: StmtId, kind: OutlineKind, blocks: &[&Block]) -> OutlineNode {
    let body = &m.host;
    let mut children = Vec::new();
    let mut launches = Vec::new();
    let mut outlinable_blocks = Ok(());
    let in_region = matches!(kind, OutlineKind::Region(..));
    for b in blocks {
        children.extend(regions_in(m, b, in_region));
        direct_launches(body, b, &mut launches);
        if let Some(what) = host_only(body, b) {
            outlinable_blocks = Err(format!("it {what}, which the device cannot do"));
        }
    }
    let outlinable = outlinable_blocks.and_then(|()| outlinable(m, &launches, &children));
    OutlineNode {
        stmt,
        kind,
        launches,
        children,
        outlinable,
    }
}

/// Whether `block` launches a kernel, directly or in nested statements.
fn launches_any(body: &Body, block: &Block) -> bool {
    visit::block_any(body, block, &|k| matches!(k, StmtKind::Launch(_)))
}

/// The kernels launched in `block` outside nested regions, in order, each once.
fn direct_launches(body: &Body, block: &Block, out: &mut Vec<KernelId>) {
    for &s in block.iter() {
        match &body.stmts[s].kind {
            StmtKind::Launch(l) => {
                if !out.contains(&l.kernel) {
                    out.push(l.kernel);
                }
            }
            StmtKind::Region(_) => {}
            kind => {
                for b in visit::child_blocks(kind) {
                    direct_launches(body, b, out);
                }
            }
        }
    }
}

fn outlinable(m: &Module, launches: &[KernelId], children: &[OutlineNode]) -> Result<(), String> {
    if let Some(c) = children.iter().find(|c| c.outlinable.is_err()) {
        return Err(format!(
            "it contains {}, which cannot be outlined",
            c.name()
        ));
    }
    if launches.is_empty() && children.is_empty() {
        return Err("it launches no kernel".into());
    }
    for &k in launches {
        let kernel = &m.kernels[k];
        let fixed_grid = kernel
            .body
            .block
            .iter()
            .all(|&s| match &kernel.body.stmts[s].kind {
                StmtKind::ForAll(f) => matches!(f.schedule, Schedule::Grid { .. }),
                _ => true,
            });
        if !fixed_grid {
            return Err(format!(
                "kernel {}'s outer loop is not grid-stride, so it cannot run on a fixed grid",
                kernel.name
            ));
        }
        let facts = kernel.facts();
        if facts.grows_mesh || facts.indexes_arrays {
            return Err(format!(
                "kernel {} {}, which the host checks after each launch",
                kernel.name,
                if facts.grows_mesh {
                    "grows the mesh"
                } else {
                    "indexes local arrays"
                }
            ));
        }
    }
    Ok(())
}

/// Host work in `block` that a control kernel could not do, if any.
fn host_only(body: &Body, block: &Block) -> Option<String> {
    for &s in block.iter() {
        match &body.stmts[s].kind {
            StmtKind::Let { .. }
            | StmtKind::Assign { .. }
            | StmtKind::Eval(_)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Launch(_)
            | StmtKind::WorklistClear
            | StmtKind::WorklistInit(_)
            | StmtKind::WorklistSwap(_)
            | StmtKind::ReduceReset(_)
            | StmtKind::CountIteration
            | StmtKind::Region(_) => {}
            StmtKind::LetArray { .. } => return Some("declares an array".into()),
            kind => {
                for b in visit::child_blocks(kind) {
                    if let Some(why) = host_only(body, b) {
                        return Some(why);
                    }
                }
            }
        }
    }
    None
}
