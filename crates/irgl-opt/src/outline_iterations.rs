//! `outline_iterations`: iteration outlining (paper section 4.1): nodes of the outline tree
//! (`Iterate`/`Pipe` regions and launching host loops of `main`) become device control
//! kernels.
//!
//! **Why.** Every round of a host loop costs a launch per kernel plus synchronous copies (the
//! worklist's size, the overflow flags, a reduction's result): tens of microseconds, which
//! dominate on graphs of many cheap rounds (bfs and sssp on road networks run hundreds of
//! levels). A control kernel runs the loop on the GPU: one cooperative launch, a grid barrier
//! (about 2 µs) between the steps, the host scalars carried in every thread and copied back.
//! It costs where rounds are few and heavy, and its kernels run on the resident grid only.
//!
//! **What it assumes.** The node is outlinable (`irgl_analysis::OutlineTree` says why not):
//! it launches kernels, each of which covers its iterations with grid-stride loops on any
//! grid. The generated code computes the residency of the control kernel and exits with a
//! clear error if no block can be resident, never deadlocking.
//!
//! **What it does.** Replaces each chosen node's statement in `main` by a
//! [`StmtKind::Control`] holding it, with the locals of `main` it reads (copied in) and
//! assigns (copied back) and the kernels it launches (emitted as device functions too). The
//! back end emits the control kernel: every thread runs the orchestration alike; each effect
//! on device state (a launch, a worklist clear or fill, a reduction reset, an element write)
//! is made between two grid barriers, by one thread unless it is a launch; worklist swaps
//! swap every thread's copies of the views, and the final roles go back to the host with the
//! scalars, the rounds counted and the first worklist overflow, which the host reports as it
//! would have. Before and after (`irglc emit ir`, bfs with `--outline outer`):
//!
//! ```text
//! main {                                    main {
//!   ...                                       ...
//!   region r0 iterate bfs {        ==>        control c0 (outlined r0 iterate bfs) in [v0:LEVEL] out [v0:LEVEL] calls [bfs] {
//!     ...                                       region r0 iterate bfs { ... }
//!   }                                         }
//! }                                         }
//! ```

use std::collections::BTreeSet;

use irgl_analysis::{OutlineKind, OutlineNode, OutlineTree};
use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::{OptConfig, OutlineConfig};

/// Outlines the nodes of the outline tree that `config` names. Errors: a name that is no
/// node, a node that cannot be outlined (with the reason), two nested nodes.
pub fn outline_iterations(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let tree = OutlineTree::build(m);
    let chosen = chosen(&tree, config)?;
    let stmts: Vec<(StmtId, String)> = chosen.iter().map(|n| (n.stmt, describe(m, n))).collect();
    for (i, (s, origin)) in stmts.into_iter().enumerate() {
        outline(m, s, ControlId::from_index(i), origin, config.outline_grid);
    }
    Ok(())
}

/// The statements of `main` that `outline_iterations` will outline under `config` (none where
/// it would report an error, which it does when it runs): for passes before it that prepare
/// what only a control kernel can run.
pub fn outlined_statements(m: &Module, config: &OptConfig) -> Vec<StmtId> {
    let tree = OutlineTree::build(m);
    chosen(&tree, config)
        .map(|nodes| nodes.iter().map(|n| n.stmt).collect())
        .unwrap_or_default()
}

/// The nodes of `tree` that `config` outlines, or the errors of naming them.
fn chosen<'a>(
    tree: &'a OutlineTree,
    config: &OptConfig,
) -> Result<Vec<&'a OutlineNode>, Vec<Diagnostic>> {
    match &config.outline {
        OutlineConfig::None => Ok(Vec::new()),
        OutlineConfig::Outer => {
            let mut out = Vec::new();
            for r in &tree.roots {
                outermost(r, &mut out);
            }
            Ok(out)
        }
        OutlineConfig::Nodes(names) => named(tree, names),
    }
}

/// The outermost outlinable nodes under `n` (itself if it is).
fn outermost<'a>(n: &'a OutlineNode, out: &mut Vec<&'a OutlineNode>) {
    if n.outlinable.is_ok() {
        out.push(n);
    } else {
        for c in &n.children {
            outermost(c, out);
        }
    }
}

