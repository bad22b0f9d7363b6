//! The IR's data types. The semantics are in the crate documentation.

use crate::entity::Arena;

pub use irgl_check::{
    AtomicOp, Builtin, Combiner, ConstId, GlobalId, GraphField, GraphMethod, MeshMethod, ParamId,
    PropId, Ty, Value,
};
pub use irgl_diagnostics::Span;
pub use irgl_syntax::ast::{BinaryOp, EdgeDir, PropOwner, Reduction, UnaryOp};

entity!(
    /// A kernel of the module; displayed `k0`.
    KernelId,
    "k"
);
entity!(
    /// A local of one body (a `let`, a kernel parameter, a `ForAll` variable, a temporary);
    /// displayed `v3`.
    LocalId,
    "v"
);
entity!(
    /// An expression of one body; displayed `e7`.
    ExprId,
    "e"
);
entity!(
    /// A statement of one body; displayed `s12`.
    StmtId,
    "s"
);
entity!(
    /// A `ForAll` of one kernel, numbered in source pre-order; displayed `loop1`. Options
    /// address nested loops as `KERNEL.loopN`.
    LoopId,
    "loop"
);
entity!(
    /// An `Iterate` or `Pipe` of `main`, numbered in source pre-order; displayed `r0`. The
    /// nodes of the outline tree.
    RegionId,
    "r"
);
entity!(
    /// An outlined part of `main` (a device control kernel), numbered in order; displayed
    /// `c0`.
    ControlId,
    "c"
);

/// A whole program, lowered.
#[derive(Clone, Debug)]
pub struct Module {
    /// The program's name (the source file's stem): the binary, its output file and its
    /// JSON record are named after it.
    pub name: String,
    /// The source file as the user named it.
    pub source: String,
    pub graph: Graph,
    pub consts: Vec<Const>,
    pub params: Vec<Param>,
    pub globals: Vec<Global>,
    /// What the program writes to its output file, in declaration order.
    pub outputs: Vec<Output>,
    pub kernels: Arena<KernelId, Kernel>,
    /// `main`: the orchestration, run on the host.
    pub host: Body,
    /// Launch configuration shared by every kernel.
    pub launch: LaunchConfig,
    /// Set when the program is built to run partitioned over several GPUs (`--multi-gpu`):
    /// how each node property that crosses a part is kept consistent between rounds, and how
    /// pushes reach the GPU that owns the item.
    pub partitioned: Option<Partitioned>,
}

/// What a partitioned run exchanges between its GPUs (`irgl_analysis::partition` decides).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partitioned {
    /// Each node property that crosses a part, and how it is kept consistent.
    pub exchanges: Vec<PropExchange>,
    pub pushes: PushDelivery,
}

/// How the pushes of one round reach the kernel that pops them, where one node is pushed
/// more than once (by several threads, or by several GPUs: each GPU pushes its mirror of a
/// node it reaches, and the owner may push the node itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushDelivery {
    /// Once per round and GPU: every kernel that pops items does the same work whether an
    /// item comes once or several times (its updates are min, max, or, and, and stores whose
    /// values do not depend on an earlier pass over the item), so each GPU's list holds each
    /// of its masters at most once.
    Once,
    /// As many times as it was pushed: some kernel that pops items would do more on a second
    /// pass over one (it adds, or stores a value computed from what it updates).
    Counted,
}

/// How one node property is kept consistent between the GPUs of a partitioned run, after
/// each launch of a kernel that writes it (`irgl_analysis::partition` decides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PropExchange {
    pub prop: PropId,
    pub sync: PropSync,
}

/// The exchange of a node property between masters and their mirrors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropSync {
    /// Updated at heads by this atomic: the mirrors' values are merged into their masters by
    /// it, then the masters' values copied back to the mirrors (min, max, or, and), or, for
    /// `atomicAdd`, the mirrors' additions summed into their masters and the mirrors reset to
    /// 0 (a mirror holds its own GPU's additions only).
    Merge(AtomicOp),
    /// Stored at heads with one value per launch (built from literals, constants and
    /// parameters, such as bfs's `LEVEL`): a mirror stored to in the launch sets its master
    /// to that value, then the masters' values are copied back.
    Uniform,
    /// Written only by its own node's thread and read at heads: the masters' values are
    /// copied to the mirrors.
    Broadcast,
    /// Read at heads but written by no kernel (set by `main` or the loader): copied to the
    /// mirrors when `main` writes it.
    Once,
}

/// How kernels are launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Threads per block (a multiple of 32).
    pub block_size: u32,
    /// The grid of asynchronous kernels launched from the host (at most what fits): their
    /// idle blocks poll the task queue, so more blocks than the work needs slow the others.
    pub async_grid: GridSize,
    /// In asynchronous kernels, a thread keeps one item it pushes to the queue as its own
    /// next item (a continuation, without the queue's round trip).
    pub async_local: bool,
    /// The grid of kernels launched from the host whose outer loop is plain (grid-stride).
    pub grid: LaunchGrid,
    /// Every index of a property element in kernels is checked (`--check-indices`).
    pub check_indices: bool,
    /// Edge indices are 64-bit (`--wide-edges`): the program defines the runtime's
    /// `IRGL_EDGE64`.
    pub wide_edges: bool,
    /// Kernels with scheduled nested loops get a serial version, run on the graphs this
    /// rule chooses (`--adapt`); `None`: one version.
    pub serial_rule: Option<SerialRule>,
    /// The shortest epoch of the switch between rounds and asynchrony, in microseconds
    /// (`--switch-epoch`; the default of the generated program's flag of that name).
    pub switch_epoch_us: u32,
    /// In a control kernel's call of a loop under `gd` whose launch leaves nearly every block
    /// without an item, the blocks wait for owners that publish late (`--grid-wait`).
    pub grid_wait: bool,
}

