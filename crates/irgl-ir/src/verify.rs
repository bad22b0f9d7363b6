//! The IR verifier: checks the invariants of the crate documentation, so that a pass that
//! breaks them fails right after it runs, not in nvcc or on the GPU.
//!
//! It runs after lowering and after every pass in debug builds and tests (the pipeline
//! decides). An error is a compiler bug, never a user mistake: the messages name the body
//! and the statement for whoever fixes the pass.

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::ir::*;
use crate::visit;

/// A broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// `kernel bfs` or `main`.
    pub body: String,
    pub stmt: Option<StmtId>,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.stmt {
            Some(s) => write!(f, "{}: {s}: {}", self.body, self.message),
            None => write!(f, "{}: {}", self.body, self.message),
        }
    }
}

/// Checks every invariant; returns all the broken ones.
pub fn verify(module: &Module) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    let b = module.launch.block_size;
    if !(32..=1024).contains(&b) || b % 32 != 0 {
        errors.push(VerifyError {
            body: "module".into(),
            stmt: None,
            message: format!("block size {b} is not a multiple of 32 in 32..=1024"),
        });
    }
    for (id, k) in module.kernels.iter() {
        let mut v = Verifier::new(module, &k.body, Side::Device, format!("kernel {}", k.name));
        for p in &k.params {
            if let KernelParam::Scalar(l) = p {
                if !k.body.locals.contains(*l) || k.body.locals[*l].kind != LocalKind::Param {
                    v.error(None, format!("parameter {l} is not a Param local"));
                } else {
                    v.visible.push(*l);
                }
            }
        }
        v.run();
        errors.extend(v.errors);
        if k.asynchronous.is_some() {
            errors.extend(asynchronous_kernel(k));
        }
        if let Some(b) = k.backoff {
            errors.extend(backoff_kernel(k, b));
        }
        errors.extend(serial_version(module, id, k));
        errors.extend(no_grid_version(module, id, k));
        errors.extend(async_version(module, id, k));
    }
    let mut v = Verifier::new(module, &module.host, Side::Host, "main".into());
    v.run();
    errors.extend(v.errors);
    errors.extend(backoff_launches(module));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// An asynchronous kernel claims the items of its one outermost `ForAll`, over the input
/// worklist, from its queue: it has that loop only, and nothing that needs rounds (a
/// reduction, a grid barrier).
fn asynchronous_kernel(k: &Kernel) -> Vec<VerifyError> {
    let error = |message: String| VerifyError {
        body: format!("kernel {}", k.name),
        stmt: None,
        message,
    };
    let mut errors = Vec::new();
    let outer: Vec<&ForAll> = k
        .body
        .block
        .iter()
        .filter_map(|&s| match &k.body.stmts[s].kind {
            StmtKind::ForAll(f) => Some(f),
            _ => None,
        })
        .collect();
    if outer.len() != 1 || outer[0].space != Space::Worklist {
        errors.push(error(
            "an asynchronous kernel has exactly one outermost ForAll, over the worklist, at the top of its body".into(),
        ));
    }
    let facts = k.facts();
    if facts.reduces || facts.cooperative {
        errors.push(error(
            "an asynchronous kernel neither reduces nor has a grid barrier".into(),
        ));
    }
    errors
}

/// A kernel with retry backoff pops the input worklist in rounds (its launches hand out the
/// items), and hands out at least one item at a time.
fn backoff_kernel(k: &Kernel, b: Backoff) -> Vec<VerifyError> {
    let error = |message: String| VerifyError {
        body: format!("kernel {}", k.name),
        stmt: None,
        message,
    };
    let mut errors = Vec::new();
    let facts = k.facts();
    if !facts.pops || facts.asynchronous {
        errors.push(error(
            "a kernel with retry backoff pops the worklist and is not asynchronous".into(),
        ));
    }
    if let Chunk::Items(n) = b.chunk
        && !(1..=1024).contains(&n)
    {
        errors.push(error(format!("retry backoff with a chunk of {n} items")));
    }
    errors
}

/// Whether two versions of a kernel take the same parameters and are launched alike
/// (asynchrony, backoff).
fn launched_alike(a: &Kernel, b: &Kernel) -> bool {
    param_types(a) == param_types(b) && a.asynchronous == b.asynchronous && a.backoff == b.backoff
}

/// A kernel's parameters: the type of each scalar, `None` for the graph.
fn param_types(k: &Kernel) -> Vec<Option<Ty>> {
    k.params
        .iter()
        .map(|p| match p {
            KernelParam::Graph(_) => None,
            KernelParam::Scalar(l) => k.body.locals.get(*l).map(|l| l.ty),
        })
        .collect()
}

/// A kernel and its version without `gd` point at each other, are launched alike, the
/// kernel hands items to the grid and the version does not, and neither is a serial version.
fn no_grid_version(m: &Module, id: KernelId, k: &Kernel) -> Vec<VerifyError> {
    let error = |message: String| VerifyError {
        body: format!("kernel {}", k.name),
        stmt: None,
        message,
    };
    let mut errors = Vec::new();
    if let Some(v) = k.no_grid_version {
        match m.kernels.get(v) {
            None => errors.push(error(format!("its version without gd {v} is no kernel"))),
            Some(version) => {
                if version.no_grid_of != Some(id) || version.no_grid_version.is_some() {
                    errors.push(error(format!(
                        "its version without gd {} is not marked as its version",
                        version.name
                    )));
                }
                if !launched_alike(k, version) {
                    errors.push(error(format!(
                        "its version without gd {} takes other parameters or is launched otherwise",
                        version.name
                    )));
                }
            }
        }
        if !k.hands_items_to_the_grid() {
            errors.push(error(
                "it has a version without gd, but no nested loop of its own hands items to the grid"
                    .into(),
            ));
        }
    }
    if let Some(of) = k.no_grid_of {
        if m.kernels.get(of).and_then(|o| o.no_grid_version) != Some(id) {
            errors.push(error(format!(
                "the version of {of} without gd, which does not name it as its version"
            )));
        }
        if k.hands_items_to_the_grid() {
            errors.push(error(
                "a version without gd with a nested loop that hands items to the grid".into(),
            ));
        }
        if k.serial_of.is_some() || k.serial_version.is_some() {
            errors.push(error(
                "a version without gd is also a serial version or has one".into(),
            ));
        }
    }
    errors
}

