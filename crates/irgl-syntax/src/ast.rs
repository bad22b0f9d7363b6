//! The IrGL abstract syntax tree.
//!
//! Every node that later passes may need to name carries a [`NodeId`] and a [`Span`].
//! Ids are assigned in one pre-order walk after parsing ([`Program::renumber`]), so they are
//! dense, deterministic and stable for a given source; analyses keep their results in side
//! tables keyed by `NodeId` instead of adding fields here. Passes that build new nodes take
//! fresh ids from [`Program::fresh_id`] and give them [`Span::NONE`].

use std::fmt;

pub use irgl_diagnostics::Span;

/// Handle of an AST node: displayed as `#12`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The id of a node that has not been numbered yet.
    pub const UNSET: NodeId = NodeId(u32::MAX);
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// A name as written, with its span.
#[derive(Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Ident {
    pub fn new(name: impl Into<String>, span: Span) -> Ident {
        Ident {
            name: name.into(),
            span,
        }
    }
}

impl fmt::Debug for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} @ {:?}", self.name, self.span)
    }
}

/// A whole `.irgl` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    pub items: Vec<Item>,
    /// The next unused [`NodeId`].
    pub next_id: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub id: NodeId,
    pub span: Span,
    pub kind: ItemKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    /// `graph g : symmetric { node level: u32; input edge weight: u32; }`
    Graph(GraphDecl),
    /// `const INF: u32 = 0xffffffff;`
    Const(ConstDecl),
    /// `param src: node = 0;` (a command-line flag of the generated program)
    Param(ParamDecl),
    /// `global triangles: u64 = 0;` (a device scalar shared by kernels and host)
    Global(GlobalDecl),
    /// `output level, triangles;`
    Output(OutputDecl),
    /// `Kernel bfs(graph g, u32 LEVEL) { ... }`
    Kernel(KernelDecl),
    /// `Function find(graph g, node a): node { ... }`: called from kernels and functions.
    Function(FunctionDecl),
    /// `array offsets: u32[g.nnodes + 1];`: a device array sized when the program starts.
    Array(ArrayDecl),
    /// `main { ... }`: the host program.
    Main(Block),
    /// A declaration that failed to parse (already reported).
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GraphDecl {
    /// `mesh m { ... }`: the input is a triangle mesh rather than a graph.
    pub mesh: bool,
    pub name: Ident,
    /// Requirements on the input graph, such as `symmetric`.
    pub attrs: Vec<Ident>,
    pub props: Vec<PropDecl>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PropOwner {
    Node,
    Edge,
    /// A property of a mesh's triangles (`triangle bad: bool;`).
    Triangle,
    /// A property of a mesh's vertices (`vertex level: u32;`).
    Vertex,
    /// A program-level `array` (its length given by its declaration).
    Array,
}

impl PropOwner {
    pub fn spelling(self) -> &'static str {
        match self {
            PropOwner::Node => "node",
            PropOwner::Edge => "edge",
            PropOwner::Triangle => "triangle",
            PropOwner::Vertex => "vertex",
            PropOwner::Array => "array",
        }
    }
}

