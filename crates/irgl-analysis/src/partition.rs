//! Whether a program can run partitioned over several GPUs (docs/multi-gpu.md), and what each
//! round would exchange.
//!
//! A partitioned run gives each GPU a contiguous range of nodes, its masters, with every
//! out-edge of them, and a mirror of each remote end of those edges
//! (`irgl_graph::partition`). Every kernel runs on every GPU over its masters; between rounds
//! the mirrors' updates are merged into their masters and the masters' values copied back to
//! the mirrors. That is only the program's own meaning where every effect that crosses a part
//! is one the merge can express. The analysis accepts a program when, in every kernel:
//! - a thread touches only its **own node** (the outermost `ForAll`'s node, or the node it
//!   popped from the worklist), its **own out-edges** (a nested `ForAll` over them, or an
//!   `edge` local whose every value is computed from its own `edge_begin`/`edge_end`), and the
//!   **heads** of those edges (`g.dst(e)`), which its GPU holds as masters or mirrors;
//! - it stores to node properties only at its own node, or at a head a value that is the same
//!   for every thread of the launch (bfs's `level[d] = LEVEL`: a mirror stored to sets its
//!   master); at a head it updates them otherwise only by
//!   `atomicMin`, `atomicMax`, `atomicAdd`, `atomicOr` or `atomicAnd`, one kind per property,
//!   which the merge applies (min of the copies, their sum, ...), and a property it adds to
//!   at heads it does not read there (a mirror holds its own GPU's additions, not the sum);
//!   an atomic that cannot change its word (`atomicOr(w, 0)`) is a read;
//! - it pushes its own node or a head (a remote push goes to the head's GPU);
//! - it adds to globals only by those atomics whose old value it does not use (all-reduced
//!   across the GPUs), and takes no lock, has no grid barrier (which would span one GPU), and
//!   reads no program-level array (those are not partitioned);
//! - and the graph is not a mesh and has no in-edges (a part holds its masters' out-edges
//!   only).
//!
//! Otherwise it gives the first thing that fails, with the kernel. Reads of a head's
//! properties see its value as of the last exchange (mirrors are copies), which programs
//! whose rounds read neighbours' values of the previous round (bfs, sssp, PageRank) are
//! written for; a program that relies on seeing updates within a round still gets the same
//! answer where its updates are monotone, with more rounds.
//!
//! Judged on the program as lowered, before the optimization passes.

use std::collections::{BTreeMap, BTreeSet};

use irgl_ir::*;

/// The verdict for a program.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionPlan {
    /// What each round exchanges, per node property that needs it, or why the program cannot
    /// run partitioned.
    pub verdict: Result<Partitioned, Refusal>,
    /// Where pushes are delivered as often as they were made ([`PushDelivery::Counted`]): the
    /// first kernel that pops items and would do more on a second pass over one, and why.
    pub counted_because: Option<(String, String)>,
}

/// How one node property is kept consistent between the GPUs (the IR's, which a program
/// built with `--multi-gpu` carries to code generation).
pub use irgl_ir::PropExchange as Exchange;
pub use irgl_ir::PropSync as Sync;
pub use irgl_ir::{Partitioned, PushDelivery};

/// Why a program cannot run partitioned.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// The kernel where it fails (None: the program as a whole).
    pub kernel: Option<String>,
    pub why: String,
}

impl PartitionPlan {
    pub fn build(m: &Module) -> PartitionPlan {
        // The first kernel that pops items whose second pass over one would do more.
        let counted_because = m
            .kernels
            .iter()
            .find_map(|(_, k)| repeat_changes(m, k).map(|why| (k.name.clone(), why)));
        let pushes = match counted_because {
            None => PushDelivery::Once,
            Some(_) => PushDelivery::Counted,
        };
        PartitionPlan {
            verdict: plan(m).map(|exchanges| Partitioned { exchanges, pushes }),
            counted_because,
        }
    }

