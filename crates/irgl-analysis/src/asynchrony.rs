//! Which worklist kernels can run asynchronously (beyond the paper; Atos, Chen et al. 2022):
//! one launch that keeps claiming the items its own pushes feed, from one shared queue,
//! until none is left, instead of one round per launch with a barrier or a relaunch between.
//!
//! Asynchrony removes the rounds, so it is safe only where the result cannot depend on which
//! round an item runs in. The analysis accepts a kernel when all of these hold, and gives the
//! first that fails as the reason otherwise:
//! - it pops the worklist in its one outermost `ForAll`, at the top of its body, and reads
//!   that loop's index only to pop it (`WL.pop(wi)`): asynchronously, the index is the
//!   position of a claim in the shared queue, not of an item in the worklist;
//! - it neither reduces (`ReduceAndReturn` answers per round), nor has a grid barrier, nor
//!   takes locks (`Atomic`/`Exclusive` retry conflicts round by round);
//! - it is *monotone*: its atomic updates are `atomicMin`, `atomicMax`, `atomicOr` or
//!   `atomicAnd`, so that values only move one way, and it assigns nothing that it reads; an
//!   item that reads an older value then does work that a later item redoes or supersedes
//!   (`atomicAdd`, `atomicExch`, or a plain store of something it reads, would make the result
//!   depend on the order of the items);
//! - its launches are rounds that asynchrony can merge: either every launch is followed by
//!   the re-invocation loop of its `Respawn`/`Retry` items (then those feed the launch:
//!   [`Asynchrony::Respawns`]), or it is the kernel of an `Iterate` whose loop does nothing
//!   between rounds, with arguments that no round changes (then every push feeds it:
//!   [`Asynchrony::AllPushes`]). bfs's `Iterate` counts `LEVEL` between rounds and passes it to
//!   the kernel, so its rounds stay.

use std::collections::BTreeSet;

use irgl_ir::*;

/// The verdict for every kernel that pops a worklist, in kernel order.
#[derive(Clone, Debug, PartialEq)]
pub struct AsyncCandidates {
    pub kernels: Vec<(KernelId, Result<Asynchrony, String>)>,
}

impl AsyncCandidates {
    pub fn build(m: &Module) -> AsyncCandidates {
        let kernels = m
            .kernels
            .iter()
            .filter(|(_, k)| k.facts().pops)
            .map(|(id, k)| (id, verdict(m, id, k)))
            .collect();
        AsyncCandidates { kernels }
    }

    /// The verdict for kernel `k` (None: it pops no worklist).
    pub fn get(&self, k: KernelId) -> Option<&Result<Asynchrony, String>> {
        self.kernels.iter().find(|(id, _)| *id == k).map(|(_, v)| v)
    }

    /// One line per kernel, as `irglc emit outline` prints them after the tree.
    pub fn render(&self, m: &Module) -> String {
        let mut out = String::new();
        for (id, v) in &self.kernels {
            let name = &m.kernels[*id].name;
            match v {
                Ok(Asynchrony::Respawns) => out.push_str(&format!(
                    "async {name}: yes: its Retry and Respawn items feed its own launch\n"
                )),
                Ok(Asynchrony::AllPushes) => out.push_str(&format!(
                    "async {name}: yes: all its pushes feed its own launch\n"
                )),
                Err(why) => out.push_str(&format!("async {name}: no: {why}\n")),
            }
        }
        out
    }
}

fn verdict(m: &Module, id: KernelId, k: &Kernel) -> Result<Asynchrony, String> {
    shape(m, k)?;
    if m.graph.mesh {
        return Err("its input is a mesh, which changes under it".into());
    }
    monotone(m, k)?;
    launches(m, id, k)
}