/// The default shortest epoch of the switch between rounds and asynchrony, in microseconds
/// (`LaunchConfig::switch_epoch_us`): about ten rounds of a road network's breadth-first
/// search, and a few times what a yield and the drain after it cost.
pub const SWITCH_EPOCH_US: u32 = 20;

/// The grid of a host launch of a kernel whose outer `ForAll` is plain. A uniform outer loop
/// always gets one block per `BLOCK` items.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LaunchGrid {
    /// At most the blocks that can be resident at once; the outer loop strides over the rest.
    #[default]
    Resident,
    /// One block per `BLOCK` items, however many: the GPU starts each block as a
    /// multiprocessor frees up, so blocks whose items take long do not hold back the others.
    Items,
}

impl LaunchGrid {
    /// `resident` or `items`.
    pub fn parse(s: &str) -> Result<LaunchGrid, String> {
        match s {
            "resident" => Ok(LaunchGrid::Resident),
            "items" => Ok(LaunchGrid::Items),
            _ => Err(format!(
                "`{s}`: not a launch grid (resident: the blocks that fit at once, striding; items: one block per BLOCK items)"
            )),
        }
    }
}

impl std::fmt::Display for LaunchGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LaunchGrid::Resident => "resident",
            LaunchGrid::Items => "items",
        })
    }
}

/// The input graph and its properties.
#[derive(Clone, Debug)]
pub struct Graph {
    /// How `main` names the graph (`g`).
    pub name: String,
    /// The input is a triangle mesh (`mesh m { ... }`): its properties belong to triangles
    /// and vertices, and kernels reach it through [`ExprKind::MeshQuery`] and
    /// [`StmtKind::MeshUpdate`].
    pub mesh: bool,
    pub symmetric: bool,
    pub simple: bool,
    /// `graph g : in_edges`: kernels read in-edges; the program builds the transpose.
    pub in_edges: bool,
    /// Indexed by [`PropId`], in declaration order.
    pub props: Vec<Prop>,
    /// The `input` edge property: the graph file's edge data.
    pub input: Option<PropId>,
}

#[derive(Clone, Debug)]
pub struct Prop {
    pub name: String,
    pub owner: PropOwner,
    /// Element type: a scalar, or [`Ty::Lock`] / [`Ty::Mark`].
    pub ty: Ty,
    pub input: bool,
    pub span: Span,
    /// The length of an array (owner `Array`): an expression of the host body, evaluated
    /// when the program starts.
    pub len: Option<ExprId>,
}

#[derive(Clone, Debug)]
pub struct Const {
    pub name: String,
    pub ty: Ty,
    pub value: Value,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    pub default: Value,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Global {
    pub name: String,
    pub ty: Ty,
    pub init: Value,
    /// `statistic global`: a measurement for `main` that kernels only update by atomics whose
    /// result is unused (the checker's E0336); the program's answer does not depend on it, so
    /// analyses may ignore those updates (`visit::statistic_only`).
    pub statistic: bool,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Property(PropId),
    Global(GlobalId),
    /// The mesh as it is at the end (`output m;`).
    Mesh,
}

/// A GPU kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    pub span: Span,
    /// The parameters in declaration order.
    pub params: Vec<KernelParam>,
    pub body: Body,
    /// Static shared memory the schedulers of this kernel use, in bytes (0 before
    /// `schedule_nested_loops`); occupancy depends on it.
    pub shared_bytes: u32,
    /// Runs asynchronously (`run_asynchronously`): its launch goes on with the items its own
    /// pushes feed until none is left, instead of a round per launch.
    pub asynchronous: Option<Asynchrony>,
    /// Retry backoff (`backoff_retries`): the kernel takes the number of consecutive items
    /// each thread processes (`irgl_chunk`); its launches marked [`Launch::backoff`] choose it
    /// by this, the others pass 1.
    pub backoff: Option<Backoff>,
    /// A copy of this kernel whose nested loops all run serially (`schedule_nested_loops`
    /// with a [`LaunchConfig::serial_rule`]): the program launches it instead of this one
    /// on graphs the rule finds of low, even degree.
    pub serial_version: Option<KernelId>,
    /// This kernel is the serial version of that one: it is launched where that one is, and
    /// messages name that one.
    pub serial_of: Option<KernelId>,
    /// A copy of this kernel with `gd` ([`Policy::Grid`]) left out of its nested loops
    /// (`schedule_nested_loops`): the program launches it instead of this one on graphs
    /// where no node reaches the grid's threshold (`irgl_grid_min` is 0), so that there the
    /// code that hands items to the grid costs nothing, not even registers.
    pub no_grid_version: Option<KernelId>,
    /// This kernel is the version of that one without `gd`: it is launched where that one
    /// is, and messages name that one.
    pub no_grid_of: Option<KernelId>,
    /// A copy of this worklist kernel that runs asynchronously (`switch_asynchrony`): the
    /// control kernel that repeats this one's rounds runs the copy instead while the switch
    /// between rounds and asynchrony (`irgl/switch.cuh`) measures it cheaper.
    pub async_version: Option<KernelId>,
    /// This kernel is the asynchronous version of that one: it is called where that one is,
    /// and messages name that one.
    pub async_of: Option<KernelId>,
    /// Its rounds run without grid barriers (`settle_rounds`): other blocks update what it
    /// reads while it runs, so it reads the properties it updates past the L1 cache.
    pub settled: bool,
}