    /// What `irglc emit partition` prints.
    pub fn render(&self, m: &Module) -> String {
        match &self.verdict {
            Err(r) => match &r.kernel {
                Some(k) => format!("partitioned execution: no: kernel `{k}` {}\n", r.why),
                None => format!("partitioned execution: no: {}\n", r.why),
            },
            Ok(p) => {
                let mut out = String::from("partitioned execution: yes\n");
                let exchanges = &p.exchanges;
                if exchanges.is_empty() {
                    out.push_str("  nothing to exchange between rounds: no kernel reads or updates a neighbour's property\n");
                }
                for x in exchanges {
                    let name = &m.prop(x.prop).name;
                    let how = match x.sync {
                        Sync::Merge(AtomicOp::Add) => {
                            "updated at neighbours by atomicAdd: the mirrors' additions summed into their masters after each round, and the mirrors reset to 0".to_string()
                        }
                        Sync::Merge(op) => format!(
                            "updated at neighbours by {}: mirrors merged into their masters by {} after each round, then copied back",
                            op.name(),
                            merge_name(op)
                        ),
                        Sync::Uniform => {
                            "stored at neighbours with one value per launch: a mirror stored to sets its master to it after each round, then masters copied back".to_string()
                        }
                        Sync::Broadcast => {
                            "written by its own node, read at neighbours: masters copied to their mirrors after each round".to_string()
                        }
                        Sync::Once => {
                            "read at neighbours, written by no kernel: copied to the mirrors once".to_string()
                        }
                    };
                    out.push_str(&format!("  {name}: {how}\n"));
                }
                let pops = m.kernels.iter().any(|(_, k)| pops_items(&k.body));
                match (&self.counted_because, pops) {
                    (_, false) => {}
                    (None, true) => out.push_str("  pushes: a node pushed several times in a round (by threads or GPUs) is popped once on its GPU: every kernel that pops items does the same work on a second pass over one\n"),
                    (Some((k, why)), true) => out.push_str(&format!(
                        "  pushes: each delivered as often as it was made: kernel `{k}` {why}, so a second pass over an item would do more\n"
                    )),
                }
                out
            }
        }
    }
}

fn merge_name(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Min => "min",
        AtomicOp::Max => "max",
        AtomicOp::Add => "sum",
        AtomicOp::Or => "or",
        AtomicOp::And => "and",
        _ => "?",
    }
}

fn plan(m: &Module) -> Result<Vec<Exchange>, Refusal> {
    let whole = |why: &str| Refusal {
        kernel: None,
        why: why.to_string(),
    };
    if m.graph.mesh {
        return Err(whole("its input is a mesh, which is not partitioned"));
    }
    if m.graph.in_edges {
        return Err(whole(
            "it reads in-edges (`graph g : in_edges`): a part holds its masters' out-edges only",
        ));
    }
    let mut uses = Uses::default();
    for (_, k) in m.kernels.iter() {
        kernel(m, k, &mut uses).map_err(|why| Refusal {
            kernel: Some(k.name.clone()),
            why,
        })?;
    }
    let mut out = Vec::new();
    for (i, _) in m.graph.props.iter().enumerate() {
        let prop = PropId(i as u32);
        if uses.merged.get(&prop) == Some(&AtomicOp::Add) && uses.read_remote.contains(&prop) {
            return Err(whole(&format!(
                "it adds to `{}` at neighbours and reads it there: a mirror holds only its own GPU's additions, not the sum",
                m.prop(prop).name
            )));
        }
        if let (Some(op), true) = (uses.merged.get(&prop), uses.uniform.contains(&prop)) {
            return Err(whole(&format!(
                "it stores to `{}` at neighbours and updates it there with {}: one merge per property",
                m.prop(prop).name,
                op.name()
            )));
        }
        let sync = match (uses.merged.get(&prop), uses.owner_written.contains(&prop)) {
            (Some(op), _) => Some(Sync::Merge(*op)),
            _ if uses.uniform.contains(&prop) => Some(Sync::Uniform),
            (None, true) if uses.read_remote.contains(&prop) => Some(Sync::Broadcast),
            (None, false) if uses.read_remote.contains(&prop) => Some(Sync::Once),
            _ => None,
        };
        if let Some(sync) = sync {
            out.push(Exchange { prop, sync });
        }
    }
    Ok(out)
}

/// What the kernels do with each node property, over the whole program.
#[derive(Default)]
struct Uses {
    merged: BTreeMap<PropId, AtomicOp>,
    /// Stored at heads with a value uniform over the launch.
    uniform: BTreeSet<PropId>,
    owner_written: BTreeSet<PropId>,
    read_remote: BTreeSet<PropId>,
}

