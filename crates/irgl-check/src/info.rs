//! The side tables produced by [`check`](crate::check): [`ProgramInfo`] and its parts.
//!
//! Everything here is keyed by a handle: an AST [`NodeId`], an item index into
//! `Program::items`, or one of the typed indices below ([`PropId`], [`ConstId`], ...) into the
//! vectors of [`ProgramInfo`]. The tables describe the program as written; when `check`
//! reports errors they are partial (erroneous expressions have type [`Ty::Error`] and may lack a
//! resolution), and later passes must not run.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use irgl_syntax::ast::{IterateCondKind, NodeId, PropOwner, Reduction, RetryKind, Span};

use crate::ty::Ty;
use crate::value::Value;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

handle!(
    /// A property of the graph: index into [`GraphInfo::props`]; displayed `p0`.
    PropId,
    "p"
);
handle!(
    /// Index into [`ProgramInfo::consts`]; displayed `c0`.
    ConstId,
    "c"
);
handle!(
    /// Index into [`ProgramInfo::params`]; displayed `param0`.
    ParamId,
    "param"
);
handle!(
    /// Index into [`ProgramInfo::globals`]; displayed `g0`.
    GlobalId,
    "g"
);
handle!(
    /// Index into [`ProgramInfo::kernels`]; displayed `k0`.
    KernelId,
    "k"
);
handle!(
    /// Index into [`ProgramInfo::functions`]; displayed `f0`.
    FuncId,
    "f"
);

/// Everything the checker learned about a program. See the crate documentation for an
/// overview of each field.
#[derive(Clone, Debug, Default)]
pub struct ProgramInfo {
    /// The `graph` declaration (the first one, if the program wrongly has several).
    pub graph: Option<GraphInfo>,
    pub consts: Vec<ConstInfo>,
    pub params: Vec<ParamInfo>,
    pub globals: Vec<GlobalInfo>,
    /// The entries of every `output` declaration, in source order, resolved.
    pub outputs: Vec<OutputInfo>,
    /// Every kernel, in source order.
    pub kernels: Vec<KernelInfo>,
    /// Every function, in source order.
    pub functions: Vec<FunctionInfo>,
    /// `main`, if declared.
    pub main: Option<MainInfo>,
    /// The type of every expression (by its `Expr::id`). Literals have their contextual type
    /// (`0` in `g.level[0]` is `node`); `WL.push(x)` is [`Ty::Void`].
    pub expr_types: HashMap<NodeId, Ty>,
    /// The type of every local, keyed by its definition: the `Let` statement, the `ForAll`
    /// statement (its variable), or the `KernelParam`.
    pub local_types: HashMap<NodeId, Ty>,
    /// What the expression at each use site means: every `Name`, `Index`, `Field`, `Method`
    /// and `Call` expression has an entry (keyed by `Expr::id`).
    pub resolutions: HashMap<NodeId, Resolution>,
    /// Every kernel launch in `main`, in source order.
    pub invocations: Vec<InvocationInfo>,
    /// The length of each local array, keyed by its `LetArray` statement.
    pub array_lens: HashMap<NodeId, u32>,
    /// The reductions of each `ForAll` with a `Reduce (...)` clause, keyed by its statement,
    /// in clause order.
    pub loop_reductions: HashMap<NodeId, Vec<LoopReduction>>,
    /// The updates of reduced locals inside their `ForAll`s (`t += e`, `t = min(t, e)`,
    /// `t = true`, ...), keyed by the assignment statement.
    pub combines: HashMap<NodeId, CombineInfo>,
}

impl ProgramInfo {
    /// The kernel declared with this name.
    pub fn kernel_named(&self, name: &str) -> Option<KernelId> {
        self.kernels
            .iter()
            .position(|k| k.name == name)
            .map(|i| KernelId(i as u32))
    }

    pub fn function(&self, id: FuncId) -> &FunctionInfo {
        &self.functions[id.index()]
    }