impl Kernel {
    /// A kernel with this name, span, parameters and body, before any pass.
    pub fn new(name: String, span: Span, params: Vec<KernelParam>, body: Body) -> Kernel {
        Kernel {
            name,
            span,
            params,
            body,
            shared_bytes: 0,
            asynchronous: None,
            backoff: None,
            serial_version: None,
            serial_of: None,
            no_grid_version: None,
            no_grid_of: None,
            async_version: None,
            async_of: None,
            settled: false,
        }
    }

    /// The kernel of the source that this one is a version of (serial, without `gd`, or
    /// asynchronous), if it is one: its sites and messages take that kernel's name.
    pub fn version_of(&self) -> Option<KernelId> {
        self.serial_of.or(self.no_grid_of).or(self.async_of)
    }

    /// Whether the kernel is one way of a switch between rounds and asynchrony (it has an
    /// asynchronous version, or is one): it counts the nodes it pops for the first time.
    pub fn switched(&self) -> bool {
        self.async_version.is_some() || self.async_of.is_some()
    }
}

/// When a program runs the serial versions of its kernels ([`Kernel::serial_version`]),
/// decided once from the graph it loads: the graph's mean degree (edges per node) is below
/// `below_degree`, and one thread per node walking its edges keeps at least `efficiency`
/// percent of a warp's lanes busy (the edges over 32 times the sum of the largest degree of
/// every 32 consecutive nodes, `irglc graph info`'s warp efficiency). There the schedulers'
/// inspection, barriers and shared-memory traffic cost more than the imbalance they remove.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SerialRule {
    pub below_degree: u32,
    pub efficiency: u32,
}

impl SerialRule {
    pub const DEFAULT: SerialRule = SerialRule {
        below_degree: 5,
        efficiency: 50,
    };
}

impl std::fmt::Display for SerialRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mean degree below {} and warp efficiency at least {}%",
            self.below_degree, self.efficiency
        )
    }
}

/// How a kernel's launches with backoff hand out items (retry backoff): items close
/// together in a worklist that `Retry` fills tend to conflict, so each thread takes a run of
/// consecutive ones; below `serial_below` items one thread takes them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    pub chunk: Chunk,
    /// 0: never serial.
    pub serial_below: u32,
}

/// How many consecutive items a thread takes in a launch with retry backoff.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Chunk {
    /// A blocked distribution over the resident grid: one run per thread, as long as the
    /// items per thread (1 while there are no more items than threads).
    #[default]
    Auto,
    /// This many (1 to 1024): the grid has a thread per run.
    Items(u32),
}

impl Chunk {
    /// `auto` or a number of items in 1..=1024.
    pub fn parse(s: &str) -> Result<Chunk, String> {
        match s {
            "auto" => Ok(Chunk::Auto),
            n => match n.parse::<u32>() {
                Ok(n) if (1..=1024).contains(&n) => Ok(Chunk::Items(n)),
                _ => Err(format!(
                    "`{s}`: not a chunk (auto, or 1 to 1024 consecutive items per thread)"
                )),
            },
        }
    }
}

impl std::fmt::Display for Chunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Chunk::Auto => f.write_str("auto"),
            Chunk::Items(n) => write!(f, "{n}"),
        }
    }
}

/// Which pushes of an asynchronous kernel feed its own launch (the shared task queue of
/// `irgl::AsyncQueue`); the others go to their worklists as in a synchronous launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asynchrony {
    /// `Retry` and `Respawn`: the launch replaces the re-invocation loop over the retry
    /// worklist; `WL.push` still fills the output worklist.
    Respawns,
    /// Every push: the launch replaces the rounds of its `Iterate`.
    AllPushes,
}