/// Where an index points, for a thread.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reach {
    Own,
    Head,
    Elsewhere,
}

/// The locals of one kernel by what they hold.
struct Roles {
    own: BTreeSet<LocalId>,
    own_edges: BTreeSet<LocalId>,
    heads: BTreeSet<LocalId>,
}

fn kernel(m: &Module, k: &Kernel, uses: &mut Uses) -> Result<(), String> {
    let body = &k.body;
    let roles = roles(body);
    // Statements first: stores, pushes, locks, barriers.
    let mut err: Option<String> = None;
    visit::walk_stmts(body, &body.block, &mut |s| {
        if err.is_some() {
            return;
        }
        err = match &body.stmts[s].kind {
            StmtKind::Assign {
                place: Place::Element { prop, index },
                value,
                op,
            } => {
                if op.is_some()
                    && m.prop(*prop).owner == PropOwner::Node
                    && reach(body, &roles, *index) != Reach::Own
                {
                    Some(format!(
                        "updates `{}` of another node by a read and a store (`op=`): the GPUs' updates could not be merged (use atomicAdd, atomicMin, ...)",
                        prop_name(m, *prop)
                    ))
                } else {
                    store(m, body, &roles, *prop, *index, *value, uses)
                }
            }
            StmtKind::Assign {
                place: Place::Global(g),
                ..
            } => Some(format!(
                "assigns the global `{}`: each GPU would keep its own value (add to it with atomicAdd, or reduce with atomicMin/atomicMax)",
                m.globals[g.index()].name
            )),
            StmtKind::Push(p) => match reach(body, &roles, p.item) {
                Reach::Own | Reach::Head => None,
                Reach::Elsewhere => Some(
                    "pushes an item that is neither its own node nor the head of one of its out-edges: no GPU is known to hold it".to_string(),
                ),
            },
            StmtKind::Unlock { .. } | StmtKind::ReleaseMarks { .. } => {
                Some("takes locks (Atomic or Exclusive), which one GPU cannot hold for another".to_string())
            }
            StmtKind::GridSync => {
                Some("has a grid barrier (SyncRunningThreads), which spans one GPU's grid".to_string())
            }
            StmtKind::ForAll(f) if matches!(f.space, Space::Edges { dir: EdgeDir::In, .. }) => {
                Some("reads in-edges: a part holds its masters' out-edges only".to_string())
            }
            _ => None,
        };
    });
    if let Some(why) = err {
        return Err(why);
    }
    // Then every expression: reads and atomics.
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        if err.is_some() {
            return;
        }
        err = match &body.exprs[e].kind {
            ExprKind::Element { prop, index } => read(m, body, &roles, *prop, *index, uses),
            // An atomic that cannot change the word (`atomicOr(w, 0)`: a read that sees the
            // word in L2, as mis's waiting nodes do) reads it: there is nothing to merge.
            ExprKind::Atomic {
                op,
                place: Place::Element { prop, index },
                args,
            } if leaves_unchanged(body, *op, args) => read(m, body, &roles, *prop, *index, uses),
            ExprKind::Atomic {
                op,
                place: Place::Element { prop, index },
                ..
            } => atomic(m, body, &roles, *op, *prop, *index, uses),
            ExprKind::Atomic {
                op,
                place: Place::Global(g),
                ..
            } if !is_merge(*op) => Some(format!(
                "updates the global `{}` with {}: only atomicMin, atomicMax, atomicAdd, atomicOr and atomicAnd can be combined across GPUs",
                m.globals[g.index()].name,
                op.name()
            )),
            ExprKind::GraphQuery(
                q @ (GraphMethod::Degree | GraphMethod::EdgeBegin | GraphMethod::EdgeEnd),
                n,
            ) if reach(body, &roles, *n) != Reach::Own => Some(format!(
                "reads `{}` of a node that is not its own: a part holds its masters' out-edges only, and a mirror has none",
                match q {
                    GraphMethod::Degree => "g.degree",
                    GraphMethod::EdgeBegin => "g.edge_begin",
                    _ => "g.edge_end",
                }
            )),
            ExprKind::FetchAdd { global, .. } => Some(format!(
                "uses the old value of an atomicAdd to the global `{}` (a reservation): the GPUs would hand out the same values",
                m.globals[global.index()].name
            )),
            ExprKind::TryLock { .. } | ExprKind::TryMarks { .. } => Some(
                "takes locks (Atomic or Exclusive), which one GPU cannot hold for another"
                    .to_string(),
            ),
            _ => None,
        };
    });
    match err {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// Whether an atomic `op` with these operands leaves its word as it was: adding, subtracting,
/// or-ing or xor-ing a literal 0 (through casts).
fn leaves_unchanged(body: &Body, op: AtomicOp, args: &[ExprId]) -> bool {
    let zero = |mut e: ExprId| loop {
        match &body.exprs[e].kind {
            ExprKind::Cast(inner) => e = *inner,
            ExprKind::Literal(Literal::Int(0)) => return true,
            _ => return false,
        }
    };
    matches!(
        op,
        AtomicOp::Add | AtomicOp::Sub | AtomicOp::Or | AtomicOp::Xor
    ) && matches!(args, [a] if zero(*a))
}

fn is_merge(op: AtomicOp) -> bool {
    matches!(
        op,
        AtomicOp::Min | AtomicOp::Max | AtomicOp::Add | AtomicOp::Or | AtomicOp::And
    )
}

fn prop_name(m: &Module, prop: PropId) -> &str {
    &m.prop(prop).name
}

/// The verdict on an access to a property that is not a node's (`Some`; `None` for a node
/// property, which the caller judges): an edge property only at the thread's own edges
/// (`access`: what it does, "reads", "stores to", "updates"); program arrays and meshes never.
fn not_a_node_property(
    m: &Module,
    body: &Body,
    roles: &Roles,
    prop: PropId,
    index: ExprId,
    access: &str,
) -> Option<Option<String>> {
    let name = prop_name(m, prop);
    match m.prop(prop).owner {
        PropOwner::Node => None,
        PropOwner::Edge => Some((!own_edge_expr(body, roles, index)).then(|| {
            format!(
                "{access} the edge property `{name}` of an edge that is not its own node's: a part holds its masters' out-edges only"
            )
        })),
        PropOwner::Array => Some(Some(format!(
            "uses the program-level array `{name}`, which is not partitioned"
        ))),
        PropOwner::Triangle | PropOwner::Vertex => {
            Some(Some("uses a mesh, which is not partitioned".to_string()))
        }
    }
}

fn read(
    m: &Module,
    body: &Body,
    roles: &Roles,
    prop: PropId,
    index: ExprId,
    uses: &mut Uses,
) -> Option<String> {
    if let Some(verdict) = not_a_node_property(m, body, roles, prop, index, "reads") {
        return verdict;
    }
    match reach(body, roles, index) {
        Reach::Own => None,
        Reach::Head => {
            uses.read_remote.insert(prop);
            None
        }
        Reach::Elsewhere => Some(format!(
            "reads `{}` at an index that is neither its own node nor the head of one of its out-edges (such as a parent pointer's target): its GPU holds no copy of that node",
            prop_name(m, prop)
        )),
    }
}

fn store(
    m: &Module,
    body: &Body,
    roles: &Roles,
    prop: PropId,
    index: ExprId,
    value: ExprId,
    uses: &mut Uses,
) -> Option<String> {
    if let Some(verdict) = not_a_node_property(m, body, roles, prop, index, "stores to") {
        return verdict;
    }
    match reach(body, roles, index) {
        Reach::Own => {
            uses.owner_written.insert(prop);
            None
        }
        Reach::Head if uniform(body, value) => {
            uses.uniform.insert(prop);
            None
        }
        Reach::Head => Some(format!(
            "stores to `{}` of a neighbour a value that differs between threads: the GPUs' stores could not be merged (update it with atomicMin, atomicMax, atomicAdd, atomicOr or atomicAnd)",
            prop_name(m, prop)
        )),
        Reach::Elsewhere => Some(format!(
            "stores to `{}` at an index that is neither its own node nor the head of one of its out-edges",
            prop_name(m, prop)
        )),
    }
}

fn atomic(
    m: &Module,
    body: &Body,
    roles: &Roles,
    op: AtomicOp,
    prop: PropId,
    index: ExprId,
    uses: &mut Uses,
) -> Option<String> {
    if let Some(verdict) = not_a_node_property(m, body, roles, prop, index, "updates") {
        return verdict;
    }
    let name = prop_name(m, prop);
    match reach(body, roles, index) {
        Reach::Elsewhere => Some(format!(
            "updates `{name}` with {} at an index that is neither its own node nor the head of one of its out-edges",
            op.name()
        )),
        // At its own node a thread updates its master: any atomic, as a store.
        Reach::Own => {
            uses.owner_written.insert(prop);
            None
        }
        Reach::Head if !is_merge(op) => Some(format!(
            "updates `{name}` of a neighbour with {}: the GPUs' updates could not be merged (atomicMin, atomicMax, atomicAdd, atomicOr and atomicAnd can)",
            op.name()
        )),
        Reach::Head => match uses.merged.insert(prop, op) {
            Some(other) if other != op => Some(format!(
                "updates `{name}` with {} and elsewhere with {}: one merge per property",
                op.name(),
                other.name()
            )),
            _ => None,
        },
    }
}

/// Whether `e` has one value for every thread of a launch: literals, constants, parameters of
/// the program and of the kernel, the graph's sizes, and operations on those.
fn uniform(body: &Body, e: ExprId) -> bool {
    match &body.exprs[e].kind {
        ExprKind::Literal(_) | ExprKind::Const(_) | ExprKind::Param(_) | ExprKind::GraphSize(_) => {
            true
        }
        ExprKind::Local(l) => body.locals[*l].kind == LocalKind::Param,
        ExprKind::Cast(a) | ExprKind::Unary(_, a) => uniform(body, *a),
        ExprKind::Binary(_, a, b) => uniform(body, *a) && uniform(body, *b),
        ExprKind::Select {
            cond,
            then_expr,
            else_expr,
        } => uniform(body, *cond) && uniform(body, *then_expr) && uniform(body, *else_expr),
        ExprKind::Builtin(_, args) => args.iter().all(|a| uniform(body, *a)),
        _ => false,
    }
}

/// Where `index` points for the thread.
fn reach(body: &Body, roles: &Roles, index: ExprId) -> Reach {
    match &body.exprs[index].kind {
        ExprKind::Local(l) if roles.own.contains(l) => Reach::Own,
        ExprKind::Local(l) if roles.heads.contains(l) => Reach::Head,
        ExprKind::Cast(e) => reach(body, roles, *e),
        ExprKind::GraphQuery(GraphMethod::Dst, e) if own_edge_expr(body, roles, *e) => Reach::Head,
        _ => Reach::Elsewhere,
    }
}

/// Whether `e` is one of the thread's own out-edges (or a bound of them).
fn own_edge_expr(body: &Body, roles: &Roles, e: ExprId) -> bool {
    let mut ok = true;
    let mut based = false;
    edge_leaves(body, roles, e, &mut ok, &mut based, None);
    ok && based
}

/// Walks an edge expression: `based` when a leaf is an own edge bound or local, `ok` unless a
/// leaf is something else than those, a literal, a constant or a parameter (`this`: the
/// local being defined, which may appear in its own steps).
fn edge_leaves(
    body: &Body,
    roles: &Roles,
    e: ExprId,
    ok: &mut bool,
    based: &mut bool,
    this: Option<LocalId>,
) {
    match &body.exprs[e].kind {
        ExprKind::GraphQuery(GraphMethod::EdgeBegin | GraphMethod::EdgeEnd, n) => {
            if reach(body, roles, *n) == Reach::Own {
                *based = true;
            } else {
                *ok = false;
            }
        }
        ExprKind::Local(l) if roles.own_edges.contains(l) || Some(*l) == this => *based = true,
        ExprKind::Literal(_) | ExprKind::Const(_) | ExprKind::Param(_) => {}
        ExprKind::Cast(a) | ExprKind::Unary(_, a) => edge_leaves(body, roles, *a, ok, based, this),
        ExprKind::Binary(_, a, b) => {
            edge_leaves(body, roles, *a, ok, based, this);
            edge_leaves(body, roles, *b, ok, based, this);
        }
        ExprKind::Builtin(_, args) => {
            for a in args {
                edge_leaves(body, roles, *a, ok, based, this);
            }
        }
        _ => *ok = false,
    }
}

/// Whether a kernel pops items from a worklist.
fn pops_items(body: &Body) -> bool {
    let mut pops = false;
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        pops |= matches!(body.exprs[e].kind, ExprKind::Pop(_));
    });
    pops
}