    pub fn kernel(&self, id: KernelId) -> &KernelInfo {
        &self.kernels[id.index()]
    }

    /// The type of an expression; [`Ty::Error`] for ids the checker never typed.
    pub fn expr_ty(&self, id: NodeId) -> Ty {
        self.expr_types.get(&id).copied().unwrap_or(Ty::Error)
    }

    pub fn resolution(&self, id: NodeId) -> Option<Resolution> {
        self.resolutions.get(&id).copied()
    }

    /// The property behind a handle (always `Some` for a handle taken from this
    /// `ProgramInfo`).
    pub fn prop(&self, id: PropId) -> Option<&PropInfo> {
        self.graph.as_ref()?.props.get(id.index())
    }

    /// The invocation whose `Call` node has this id.
    pub fn invocation(&self, call: NodeId) -> Option<&InvocationInfo> {
        self.invocations.iter().find(|i| i.call == call)
    }
}

/// The `graph` declaration.
#[derive(Clone, Debug)]
pub struct GraphInfo {
    /// The graph's name (`g`): how `main` refers to it.
    pub name: String,
    /// Declared `mesh m { ... }`: the input is a triangle mesh (triangle and vertex
    /// properties, the mesh's methods) rather than a graph.
    pub mesh: bool,
    /// Index of the declaration in `Program::items`.
    pub item: usize,
    pub attrs: GraphAttrs,
    /// Every property, in declaration order; [`PropId`] indexes this.
    pub props: Vec<PropInfo>,
    /// The `input` edge property, if any.
    pub input: Option<PropId>,
}

impl GraphInfo {
    pub fn prop_named(&self, name: &str) -> Option<PropId> {
        self.props
            .iter()
            .position(|p| p.name == name)
            .map(|i| PropId(i as u32))
    }
}

/// Requirements on the input graph, from `graph g : symmetric, simple, in_edges`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphAttrs {
    pub symmetric: bool,
    pub simple: bool,
    /// The program reads in-edges (`g.in_edges(n)`, `g.src(k)`, ...): the loader builds the
    /// graph's transpose.
    pub in_edges: bool,
}

/// `node NAME: T;`, `edge NAME: T;`, `input edge NAME: T;`
#[derive(Clone, Debug)]
pub struct PropInfo {
    pub name: String,
    pub owner: PropOwner,
    /// Element type; [`Ty::Lock`] / [`Ty::Mark`] for lock and mark arrays.
    pub ty: Ty,
    pub input: bool,
    /// The `PropDecl::id`.
    pub decl: NodeId,
    pub span: Span,
}

/// `const NAME: T = e;`
#[derive(Clone, Debug)]
pub struct ConstInfo {
    pub name: String,
    pub ty: Ty,
    /// The folded value, of type `ty`; `None` when evaluation failed (reported).
    pub value: Option<Value>,
    /// Index in `Program::items`.
    pub item: usize,
    pub span: Span,
}

/// `param NAME: T = e;`
#[derive(Clone, Debug)]
pub struct ParamInfo {
    pub name: String,
    pub ty: Ty,
    /// The folded default, of type `ty`; `None` when evaluation failed (reported).
    pub default: Option<Value>,
    pub item: usize,
    pub span: Span,
}

/// `global NAME: T [= e];`
#[derive(Clone, Debug)]
pub struct GlobalInfo {
    pub name: String,
    pub ty: Ty,
    /// The folded initial value (zero of `ty` when there is no initializer); `None` when
    /// evaluation failed (reported).
    pub init: Option<Value>,
    /// `statistic global`: kernels only add to it or raise or lower it by atomics whose
    /// result is unused; `main` reads and assigns it.
    pub statistic: bool,
    pub item: usize,
    pub span: Span,
}