impl Asynchrony {
    /// Whether a push to `target` goes to the launch's own queue.
    pub fn feeds(self, target: WorklistRef) -> bool {
        match self {
            Asynchrony::Respawns => target == WorklistRef::Retry,
            Asynchrony::AllPushes => target != WorklistRef::In,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Asynchrony::Respawns => "respawns",
            Asynchrony::AllPushes => "all-pushes",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelParam {
    /// The graph (the `G` struct on the device), under the kernel's name for it.
    Graph(String),
    /// A scalar, passed by value: its local in the kernel's body.
    Scalar(LocalId),
}

/// The code of a kernel or of `main`: its locals, expressions and statements, and the root
/// block.
#[derive(Clone, Debug, Default)]
pub struct Body {
    pub locals: Arena<LocalId, Local>,
    pub exprs: Arena<ExprId, Expr>,
    pub stmts: Arena<StmtId, Stmt>,
    pub block: Block,
}

/// A sequence of statements.
pub type Block = Vec<StmtId>;

#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub name: String,
    pub ty: Ty,
    pub kind: LocalKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalKind {
    /// A `let` of the program.
    Let,
    /// A kernel's scalar parameter (read-only).
    Param,
    /// The variable of a `ForAll` (read-only).
    ForAllVar,
    /// Made by the compiler; its name starts with `irgl_`.
    Temp,
    /// A fixed-size array of `len` elements of `ty`: a `let a: [T; len];` of the program, or
    /// made by the compiler (the elements of an `Exclusive`).
    Array { len: u32 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    /// The value's type ([`Ty::Bool`] for conditions); never `Void` or `Error`.
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    /// An integer of the expression's type; for a float type, the integral value.
    Int(u64),
    Float(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    Local(LocalId),
    Const(ConstId),
    Param(ParamId),
    Global(GlobalId),
    /// `g.prop[index]`
    Element {
        prop: PropId,
        index: ExprId,
    },
    Unary(UnaryOp, ExprId),
    Binary(BinaryOp, ExprId, ExprId),
    /// `cond ? then_expr : else_expr`
    Select {
        cond: ExprId,
        then_expr: ExprId,
        else_expr: ExprId,
    },
    /// Conversion to the expression's type.
    Cast(ExprId),
    Builtin(Builtin, Vec<ExprId>),
    /// An atomic read-modify-write of `place`; the value is the place's old value.
    Atomic {
        op: AtomicOp,
        place: Place,
        args: Vec<ExprId>,
    },
    /// `atomicAdd(global, value)` on an integer global whose old value is used (tc's
    /// `g.start[n] = atomicAdd(cursor, g.outn[n])`: a reservation, like a push's), as
    /// `aggregate_pushes` aggregates it. Only [`Aggregation::Warp`]: the lanes converged here
    /// scan their values, the lowest adds the total with one atomic, and each gets the old
    /// value plus the values of the lanes below it, as if they had added in lane order.
    /// Before the pass (and at no aggregation) such an addition is an [`ExprKind::Atomic`].
    FetchAdd {
        global: GlobalId,
        /// Of the global's type.
        value: ExprId,
        aggregation: Aggregation,
        /// Why the site has another level than the options asked for (shown by `emit ir`).
        note: Option<String>,
    },
    /// `a[index]`: an element of an array local; an index out of range is reported by the
    /// device's error flag (the element read is then the first).
    ArrayElement {
        array: LocalId,
        index: ExprId,
    },
    /// `g.nnodes`, `g.nedges`, `m.ntriangles`, `m.nvertices`
    GraphSize(GraphField),
    /// A method of the mesh with a value: `m.vertex(t, i)`, `m.neighbor(t, i)`, `m.point(v)`,
    /// `m.deleted(t)`, and the allocations `m.add_vertex(p)`, `m.add_triangle(a, b, c)`.
    MeshQuery(MeshMethod, Vec<ExprId>),
    /// `g.dst(e)`, `g.degree(n)`, `g.edge_begin(n)`, `g.edge_end(n)`
    GraphQuery(GraphMethod, ExprId),
    /// What part `v` of the split graph is ([`Space::SplitNodes`]): its node, or the first or
    /// one-past-last of its out-edges. Only `split_nodes` writes these.
    Split(SplitQuery, ExprId),
    /// `WL.pop(i)`: item `i` of the input worklist.
    Pop(ExprId),
    /// Tries once to take lock `index` of the `lock` property `locks`: true if taken.
    TryLock {
        locks: PropId,
        index: ExprId,
    },
    /// Tries once to mark every element of the array local `ids` (its first `count`, when
    /// given) in the `mark` property `marks`, all or nothing: true if all were taken.
    TryMarks {
        marks: PropId,
        ids: LocalId,
        count: Option<LocalId>,
    },
    /// Host: the number of items in a worklist of the current set.
    WorklistSize(WorklistRef),
    /// Host: the value of the reduction flag (after a launch with `reduce`).
    ReduceResult,
}

/// A question about a part of the split graph ([`ExprKind::Split`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitQuery {
    /// The node the part belongs to: `node`.
    Node,
    /// Its first out-edge: `edge`.
    Begin,
    /// One past its last out-edge: `edge`.
    End,
}

impl SplitQuery {
    /// The name dumps and the generated code use.
    pub fn name(self) -> &'static str {
        match self {
            SplitQuery::Node => "split_node",
            SplitQuery::Begin => "split_begin",
            SplitQuery::End => "split_end",
        }
    }
}

/// Something that can be assigned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Place {
    Local(LocalId),
    Global(GlobalId),
    Element {
        prop: PropId,
        index: ExprId,
    },
    /// `a[index]`, checked as [`ExprKind::ArrayElement`] (an index out of range writes
    /// nothing).
    ArrayElement {
        array: LocalId,
        index: ExprId,
    },
}

/// One of the worklists of the current set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorklistRef {
    /// Popped by the kernel being launched.
    In,
    /// Receives `WL.push`.
    Out,
    /// Receives `Retry` and `Respawn`.
    Retry,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    // ---- both sides
    /// Declares `local` in the enclosing block; `init: None` gives it the zero of its type.
    Let {
        local: LocalId,
        init: Option<ExprId>,
    },
    /// Declares the array local `local` with these elements (its length), or zero-filled
    /// when `elems` is empty.
    LetArray {
        local: LocalId,
        elems: Vec<ExprId>,
    },
    /// `place = value`, or `place op= value`.
    Assign {
        place: Place,
        op: Option<BinaryOp>,
        value: ExprId,
    },
    /// An expression evaluated for its effect (an atomic function).
    Eval(ExprId),
    If {
        cond: ExprId,
        then_block: Block,
        else_block: Block,
    },
    Loop(Loop),
    /// Leaves the innermost `Loop`.
    Break,
    /// Goes to the step of the innermost `Loop`, or ends the current iteration of the
    /// innermost `ForAll` (or the current item's `Phase`) when that is nearer.
    Continue,
    /// A scope.
    Block(Block),

    // ---- kernels
    ForAll(ForAll),
    /// `local = combiner(local, value)`, inside a `ForAll` that reduces `local` (or in a
    /// `ForAll` nested in it that reduces it too).
    Combine {
        local: LocalId,
        combiner: Combiner,
        value: ExprId,
    },
    Push(Push),
    /// `ReduceAndReturn value`: contributes to the kernel's Any/All reduction.
    Reduce(ExprId),
    /// `atomicAdd(global, value)` whose old value is unused, on an integer global: an
    /// addition to a sum, aggregated at the level of its slot (`aggregate_pushes` rewrites an
    /// `Eval` of the atomic into this).
    Accumulate(Accumulate),
    /// Releases lock `index` of `locks`, taken by a successful `TryLock`.
    Unlock {
        locks: PropId,
        index: ExprId,
    },
    /// Releases the marks taken by a successful `TryMarks` on the same `marks`, `ids` and
    /// `count`.
    ReleaseMarks {
        marks: PropId,
        ids: LocalId,
        count: Option<LocalId>,
    },
    /// Copies the first `count` elements of array `src` into array `dst` (as long as `src`);
    /// a `count` beyond the length is reported by the device's error flag.
    CopyArray {
        dst: LocalId,
        src: LocalId,
        count: LocalId,
    },
    /// A method of the mesh without a value: `m.set_neighbor(t, i, n)`, `m.remove(t)`.
    MeshUpdate(MeshMethod, Vec<ExprId>),
    /// `SyncRunningThreads`: a barrier across every thread of the launch.
    GridSync,
    /// Part of the body of a uniform outer `ForAll`, run only by the threads that `guard`
    /// selects (`schedule_nested_loops`).
    Phase(Phase),
    /// The inspector half of a block-scheduled nested `ForAll` (`schedule_nested_loops`):
    /// records the loop's iteration space in `state` and ends the enclosing `Phase` for
    /// this thread.
    Inspect(Inspect),

    // ---- main
    /// Launches `kernel` once over the current input worklist.
    Launch(Launch),
    /// Empties every worklist of the set.
    WorklistClear,
    /// Fills the input worklist.
    WorklistInit(Initial),
    /// The input worklist becomes `from` (`Out` or `Retry`), and `from` a fresh empty one.
    WorklistSwap(WorklistRef),
    /// Sets the reduction flag to the identity of `Reduction`.
    ReduceReset(Reduction),
    /// The extent of an `Iterate` or `Pipe` of the source: a node of the outline tree.
    Region(Region),
    /// Counts one round of a host loop that launches kernels (the run's `iterations`).
    CountIteration,
    /// Orchestration moved to the device (iteration outlining): `body` runs in one control
    /// kernel on a grid that stays resident, with a grid barrier around every effect on
    /// device state (launches, worklist and reduction updates, element writes).
    Control(Control),
}

/// `for (init; cond; step) body`, `while (cond) body`, `loop body`.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// Runs once before the loop; its declarations are scoped to the loop.
    pub init: Block,
    /// Tested before each iteration; `None` is `true`.
    pub cond: Option<ExprId>,
    /// Runs after each iteration (and on `Continue`).
    pub step: Block,
    pub body: Block,
}