/// One outermost `ForAll`, over the worklist; no reduction, grid barrier or lock.
fn shape(m: &Module, k: &Kernel) -> Result<(), String> {
    let body = &k.body;
    let mut outer = 0;
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::ForAll(f) = &body.stmts[s].kind
            && matches!(f.schedule, Schedule::Grid { .. })
        {
            outer += 1;
        }
    });
    let top = body
        .block
        .iter()
        .any(|&s| matches!(&body.stmts[s].kind, StmtKind::ForAll(f) if f.space == Space::Worklist));
    if outer != 1 || !top {
        return Err(
            "its worklist ForAll is not its one outermost loop at the top of its body".into(),
        );
    }
    // The loop's index: asynchronously a claim's position in the queue, meaningless but to
    // `WL.pop`.
    if let Some(f) = body.block.iter().find_map(|&s| match &body.stmts[s].kind {
        StmtKind::ForAll(f) if f.space == Space::Worklist => Some(f),
        _ => None,
    }) {
        let mut popped = BTreeSet::new();
        let mut uses = Vec::new();
        // A statistic's sample may take the index (asynchronously it measures the claims).
        let mut samples = BTreeSet::new();
        visit::walk_stmts(body, &f.body, &mut |s| {
            if visit::statistic_only(m, body, s) {
                for e in visit::stmt_exprs(&body.stmts[s].kind) {
                    visit::walk_expr(body, e, &mut |x| {
                        samples.insert(x);
                    });
                }
            }
        });
        visit::walk_block_exprs(body, &f.body, &mut |e| match &body.exprs[e].kind {
            ExprKind::Pop(i) => {
                popped.insert(*i);
            }
            ExprKind::Local(l) if *l == f.var && !samples.contains(&e) => uses.push(e),
            _ => {}
        });
        if uses.iter().any(|e| !popped.contains(e)) {
            let name = &body.locals[f.var].name;
            return Err(format!(
                "it uses its worklist index `{name}` other than in `WL.pop({name})` (asynchronously the index is a claim in the shared queue, not an item's place in the worklist)"
            ));
        }
    }
    let facts = k.facts();
    if facts.reduces {
        return Err("it contributes to an Any/All reduction, which answers per round".into());
    }
    if facts.cooperative {
        return Err("it has a grid barrier (SyncRunningThreads)".into());
    }
    if visit::block_any(body, &body.block, &|s| {
        matches!(s, StmtKind::Unlock { .. } | StmtKind::ReleaseMarks { .. })
    }) {
        return Err("it takes locks (Atomic or Exclusive), whose conflicts retry by rounds".into());
    }
    Ok(())
}

/// What the kernel reads, and how it updates what it reads.
fn monotone(m: &Module, k: &Kernel) -> Result<(), String> {
    let body = &k.body;
    let mut read: BTreeSet<Target> = BTreeSet::new();
    let mut assigned: Vec<Target> = Vec::new();
    let mut unordered: Option<String> = None;
    visit::walk_block_exprs(body, &body.block, &mut |e| match &body.exprs[e].kind {
        ExprKind::Element { prop, .. } => {
            read.insert(Target::Prop(*prop));
        }
        ExprKind::Global(g) => {
            read.insert(Target::Global(*g));
        }
        ExprKind::Atomic { op, place, .. } => {
            if let Some(t) = Target::of(place)
                && !matches!(
                    op,
                    AtomicOp::Min | AtomicOp::Max | AtomicOp::Or | AtomicOp::And
                )
                && unordered.is_none()
            {
                unordered = Some(format!("it updates `{}` with {}", t.name(m), op.name()));
            }
        }
        ExprKind::FetchAdd { global, .. } if unordered.is_none() => {
            unordered = Some(format!(
                "it updates `{}` with atomicAdd",
                Target::Global(*global).name(m)
            ));
        }
        _ => {}
    });
    if let Some(what) = unordered {
        return Err(format!(
            "{what}: the result would depend on the order of the items (asynchrony needs updates by atomicMin, atomicMax, atomicOr or atomicAnd)"
        ));
    }
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Assign { place, .. } = &body.stmts[s].kind
            && let Some(t) = Target::of(place)
        {
            assigned.push(t);
        }
    });
    match assigned.into_iter().find(|t| read.contains(t)) {
        Some(t) => Err(format!(
            "it assigns `{}`, which it also reads: an item's effect would depend on the items before it (asynchrony needs updates by atomicMin, atomicMax, atomicOr or atomicAnd)",
            t.name(m)
        )),
        None => Ok(()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Prop(PropId),
    Global(GlobalId),
}

impl Target {
    fn of(place: &Place) -> Option<Target> {
        match place {
            Place::Element { prop, .. } => Some(Target::Prop(*prop)),
            Place::Global(g) => Some(Target::Global(*g)),
            Place::Local(_) | Place::ArrayElement { .. } => None,
        }
    }

    fn name(self, m: &Module) -> String {
        match self {
            Target::Prop(p) => m.prop(p).name.clone(),
            Target::Global(g) => m.globals[g.index()].name.clone(),
        }
    }
}

/// How the launches of `id` in `main` form rounds.
fn launches(m: &Module, id: KernelId, k: &Kernel) -> Result<Asynchrony, String> {
    let body = &m.host;
    let mut sites: Vec<Site> = Vec::new();
    find_sites(body, &body.block, id, Ctx::Plain, &mut sites);
    let facts = k.facts();
    if sites.is_empty() {
        return Err("it is never launched".into());
    }
    // Every launch a round of an Iterate with nothing between rounds: all pushes feed it.
    if sites.iter().all(|s| s.iterate == Some(true)) {
        if sites.iter().any(|s| reads_device(body, &s.args)) {
            return Err(
                "its arguments read device state, which may change from round to round".into(),
            );
        }
        return Ok(Asynchrony::AllPushes);
    }
    if facts.retries && sites.iter().all(|s| s.retry_loop) {
        return Ok(Asynchrony::Respawns);
    }
    if sites.iter().any(|s| s.iterate == Some(false)) {
        return Err(
            "its Iterate runs statements between rounds (a round counter such as bfs's LEVEL), which asynchrony would run once"
                .into(),
        );
    }
    Err(
        "it has no rounds to merge: it does not Respawn, and it is not the kernel of an Iterate"
            .into(),
    )
}

/// A launch of the kernel in `main`.
struct Site {
    args: Vec<ExprId>,
    /// Followed by the re-invocation loop over the retry worklist.
    retry_loop: bool,
    /// At the head of the loop of an `Iterate` of this kernel: whether the loop has nothing
    /// else than the end of a round.
    iterate: Option<bool>,
}

/// Where a block of `main` is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Plain,
    /// In an `Iterate` region of this kernel, outside its loop.
    IterateRegion(KernelId),
    /// The body of the loop of an `Iterate` of this kernel.
    IterateLoop(KernelId),
}