/// Why a second pass over one popped item, in the same round or the next, could change what a
/// kernel does (None: it could not, so a node pushed several times can be popped once). A pass
/// may repeat its updates of other nodes by min, max, or and and, its stores of values computed
/// from what it reads, and its pushes; it may not add (to a property or a global, or
/// `op=`), nor store or update a property with a value computed from the property itself at
/// the same place (`x[n] = x[n] + 1`), nor store an atomic's old value (each pass gets another).
pub fn repeat_changes(m: &Module, k: &Kernel) -> Option<String> {
    let body = &k.body;
    if !pops_items(body) {
        return None;
    }
    let roles = roles(body);
    // What each local's value may come from: properties read (with whether at the own node)
    // and atomics' old values. Grown to a fixpoint over the kernel's assignments.
    let mut taints: BTreeMap<LocalId, Taint> = BTreeMap::new();
    let mut defs: Vec<(LocalId, ExprId)> = Vec::new();
    visit::walk_stmts(body, &body.block, &mut |s| match &body.stmts[s].kind {
        StmtKind::Let {
            local,
            init: Some(e),
        } => defs.push((*local, *e)),
        StmtKind::Assign {
            place: Place::Local(l),
            value,
            ..
        }
        | StmtKind::Combine {
            local: l, value, ..
        } => defs.push((*l, *value)),
        _ => {}
    });
    let mut changed = true;
    while changed {
        changed = false;
        for (l, e) in &defs {
            let t = taint(body, &roles, *e, &taints);
            let entry = taints.entry(*l).or_default();
            if entry.absorb(&t) {
                changed = true;
            }
        }
    }
    // Then every update.
    let mut why = None;
    let judge = |op: Option<AtomicOp>, place: &Place, value: Option<ExprId>| -> Option<String> {
        let (name, at) = match place {
            Place::Element { prop, index } => (
                prop_name(m, *prop).to_string(),
                Some((*prop, reach(body, &roles, *index) == Reach::Own)),
            ),
            Place::Global(g) => (m.globals[g.index()].name.clone(), None),
            _ => return None,
        };
        if matches!(op, Some(AtomicOp::Add | AtomicOp::Sub | AtomicOp::Xor)) {
            return Some(format!(
                "updates `{name}` with {}",
                op.map(|o| o.name()).unwrap_or("")
            ));
        }
        let t = value
            .map(|v| taint(body, &roles, v, &taints))
            .unwrap_or_default();
        if t.old_value {
            return Some(format!("stores an atomic's old value in `{name}`"));
        }
        match at {
            Some(place) if t.reads.contains(&place) => Some(format!(
                "updates `{name}` with a value computed from `{name}` at the same node"
            )),
            _ => None,
        }
    };
    visit::walk_stmts(body, &body.block, &mut |s| {
        if why.is_some() {
            return;
        }
        why = match &body.stmts[s].kind {
            StmtKind::Assign {
                place: Place::Element { prop, .. },
                op: Some(_),
                ..
            } => Some(format!(
                "updates `{}` by a read and a store (`op=`)",
                prop_name(m, *prop)
            )),
            StmtKind::Assign {
                place: place @ Place::Element { .. },
                op: None,
                value,
            } => judge(None, place, Some(*value)),
            StmtKind::Accumulate(_) => Some("adds to a global".to_string()),
            _ => None,
        };
    });
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        if why.is_some() {
            return;
        }
        why = match &body.exprs[e].kind {
            ExprKind::Atomic { op, place, args } => {
                // The stored value: the last argument (atomicCAS's new value).
                judge(Some(*op), place, args.last().copied())
            }
            ExprKind::FetchAdd { .. } => Some("adds to a global".to_string()),
            _ => None,
        };
    });
    why
}