/// A `ForAll`: its iterations may run in parallel, in any order, on any threads.
#[derive(Clone, Debug, PartialEq)]
pub struct ForAll {
    pub id: LoopId,
    pub var: LocalId,
    pub space: Space,
    pub body: Block,
    pub schedule: Schedule,
    /// The locals declared outside the loop that its iterations combine into (its `Reduce`
    /// clause); inside the body they are updated only by [`StmtKind::Combine`].
    pub reductions: Vec<LoopReduce>,
}

/// One local a `ForAll` reduces: each thread that runs iterations combines into a partial
/// result (from the combiner's identity), and the partials are combined into the local when
/// the loop ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopReduce {
    pub local: LocalId,
    pub combiner: Combiner,
}

impl ForAll {
    /// Serial, with a trip count known when it starts and below 2^32: a node's edges, or a
    /// range of 32-bit values. Thread-level aggregation reserves that many slots before it.
    pub fn is_counted(&self, body: &Body) -> bool {
        matches!(self.schedule, Schedule::Serial { .. })
            && match &self.space {
                Space::Edges { .. } => true,
                Space::Range { .. } => matches!(
                    body.locals[self.var].ty,
                    Ty::U32 | Ty::I32 | Ty::Node | Ty::Edge | Ty::InEdge
                ),
                _ => false,
            }
    }
}

/// What a `ForAll` iterates over.
#[derive(Clone, Debug, PartialEq)]
pub enum Space {
    /// The indices of the input worklist.
    Worklist,
    /// Every node.
    Nodes,
    /// Every part of the split graph (`u32` values): a node of more out-edges than the split
    /// degree found at load is cut into parts of at most that many consecutive edges, and
    /// every other node is one part ([`ExprKind::Split`] says which node and edges a part
    /// has). Only an outermost loop, written by `split_nodes`.
    SplitNodes,
    /// Every triangle slot of the mesh in use when the kernel starts.
    Triangles,
    /// The out-edges of a node (`edge` values), or its in-edges (`in_edge` values, positions
    /// in the graph's transpose).
    Edges { node: ExprId, dir: EdgeDir },
    /// `lo..hi` in the variable's type.
    Range { lo: ExprId, hi: ExprId },
    /// The space was evaluated by the loop's [`Inspect`] statement.
    Inspected,
}

/// Who runs the iterations of a `ForAll`: the schedule slot.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// An outermost `ForAll`: grid-stride over the threads of the launch. `uniform`: every
    /// thread of the grid runs the same number of iterations (the trip count rounded up to
    /// the grid, the body split into guarded `Phase`s), so that block-wide schedulers can
    /// run inside.
    Grid { uniform: bool },
    /// A nested `ForAll` run by the thread that reaches it. `why`: why a requested schedule
    /// could not apply (shown by dumps).
    Serial { why: Option<String> },
    /// A nested `ForAll` whose iterations the block's schedulers distribute.
    Block(BlockSchedule),
}

/// How the block's schedulers run a nested `ForAll` (paper section 4.3).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockSchedule {
    /// In descending order of preferred size; an item goes to the first policy whose
    /// threshold its trip count reaches, else to the last.
    pub policies: Vec<Policy>,
    /// The minimum trip count of each policy, parallel to `policies`.
    pub thresholds: Vec<u32>,
    /// Locals declared outside the loop and read by its body: saved by their owner thread
    /// into shared memory, restored by the thread that runs the iteration.
    pub closure: Vec<LocalId>,
    /// Where the loop's [`Inspect`] left the iteration space.
    pub state: InspectState,
    /// Why a policy the options asked for was left out (shown by dumps).
    pub note: Option<String>,
}