/// One name of an `output` declaration.
#[derive(Clone, Debug)]
pub struct OutputInfo {
    pub name: String,
    /// `None` when the name did not resolve (reported).
    pub target: Option<OutputTarget>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputTarget {
    Property(PropId),
    Global(GlobalId),
    /// `output m;`: the mesh itself, as it is when the program ends.
    Mesh,
}

/// What a name or an access means at one use site (see [`ProgramInfo::resolutions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// A `Name` that is a local: `def` is the `Let` statement, the `ForAll` statement whose
    /// variable it is, or the `KernelParam` (for a kernel's graph parameter too, when it
    /// appears as the base of an access: see the other variants).
    Local {
        def: NodeId,
        kind: LocalKind,
    },
    Const(ConstId),
    Param(ParamId),
    Global(GlobalId),
    /// A `Name` that is the program's graph: the argument `g` of an `Invoke`.
    Graph,
    /// `g.prop[i]` on a node property (or a triangle or vertex property of a mesh), or `g.mk`
    /// as the object of `Exclusive`.
    NodeProperty(PropId),
    /// `g.prop[i]` on an edge property.
    EdgeProperty(PropId),
    /// `g.nnodes`, `g.nedges`.
    GraphField(GraphField),
    /// `g.dst(e)`, `g.degree(n)`, `g.edge_begin(n)`, `g.edge_end(n)`.
    GraphMethod(GraphMethod),
    /// `m.vertex(t, i)`, `m.add_triangle(a, b, c)`, ...: the methods of a mesh.
    MeshMethod(MeshMethod),
    /// `p.x` (`y: false`) or `p.y` of the `point` local defined at `def`.
    PointCoord {
        def: NodeId,
        y: bool,
    },
    /// `min(a, b)`, ...
    Builtin(Builtin),
    /// `atomicAdd(p, v)`, ...
    Atomic(AtomicOp),
    /// A call of a function the program declares.
    Function(FuncId),
    /// `a[i]` on a program-level `array` (a [`PropInfo`] of owner `Array`).
    Array(PropId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LocalKind {
    /// `let x = ...;` (assignable)
    Let,
    /// The variable of a `ForAll` (read-only).
    ForAllVar,
    /// A kernel parameter (read-only).
    KernelParam,
    /// `let a: [T; len];`: a fixed-size local array (its elements are assignable).
    Array { len: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GraphField {
    NNodes,
    NEdges,
    /// `m.ntriangles`: the triangle slots in use (deleted triangles included).
    NTriangles,
    /// `m.nvertices`
    NVertices,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GraphMethod {
    /// `g.dst(e)`: `node`
    Dst,
    /// `g.degree(n)`: `u32`
    Degree,
    /// `g.edge_begin(n)`: `edge`
    EdgeBegin,
    /// `g.edge_end(n)`: `edge`
    EdgeEnd,
    /// `g.src(k)` of an in-edge: `node`
    Src,
    /// `g.edge_of(k)` of an in-edge: the `edge` it is
    EdgeOf,
    /// `g.in_degree(n)`: `u32`
    InDegree,
    /// `g.in_edge_begin(n)`: `in_edge`
    InEdgeBegin,
    /// `g.in_edge_end(n)`: `in_edge`
    InEdgeEnd,
}

impl GraphMethod {
    /// The method's name in the source.
    pub fn name(self) -> &'static str {
        match self {
            GraphMethod::Dst => "dst",
            GraphMethod::Degree => "degree",
            GraphMethod::EdgeBegin => "edge_begin",
            GraphMethod::EdgeEnd => "edge_end",
            GraphMethod::Src => "src",
            GraphMethod::EdgeOf => "edge_of",
            GraphMethod::InDegree => "in_degree",
            GraphMethod::InEdgeBegin => "in_edge_begin",
            GraphMethod::InEdgeEnd => "in_edge_end",
        }
    }

    /// Whether the method reads the graph's in-edges.
    pub fn incoming(self) -> bool {
        matches!(
            self,
            GraphMethod::Src
                | GraphMethod::EdgeOf
                | GraphMethod::InDegree
                | GraphMethod::InEdgeBegin
                | GraphMethod::InEdgeEnd
        )
    }
}

/// The methods of a mesh (kernels only). Triangles are counterclockwise; neighbour `i` of a
/// triangle lies across the edge from its vertex `i` to vertex `(i + 1) % 3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshMethod {
    /// `m.vertex(t, i)`: `vertex`
    Vertex,
    /// `m.neighbor(t, i)`: `triangle` (`0xffffffff` across the boundary)
    Neighbor,
    /// `m.point(v)`: `point`
    Point,
    /// `m.deleted(t)`: `bool`
    Deleted,
    /// `m.add_vertex(p)`: `vertex`, a new vertex at `p`
    AddVertex,
    /// `m.add_triangle(a, b, c)`: `triangle`, a new live triangle without neighbours
    AddTriangle,
    /// `m.set_neighbor(t, i, n)`
    SetNeighbor,
    /// `m.remove(t)`: marks `t` deleted
    Remove,
}

impl MeshMethod {
    pub fn name(self) -> &'static str {
        match self {
            MeshMethod::Vertex => "vertex",
            MeshMethod::Neighbor => "neighbor",
            MeshMethod::Point => "point",
            MeshMethod::Deleted => "deleted",
            MeshMethod::AddVertex => "add_vertex",
            MeshMethod::AddTriangle => "add_triangle",
            MeshMethod::SetNeighbor => "set_neighbor",
            MeshMethod::Remove => "remove",
        }
    }

    /// The parameter types and the result (`Void` for the statements).
    pub fn signature(self) -> (&'static [Ty], Ty) {
        match self {
            MeshMethod::Vertex => (&[Ty::Triangle, Ty::U32], Ty::Vertex),
            MeshMethod::Neighbor => (&[Ty::Triangle, Ty::U32], Ty::Triangle),
            MeshMethod::Point => (&[Ty::Vertex], Ty::Point),
            MeshMethod::Deleted => (&[Ty::Triangle], Ty::Bool),
            MeshMethod::AddVertex => (&[Ty::Point], Ty::Vertex),
            MeshMethod::AddTriangle => (&[Ty::Vertex, Ty::Vertex, Ty::Vertex], Ty::Triangle),
            MeshMethod::SetNeighbor => (&[Ty::Triangle, Ty::U32, Ty::Triangle], Ty::Void),
            MeshMethod::Remove => (&[Ty::Triangle], Ty::Void),
        }
    }

    /// Changes the mesh.
    pub fn writes(self) -> bool {
        matches!(
            self,
            MeshMethod::AddVertex
                | MeshMethod::AddTriangle
                | MeshMethod::SetNeighbor
                | MeshMethod::Remove
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Min,
    Max,
    Abs,
    Sqrt,
    Fabs,
    /// `orient(a, b, c)`: `i32`, the sign of the turn a -> b -> c (1 counterclockwise), exact.
    Orient,
    /// `incircle(a, b, c, d)`: `i32`, 1 if `d` is strictly inside the circle through the
    /// counterclockwise `a, b, c`, 0 on it, -1 outside; exact.
    Incircle,
    /// `midpoint(a, b)`: `point`, rounded down to the grid.
    Midpoint,
    /// `split_point(a, b)`: `point`, the grid point on the segment nearest its middle (exactly
    /// on it), or the lesser end when no grid point lies strictly inside the segment.
    SplitPoint,
    /// `circumcenter(a, b, c)`: `point`, rounded to the grid.
    Circumcenter,
    /// `min_angle(a, b, c)`: `f64`, the smallest angle of the triangle in degrees.
    MinAngle,
    /// `point(x, y)`: `point`, `f64` coordinates rounded to the grid.
    MakePoint,
    /// `p.x`: `f64`
    PointX,
    /// `p.y`: `f64`
    PointY,
    /// `popc(x)`: `u32`, the number of set bits of a `u32` or `u64`.
    Popc,
    /// `ffs(x)`: `u32`, one plus the index of the lowest set bit of a `u32` or `u64` (bit 0
    /// gives 1), 0 when `x` is 0 (as CUDA's `__ffs` and POSIX `ffs`).
    Ffs,
    /// `clz(x)`: `u32`, the number of zero bits above the highest set bit of a `u32` (0 to 32)
    /// or `u64` (0 to 64).
    Clz,
}

impl Builtin {
    /// The bit functions: one `u32` or `u64` argument, a `u32` result.
    pub fn is_bit_count(self) -> bool {
        matches!(self, Builtin::Popc | Builtin::Ffs | Builtin::Clz)
    }

    /// The point functions: fixed parameter types and result.
    pub fn geometry_signature(self) -> Option<(&'static [Ty], Ty)> {
        Some(match self {
            Builtin::Orient => (&[Ty::Point, Ty::Point, Ty::Point], Ty::I32),
            Builtin::Incircle => (&[Ty::Point, Ty::Point, Ty::Point, Ty::Point], Ty::I32),
            Builtin::Midpoint | Builtin::SplitPoint => (&[Ty::Point, Ty::Point], Ty::Point),
            Builtin::Circumcenter => (&[Ty::Point, Ty::Point, Ty::Point], Ty::Point),
            Builtin::MinAngle => (&[Ty::Point, Ty::Point, Ty::Point], Ty::F64),
            Builtin::MakePoint => (&[Ty::F64, Ty::F64], Ty::Point),
            Builtin::PointX | Builtin::PointY => (&[Ty::Point], Ty::F64),
            _ => return None,
        })
    }
}

/// The atomic functions. The result is the place's old value; its type is the place's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    Exch,
    Cas,
    Or,
    And,
    Xor,
}

impl AtomicOp {
    /// The CUDA spelling (`atomicAdd`), which is also the IrGL one.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Sub => "atomicSub",
            AtomicOp::Min => "atomicMin",
            AtomicOp::Max => "atomicMax",
            AtomicOp::Exch => "atomicExch",
            AtomicOp::Cas => "atomicCAS",
            AtomicOp::Or => "atomicOr",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Xor => "atomicXor",
        }
    }
}

/// Globals and properties read and written by a piece of code. An element access counts
/// for its property; a compound assignment or an atomic function both reads and writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub globals_read: BTreeSet<GlobalId>,
    pub globals_written: BTreeSet<GlobalId>,
    pub props_read: BTreeSet<PropId>,
    pub props_written: BTreeSet<PropId>,
}