/// A kernel and its asynchronous version point at each other (a version of the kernel without
/// gd points at the kernel's); the kernel runs in rounds and
/// the version asynchronously; the version's parameters are the kernel's first ones (a
/// launch's arguments fit both: passes append parameters of rounds only); neither has a
/// serial version or is one; a control kernel that launches the kernel calls the version too
/// (the switch runs there; a launch from the host runs in rounds).
fn async_version(m: &Module, id: KernelId, k: &Kernel) -> Vec<VerifyError> {
    let error = |message: String| VerifyError {
        body: format!("kernel {}", k.name),
        stmt: None,
        message,
    };
    let mut errors = Vec::new();
    if let Some(v) = k.async_version {
        match m.kernels.get(v) {
            None => errors.push(error(format!("its asynchronous version {v} is no kernel"))),
            Some(version) => {
                // A version without gd calls its kernel's asynchronous version.
                let of = k.no_grid_of.unwrap_or(id);
                if version.async_of != Some(of) || version.async_version.is_some() {
                    errors.push(error(format!(
                        "its asynchronous version {} is not marked as its version",
                        version.name
                    )));
                }
                if version.asynchronous.is_none() {
                    errors.push(error(format!(
                        "its asynchronous version {} does not run asynchronously",
                        version.name
                    )));
                }
                let (ours, theirs) = (param_types(k), param_types(version));
                if !ours.starts_with(&theirs) {
                    errors.push(error(format!(
                        "its asynchronous version {} takes parameters that its launches do not pass",
                        version.name
                    )));
                }
            }
        }
        if k.asynchronous.is_some() {
            errors.push(error(
                "it runs asynchronously and has an asynchronous version".into(),
            ));
        }
        let body = &m.host;
        let mut in_controls = true;
        visit::walk_stmts(body, &body.block, &mut |s| {
            if let StmtKind::Control(c) = &body.stmts[s].kind
                && visit::block_any(
                    body,
                    &c.body,
                    &|x| matches!(x, StmtKind::Launch(l) if l.kernel == id),
                )
                && !c.kernels.contains(&v)
            {
                in_controls = false;
            }
        });
        if !in_controls {
            errors.push(error(
                "a control kernel launches it without calling its asynchronous version".into(),
            ));
        }
    }
    if let Some(of) = k.async_of {
        if m.kernels.get(of).and_then(|o| o.async_version) != Some(id) {
            errors.push(error(format!(
                "the asynchronous version of {of}, which does not name it as its version"
            )));
        }
    }
    if k.switched() && (k.serial_of.is_some() || k.serial_version.is_some()) {
        errors.push(error(
            "a kernel of the switch between rounds and asynchrony is also a serial version or has one"
                .into(),
        ));
    }
    errors
}

/// A kernel and its serial version point at each other, take the same parameters, are
/// launched alike (asynchrony, backoff), and the version schedules no nested loop; the
/// program has a rule for choosing it.
fn serial_version(m: &Module, id: KernelId, k: &Kernel) -> Vec<VerifyError> {
    let error = |message: String| VerifyError {
        body: format!("kernel {}", k.name),
        stmt: None,
        message,
    };
    let mut errors = Vec::new();
    if let Some(v) = k.serial_version {
        match m.kernels.get(v) {
            None => errors.push(error(format!("its serial version {v} is no kernel"))),
            Some(version) => {
                if version.serial_version.is_some() || version.serial_of.is_none() {
                    errors.push(error(format!(
                        "its serial version {} is not marked as one",
                        version.name
                    )));
                }
                if !launched_alike(k, version) {
                    errors.push(error(format!(
                        "its serial version {} takes other parameters or is launched otherwise",
                        version.name
                    )));
                }
            }
        }
        if m.launch.serial_rule.is_none() {
            errors.push(error(
                "it has a serial version, but the program has no rule for choosing it".into(),
            ));
        }
    }
    if let Some(of) = k.serial_of {
        if m.kernels.get(of).and_then(|o| o.serial_version) != Some(id) {
            errors.push(error(format!(
                "the serial version of {of}, which does not name it as its version"
            )));
        }
        let scheduled = visit::block_any(&k.body, &k.body.block, &|s| {
            matches!(
                s,
                StmtKind::ForAll(ForAll {
                    schedule: Schedule::Block(_),
                    ..
                })
            )
        });
        if scheduled {
            errors.push(error(
                "a serial version with a block-scheduled nested loop".into(),
            ));
        }
    }
    errors
}

/// A launch with backoff launches a kernel with retry backoff.
fn backoff_launches(m: &Module) -> Vec<VerifyError> {
    let body = &m.host;
    let mut errors = Vec::new();
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Launch(l) = &body.stmts[s].kind
            && l.backoff
            && m.kernels.get(l.kernel).is_none_or(|k| k.backoff.is_none())
        {
            errors.push(VerifyError {
                body: "main".into(),
                stmt: Some(s),
                message: format!("launch of {} with backoff, which has none", l.kernel),
            });
        }
    });
    errors
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Device,
    Host,
}

/// What encloses the statement being checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Frame {
    Loop,
    /// `scheduled`: block-scheduled. `block_trips`: block-scheduled with a thread-block or
    /// fine-grained scheduler, whose trips the whole block runs. `counted`:
    /// [`ForAll::is_counted`].
    ForAll {
        uniform: bool,
        scheduled: bool,
        block_trips: bool,
        counted: bool,
    },
    Phase,
    If,
    Block,
    Region,
    Control,
}

struct Verifier<'a> {
    module: &'a Module,
    body: &'a Body,
    side: Side,
    name: String,
    errors: Vec<VerifyError>,
    /// Locals in scope, innermost last.
    visible: Vec<LocalId>,
    frames: Vec<Frame>,
    declared: HashSet<LocalId>,
    seen_stmts: HashSet<StmtId>,
    seen_exprs: HashSet<ExprId>,
    loops: HashSet<LoopId>,
    regions: HashSet<RegionId>,
    /// Inspects seen in the current uniform ForAll body, by loop.
    inspected: HashMap<LoopId, InspectState>,
    /// Block-scheduled loops already passed in the current uniform ForAll body.
    scheduled: HashSet<LoopId>,
    /// The reductions of the enclosing `ForAll`s, innermost last.
    reducing: Vec<Vec<LoopReduce>>,
    current: Option<StmtId>,
}

impl<'a> Verifier<'a> {
    fn new(module: &'a Module, body: &'a Body, side: Side, name: String) -> Self {
        Verifier {
            module,
            body,
            side,
            name,
            errors: Vec::new(),
            visible: Vec::new(),
            frames: Vec::new(),
            declared: HashSet::new(),
            seen_stmts: HashSet::new(),
            seen_exprs: HashSet::new(),
            loops: HashSet::new(),
            regions: HashSet::new(),
            inspected: HashMap::new(),
            scheduled: HashSet::new(),
            reducing: Vec::new(),
            current: None,
        }
    }

    fn error(&mut self, stmt: Option<StmtId>, message: String) {
        self.errors.push(VerifyError {
            body: self.name.clone(),
            stmt,
            message,
        });
    }