fn named<'a>(
    tree: &'a OutlineTree,
    names: &BTreeSet<String>,
) -> Result<Vec<&'a OutlineNode>, Vec<Diagnostic>> {
    let nodes = tree.nodes();
    let all: Vec<String> = nodes.iter().map(|n| n.name()).collect();
    let mut errors = Vec::new();
    let mut chosen: Vec<&OutlineNode> = Vec::new();
    for name in names {
        match nodes.iter().find(|n| &n.name() == name) {
            None => errors.push(
                Diagnostic::error(
                    "E0506",
                    format!("--outline {name}: no such node of the outline tree"),
                )
                .with_note(if all.is_empty() {
                    "this program has no Iterate, Pipe or launching loop in main".to_string()
                } else {
                    format!(
                        "the nodes are {} (irglc emit outline shows the tree)",
                        all.join(", ")
                    )
                }),
            ),
            Some(n) => match &n.outlinable {
                Err(why) => errors.push(Diagnostic::error(
                    "E0507",
                    format!("--outline {name}: this node cannot be outlined: {why}"),
                )),
                Ok(()) => chosen.push(n),
            },
        }
    }
    for a in &chosen {
        for b in &chosen {
            if inside(a, b) {
                errors.push(Diagnostic::error(
                    "E0508",
                    format!(
                        "--outline: {} is inside {}; outline one of them",
                        b.name(),
                        a.name()
                    ),
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(chosen)
    } else {
        Err(errors)
    }
}

/// Whether `b` is a strict descendant of `a`.
fn inside(a: &OutlineNode, b: &OutlineNode) -> bool {
    a.children.iter().any(|c| c.stmt == b.stmt || inside(c, b))
}

fn describe(m: &Module, n: &OutlineNode) -> String {
    match n.kind {
        OutlineKind::Region(id, RegionKind::Iterate(k)) => {
            format!("{id} iterate {}", m.kernels[k].name)
        }
        OutlineKind::Region(id, RegionKind::Pipe { once: true }) => format!("{id} pipe once"),
        OutlineKind::Region(id, RegionKind::Pipe { once: false }) => format!("{id} pipe"),
        OutlineKind::Loop => format!("{} loop", n.stmt),
    }
}

/// Replaces statement `s` of `main` by a control holding it.
fn outline(m: &mut Module, s: StmtId, id: ControlId, origin: String, grid: GridSize) {
    let body = &m.host;
    let block: Block = vec![s];
    // Locals declared inside, read or written inside.
    let mut declared = BTreeSet::new();
    let mut assigned = BTreeSet::new();
    let mut kernels: Vec<KernelId> = Vec::new();
    visit::walk_stmts(body, &block, &mut |t| match &body.stmts[t].kind {
        StmtKind::Let { local, .. } | StmtKind::LetArray { local, .. } => {
            declared.insert(*local);
        }
        StmtKind::Assign {
            place: Place::Local(l),
            ..
        } => {
            assigned.insert(*l);
        }
        StmtKind::Launch(l) if !kernels.contains(&l.kernel) => kernels.push(l.kernel),
        _ => {}
    });
    // Their serial versions, and their versions without gd, are called in their place on
    // some graphs, their asynchronous versions while the switch finds them cheaper.
    let versions: Vec<KernelId> = kernels
        .iter()
        .flat_map(|&k| {
            let k = &m.kernels[k];
            [k.serial_version, k.no_grid_version, k.async_version]
        })
        .flatten()
        .collect();
    kernels.extend(versions);
    let used = visit::locals_used(body, &block);
    let inputs: Vec<LocalId> = used
        .iter()
        .copied()
        .filter(|l| !declared.contains(l))
        .collect();
    let outputs: Vec<LocalId> = inputs
        .iter()
        .copied()
        .filter(|l| assigned.contains(l))
        .collect();
    let span = body.stmts[s].span;
    let control = m.host.stmts.push(Stmt {
        kind: StmtKind::Control(Control {
            id,
            origin,
            body: block,
            inputs,
            outputs,
            kernels,
            grid,
        }),
        span,
    });
    replace(&mut m.host, s, control);
}

/// Puts `new` where `old` stands in the blocks of `body`.
fn replace(body: &mut Body, old: StmtId, new: StmtId) {
    let mut block = std::mem::take(&mut body.block);
    let found = replace_in(body, &mut block, old, new);
    body.block = block;
    assert!(found, "{old} is not in main");
}

fn replace_in(body: &mut Body, block: &mut Block, old: StmtId, new: StmtId) -> bool {
    if let Some(slot) = block.iter_mut().find(|s| **s == old) {
        *slot = new;
        return true;
    }
    for &s in block.iter() {
        let mut kind = std::mem::replace(&mut body.stmts[s].kind, StmtKind::Break);
        let mut found = false;
        for b in visit::child_blocks_mut(&mut kind) {
            if replace_in(body, b, old, new) {
                found = true;
                break;
            }
        }
        body.stmts[s].kind = kind;
        if found {
            return true;
        }
    }
    false
}