/// How a `ForAll`'s `Reduce` clause combines a local over the loop's iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Combiner {
    /// `sum: t`, updated by `t += e`.
    Sum,
    /// `min: t`, updated by `t = min(t, e)`.
    Min,
    /// `max: t`, updated by `t = max(t, e)`.
    Max,
    /// `any: t` (`bool`), updated by `t = true` or `t = t || e`.
    Any,
    /// `all: t` (`bool`), updated by `t = false` or `t = t && e`.
    All,
    /// `or: t` (an integer), bitwise, updated by `t |= e` or `t = t | e`.
    Or,
    /// `and: t` (an integer), bitwise, updated by `t &= e` or `t = t & e`.
    And,
}

impl Combiner {
    pub const ALL: [Combiner; 7] = [
        Combiner::Sum,
        Combiner::Min,
        Combiner::Max,
        Combiner::Any,
        Combiner::All,
        Combiner::Or,
        Combiner::And,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Combiner::Sum => "sum",
            Combiner::Min => "min",
            Combiner::Max => "max",
            Combiner::Any => "any",
            Combiner::All => "all",
            Combiner::Or => "or",
            Combiner::And => "and",
        }
    }

    pub fn parse(s: &str) -> Option<Combiner> {
        Combiner::ALL.into_iter().find(|c| c.name() == s)
    }

    /// The update a `ForAll` body writes for this combiner, for messages.
    pub fn update(self, t: &str) -> String {
        match self {
            Combiner::Sum => format!("`{t} += e;`"),
            Combiner::Min => format!("`{t} = min({t}, e);`"),
            Combiner::Max => format!("`{t} = max({t}, e);`"),
            Combiner::Any => format!("`{t} = true;` or `{t} = {t} || e;`"),
            Combiner::All => format!("`{t} = false;` or `{t} = {t} && e;`"),
            Combiner::Or => format!("`{t} |= e;` or `{t} = {t} | e;`"),
            Combiner::And => format!("`{t} &= e;` or `{t} = {t} & e;`"),
        }
    }
}