    /// A settled region (`settle_rounds`): an unordered Iterate of a settled kernel, whose
    /// loop launches that kernel with an Any reduction and nothing else; the kernel pushes,
    /// pops and waits for nothing the barriers it lacks would give.
    fn settled_region(&mut self, r: &Region) {
        let RegionKind::Iterate(k) = r.kind else {
            self.err(format!("region {} is settled but no Iterate", r.id));
            return;
        };
        if !r.unordered {
            self.err(format!("region {} is settled but not unordered", r.id));
        }
        let kernel = self.module.kernels.get(k);
        if kernel.is_some_and(|kernel| !kernel.settled) {
            self.err(format!("region {} is settled, its kernel is not", r.id));
        }
        if let Some(kernel) = kernel {
            let facts = kernel.facts();
            if facts.uses_worklist || facts.cooperative || kernel.hands_items_to_the_grid() {
                self.err(format!(
                    "region {} is settled, and its kernel uses a worklist, a grid barrier or gd",
                    r.id
                ));
            }
        }
        let mut launches = Vec::new();
        visit::walk_stmts(self.body, &r.body, &mut |s| {
            if let StmtKind::Launch(l) = &self.body.stmts[s].kind {
                launches.push((l.kernel, l.reduce));
            }
        });
        if launches != [(k, Some(Reduction::Any))] {
            self.err(format!(
                "settled region {} launches more than its kernel with an Any reduction",
                r.id
            ));
        }
    }

    fn err(&mut self, message: String) {
        let s = self.current;
        self.error(s, message);
    }

    fn run(&mut self) {
        let block = self.body.block.clone();
        self.block(&block, Frame::Block);
    }

    fn block(&mut self, b: &Block, frame: Frame) {
        let mark = self.visible.len();
        self.frames.push(frame);
        for &s in b {
            self.stmt(s);
        }
        self.frames.pop();
        self.visible.truncate(mark);
    }

    fn in_frame(&self, pred: impl Fn(Frame) -> bool) -> bool {
        self.frames.iter().any(|f| pred(*f))
    }

    fn forall_depth(&self) -> usize {
        self.frames
            .iter()
            .filter(|f| matches!(f, Frame::ForAll { .. }))
            .count()
    }

    fn device_only(&mut self, what: &str) {
        if self.side != Side::Device {
            self.err(format!("{what} in host code"));
        }
    }

    fn host_only(&mut self, what: &str) {
        if self.side != Side::Host {
            self.err(format!("{what} in device code"));
        }
    }