/// Where a value may come from (`repeat_changes`).
#[derive(Clone, Default)]
struct Taint {
    /// Properties read, with whether at the thread's own node.
    reads: BTreeSet<(PropId, bool)>,
    /// An atomic's old value.
    old_value: bool,
}

impl Taint {
    /// Adds `other`; whether anything was new.
    fn absorb(&mut self, other: &Taint) -> bool {
        let before = (self.reads.len(), self.old_value);
        self.reads.extend(other.reads.iter().copied());
        self.old_value |= other.old_value;
        before != (self.reads.len(), self.old_value)
    }
}

fn taint(body: &Body, roles: &Roles, e: ExprId, locals: &BTreeMap<LocalId, Taint>) -> Taint {
    let mut t = Taint::default();
    visit::walk_expr(body, e, &mut |x| match &body.exprs[x].kind {
        ExprKind::Element { prop, index } => {
            t.reads
                .insert((*prop, reach(body, roles, *index) == Reach::Own));
        }
        ExprKind::Atomic { .. } | ExprKind::FetchAdd { .. } => t.old_value = true,
        ExprKind::Local(l) => {
            if let Some(lt) = locals.get(l) {
                t.absorb(lt);
            }
        }
        _ => {}
    });
    t
}

/// The kernel's own node, own edges and heads, by the locals that hold them.
fn roles(body: &Body) -> Roles {
    let mut assigned: BTreeMap<LocalId, Vec<ExprId>> = BTreeMap::new();
    let mut lets: BTreeMap<LocalId, ExprId> = BTreeMap::new();
    let mut own = BTreeSet::new();
    let mut edge_loops: Vec<(LocalId, &Space)> = Vec::new();
    visit::walk_stmts(body, &body.block, &mut |s| match &body.stmts[s].kind {
        StmtKind::Let {
            local,
            init: Some(e),
        } => {
            lets.insert(*local, *e);
        }
        StmtKind::Assign {
            place: Place::Local(l),
            value,
            ..
        } => assigned.entry(*l).or_default().push(*value),
        StmtKind::ForAll(f) => match (&f.schedule, &f.space) {
            (Schedule::Grid { .. }, Space::Nodes) => {
                own.insert(f.var);
            }
            (_, space @ (Space::Edges { .. } | Space::Range { .. })) => {
                edge_loops.push((f.var, space));
            }
            _ => {}
        },
        _ => {}
    });
    // The popped item, and copies of the own node that are never reassigned.
    let mut changed = true;
    while changed {
        changed = false;
        for (l, e) in &lets {
            if own.contains(l) || assigned.contains_key(l) {
                continue;
            }
            let holds_own = match &body.exprs[*e].kind {
                ExprKind::Pop(_) => true,
                ExprKind::Local(o) => own.contains(o),
                ExprKind::Cast(x) => matches!(&body.exprs[*x].kind, ExprKind::Pop(_)),
                _ => false,
            };
            if holds_own {
                own.insert(*l);
                changed = true;
            }
        }
    }
    let mut roles = Roles {
        own,
        own_edges: BTreeSet::new(),
        heads: BTreeSet::new(),
    };
    // Own edges: grow until nothing more qualifies (each step only adds).
    let mut changed = true;
    while changed {
        changed = false;
        for (var, space) in &edge_loops {
            if roles.own_edges.contains(var) {
                continue;
            }
            let own_space = match space {
                Space::Edges {
                    node,
                    dir: EdgeDir::Out,
                } => reach(body, &roles, *node) == Reach::Own,
                Space::Range { lo, hi } => {
                    own_edge_expr(body, &roles, *lo) && own_edge_expr(body, &roles, *hi)
                }
                _ => false,
            };
            if own_space {
                roles.own_edges.insert(*var);
                changed = true;
            }
        }
        for (l, init) in &lets {
            if roles.own_edges.contains(l) {
                continue;
            }
            let mut ok = true;
            let mut based = false;
            edge_leaves(body, &roles, *init, &mut ok, &mut based, None);
            let steps_ok = assigned.get(l).is_none_or(|values| {
                values.iter().all(|v| {
                    let mut ok = true;
                    let mut based = false;
                    edge_leaves(body, &roles, *v, &mut ok, &mut based, Some(*l));
                    ok
                })
            });
            if ok && based && steps_ok {
                roles.own_edges.insert(*l);
                changed = true;
            }
        }
    }
    for (l, e) in &lets {
        if !assigned.contains_key(l) && reach(body, &roles, *e) == Reach::Head {
            roles.heads.insert(*l);
        }
    }
    roles
}