/// A scheduling policy for the iterations of nested `ForAll`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Policy {
    /// Items longer than a block's even share of the graph's edges are handed to the whole
    /// grid: their owners publish them, and after its last trip every block takes chunks of
    /// the published items until none is left. Only for a loop that ends its item, without
    /// reductions (nothing in the item waits for the iterations). Its threshold is computed
    /// at run time (`irgl::grid_threshold`); the dumps show it as `auto`.
    Grid,
    /// The whole block runs one item's iterations at a time.
    Threadblock,
    /// A warp runs one item's iterations at a time.
    Warp,
    /// A group of `width` lanes (2, 4, 8 or 16) runs one item's iterations at a time.
    VirtualWarp(u8),
    /// Consecutive iterations of the block's items go to consecutive threads (a block-wide
    /// prefix sum of the trip counts and a search for each iteration's item).
    Finegrained,
    /// Each thread takes an equal contiguous share of the iterations of the block's items
    /// (the prefix sum, then a merge-path search for the start of each share).
    EdgeBalanced,
    /// The owner thread runs its item's iterations itself.
    Serial,
}

/// Locals of the outer `ForAll`'s body where an [`Inspect`] leaves what its thread found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InspectState {
    /// `bool`: the thread reached the loop in its current item.
    pub reached: LocalId,
    /// `u32`: the trip count.
    pub count: LocalId,
    /// The loop variable's type: the first value of the variable.
    pub begin: LocalId,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub guard: PhaseGuard,
    pub body: Block,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseGuard {
    /// The thread has an item in this round of the uniform outer loop.
    Active,
    /// The thread reached (inspected) this nested loop in its current item.
    Reached(LoopId),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Inspect {
    pub loop_id: LoopId,
    /// The nested loop's space (never `Worklist` or `Inspected`).
    pub space: Space,
    pub state: InspectState,
}

/// A push to one of the kernel's output worklists.
#[derive(Clone, Debug, PartialEq)]
pub struct Push {
    pub target: WorklistRef,
    pub kind: PushKind,
    pub item: ExprId,
    /// How the reservation of the slot is aggregated (the cooperative-conversion slot).
    pub aggregation: Aggregation,
    /// Why the push has a lower level than the options asked for (shown by `emit ir`).
    pub note: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushKind {
    /// `WL.push(x)`: to the output worklist.
    Push,
    /// `Retry x`: a conflict; to the retry worklist.
    Retry,
    /// `Respawn x`: more work for this invocation; to the retry worklist.
    Respawn,
}

/// An addition to an integer global that the kernel does not otherwise use (for the levels
/// that defer it): `atomicAdd(@global, value)`, with its cooperative-conversion slot.
///
/// - [`Aggregation::None`]: one atomic per addition.
/// - [`Aggregation::Warp`]: the converged lanes sum their values, one atomic per warp.
/// - [`Aggregation::Thread`]: each thread sums its additions in a register and adds the sum
///   with one atomic when it leaves the kernel.
/// - [`Aggregation::Block`]: as thread, then the block sums its threads' sums at the end of
///   the kernel (a focal point: every thread of the block reaches it) with one atomic.
///
/// Thread and block defer the additions to the end of the kernel, so the kernel may not
/// read, assign or otherwise update the global.
#[derive(Clone, Debug, PartialEq)]
pub struct Accumulate {
    pub global: GlobalId,
    /// Of the global's type.
    pub value: ExprId,
    pub aggregation: Aggregation,
    /// Why the site has another level than the options asked for (shown by `emit ir`).
    pub note: Option<String>,
}

/// How many pushes (or additions, [`Accumulate`]) share one atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregation {
    /// One atomic per push.
    None,
    /// One reservation for all the pushes of a counted serial loop ([`ForAll::is_counted`])
    /// made before the loop, for a push that runs exactly once per iteration (in the loop's
    /// body or plain blocks in it, no `continue` of the loop before it); the push writes at
    /// its iteration's slot. The lanes converged at the loop share one atomic.
    Thread,
    /// One atomic for the converged lanes of a warp.
    Warp,
    /// One atomic for the block, at the end of the trip that runs the push: the push records
    /// its item in a valid flag, and every thread of the block reserves together at the end
    /// of the trip (a focal point). A trip is one iteration per thread of a block-scheduled
    /// loop's thread-block or fine-grained scheduler, or a phase of a uniform loop; the push
    /// runs at most once per trip (it is in no loop or `ForAll` of the trip's body). In the
    /// copies of the body run by the other schedulers (warp, virtual warp, edge-balanced,
    /// serial), it is a warp push.
    Block,
    /// One reservation per block for all the pushes of a block-scheduled loop, for a push
    /// that runs exactly once per iteration (as for `Thread`): when the block publishes its
    /// items, a block-wide prefix sum of their trip counts and one atomic give each item its
    /// slots, and every iteration writes at its item's slot plus its index, whichever
    /// scheduler runs it. The paper's upgrade of a thread aggregate to the block, where the
    /// schedulers made the loop uniform.
    BlockLoop,
}

/// A kernel launch from `main`.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub kernel: KernelId,
    /// One per scalar parameter of the kernel, in order (the graph is implicit).
    pub args: Vec<ExprId>,
    /// The reduction the kernel's `Reduce`s contribute to.
    pub reduce: Option<Reduction>,
    /// Hands out its items by the kernel's [`Kernel::backoff`]: a retry round (the launch
    /// right after `wl.swap retry`), or with `--backoff-rounds all` any launch of the kernel.
    pub backoff: bool,
}