/// `node level: u32;`, `input edge weight: u32;`
#[derive(Clone, Debug, PartialEq)]
pub struct PropDecl {
    pub id: NodeId,
    pub span: Span,
    pub owner: PropOwner,
    pub name: Ident,
    pub ty: Type,
    /// Loaded from the graph file's edge data rather than initialized by the program.
    pub input: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConstDecl {
    pub name: Ident,
    pub ty: Type,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub name: Ident,
    pub ty: Type,
    pub default: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GlobalDecl {
    /// `statistic global ...`: a measurement that steers how `main` runs the work, never what
    /// the program computes (docs/language.md, *Declarations*).
    pub statistic: bool,
    pub name: Ident,
    pub ty: Type,
    pub init: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutputDecl {
    pub names: Vec<Ident>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct KernelDecl {
    pub name: Ident,
    pub params: Vec<KernelParam>,
    pub body: Block,
}

/// `array offsets: u32[g.nnodes + 1];`: `len` is made of literals, consts, params and the
/// graph's sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDecl {
    pub name: Ident,
    pub ty: Type,
    pub len: Expr,
}

/// `Function find(graph g, node a): node { ... }`; `ret` is `None` for a function without
/// a value.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    pub name: Ident,
    pub params: Vec<KernelParam>,
    pub ret: Option<Type>,
    pub body: Block,
}

/// `u32 LEVEL` in a kernel's parameter list (C order: type, then name).
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParam {
    pub id: NodeId,
    pub span: Span,
    pub ty: Type,
    pub name: Ident,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    pub span: Span,
    pub kind: TypeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Bool,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    /// A node index (an unsigned 32-bit integer).
    Node,
    /// An edge index (an unsigned 32-bit integer).
    Edge,
    /// An in-edge index, a position in the graph's transpose (an unsigned 32-bit integer).
    InEdge,
    /// The graph, as a kernel parameter.
    Graph,
    /// Element type of a lock array used by `Atomic`.
    Lock,
    /// Element type of a mark array used by `Exclusive`.
    Mark,
    /// A triangle index of the mesh (an unsigned 32-bit integer).
    Triangle,
    /// A vertex index of the mesh (an unsigned 32-bit integer).
    Vertex,
    /// A point of the mesh's integer grid.
    Point,
    /// The mesh, as a kernel parameter.
    Mesh,
}

impl TypeKind {
    pub fn spelling(self) -> &'static str {
        match self {
            TypeKind::Bool => "bool",
            TypeKind::U32 => "u32",
            TypeKind::I32 => "i32",
            TypeKind::U64 => "u64",
            TypeKind::I64 => "i64",
            TypeKind::F32 => "f32",
            TypeKind::F64 => "f64",
            TypeKind::Node => "node",
            TypeKind::Edge => "edge",
            TypeKind::InEdge => "in_edge",
            TypeKind::Graph => "graph",
            TypeKind::Lock => "lock",
            TypeKind::Mark => "mark",
            TypeKind::Triangle => "triangle",
            TypeKind::Vertex => "vertex",
            TypeKind::Point => "point",
            TypeKind::Mesh => "mesh",
        }
    }
}

impl fmt::Display for TypeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub id: NodeId,
    pub span: Span,
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub id: NodeId,
    pub span: Span,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `let x: u32 = e;` (the type may be left to inference)
    Let {
        name: Ident,
        ty: Option<Type>,
        init: Expr,
    },
    /// `let cav: [triangle; 64];`: a fixed-size local array (kernels only), zero-filled.
    LetArray {
        name: Ident,
        elem: Type,
        len: Expr,
    },
    /// `place op= value;` (`x++` parses as `x += 1`)
    Assign {
        target: Expr,
        op: AssignOp,
        value: Expr,
    },
    /// An expression evaluated for its effect: a call such as `atomicMin(...)` or `WL.push(x)`.
    Expr(Expr),
    If {
        cond: Expr,
        then_block: Block,
        /// `else if` is an else-block holding one `If`.
        else_block: Option<Block>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    /// `for (init; cond; step) body`
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Box<Stmt>>,
        body: Block,
    },
    Break,
    Continue,
    /// `return e;` or `return;`: leaves a function.
    Return(Option<Expr>),
    Block(Block),

    /// `ForAll (var In iter) [Reduce (op: local, ...)] { body }`: the iterations may run in
    /// parallel; each reduced local declared outside is combined over them with its operator.
    ForAll {
        var: Ident,
        iter: Iter,
        reduce: Vec<ReduceClause>,
        body: Block,
    },
    /// `ReduceAndReturn e;`: contribute a boolean to the kernel's Any/All result.
    ReduceAndReturn(Expr),
    /// `Atomic (lock) { body } [Else { otherwise }]`
    Atomic {
        lock: Expr,
        body: Block,
        otherwise: Option<Block>,
    },
    /// `Exclusive (marks, [e1, e2]) { body } [Else { otherwise }]`, or
    /// `Exclusive (marks, arr[..n])` over the first `n` elements of a local array: then
    /// `elements` holds the array's name alone and `upto` the count.
    Exclusive {
        object: Expr,
        elements: Vec<Expr>,
        upto: Option<Box<Expr>>,
        body: Block,
        otherwise: Option<Block>,
    },
    /// `SyncRunningThreads;`: a barrier across every thread of the kernel.
    SyncRunningThreads,
    /// `Retry item;` or `Respawn item;`
    Retry {
        kind: RetryKind,
        item: Expr,
    },