impl fmt::Display for Combiner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One reduced local of a `ForAll`'s `Reduce` clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopReduction {
    pub combiner: Combiner,
    /// The local's definition (its `Let` statement).
    pub local: NodeId,
}

/// An update of a reduced local inside the `ForAll` that reduces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CombineInfo {
    pub combiner: Combiner,
    /// The local's definition.
    pub local: NodeId,
    /// The expression combined into it: the assigned value itself (`t += e`, `t = true`,
    /// `t = t || e`) or one operand of it (`e` in `t = min(t, e)`).
    pub value: NodeId,
    /// In a chain of `||` (`&&`), the `t` among its operands: read as the combiner's
    /// identity (`false`, `true`).
    pub own: Option<NodeId>,
}

/// What a kernel contains.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    pub name: String,
    /// Index in `Program::items`.
    pub item: usize,
    pub span: Span,
    /// The type of each parameter, in order ([`Ty::Graph`] for the graph parameter).
    pub params: Vec<Ty>,
    /// Position of the `graph` parameter in the parameter list.
    pub graph_param: Option<usize>,
    /// Has a `ForAll (i In WL)`.
    pub iterates_worklist: bool,
    /// Uses `WL.pop`.
    pub pops: bool,
    /// Uses `WL.push`.
    pub pushes: bool,
    /// The `ReduceAndReturn` statements.
    pub reduce_sites: Vec<ReduceSite>,
    /// The `Retry` and `Respawn` statements.
    pub retry_sites: Vec<RetrySite>,
    pub sync_running_threads: bool,
    /// Has an `Atomic (lock) { }` statement.
    pub uses_atomic: bool,
    /// Has an `Exclusive (marks, [..]) { }` statement.
    pub uses_exclusive: bool,
    /// Calls atomic functions (`atomicAdd`, ...).
    pub uses_atomic_functions: bool,
    /// Adds vertices or triangles to the mesh (its launches check the mesh's capacity).
    pub grows_mesh: bool,
    /// Indexes local arrays (its launches check the device's error flag for out-of-range
    /// indices).
    pub indexes_arrays: bool,
    /// The `lock` properties used by `Atomic` and the `mark` properties used by `Exclusive`.
    pub sync_props: BTreeSet<PropId>,
    /// Every `ForAll`, in source (pre-)order.
    pub foralls: Vec<ForAllInfo>,
    /// The functions it calls directly, with the span of each call, in source order.
    pub calls: Vec<(FuncId, Span)>,
    /// What it reads and writes, the functions it calls included.
    pub access: Access,
}