fn find_sites(body: &Body, block: &Block, id: KernelId, ctx: Ctx, out: &mut Vec<Site>) {
    for (i, &s) in block.iter().enumerate() {
        match &body.stmts[s].kind {
            StmtKind::Launch(l) if l.kernel == id => {
                let retry_loop = block
                    .get(i + 1)
                    .is_some_and(|&n| visit::is_retry_loop_of(body, n, id));
                let iterate = (ctx == Ctx::IterateLoop(id) && i == 0).then(|| {
                    let rest = &block[if retry_loop { 2 } else { 1 }..];
                    rest.len() == 3 && is_round_tail(body, rest)
                });
                out.push(Site {
                    args: l.args.clone(),
                    retry_loop,
                    iterate,
                });
            }
            // The re-invocation loop's launch belongs to the launch before it.
            StmtKind::Loop(_) if visit::is_retry_loop_of(body, s, id) => {}
            StmtKind::Region(r) => {
                let inner = match r.kind {
                    RegionKind::Iterate(k) => Ctx::IterateRegion(k),
                    RegionKind::Pipe { .. } => Ctx::Plain,
                };
                find_sites(body, &r.body, id, inner, out);
            }
            kind => {
                let inner = match (ctx, kind) {
                    (Ctx::IterateRegion(k), StmtKind::Loop(_)) => Ctx::IterateLoop(k),
                    (Ctx::IterateRegion(k), StmtKind::If { .. }) => Ctx::IterateRegion(k),
                    _ => Ctx::Plain,
                };
                for b in visit::child_blocks(kind) {
                    find_sites(body, b, id, inner, out);
                }
            }
        }
    }
}

/// `wl.swap out; count_iteration; if wl.in.size == 0 { break }`: the end of a round.
fn is_round_tail(body: &Body, rest: &[StmtId]) -> bool {
    matches!(
        body.stmts[rest[0]].kind,
        StmtKind::WorklistSwap(WorklistRef::Out)
    ) && matches!(body.stmts[rest[1]].kind, StmtKind::CountIteration)
        && matches!(&body.stmts[rest[2]].kind, StmtKind::If { then_block, else_block, .. }
            if else_block.is_empty()
                && then_block.len() == 1
                && matches!(body.stmts[then_block[0]].kind, StmtKind::Break))
}

/// Whether any of `exprs` reads device state (a property element, a global, a worklist's
/// size, a reduction's result).
pub(crate) fn reads_device(body: &Body, exprs: &[ExprId]) -> bool {
    exprs.iter().any(|&e| {
        visit::expr_any(body, e, &|k| {
            matches!(
                k,
                ExprKind::Element { .. }
                    | ExprKind::Global(_)
                    | ExprKind::WorklistSize(_)
                    | ExprKind::ReduceResult
                    | ExprKind::Atomic { .. }
                    | ExprKind::FetchAdd { .. }
            )
        })
    })
}