/// The initial contents of a worklist.
#[derive(Clone, Debug, PartialEq)]
pub enum Initial {
    /// These nodes (each checked to be a node of the graph).
    List(Vec<ExprId>),
    /// Every node, in order.
    AllNodes,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    pub id: RegionId,
    pub kind: RegionKind,
    pub body: Block,
    /// `Iterate Unordered While Any`: the program allows its rounds to overlap.
    pub unordered: bool,
    /// Its rounds run without grid barriers (`settle_rounds`): in its control kernel each
    /// block repeats its share of the items until none of them reports.
    pub settled: bool,
}

/// An outlined part of `main`: its statements (a region or a host loop), run by every thread
/// of a cooperative control kernel. Every thread computes the host scalars alike; device
/// state is changed by one thread between two grid barriers; the kernels it launches are
/// called as device functions followed by a grid barrier; worklists are swapped in every
/// thread's copies of their views.
#[derive(Clone, Debug, PartialEq)]
pub struct Control {
    pub id: ControlId,
    /// The outline-tree node it came from (`r0 iterate bfs`, `s12 loop`), for messages.
    pub origin: String,
    pub body: Block,
    /// Locals of `main` declared outside `body` that it reads or writes: copied in.
    pub inputs: Vec<LocalId>,
    /// Those of `inputs` it assigns: copied back out.
    pub outputs: Vec<LocalId>,
    /// The kernels it launches, each once, in order, then their serial versions
    /// ([`Kernel::serial_version`]).
    pub kernels: Vec<KernelId>,
    /// How many blocks the control kernel runs on (at most what can be resident).
    pub grid: GridSize,
}

/// The grid of a control kernel: how many blocks take part in its grid barriers. A barrier
/// costs more with more blocks (about 1.1 µs up to one block per multiprocessor on an H100,
/// 2.2 µs with every resident block of 256 threads), and a loop of many small rounds gains
/// little from more threads; a loop of few large rounds gains from every thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GridSize {
    /// Every block that can be resident.
    #[default]
    Resident,
    /// This many blocks per multiprocessor (at most the resident ones).
    PerSm(u32),
    /// This many blocks (at most the resident ones).
    Blocks(u32),
    /// Chosen when the program runs, from the graph it loads: one block per multiprocessor
    /// when its average degree (edges per node) is below this, else every resident block
    /// (for control kernels: a graph of low degree has many rounds of little work each).
    Auto(u32),
}

/// The average degree below which `--outline-grid auto` takes one block per multiprocessor.
pub const AUTO_GRID_DEGREE: u32 = 12;

impl GridSize {
    /// `resident`, `sm` (one block per multiprocessor), `Ksm` (K per multiprocessor, K up to
    /// 32, the most any GPU keeps resident) or a number of blocks (up to 2^20).
    pub fn parse(s: &str) -> Result<GridSize, String> {
        let within = |t: &str, max: u32| match t.parse::<u32>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(format!(
                "`{s}`: not a grid (resident, sm, Ksm for K blocks per multiprocessor with K in 1..=32, or a number of blocks in 1..=1048576)"
            )),
        };
        match s {
            "resident" => Ok(GridSize::Resident),
            "sm" => Ok(GridSize::PerSm(1)),
            "auto" => Ok(GridSize::Auto(AUTO_GRID_DEGREE)),
            _ if s.starts_with("auto") => match s["auto".len()..].parse::<u32>() {
                Ok(d) if (1..=1 << 20).contains(&d) => Ok(GridSize::Auto(d)),
                _ => Err(format!(
                    "`{s}`: auto takes every resident block on graphs of average degree D or more, one per multiprocessor below: auto (D = {AUTO_GRID_DEGREE}) or autoD with D in 1..=1048576"
                )),
            },
            _ => match s.strip_suffix("sm") {
                Some(k) => within(k, 32).map(GridSize::PerSm),
                None => within(s, 1 << 20).map(GridSize::Blocks),
            },
        }
    }
}

impl std::fmt::Display for GridSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GridSize::Resident => f.write_str("resident"),
            GridSize::PerSm(1) => f.write_str("sm"),
            GridSize::PerSm(k) => write!(f, "{k}sm"),
            GridSize::Blocks(n) => write!(f, "{n}"),
            GridSize::Auto(AUTO_GRID_DEGREE) => f.write_str("auto"),
            GridSize::Auto(d) => write!(f, "auto{d}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// `Iterate` of this kernel.
    Iterate(KernelId),
    /// `Pipe` (repeats) or `Pipe Once`.
    Pipe { once: bool },
}

impl Module {
    /// The kernel named `name`.
    pub fn kernel_named(&self, name: &str) -> Option<KernelId> {
        self.kernels
            .iter()
            .find(|(_, k)| k.name == name)
            .map(|(id, _)| id)
    }

    pub fn prop(&self, id: PropId) -> &Prop {
        &self.graph.props[id.index()]
    }
}

impl Body {
    /// Adds an expression.
    pub fn add_expr(&mut self, kind: ExprKind, ty: Ty, span: Span) -> ExprId {
        self.exprs.push(Expr { kind, ty, span })
    }

    /// Adds a statement (not yet in any block).
    pub fn add_stmt(&mut self, kind: StmtKind, span: Span) -> StmtId {
        self.stmts.push(Stmt { kind, span })
    }

    /// Adds a local.
    pub fn add_local(
        &mut self,
        name: impl Into<String>,
        ty: Ty,
        kind: LocalKind,
        span: Span,
    ) -> LocalId {
        self.locals.push(Local {
            name: name.into(),
            ty,
            kind,
            span,
        })
    }
}