impl KernelInfo {
    /// A worklist kernel mentions `WL`: it iterates, pops or pushes.
    pub fn uses_worklist(&self) -> bool {
        self.iterates_worklist || self.pops || self.pushes || !self.retry_sites.is_empty()
    }

    pub fn has_reduce(&self) -> bool {
        !self.reduce_sites.is_empty()
    }

    pub fn uses_retry(&self) -> bool {
        self.retry_sites.iter().any(|r| r.kind == RetryKind::Retry)
    }

    pub fn uses_respawn(&self) -> bool {
        self.retry_sites
            .iter()
            .any(|r| r.kind == RetryKind::Respawn)
    }
}

/// A `Function`: its signature, what it calls, and what it touches. A kernel's
/// [`KernelInfo`] includes what the functions it calls (directly or not) touch.
#[derive(Clone, Debug)]
pub struct FunctionInfo {
    pub name: String,
    /// Index in `Program::items`.
    pub item: usize,
    pub span: Span,
    /// The type of each parameter, in order ([`Ty::Graph`] for the graph parameter).
    pub params: Vec<Ty>,
    /// Position of the `graph` parameter in the parameter list.
    pub graph_param: Option<usize>,
    /// The type of the value; [`Ty::Void`] when the function returns none.
    pub ret: Ty,
    /// The functions it calls, with the span of each call, in source order.
    pub calls: Vec<(FuncId, Span)>,
    /// Calls atomic functions (`atomicAdd`, ...).
    pub uses_atomic_functions: bool,
    /// Indexes local arrays.
    pub indexes_arrays: bool,
    pub access: Access,
}