    /// `Invoke k(args);`
    Invoke(Call),
    /// `Iterate [While|Until Any|All] k(args) [Initial ...] { step }`
    Iterate {
        cond: Option<IterateCond>,
        call: Call,
        initial: Option<Initial>,
        step: Option<Block>,
    },
    /// `Pipe [Once] { ... }`
    Pipe {
        once: bool,
        body: Block,
    },
    /// A statement that failed to parse (already reported).
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl AssignOp {
    pub fn spelling(self) -> &'static str {
        match self {
            AssignOp::Set => "=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
            AssignOp::Rem => "%=",
            AssignOp::BitAnd => "&=",
            AssignOp::BitOr => "|=",
            AssignOp::BitXor => "^=",
            AssignOp::Shl => "<<=",
            AssignOp::Shr => ">>=",
        }
    }

    /// The binary operator behind a compound assignment.
    pub fn binary(self) -> Option<BinaryOp> {
        Some(match self {
            AssignOp::Set => return None,
            AssignOp::Add => BinaryOp::Add,
            AssignOp::Sub => BinaryOp::Sub,
            AssignOp::Mul => BinaryOp::Mul,
            AssignOp::Div => BinaryOp::Div,
            AssignOp::Rem => BinaryOp::Rem,
            AssignOp::BitAnd => BinaryOp::BitAnd,
            AssignOp::BitOr => BinaryOp::BitOr,
            AssignOp::BitXor => BinaryOp::BitXor,
            AssignOp::Shl => BinaryOp::Shl,
            AssignOp::Shr => BinaryOp::Shr,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RetryKind {
    /// A conflict: the item is tried again, with conflict management.
    Retry,
    /// More work for the same item in the same invocation (Near-Far's near nodes).
    Respawn,
}

/// `op: local` in a `ForAll`'s `Reduce (...)` clause: `op` is `sum`, `min`, `max`, `any`
/// or `all` (checked by the checker, where the span is known).
#[derive(Clone, Debug, PartialEq)]
pub struct ReduceClause {
    pub op: Ident,
    pub local: Ident,
}

/// What a `ForAll` iterates over.
#[derive(Clone, Debug, PartialEq)]
pub enum Iter {
    /// `WL`: the indices of the kernel's input worklist, used with `WL.pop(i)`.
    Worklist { span: Span },
    /// `g.nodes`
    Nodes { graph: Ident },
    /// `m.triangles`: every triangle slot of the mesh in use when the kernel starts.
    Triangles { mesh: Ident },
    /// `g.edges(n)`: the out-edges of a node; `g.in_edges(n)`: its in-edges.
    Edges {
        graph: Ident,
        node: Box<Expr>,
        dir: EdgeDir,
    },
    /// `lo..hi`: integers from `lo` up to, not including, `hi`.
    Range { lo: Box<Expr>, hi: Box<Expr> },
}

/// Which edges of a node a `ForAll` runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeDir {
    /// `g.edges(n)`: the out-edges (`edge` values).
    Out,
    /// `g.in_edges(n)`: the in-edges (`in_edge` values: positions in the transposed graph).
    In,
}

impl EdgeDir {
    /// The iterator's method name.
    pub fn method(self) -> &'static str {
        match self {
            EdgeDir::Out => "edges",
            EdgeDir::In => "in_edges",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    Any,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IterateCondKind {
    While,
    Until,
}

/// `While Any`, `Until All`, ..., or `Unordered While Any`.
#[derive(Clone, Debug, PartialEq)]
pub struct IterateCond {
    pub span: Span,
    pub kind: IterateCondKind,
    pub reduction: Reduction,
    /// `Unordered`: the program promises that its rounds may overlap (docs/language.md).
    pub unordered: bool,
}

/// The initial worklist of an `Iterate`.
#[derive(Clone, Debug, PartialEq)]
pub enum Initial {
    /// `Initial [a, b]`
    List { span: Span, items: Vec<Expr> },
    /// `Initial g.nodes`: every node of the graph.
    AllNodes { span: Span, graph: Ident },
}

/// `k(a, b)` as invoked from the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub id: NodeId,
    pub span: Span,
    pub kernel: Ident,
    pub args: Vec<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub id: NodeId,
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(u64),
    Float(f64),
    Bool(bool),
    Name(Ident),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `c ? a : b`
    Ternary {
        cond: Box<Expr>,
        then_expr: Box<Expr>,
        else_expr: Box<Expr>,
    },
    /// `e as T`
    Cast {
        expr: Box<Expr>,
        ty: Type,
    },
    /// `f(args)`: a built-in function such as `atomicMin` or `min`.
    Call {
        func: Ident,
        args: Vec<Expr>,
    },
    /// `g.name`: a field of a graph, such as `g.nnodes`.
    Field {
        base: Ident,
        field: Ident,
    },
    /// `a[i]`: an element of a local array.
    ArrayIndex {
        base: Ident,
        index: Box<Expr>,
    },
    /// `g.prop[i]`: an element of a node or edge property.
    Index {
        base: Ident,
        prop: Ident,
        index: Box<Expr>,
    },
    /// `g.method(args)`, such as `g.dst(e)` or `g.degree(n)`.
    Method {
        base: Ident,
        method: Ident,
        args: Vec<Expr>,
    },
    /// `WL.pop(i)`
    Pop(Box<Expr>),
    /// `WL.push(item)`
    Push(Box<Expr>),
    /// `Any Invoke k(args)` or `All Invoke k(args)`: a host-side kernel launch whose value is
    /// the reduction of its `ReduceAndReturn`s.
    Invoke {
        reduction: Reduction,
        call: Call,
    },
    /// An expression that failed to parse (already reported).
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
}

impl UnaryOp {
    pub fn spelling(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinaryOp {
    pub fn spelling(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }

    /// Binding strength: higher binds tighter. Matches the grammar's tiers.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 10,
            BinaryOp::Add | BinaryOp::Sub => 9,
            BinaryOp::Shl | BinaryOp::Shr => 8,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 7,
            BinaryOp::Eq | BinaryOp::Ne => 6,
            BinaryOp::BitAnd => 5,
            BinaryOp::BitXor => 4,
            BinaryOp::BitOr => 3,
            BinaryOp::And => 2,
            BinaryOp::Or => 1,
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        )
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }
}

impl Program {
    /// A fresh id for a node built by a pass.
    pub fn fresh_id(&mut self) -> NodeId {
        let id = NodeId(self.next_id);
        self.next_id += 1;
        id
    }

    /// The kernels of the program, in source order.
    pub fn kernels(&self) -> impl Iterator<Item = &KernelDecl> {
        self.items.iter().filter_map(|i| match &i.kind {
            ItemKind::Kernel(k) => Some(k),
            _ => None,
        })
    }

    /// Gives every node a dense id in pre-order, starting at 0.
    pub fn renumber(&mut self) {
        let mut next = 0u32;
        crate::visit::walk_program_mut(self, &mut |slot| {
            if let crate::visit::Slot::Node { id, .. } = slot {
                *id = NodeId(next);
                next += 1;
            }
        });
        self.next_id = next;
    }

    /// Resets every span to [`Span::NONE`] and every id to [`NodeId::UNSET`]: two programs that
    /// differ only in layout compare equal afterwards. Used by the round-trip tests.
    pub fn erase_locations(&mut self) {
        crate::visit::walk_program_mut(self, &mut |slot| match slot {
            crate::visit::Slot::Node { id, span } => {
                *id = NodeId::UNSET;
                *span = Span::NONE;
            }
            crate::visit::Slot::Span(span) => *span = Span::NONE,
            crate::visit::Slot::Ident(ident) => ident.span = Span::NONE,
        });
        self.next_id = 0;
    }
}