impl Policy {
    /// The short name used by options and dumps: `gd`, `tb`, `wp`, `vw8`, `fg`, `eb`, `serial`.
    pub fn name(self) -> String {
        match self {
            Policy::Grid => "gd".into(),
            Policy::Threadblock => "tb".into(),
            Policy::Warp => "wp".into(),
            Policy::VirtualWarp(w) => format!("vw{w}"),
            Policy::Finegrained => "fg".into(),
            Policy::EdgeBalanced => "eb".into(),
            Policy::Serial => "serial".into(),
        }
    }

    /// Whether this policy takes every item no larger policy took, whatever its size (at
    /// most one such policy per combination).
    pub fn takes_the_rest(self) -> bool {
        matches!(
            self,
            Policy::Finegrained | Policy::EdgeBalanced | Policy::Serial
        )
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// What a kernel does that decides how it is declared and launched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelFacts {
    /// Mentions a worklist: takes the worklists, and its invocations swap them.
    pub uses_worklist: bool,
    /// Has an outermost `ForAll` over the input worklist: the launch is sized by its size.
    pub pops: bool,
    /// Pushes to the output worklist.
    pub pushes: bool,
    /// Pushes to the retry worklist (`Retry`, `Respawn`).
    pub retries: bool,
    /// Contributes to a reduction.
    pub reduces: bool,
    /// Has a grid barrier: launched cooperatively, all blocks resident.
    pub cooperative: bool,
    /// Has an outermost `ForAll` (otherwise it runs on one thread).
    pub has_forall: bool,
    /// Has an outermost `ForAll` over the nodes: the launch is sized by the node count.
    pub over_nodes: bool,
    /// Has an outermost `ForAll` over the parts of the split graph: the launch is sized by
    /// their count.
    pub over_split: bool,
    /// Has an outermost `ForAll` over the mesh's triangles.
    pub over_triangles: bool,
    /// Adds vertices or triangles to the mesh: its launches check the mesh's capacity.
    pub grows_mesh: bool,
    /// Indexes arrays: its launches check the device's error flag (an index out of range).
    pub indexes_arrays: bool,
    /// Indexes properties (reads, writes, atomics, locks and marks of their elements): with
    /// `check_indices`, its launches check the device's error flag too.
    pub indexes_props: bool,
    /// Runs asynchronously: takes the task queue, launched on every resident block.
    pub asynchronous: bool,
    /// Has retry backoff: takes the chunk its outer loop hands each thread.
    pub backoff: bool,
    /// One way of a switch between rounds and asynchrony ([`Kernel::switched`]): takes the
    /// task queue, which counts the nodes it pops for the first time.
    pub switched: bool,
}

impl Kernel {
    /// Whether some nested loop of the kernel may hand items to the grid ([`Policy::Grid`]).
    pub fn hands_items_to_the_grid(&self) -> bool {
        crate::visit::block_any(&self.body, &self.body.block, &|s| {
            matches!(
                s,
                StmtKind::ForAll(ForAll {
                    schedule: Schedule::Block(b),
                    ..
                }) if b.policies.contains(&Policy::Grid)
            )
        })
    }

    /// The kernel's facts, read off its body.
    pub fn facts(&self) -> KernelFacts {
        let body = &self.body;
        let mut f = KernelFacts::default();
        fn outermost(body: &Body, block: &Block, f: &mut KernelFacts) {
            for &s in block {
                match &body.stmts[s].kind {
                    StmtKind::ForAll(fa) => {
                        f.has_forall = true;
                        f.pops |= fa.space == Space::Worklist;
                        f.over_nodes |= fa.space == Space::Nodes;
                        f.over_split |= fa.space == Space::SplitNodes;
                        f.over_triangles |= fa.space == Space::Triangles;
                    }
                    k => {
                        for b in crate::visit::child_blocks(k) {
                            outermost(body, b, f);
                        }
                    }
                }
            }
        }
        outermost(body, &body.block, &mut f);
        crate::visit::walk_stmts(body, &body.block, &mut |s| match &body.stmts[s].kind {
            StmtKind::Push(p) => {
                f.pushes |= p.target == WorklistRef::Out;
                f.retries |= p.target == WorklistRef::Retry;
                f.uses_worklist = true;
            }
            StmtKind::Reduce(_) => f.reduces = true,
            StmtKind::GridSync => f.cooperative = true,
            StmtKind::CopyArray { .. }
            | StmtKind::Assign {
                place: Place::ArrayElement { .. },
                ..
            } => f.indexes_arrays = true,
            StmtKind::Assign {
                place: Place::Element { .. },
                ..
            }
            | StmtKind::Unlock { .. }
            | StmtKind::ReleaseMarks { .. } => f.indexes_props = true,
            _ => {}
        });
        crate::visit::walk_block_exprs(body, &body.block, &mut |e| match &body.exprs[e].kind {
            ExprKind::Pop(_) => f.uses_worklist = true,
            ExprKind::ArrayElement { .. } => f.indexes_arrays = true,
            ExprKind::Element { .. }
            | ExprKind::Atomic {
                place: Place::Element { .. },
                ..
            }
            | ExprKind::TryLock { .. }
            | ExprKind::TryMarks { .. } => f.indexes_props = true,
            ExprKind::MeshQuery(MeshMethod::AddVertex | MeshMethod::AddTriangle, _) => {
                f.grows_mesh = true
            }
            _ => {}
        });
        f.uses_worklist |= f.pops;
        f.asynchronous = self.asynchronous.is_some();
        f.backoff = self.backoff.is_some();
        f.switched = self.switched();
        f
    }

    /// The local of each scalar parameter, in order.
    pub fn scalar_params(&self) -> impl Iterator<Item = LocalId> + '_ {
        self.params.iter().filter_map(|p| match p {
            KernelParam::Scalar(l) => Some(*l),
            KernelParam::Graph(_) => None,
        })
    }
}