/// A `ReduceAndReturn` statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReduceSite {
    pub stmt: NodeId,
    /// The `ReduceAndReturn` keyword.
    pub span: Span,
}

/// A `Retry` or `Respawn` statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetrySite {
    pub stmt: NodeId,
    pub kind: RetryKind,
    /// The `Retry`/`Respawn` keyword.
    pub span: Span,
}

/// One `ForAll` statement of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForAllInfo {
    /// The `Stmt::id` of the `ForAll` (also the key of its variable in `local_types`).
    pub stmt: NodeId,
    /// 0 for an outermost `ForAll`, 1 for one directly nested in it, ...
    pub depth: u32,
    /// The innermost enclosing `ForAll`.
    pub parent: Option<NodeId>,
    pub iter: IterKind,
    /// The type of the variable.
    pub var_ty: Ty,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IterKind {
    Worklist,
    Nodes,
    Edges,
    InEdges,
    Range,
    Triangles,
}

/// `main`.
#[derive(Clone, Debug)]
pub struct MainInfo {
    pub item: usize,
    /// Host reads and writes of globals and of single property elements.
    pub access: Access,
}

/// How a kernel is launched at one site in `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InvocationKind {
    /// `Invoke k(..);`
    Invoke,
    /// `Any Invoke k(..)` / `All Invoke k(..)`, a `bool` expression.
    ReduceInvoke,
    /// `Iterate [While|Until Any|All] k(..) [Initial ..] { step }`
    Iterate,
}

/// Where the worklist of an invocation comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorklistContext {
    /// No worklist: fine for kernels that do not use `WL`.
    None,
    /// An `Iterate` with `Initial [..]` outside any `Pipe`.
    InitialList,
    /// An `Iterate` with `Initial g.nodes` outside any `Pipe`.
    InitialAllNodes,
    /// Inside a `Pipe` (the outermost one creates the worklist).
    Pipe,
}

/// One kernel launch in `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvocationInfo {
    /// The statement (`Invoke`, `Iterate`) or expression (`Any Invoke`) of the launch.
    pub site: NodeId,
    /// The `Call::id`.
    pub call: NodeId,
    /// The call `k(args)`.
    pub span: Span,
    /// The whole statement or expression.
    pub site_span: Span,
    /// `Initial [..]` / `Initial g.nodes` of an `Iterate`.
    pub initial_span: Option<Span>,
    /// `Any` of `Any Invoke`, `While Any` of an `Iterate`.
    pub reduction_span: Option<Span>,
    pub kind: InvocationKind,
    /// `None` when the kernel name did not resolve (reported).
    pub kernel: Option<KernelId>,
    /// The innermost enclosing `Pipe` statement.
    pub pipe: Option<NodeId>,
    /// The outermost enclosing `Pipe` statement: the one that owns the worklist.
    pub outer_pipe: Option<NodeId>,
    pub worklist: WorklistContext,
    /// `Any`/`All` of an `Any Invoke` or of an `Iterate While|Until`.
    pub reduction: Option<Reduction>,
    /// `While`/`Until` of an `Iterate`.
    pub iterate_cond: Option<IterateCondKind>,
}

impl InvocationInfo {
    pub fn in_pipe(&self) -> bool {
        self.pipe.is_some()
    }
}