    fn local(&mut self, l: LocalId) -> Option<&'a Local> {
        if !self.body.locals.contains(l) {
            self.err(format!("local {l} out of range"));
            return None;
        }
        if !self.visible.contains(&l) {
            self.err(format!(
                "local {l} ({}) used where it is not declared",
                self.body.locals[l].name
            ));
        }
        Some(&self.body.locals[l])
    }

    fn declare(&mut self, l: LocalId) {
        if !self.body.locals.contains(l) {
            self.err(format!("local {l} out of range"));
            return;
        }
        if !self.declared.insert(l) {
            self.err(format!("local {l} declared twice"));
        }
        self.visible.push(l);
    }

    fn prop(&mut self, p: PropId) -> Option<&'a Prop> {
        let found = self.module.graph.props.get(p.index());
        if found.is_none() {
            self.err(format!("property {p} out of range"));
        }
        found
    }

    fn stmt(&mut self, s: StmtId) {
        if !self.body.stmts.contains(s) {
            self.err(format!("statement {s} out of range"));
            return;
        }
        if !self.seen_stmts.insert(s) {
            self.error(Some(s), "statement appears twice in the tree".into());
            return;
        }
        let outer = self.current.replace(s);
        let body = self.body;
        let kind = &body.stmts[s].kind;
        match kind {
            StmtKind::Let { local, init } => {
                if let Some(e) = init {
                    let t = self.expr(*e);
                    let lt = body.locals.get(*local).map(|l| l.ty);
                    if let (Some(t), Some(lt)) = (t, lt) {
                        self.compatible(lt, t, "initializer");
                    }
                }
                if let Some(l) = body.locals.get(*local)
                    && !matches!(l.kind, LocalKind::Let | LocalKind::Temp)
                {
                    self.err(format!("Let of a {:?} local", l.kind));
                }
                self.declare(*local);
            }
            StmtKind::LetArray { local, elems } => {
                for &e in elems {
                    if let Some(t) = self.expr(e)
                        && !t.is_u32_like()
                    {
                        self.err(format!("array element of type {t}"));
                    }
                }
                match body.locals.get(*local).map(|l| l.kind) {
                    Some(LocalKind::Array { len })
                        if len as usize == elems.len() || elems.is_empty() => {}
                    k => self.err(format!(
                        "LetArray of a {k:?} local with {} elements",
                        elems.len()
                    )),
                }
                self.declare(*local);
            }
            StmtKind::Assign { place, op, value } => {
                if let Place::Local(l) = place
                    && self.is_reduced(*l)
                {
                    self.err(format!(
                        "assignment to {l}, which an enclosing ForAll reduces"
                    ));
                }
                let pt = self.place(place, true);
                let vt = self.expr(*value);
                if let (Some(pt), Some(vt)) = (pt, vt) {
                    match op {
                        Some(BinaryOp::Shl | BinaryOp::Shr) => {
                            if !vt.is_integer() {
                                self.err(format!("shift by a {vt}"));
                            }
                        }
                        _ => self.compatible(pt, vt, "assigned value"),
                    }
                }
            }
            StmtKind::Eval(e) => {
                self.expr(*e);
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.cond(*cond);
                self.block(then_block, Frame::If);
                self.block(else_block, Frame::If);
            }
            StmtKind::Loop(l) => {
                let mark = self.visible.len();
                self.frames.push(Frame::Block);
                for &s in &l.init {
                    self.stmt(s);
                }
                if let Some(c) = l.cond {
                    self.cond(c);
                }
                self.block(&l.body, Frame::Loop);
                self.block(&l.step, Frame::Loop);
                self.frames.pop();
                self.visible.truncate(mark);
            }
            StmtKind::Break => {
                let nearest = self
                    .frames
                    .iter()
                    .rev()
                    .find(|f| matches!(f, Frame::Loop | Frame::ForAll { .. } | Frame::Phase));
                if nearest != Some(&Frame::Loop) {
                    self.err("Break outside a Loop (or crossing a ForAll)".into());
                }
            }
            StmtKind::Continue => {
                if !self
                    .in_frame(|f| matches!(f, Frame::Loop | Frame::ForAll { .. } | Frame::Phase))
                {
                    self.err("Continue outside a loop".into());
                }
            }
            StmtKind::Block(b) => self.block(b, Frame::Block),
            StmtKind::ForAll(f) => self.forall(s, f),
            StmtKind::Push(p) => {
                self.device_only("Push");
                if let Some(t) = self.expr(p.item)
                    && !t.is_u32_like()
                {
                    self.err(format!("pushed item of type {t}"));
                }
                let ok = matches!(
                    (p.target, p.kind),
                    (WorklistRef::Out, PushKind::Push)
                        | (WorklistRef::Retry, PushKind::Retry | PushKind::Respawn)
                );
                if !ok {
                    self.err(format!("{:?} to the {:?} worklist", p.kind, p.target));
                }
                if !self.in_frame(|f| matches!(f, Frame::ForAll { .. } | Frame::Phase))
                    && p.target == WorklistRef::Retry
                {
                    self.err("Retry/Respawn outside a ForAll".into());
                }
                if p.aggregation == Aggregation::Thread {
                    // Once per iteration of a counted serial loop: only blocks in between.
                    let lp = self.frames.iter().rev().find(|f| **f != Frame::Block);
                    if !matches!(lp, Some(Frame::ForAll { counted: true, .. })) {
                        self.err(
                            "Thread aggregation outside the body of a counted serial ForAll, or under a condition in it"
                                .into(),
                        );
                    }
                }
                if p.aggregation == Aggregation::BlockLoop {
                    // Once per iteration of a block-scheduled loop: only blocks in between.
                    let lp = self.frames.iter().rev().find(|f| **f != Frame::Block);
                    if !matches!(
                        lp,
                        Some(Frame::ForAll {
                            scheduled: true,
                            ..
                        })
                    ) {
                        self.err(
                            "BlockLoop aggregation outside the body of a block-scheduled ForAll, or under a condition in it"
                                .into(),
                        );
                    }
                }
                if p.aggregation == Aggregation::Block {
                    // Once per trip of a trip that the whole block runs.
                    let trip =
                        self.frames.iter().rev().find(|f| {
                            matches!(f, Frame::Loop | Frame::ForAll { .. } | Frame::Phase)
                        });
                    if !matches!(
                        trip,
                        Some(
                            Frame::Phase
                                | Frame::ForAll {
                                    block_trips: true,
                                    ..
                                }
                        )
                    ) {
                        self.err(
                            "Block aggregation outside a phase or a thread-block or fine-grained scheduled loop, or inside a loop of one"
                                .into(),
                        );
                    }
                }
            }
            StmtKind::Combine {
                local,
                combiner,
                value,
            } => self.combine(*local, *combiner, *value),
            StmtKind::Reduce(e) => {
                self.device_only("Reduce");
                self.cond(*e);
            }
            StmtKind::Accumulate(a) => self.accumulate(a),
            StmtKind::Unlock { locks, index } => {
                self.device_only("Unlock");
                if let Some(p) = self.prop(*locks)
                    && p.ty != Ty::Lock
                {
                    self.err(format!("Unlock of a {} property", p.ty));
                }
                self.index(*index);
            }
            StmtKind::ReleaseMarks { marks, ids, count } => {
                self.device_only("ReleaseMarks");
                self.marks(*marks, *ids, *count);
            }
            StmtKind::CopyArray { dst, src, count } => {
                self.device_only("CopyArray");
                for a in [*dst, *src] {
                    if let Some(l) = self.local(a)
                        && !matches!(l.kind, LocalKind::Array { .. })
                    {
                        self.err(format!("copy of {a}, which is not an array local"));
                    }
                }
                if let Some(l) = self.local(*count)
                    && !l.ty.is_integer()
                {
                    self.err(format!("copy count of type {}", l.ty));
                }
            }
            StmtKind::MeshUpdate(m, args) => {
                self.device_only("MeshUpdate");
                self.mesh_call(*m, args, Ty::Void);
            }
            StmtKind::GridSync => {
                self.device_only("GridSync");
                if self.in_frame(|f| !matches!(f, Frame::Block)) {
                    self.err("GridSync below the kernel's top level".into());
                }
            }
            StmtKind::Phase(p) => self.phase(p),
            StmtKind::Inspect(i) => self.inspect(i),
            StmtKind::Launch(l) => {
                self.host_only("Launch");
                match self.module.kernels.get(l.kernel) {
                    None => self.err(format!("launch of {} out of range", l.kernel)),
                    Some(k) => {
                        let scalars: Vec<Ty> = k
                            .params
                            .iter()
                            .filter_map(|p| match p {
                                KernelParam::Scalar(v) => k.body.locals.get(*v).map(|l| l.ty),
                                KernelParam::Graph(_) => None,
                            })
                            .collect();
                        if scalars.len() != l.args.len() {
                            self.err(format!(
                                "launch of {} with {} arguments for {} parameters",
                                k.name,
                                l.args.len(),
                                scalars.len()
                            ));
                        }
                        for (&a, &pt) in l.args.iter().zip(&scalars) {
                            if let Some(t) = self.expr(a) {
                                self.compatible(pt, t, "argument");
                            }
                        }
                    }
                }
            }
            StmtKind::WorklistClear | StmtKind::ReduceReset(_) | StmtKind::CountIteration => {
                self.host_only("orchestration")
            }
            StmtKind::WorklistInit(init) => {
                self.host_only("WorklistInit");
                if let Initial::List(items) = init {
                    for &e in items {
                        if let Some(t) = self.expr(e)
                            && !t.is_integer()
                        {
                            self.err(format!("initial item of type {t}"));
                        }
                    }
                }
            }
            StmtKind::WorklistSwap(w) => {
                self.host_only("WorklistSwap");
                if *w == WorklistRef::In {
                    self.err("swap of the input worklist with itself".into());
                }
            }
            StmtKind::Region(r) => {
                self.host_only("Region");
                if !self.regions.insert(r.id) {
                    self.err(format!("region {} twice", r.id));
                }
                if r.unordered && !matches!(r.kind, RegionKind::Iterate(_)) {
                    self.err(format!("region {} is unordered but no Iterate", r.id));
                }
                if r.settled {
                    self.settled_region(r);
                }
                self.block(&r.body, Frame::Region);
            }
            StmtKind::Control(c) => {
                self.host_only("Control");
                if self.in_frame(|f| f == Frame::Control) {
                    self.err(format!("{} inside another control", c.id));
                }
                for l in &c.outputs {
                    if !c.inputs.contains(l) {
                        self.err(format!("{} output {l} is not an input", c.id));
                    }
                }
                for &l in &c.inputs {
                    self.local(l);
                }
                let mut launched = Vec::new();
                visit::walk_stmts(self.body, &c.body, &mut |s| {
                    if let StmtKind::Launch(l) = &self.body.stmts[s].kind
                        && !launched.contains(&l.kernel)
                    {
                        launched.push(l.kernel);
                    }
                });
                let versions: Vec<KernelId> = launched
                    .iter()
                    .filter_map(|&k| self.module.kernels.get(k))
                    .flat_map(|k| [k.serial_version, k.no_grid_version, k.async_version])
                    .flatten()
                    .collect();
                launched.extend(versions);
                if launched != c.kernels {
                    self.err(format!(
                        "{} calls {:?}, but its body launches {launched:?}",
                        c.id, c.kernels
                    ));
                }
                self.block(&c.body, Frame::Control);
            }
        }
        self.current = outer;
    }

    fn forall(&mut self, s: StmtId, f: &ForAll) {
        self.device_only("ForAll");
        if !self.loops.insert(f.id) {
            self.err(format!("{} twice", f.id));
        }
        let var = self.body.locals.get(f.var);
        if var.map(|v| v.kind) != Some(LocalKind::ForAllVar) {
            self.err(format!(
                "ForAll variable {} is not a ForAllVar local",
                f.var
            ));
        }
        let var_ty = var.map_or(Ty::U32, |v| v.ty);
        let depth = self.forall_depth();
        match &f.schedule {
            Schedule::Grid { .. } if depth != 0 => {
                self.err("Grid schedule on a nested ForAll".into())
            }
            Schedule::Serial { .. } | Schedule::Block(_) if depth == 0 => {
                self.err("nested schedule on an outermost ForAll".into())
            }
            _ => {}
        }
        if matches!(f.space, Space::Worklist) && depth != 0 {
            self.err("ForAll over the worklist nested in another".into());
        }
        if matches!(f.space, Space::SplitNodes) && depth != 0 {
            self.err("ForAll over the split nodes nested in another".into());
        }
        let uniform = matches!(f.schedule, Schedule::Grid { uniform: true });
        match (&f.space, &f.schedule) {
            (Space::Inspected, Schedule::Block(b)) => {
                if self.frames.last()
                    != Some(&Frame::ForAll {
                        uniform: true,
                        scheduled: false,
                        block_trips: false,
                        counted: false,
                    })
                {
                    self.err("block-scheduled ForAll outside a uniform ForAll's body".into());
                }
                match self.inspected.get(&f.id) {
                    Some(state) if *state == b.state => {}
                    Some(_) => self.err(format!("{}: its Inspect uses other state locals", f.id)),
                    None => self.err(format!("{} scheduled before it is inspected", f.id)),
                }
                self.scheduled.insert(f.id);
                self.block_schedule(b, var_ty);
            }
            (Space::Inspected, _) | (_, Schedule::Block(_)) => {
                self.err("Inspected space without a block schedule (or the reverse)".into())
            }
            (space, _) => self.space(space, var_ty),
        }
        // Reductions: of locals visible here, on a nested loop, each once, of a fitting type.
        if !f.reductions.is_empty() && depth == 0 {
            self.err(format!(
                "{} reduces locals but is an outermost ForAll",
                f.id
            ));
        }
        for (i, r) in f.reductions.iter().enumerate() {
            if !self.visible.contains(&r.local) {
                self.err(format!(
                    "{} reduces {}, which is not declared outside it",
                    f.id, r.local
                ));
            }
            if f.reductions[..i].iter().any(|o| o.local == r.local) {
                self.err(format!("{} reduces {} twice", f.id, r.local));
            }
            if let Some(l) = self.body.locals.get(r.local) {
                self.combiner_fits(r.combiner, l.ty);
            }
        }
        if let Schedule::Block(b) = &f.schedule
            && b.policies.contains(&Policy::Grid)
            && !f.reductions.is_empty()
        {
            self.err(format!(
                "{} hands items to the grid (gd) and reduces: the owner would read the result before the iterations run",
                f.id
            ));
        }
        // The body: the variable is visible in it.
        let mark = self.visible.len();
        let saved = (
            std::mem::take(&mut self.inspected),
            std::mem::take(&mut self.scheduled),
        );
        if self.body.locals.contains(f.var) {
            self.visible.push(f.var);
        }
        if uniform {
            for &b in &f.body {
                let ok = match &self.body.stmts[b].kind {
                    StmtKind::Let { .. } | StmtKind::Phase(_) => true,
                    StmtKind::ForAll(inner) => matches!(inner.schedule, Schedule::Block(_)),
                    _ => false,
                };
                if !ok {
                    self.error(
                        Some(b),
                        "the body of a uniform ForAll holds only Lets, Phases and block-scheduled ForAlls"
                            .into(),
                    );
                }
            }
        }
        let block_trips = matches!(&f.schedule, Schedule::Block(b)
            if b.policies.iter().any(|p| matches!(p, Policy::Threadblock | Policy::Finegrained)));
        let counted = f.is_counted(self.body);
        self.reducing.push(f.reductions.clone());
        self.block(
            &f.body,
            Frame::ForAll {
                uniform,
                scheduled: matches!(f.schedule, Schedule::Block(_)),
                block_trips,
                counted,
            },
        );
        self.reducing.pop();
        (self.inspected, self.scheduled) = saved;
        self.visible.truncate(mark);
        let _ = s;
    }

    /// In-edges are read only on the device, of a graph that declares them.
    fn needs_in_edges(&mut self, what: &str) {
        if !self.module.graph.in_edges {
            self.err(format!("{what} of a graph without in_edges"));
        }
        if self.side == Side::Host {
            self.err(format!("{what} on the host"));
        }
    }

    /// `sum`, `min` and `max` combine numbers, `any` and `all` booleans, `or` and `and` the
    /// bits of integers.
    fn combiner_fits(&mut self, c: Combiner, ty: Ty) {
        let fits = match c {
            Combiner::Sum | Combiner::Min | Combiner::Max => ty.is_integer() || ty.is_float(),
            Combiner::Any | Combiner::All => ty == Ty::Bool,
            Combiner::Or | Combiner::And => ty.is_integer(),
        };
        if !fits {
            self.err(format!("{c} reduction of a {ty}"));
        }
    }

    /// Whether an enclosing `ForAll` reduces `l` (then only `Combine` may touch it).
    fn is_reduced(&self, l: LocalId) -> bool {
        self.reducing.iter().flatten().any(|r| r.local == l)
    }

    fn combine(&mut self, local: LocalId, combiner: Combiner, value: ExprId) {
        self.device_only("Combine");
        match self.reducing.last() {
            Some(rs) if rs.contains(&LoopReduce { local, combiner }) => {}
            _ => self.err(format!(
                "Combine ({combiner}) into {local} outside a ForAll that reduces it so"
            )),
        }
        let lt = self.body.locals.get(local).map(|l| l.ty);
        if let Some(lt) = lt {
            self.combiner_fits(combiner, lt);
        }
        let vt = self.expr(value);
        if let (Some(lt), Some(vt)) = (lt, vt) {
            self.compatible(lt, vt, "combined value");
        }
    }

    fn accumulate(&mut self, a: &Accumulate) {
        self.device_only("Accumulate");
        let Some(global) = self.module.globals.get(a.global.index()) else {
            self.err(format!("global {} out of range", a.global));
            return;
        };
        if !matches!(global.ty, Ty::U32 | Ty::I32 | Ty::U64 | Ty::I64) {
            self.err(format!(
                "Accumulate to the {} global {}",
                global.ty, global.name
            ));
        }
        if let Some(t) = self.expr(a.value) {
            self.compatible(global.ty, t, "added value");
        }
        match a.aggregation {
            Aggregation::BlockLoop => self.err("BlockLoop aggregation of an Accumulate".into()),
            Aggregation::Thread | Aggregation::Block => {
                // Deferred to the end of the kernel: nothing else in it may see the global.
                let other = crate::visit::other_uses_of_global(self.body, a.global);
                if other {
                    self.err(format!(
                        "deferred Accumulate to {}, which the kernel also reads or updates",
                        global.name
                    ));
                }
            }
            Aggregation::None | Aggregation::Warp => {}
        }
    }

    fn block_schedule(&mut self, b: &BlockSchedule, var_ty: Ty) {
        if b.policies.is_empty() || b.policies.len() != b.thresholds.len() {
            self.err("block schedule without policies or with mismatched thresholds".into());
        }
        let mut sorted = b.policies.clone();
        sorted.sort();
        sorted.dedup();
        if sorted != b.policies {
            self.err(format!(
                "policies {:?} not in descending order of size, or repeated",
                b.policies
            ));
        }
        if let Some(pos) = b.policies.iter().position(|p| p.takes_the_rest())
            && pos + 1 != b.policies.len()
        {
            self.err("a policy that takes the rest is not last".into());
        }
        if b.thresholds.windows(2).any(|w| w[0] < w[1]) {
            self.err(format!("thresholds {:?} not descending", b.thresholds));
        }
        for &l in &b.closure {
            self.local(l);
        }
        let tys = [
            (b.state.reached, Ty::Bool),
            (b.state.count, Ty::U32),
            (b.state.begin, var_ty),
        ];
        for (l, t) in tys {
            if let Some(local) = self.local(l) {
                let lt = local.ty;
                self.compatible(t, lt, "inspect state");
            }
        }
        if var_ty.bits() != 32 {
            self.err(format!("block-scheduled loop over a {var_ty} range"));
        }
    }

    fn space(&mut self, space: &Space, var_ty: Ty) {
        match space {
            Space::Worklist => self.compatible(Ty::U32, var_ty, "worklist index"),
            Space::Nodes => self.compatible(Ty::Node, var_ty, "node variable"),
            Space::SplitNodes => {
                if self.module.graph.mesh {
                    self.err("ForAll over the split nodes of a mesh".into());
                }
                self.compatible(Ty::U32, var_ty, "split part variable")
            }
            Space::Triangles => {
                if !self.module.graph.mesh {
                    self.err("ForAll over the triangles of a graph".into());
                }
                self.compatible(Ty::Triangle, var_ty, "triangle variable")
            }
            Space::Edges { node, dir } => {
                if let Some(t) = self.expr(*node) {
                    self.compatible(Ty::Node, t, "node of edges()");
                }
                match dir {
                    EdgeDir::Out => self.compatible(Ty::Edge, var_ty, "edge variable"),
                    EdgeDir::In => {
                        self.compatible(Ty::InEdge, var_ty, "in-edge variable");
                        self.needs_in_edges("in_edges()");
                    }
                }
            }
            Space::Range { lo, hi } => {
                for e in [*lo, *hi] {
                    if let Some(t) = self.expr(e) {
                        self.compatible(var_ty, t, "range bound");
                    }
                }
            }
            Space::Inspected => {}
        }
    }

    fn phase(&mut self, p: &Phase) {
        self.device_only("Phase");
        if self.frames.last()
            != Some(&Frame::ForAll {
                uniform: true,
                scheduled: false,
                block_trips: false,
                counted: false,
            })
        {
            self.err("Phase outside a uniform ForAll's body".into());
        }
        if let PhaseGuard::Reached(l) = p.guard
            && !self.scheduled.contains(&l)
        {
            self.err(format!(
                "Phase guarded by {l}, which was not scheduled before it"
            ));
        }
        self.block(&p.body, Frame::Phase);
    }

    fn inspect(&mut self, i: &Inspect) {
        self.device_only("Inspect");
        // Between the Phase and the Inspect: only ifs and scopes.
        let inner: Vec<Frame> = self
            .frames
            .iter()
            .rev()
            .take_while(|f| **f != Frame::Phase)
            .copied()
            .collect();
        if inner.len() == self.frames.len()
            || inner.iter().any(|f| !matches!(f, Frame::If | Frame::Block))
        {
            self.err(format!(
                "Inspect of {} outside a Phase, or inside a loop of one",
                i.loop_id
            ));
        }
        if matches!(i.space, Space::Worklist | Space::Inspected) {
            self.err("Inspect of a worklist or inspected space".into());
        }
        let begin_ty = self
            .body
            .locals
            .get(i.state.begin)
            .map_or(Ty::U32, |l| l.ty);
        self.space(&i.space, begin_ty);
        for l in [i.state.reached, i.state.count, i.state.begin] {
            self.local(l);
        }
        if self.inspected.insert(i.loop_id, i.state).is_some() {
            self.err(format!("{} inspected twice", i.loop_id));
        }
    }

    /// A mesh method used as a statement: its arguments against its signature.
    fn mesh_call(&mut self, m: MeshMethod, args: &[ExprId], expected: Ty) {
        let (params, ret) = m.signature();
        if ret != expected {
            self.err(format!("mesh.{} used as a statement", m.name()));
        }
        if params.len() != args.len() {
            self.err(format!("mesh.{} with {} arguments", m.name(), args.len()));
        }
        for (&a, p) in args.iter().zip(params) {
            if let Some(t) = self.expr(a) {
                self.compatible(*p, t, "mesh argument");
            }
        }
    }

    fn marks(&mut self, marks: PropId, ids: LocalId, count: Option<LocalId>) {
        if let Some(c) = count
            && let Some(l) = self.local(c)
            && !l.ty.is_integer()
        {
            self.err(format!("marking count of type {}", l.ty));
        }
        if let Some(p) = self.prop(marks)
            && p.ty != Ty::Mark
        {
            self.err(format!("marking protocol on a {} property", p.ty));
        }
        if let Some(l) = self.local(ids)
            && !matches!(l.kind, LocalKind::Array { .. })
        {
            self.err(format!("{ids} is not an array local"));
        }
    }

    fn index(&mut self, e: ExprId) {
        if let Some(t) = self.expr(e)
            && !t.is_u32_like()
        {
            self.err(format!("index of type {t}"));
        }
    }

    fn cond(&mut self, e: ExprId) {
        if let Some(t) = self.expr(e)
            && t != Ty::Bool
        {
            self.err(format!("condition of type {t}"));
        }
    }

    fn compatible(&mut self, expected: Ty, found: Ty, what: &str) {
        if !expected.compatible(found) || found == Ty::Error || expected == Ty::Error {
            self.err(format!("{what}: expected {expected}, found {found}"));
        }
    }

    /// Two operands of one operation: either type goes where the other is expected.
    fn mixes(&mut self, a: Ty, b: Ty, what: &str) {
        if !a.mixes(b) || a == Ty::Error || b == Ty::Error {
            self.err(format!("{what}: {a} and {b} do not mix"));
        }
    }

    fn place(&mut self, place: &Place, assigned: bool) -> Option<Ty> {
        match place {
            Place::Local(l) => {
                let local = self.local(*l)?;
                if assigned && !matches!(local.kind, LocalKind::Let | LocalKind::Temp) {
                    self.err(format!("assignment to the read-only local {l}"));
                }
                Some(local.ty)
            }
            Place::Global(g) => match self.module.globals.get(g.index()) {
                Some(g) => Some(g.ty),
                None => {
                    self.err(format!("global {g} out of range"));
                    None
                }
            },
            Place::ArrayElement { array, index } => {
                self.device_only("array element");
                self.index(*index);
                let local = self.local(*array)?;
                if !matches!(local.kind, LocalKind::Array { .. }) {
                    self.err(format!("element of {array}, which is not an array local"));
                }
                Some(local.ty)
            }
            Place::Element { prop, index } => {
                let p = self.prop(*prop)?;
                let it = self.expr(*index);
                let owner_ty = Ty::index_of(p.owner);
                if let Some(it) = it {
                    self.index_type(p.owner, owner_ty, it);
                }
                if matches!(p.ty, Ty::Lock | Ty::Mark) {
                    self.err(format!("element of the {} property {}", p.ty, p.name));
                }
                Some(p.ty)
            }
        }
    }

    /// An element index: the owner's index type, or any integer or index for an array.
    fn index_type(&mut self, owner: PropOwner, owner_ty: Ty, it: Ty) {
        if owner == PropOwner::Array {
            if !it.is_integer() && !it.is_u32_like() {
                self.err(format!("array index of type {it}"));
            }
        } else {
            self.compatible(owner_ty, it, "element index");
        }
    }

    /// Checks an expression tree; returns its type.
    fn expr(&mut self, e: ExprId) -> Option<Ty> {
        if !self.body.exprs.contains(e) {
            self.err(format!("expression {e} out of range"));
            return None;
        }
        if !self.seen_exprs.insert(e) {
            self.err(format!("expression {e} used twice"));
            return None;
        }
        let x = &self.body.exprs[e];
        let ty = x.ty;
        if matches!(ty, Ty::Void | Ty::Error | Ty::Graph | Ty::Lock | Ty::Mark) {
            self.err(format!("expression {e} of type {ty}"));
        }
        let operands: Vec<Option<Ty>> = visit::expr_operands(&x.kind)
            .into_iter()
            .map(|o| {
                if matches!(x.kind, ExprKind::Atomic { .. }) {
                    None
                } else {
                    self.expr(o)
                }
            })
            .collect();
        match &x.kind {
            ExprKind::Literal(Literal::Bool(_)) => self.compatible(Ty::Bool, ty, "bool literal"),
            ExprKind::Literal(Literal::Int(_)) if !ty.is_numeric() => {
                self.err(format!("integer literal of type {ty}"))
            }
            ExprKind::Literal(Literal::Float(_)) if !ty.is_float() => {
                self.err(format!("float literal of type {ty}"))
            }
            ExprKind::Literal(_) => {}
            ExprKind::Local(l) => {
                if self.is_reduced(*l) {
                    self.err(format!("{l} is read inside a ForAll that reduces it"));
                }
                if let Some(local) = self.local(*l) {
                    let lt = local.ty;
                    if matches!(local.kind, LocalKind::Array { .. }) {
                        self.err(format!("array local {l} used as a value"));
                    }
                    self.compatible(lt, ty, "local");
                }
            }
            ExprKind::Const(c) => match self.module.consts.get(c.index()) {
                Some(c) => self.compatible(c.ty, ty, "const"),
                None => self.err(format!("const {c} out of range")),
            },
            ExprKind::Param(p) => match self.module.params.get(p.index()) {
                Some(p) => self.compatible(p.ty, ty, "param"),
                None => self.err(format!("param {p} out of range")),
            },
            ExprKind::Global(g) => match self.module.globals.get(g.index()) {
                Some(g) => self.compatible(g.ty, ty, "global"),
                None => self.err(format!("global {g} out of range")),
            },
            ExprKind::Element { prop, .. } => {
                if let Some(p) = self.prop(*prop) {
                    if matches!(p.ty, Ty::Lock | Ty::Mark) {
                        self.err(format!("read of the {} property {}", p.ty, p.name));
                    }
                    let owner_ty = Ty::index_of(p.owner);
                    if let Some(Some(it)) = operands.first() {
                        self.index_type(p.owner, owner_ty, *it);
                    }
                    self.compatible(p.ty, ty, "element");
                }
            }
            ExprKind::Unary(op, _) => {
                let Some(Some(t)) = operands.first().copied() else {
                    return Some(ty);
                };
                match op {
                    UnaryOp::Not => {
                        self.compatible(Ty::Bool, t, "operand of !");
                        self.compatible(Ty::Bool, ty, "result of !");
                    }
                    UnaryOp::Neg | UnaryOp::BitNot => self.compatible(t, ty, "unary result"),
                }
            }
            ExprKind::Binary(op, _, _) => {
                if let [Some(a), Some(b)] = operands[..] {
                    if op.is_logical() {
                        self.compatible(Ty::Bool, a, "operand");
                        self.compatible(Ty::Bool, b, "operand");
                        self.compatible(Ty::Bool, ty, "result");
                    } else if op.is_comparison() {
                        self.mixes(a, b, "compared operand");
                        self.compatible(Ty::Bool, ty, "comparison");
                    } else if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                        self.compatible(a, ty, "shifted value");
                        if !b.is_integer() {
                            self.err(format!("shift amount of type {b}"));
                        }
                    } else {
                        self.mixes(a, b, "operand");
                        self.compatible(a.join(b), ty, "arithmetic result");
                    }
                }
            }
            ExprKind::Select { .. } => {
                if let [Some(c), Some(a), Some(b)] = operands[..] {
                    self.compatible(Ty::Bool, c, "selector");
                    self.compatible(ty, a, "selected value");
                    self.compatible(ty, b, "selected value");
                }
            }
            ExprKind::Cast(_) => {
                if let Some(Some(t)) = operands.first()
                    && !(t.is_scalar() && ty.is_scalar())
                {
                    self.err(format!("cast from {t} to {ty}"));
                }
            }
            ExprKind::Builtin(b, args) => {
                if let Some((params, ret)) = b.geometry_signature() {
                    if params.len() != args.len() {
                        self.err(format!("{b:?} with {} arguments", args.len()));
                    }
                    for (t, p) in operands.iter().zip(params) {
                        if let Some(t) = t {
                            self.compatible(*p, *t, "argument");
                        }
                    }
                    self.compatible(ret, ty, "result");
                } else {
                    let n = match b {
                        Builtin::Min | Builtin::Max => 2,
                        _ => 1,
                    };
                    if args.len() != n {
                        self.err(format!("{b:?} with {} arguments", args.len()));
                    }
                    if b.is_bit_count() {
                        if let Some(Some(t)) = operands.first()
                            && !matches!(t, Ty::U32 | Ty::U64)
                        {
                            self.err(format!("{b:?} of a {t}"));
                        }
                        self.compatible(Ty::U32, ty, "result");
                    }
                }
            }
            ExprKind::ArrayElement { array, .. } => {
                self.device_only("array element");
                if let Some(Some(t)) = operands.first()
                    && !t.is_integer()
                {
                    self.err(format!("array index of type {t}"));
                }
                if let Some(local) = self.local(*array) {
                    if !matches!(local.kind, LocalKind::Array { .. }) {
                        self.err(format!("element of {array}, which is not an array local"));
                    }
                    let lt = local.ty;
                    self.compatible(lt, ty, "array element");
                }
            }
            ExprKind::MeshQuery(m, _) => {
                self.device_only("mesh method");
                let (params, ret) = m.signature();
                if ret == Ty::Void {
                    self.err(format!("mesh.{} used as a value", m.name()));
                }
                if params.len() != operands.len() {
                    self.err(format!(
                        "mesh.{} with {} arguments",
                        m.name(),
                        operands.len()
                    ));
                }
                for (t, p) in operands.iter().zip(params) {
                    if let Some(t) = t {
                        self.compatible(*p, *t, "mesh argument");
                    }
                }
                self.compatible(ret, ty, "mesh result");
            }
            ExprKind::Atomic { op, place, args } => {
                self.device_only("atomic function");
                let pt = self.place(place, false);
                let n = if *op == AtomicOp::Cas { 2 } else { 1 };
                if args.len() != n {
                    self.err(format!("{} with {} value arguments", op.name(), args.len()));
                }
                for &a in args {
                    if let (Some(t), Some(pt)) = (self.expr(a), pt) {
                        self.compatible(pt, t, "atomic operand");
                    }
                }
                if let Some(pt) = pt {
                    self.compatible(pt, ty, "atomic result");
                }
            }
            ExprKind::FetchAdd {
                global,
                value: _,
                aggregation,
                note: _,
            } => {
                self.device_only("fetch-and-add");
                match self.module.globals.get(global.index()) {
                    None => self.err(format!("global {global} out of range")),
                    Some(g) => {
                        if !matches!(g.ty, Ty::U32 | Ty::I32 | Ty::U64 | Ty::I64) {
                            self.err(format!("fetch-and-add on the {} global {}", g.ty, g.name));
                        }
                        if let Some(Some(t)) = operands.first() {
                            self.compatible(g.ty, *t, "added value");
                        }
                        self.compatible(g.ty, ty, "fetch-and-add result");
                    }
                }
                if *aggregation != Aggregation::Warp {
                    self.err(format!(
                        "{aggregation:?} aggregation of a fetch-and-add (only Warp: its old value is used where it is made)"
                    ));
                }
            }
            ExprKind::GraphSize(f) => {
                // The number of arcs is as wide as an edge index.
                let size_ty = if *f == GraphField::NEdges {
                    Ty::Edge
                } else {
                    Ty::U32
                };
                self.compatible(size_ty, ty, "graph size");
            }
            ExprKind::GraphQuery(m, _) => {
                let (arg, res) = match m {
                    GraphMethod::Dst => (Ty::Edge, Ty::Node),
                    GraphMethod::Degree | GraphMethod::InDegree => (Ty::Node, Ty::U32),
                    GraphMethod::EdgeBegin | GraphMethod::EdgeEnd => (Ty::Node, Ty::Edge),
                    GraphMethod::Src => (Ty::InEdge, Ty::Node),
                    GraphMethod::EdgeOf => (Ty::InEdge, Ty::Edge),
                    GraphMethod::InEdgeBegin | GraphMethod::InEdgeEnd => (Ty::Node, Ty::InEdge),
                };
                if m.incoming() {
                    self.needs_in_edges(m.name());
                }
                if let Some(Some(t)) = operands.first() {
                    self.compatible(arg, *t, "graph query argument");
                }
                self.compatible(res, ty, "graph query result");
            }
            ExprKind::Split(q, _) => {
                self.device_only(q.name());
                if let Some(Some(t)) = operands.first() {
                    self.compatible(Ty::U32, *t, "split part");
                }
                let res = match q {
                    SplitQuery::Node => Ty::Node,
                    SplitQuery::Begin | SplitQuery::End => Ty::Edge,
                };
                self.compatible(res, ty, "split query result");
            }
            ExprKind::Pop(_) => {
                self.device_only("Pop");
                let item = if self.module.graph.mesh {
                    Ty::Triangle
                } else {
                    Ty::Node
                };
                self.compatible(item, ty, "popped item");
            }
            ExprKind::TryLock { locks, .. } => {
                self.device_only("TryLock");
                if let Some(p) = self.prop(*locks)
                    && p.ty != Ty::Lock
                {
                    self.err(format!("TryLock on a {} property", p.ty));
                }
                self.compatible(Ty::Bool, ty, "TryLock");
            }
            ExprKind::TryMarks { marks, ids, count } => {
                self.device_only("TryMarks");
                self.marks(*marks, *ids, *count);
                self.compatible(Ty::Bool, ty, "TryMarks");
            }
            ExprKind::WorklistSize(_) => {
                self.host_only("WorklistSize");
                self.compatible(Ty::U32, ty, "worklist size");
            }
            ExprKind::ReduceResult => {
                self.host_only("ReduceResult");
                self.compatible(Ty::Bool, ty, "reduction result");
            }
        }
        Some(ty)
    }
}

/// Panics with every broken invariant: for the pipeline's checks after each pass.
pub fn assert_valid(module: &Module, after: &str) {
    if let Err(errors) = verify(module) {
        let list: Vec<String> = errors.iter().map(|e| format!("  {e}")).collect();
        panic!(
            "the IR is invalid after {after} (a compiler bug):\n{}",
            list.join("\n")
        );
    }
}
