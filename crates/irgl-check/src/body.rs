//! Checking code: kernel bodies, `main`, and the initializers of consts, params and globals.
//!
//! One walk per body does name resolution, typing and construct placement together, since
//! all three need the same context (the scopes, the enclosing constructs, where we are).
//! Typing is bidirectional for literals only: an expression made of literals (`-1`, `1 << 4`)
//! takes the type its context expects and is folded to check that it fits; every other
//! expression has a type of its own, checked against the context.
//!
//! ```text
//! let x: u32 = -1;          // E0203: the literal `-1` does not fit in `u32`
//! if (g.degree(n)) { }      // E0202: the condition of `if` must be `bool`
//! ```

use irgl_diagnostics::Diagnostic;
use irgl_syntax::ast::{
    AssignOp, BinaryOp, Block, Call, EdgeDir, Expr, ExprKind, FunctionDecl, Ident, Initial, Iter,
    KernelDecl, NodeId, ReduceClause, Reduction, RetryKind, Span, Stmt, StmtKind, Type, UnaryOp,
};

use crate::cx::{Cx, Symbol, similar};
use crate::decls::sorted;
use crate::info::{
    Access, AtomicOp, Builtin, CombineInfo, Combiner, ForAllInfo, FuncId, FunctionInfo, GraphField,
    GraphMethod, InvocationInfo, InvocationKind, IterKind, KernelId, KernelInfo, LocalKind,
    LoopReduction, MainInfo, MeshMethod, PropId, ReduceSite, Resolution, RetrySite,
    WorklistContext,
};
use crate::ty::Ty;
use crate::value::eval;

/// Type-checks the initializer of a const, param or global against its declared type.
pub(crate) fn check_constant_expr(cx: &mut Cx<'_>, e: &Expr, ty: Ty, ty_span: Span) {
    let mut b = Body::new(cx, Mode::Const);
    if ty == Ty::Error {
        b.expr(e, None);
    } else {
        b.coerce(
            e,
            ty,
            Some((ty_span, format!("the declared type is `{ty}`"))),
        );
    }
}

/// Checks a kernel's body and fills its [`KernelInfo`].
pub(crate) fn check_kernel(cx: &mut Cx<'_>, id: KernelId, decl: &KernelDecl) {
    let params = cx.info.kernels[id.index()].params.clone();
    let mut b = Body::new(cx, Mode::Kernel(id));
    b.declare_params(&decl.params, params, LocalKind::KernelParam);
    b.block(&decl.body);
    b.pop_scope();
    let access = std::mem::take(&mut b.access);
    cx.info.kernels[id.index()].access = access;
}

/// Checks the length of a program-level array: an integer computed, when the program starts,
/// from literals, consts, params and the graph's sizes (E0408 for anything else).
pub(crate) fn check_array_len(cx: &mut Cx<'_>, e: &Expr) {
    let mut b = Body::new(cx, Mode::Main);
    let t = b.expr(e, None);
    if t != Ty::Error && !t.is_integer() {
        let d = Diagnostic::error(
            "E0408",
            format!("an array's length must be an integer, not `{t}`"),
        )
        .with_label(e.span, format!("this is `{t}`"));
        b.report(d);
        return;
    }
    fn walk(b: &mut Body<'_, '_>, e: &Expr) -> bool {
        let ok = match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Error => true,
            ExprKind::Name(_) => matches!(
                b.cx.info.resolution(e.id),
                Some(Resolution::Const(_) | Resolution::Param(_)) | None
            ),
            ExprKind::Field { .. } => matches!(
                b.cx.info.resolution(e.id),
                Some(Resolution::GraphField(_)) | None
            ),
            ExprKind::Call { .. } => matches!(
                b.cx.info.resolution(e.id),
                Some(Resolution::Builtin(_)) | None
            ),
            ExprKind::Unary { .. }
            | ExprKind::Binary { .. }
            | ExprKind::Ternary { .. }
            | ExprKind::Cast { .. } => true,
            _ => false,
        };
        if !ok {
            let d = Diagnostic::error(
                "E0408",
                "an array's length is computed when the program starts",
            )
            .with_label(e.span, "not known then")
            .with_help(
                "use literals, consts, params and the graph's sizes (`g.nnodes`, `g.nedges`)",
            );
            b.report(d);
            return false;
        }
        let mut all = true;
        crate::decls::for_each_child(e, &mut |c| all = all && walk(b, c));
        all
    }
    walk(&mut b, e);
}

/// Checks a function's body and fills its [`FunctionInfo`].
pub(crate) fn check_function(cx: &mut Cx<'_>, id: FuncId, decl: &FunctionDecl) {
    let params = cx.info.functions[id.index()].params.clone();
    let mut b = Body::new(cx, Mode::Function(id));
    // Assignable like a `let` (the function's own copies).
    b.declare_params(&decl.params, params, LocalKind::Let);
    b.block(&decl.body);
    b.pop_scope();
    let access = std::mem::take(&mut b.access);
    let info = &mut cx.info.functions[id.index()];
    info.access = access;
    if info.ret != Ty::Void && info.ret != Ty::Error && !crate::calls::always_returns(&decl.body) {
        let ret = info.ret;
        let end = Span {
            start: decl.body.span.end.saturating_sub(1),
            ..decl.body.span
        };
        cx.report(
            Diagnostic::error(
                "E0331",
                format!(
                    "function `{}` can reach its end without returning a value",
                    decl.name.name
                ),
            )
            .with_label(end, format!("the end of a function that returns `{ret}`"))
            .with_help("end every path with `return e;`"),
        );
    }
}

/// Checks `main` and records its invocations.
pub(crate) fn check_main(cx: &mut Cx<'_>, item: usize, body: &Block) {
    let mut b = Body::new(cx, Mode::Main);
    b.block(body);
    let access = std::mem::take(&mut b.access);
    cx.info.main = Some(MainInfo { item, access });
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// The initializer of a const, param or global.
    Const,
    Kernel(KernelId),
    Function(FuncId),
    Main,
}

struct Local {
    name: String,
    def: NodeId,
    kind: LocalKind,
    ty: Ty,
    span: Span,
    used: bool,
    /// The variable of a `ForAll (i In WL)`.
    worklist_index: bool,
    /// How many `ForAll`s enclose the declaration.
    forall_depth: usize,
}

/// A construct that `break`/`continue` cannot cross, or can stop at.
#[derive(Clone, Copy)]
enum Frame {
    Loop,
    ForAll(Span),
    /// The body of `Atomic` or `Exclusive` (keyword span, keyword).
    Locked(Span, &'static str),
}

struct ForAllCtx {
    stmt: NodeId,
    span: Span,
    worklist: bool,
    /// The locals its `Reduce` clause combines (indices into `locals`).
    reduce: Vec<(usize, Combiner)>,
    /// The locals of clauses rejected with E0321: their updates inside are not reported
    /// again as E0320.
    rejected: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rw {
    Read,
    Write,
    ReadWrite,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lit {
    Int,
    Float,
}

enum Found {
    Local(usize),
    Sym(Symbol),
    None,
}

struct Body<'c, 'p> {
    cx: &'c mut Cx<'p>,
    mode: Mode,
    locals: Vec<Local>,
    /// Indices into `locals`, innermost scope last.
    scopes: Vec<Vec<usize>>,
    /// Locals whose scope has ended (for "not in scope" diagnostics).
    ended: Vec<usize>,
    frames: Vec<Frame>,
    foralls: Vec<ForAllCtx>,
    /// The innermost enclosing locked body: its keyword span and construct (`Atomic` or
    /// `Exclusive`).
    locked: Option<(Span, &'static str)>,
    /// Statement nesting below the kernel body (0: a top-level statement).
    depth: u32,
    /// Enclosing `Pipe` statements (id, keyword span), outermost first.
    pipes: Vec<(NodeId, Span)>,
    access: Access,
    graph_param_reported: bool,
    /// The `t` of `t = t || e` (or a chain of `&&`) being checked: read as the identity.
    own_read: Option<NodeId>,
    /// While checking an operand that is evaluated conditionally or repeatedly (a loop's
    /// condition, the right of `&&`/`||`, a branch of `?:`): what it is. Function calls,
    /// inlined before their statement, cannot stand there.
    lazy: Option<&'static str>,
    /// The call that is a statement of its own (its value, if any, is dropped).
    statement_call: Option<NodeId>,
}

/// The longest local array: its elements live in each thread's registers or local memory.
const MAX_ARRAY_LEN: u64 = 4096;

/// The span of a statement's leading keyword.
fn keyword(stmt: Span, word: &str) -> Span {
    Span {
        end: (stmt.start + word.len() as u32).min(stmt.end.max(stmt.start)),
        ..stmt
    }
}

/// Whether `e` is made of literals only, and of which kind.
fn lit_kind(e: &Expr) -> Option<Lit> {
    match &e.kind {
        ExprKind::Int(_) => Some(Lit::Int),
        ExprKind::Float(_) => Some(Lit::Float),
        ExprKind::Unary {
            op: UnaryOp::Neg | UnaryOp::BitNot,
            operand,
        } => lit_kind(operand),
        ExprKind::Binary { op, lhs, rhs } if !op.is_comparison() && !op.is_logical() => {
            let a = lit_kind(lhs)?;
            let b = lit_kind(rhs)?;
            Some(if a == Lit::Float || b == Lit::Float {
                Lit::Float
            } else {
                Lit::Int
            })
        }
        _ => None,
    }
}

fn is_bit_op(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::Shl | BinaryOp::Shr
    )
}

/// Whether binary operator `op` applies to operands of type `t`.
fn op_allows(op: BinaryOp, t: Ty) -> bool {
    use BinaryOp::*;
    t == Ty::Error
        || match op {
            Add | Sub | Mul | Div | Rem | Lt | Le | Gt | Ge => t.is_numeric(),
            BitAnd | BitOr | BitXor | Shl | Shr => t.is_integer(),
            Eq | Ne => t.is_scalar(),
            And | Or => t == Ty::Bool,
        }
}

/// A hint for converting a `found` value to the `expected` type.
fn conversion_help(found: Ty, expected: Ty) -> Option<String> {
    if matches!(
        (found, expected),
        (Ty::InEdge, Ty::Edge) | (Ty::Edge, Ty::InEdge)
    ) {
        return Some(
            "an `in_edge` is a position among the in-edges, not an `edge`: the edge it is \
             is `g.edge_of(k)`, its source `g.src(k)`"
                .to_string(),
        );
    }
    if matches!(
        (found, expected),
        (Ty::Node, Ty::Edge) | (Ty::Edge, Ty::Node)
    ) {
        return Some(
            "`node` and `edge` index different things and do not mix; the node an edge \
             `e` leads to is `g.dst(e)`"
                .to_string(),
        );
    }
    if found.is_edge_index() && expected == Ty::U32 {
        return Some(format!(
            "an `{found}` is 64-bit in a build with wide edges (`--wide-edges on`), and a `u32` \
             would cut it: keep it `{found}` (or `u64`), or write `(...) as u32` where it is \
             known to fit"
        ));
    }
    if found.is_numeric() && expected.is_numeric() {
        return Some(format!("convert it explicitly: `(...) as {expected}`"));
    }
    if expected == Ty::Bool && found.is_numeric() {
        return Some("numbers are not truth values; compare instead, e.g. `x != 0`".to_string());
    }
    if found == Ty::Bool && expected.is_numeric() {
        return Some("`bool` does not convert to numbers; write `b ? 1 : 0`".to_string());
    }
    None
}

impl<'c, 'p> Body<'c, 'p> {
    fn new(cx: &'c mut Cx<'p>, mode: Mode) -> Body<'c, 'p> {
        Body {
            cx,
            mode,
            locals: Vec::new(),
            scopes: Vec::new(),
            ended: Vec::new(),
            frames: Vec::new(),
            foralls: Vec::new(),
            locked: None,
            depth: 0,
            pipes: Vec::new(),
            access: Access::default(),
            graph_param_reported: false,
            own_read: None,
            lazy: None,
            statement_call: None,
        }
    }

    fn report(&mut self, d: Diagnostic) {
        self.cx.report(d);
    }

    fn kernel_mut(&mut self) -> Option<&mut KernelInfo> {
        match self.mode {
            Mode::Kernel(k) => self.cx.info.kernels.get_mut(k.index()),
            _ => None,
        }
    }

    fn function_mut(&mut self) -> Option<&mut FunctionInfo> {
        match self.mode {
            Mode::Function(f) => self.cx.info.functions.get_mut(f.index()),
            _ => None,
        }
    }

    /// Checks `e` as an operand that is evaluated conditionally or repeatedly (`what`).
    fn lazy_expr(&mut self, what: &'static str, f: impl FnOnce(&mut Self) -> Ty) -> Ty {
        let outer = self.lazy.replace(what);
        let t = f(self);
        self.lazy = outer;
        t
    }

    fn set(&mut self, e: &Expr, t: Ty) -> Ty {
        self.cx.info.expr_types.insert(e.id, t);
        t
    }

    // ------------------------------------------------------------ scopes and names

    fn lookup(&self, name: &str) -> Found {
        for scope in self.scopes.iter().rev() {
            for &i in scope.iter().rev() {
                if self.locals[i].name == name {
                    return Found::Local(i);
                }
            }
        }
        match self.cx.symbol(name) {
            Some(s) => Found::Sym(s),
            None => Found::None,
        }
    }

    fn declare_local(&mut self, name: &Ident, def: NodeId, kind: LocalKind, ty: Ty, wl: bool) {
        if let Found::Local(i) = self.lookup(&name.name) {
            let old = &self.locals[i];
            let what = match old.kind {
                LocalKind::Let => "local",
                LocalKind::ForAllVar => "ForAll variable",
                LocalKind::KernelParam => "kernel parameter",
                LocalKind::Array { .. } => "local array",
            };
            let d = Diagnostic::error(
                "E0103",
                format!("`{}` shadows the {what} `{}`", name.name, old.name),
            )
            .with_label(name.span, "declared again here")
            .with_label(
                old.span,
                format!("the {what} `{}` is declared here", old.name),
            )
            .with_help(
                "give it another name; IrGL forbids shadowing because it usually hides a bug",
            );
            self.report(d);
        }
        self.locals.push(Local {
            name: name.name.clone(),
            def,
            kind,
            ty,
            span: name.span,
            used: false,
            worklist_index: wl,
            forall_depth: self.foralls.len(),
        });
        let idx = self.locals.len() - 1;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(idx);
        }
        self.cx.info.local_types.insert(def, ty);
    }

    /// Opens the body's outermost scope with its parameters, as locals of `kind`; they are
    /// never reported unused.
    fn declare_params(
        &mut self,
        decl: &[irgl_syntax::ast::KernelParam],
        types: Vec<Ty>,
        kind: LocalKind,
    ) {
        self.scopes.push(Vec::new());
        for (p, ty) in decl.iter().zip(types) {
            if self.scopes[0]
                .iter()
                .any(|&i| self.locals[i].name == p.name.name)
            {
                continue; // a duplicate, reported with the declarations
            }
            self.declare_local(&p.name, p.id, kind, ty, false);
            if let Some(l) = self.locals.last_mut() {
                l.used = true;
            }
        }
    }

    fn pop_scope(&mut self) {
        let Some(scope) = self.scopes.pop() else {
            return;
        };
        for i in scope {
            let l = &self.locals[i];
            if l.kind == LocalKind::Let
                && !l.used
                && !l.name.starts_with('_')
                && l.ty != Ty::Error
                && !self.cx.recovered
            {
                let d = Diagnostic::warning("W0001", format!("unused local `{}`", l.name))
                    .with_label(l.span, "assigned but never read")
                    .with_help(format!(
                        "remove it, or name it `_{}` if it is meant to be unused",
                        l.name
                    ));
                self.report(d);
            }
            self.ended.push(i);
        }
    }

    /// Candidate value names for a "did you mean" hint.
    fn value_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .scopes
            .iter()
            .flatten()
            .map(|&i| self.locals[i].name.as_str())
            .collect();
        v.extend(
            self.cx
                .names
                .iter()
                .filter(|(_, (s, _))| {
                    matches!(s, Symbol::Const(_) | Symbol::Param(_) | Symbol::Global(_))
                })
                .map(|(n, _)| n.as_str()),
        );
        sorted(v)
    }

    fn unknown_name(&mut self, ident: &Ident) {
        if self.cx.recovered {
            return; // the declaration may be in the part that failed to parse
        }
        if let Some(&i) = self
            .ended
            .iter()
            .rev()
            .find(|&&i| self.locals[i].name == ident.name)
        {
            let def = self.locals[i].span;
            let d = Diagnostic::error("E0104", format!("`{}` is not in scope here", ident.name))
                .with_label(ident.span, "used outside the block that declares it")
                .with_label(
                    def,
                    format!(
                        "`{}` is declared here, in a block that has ended",
                        ident.name
                    ),
                )
                .with_help(format!(
                    "declare `{}` before the block if it must outlive it",
                    ident.name
                ));
            self.report(d);
            return;
        }
        let mut d = Diagnostic::error("E0101", format!("unknown name `{}`", ident.name))
            .with_label(ident.span, "not declared");
        d = match similar(&ident.name, self.value_names()) {
            Some(s) => d.with_help(format!("did you mean `{s}`?")),
            None => d.with_help("declare it with `let`, or as a const, param or global"),
        };
        self.report(d);
    }

    // ------------------------------------------------------------ placement helpers

    /// Reports a kernel-only construct outside a kernel; `true` in a kernel.
    fn kernel_only(&mut self, span: Span, what: &str) -> bool {
        match self.mode {
            Mode::Kernel(_) | Mode::Function(_) => true,
            Mode::Main => {
                let d = Diagnostic::error("E0302", format!("{what} can only be used in a kernel"))
                    .with_label(span, "not allowed in `main`")
                    .with_help("`main` runs on the host; move this into a kernel and `Invoke` it");
                self.report(d);
                false
            }
            Mode::Const => {
                self.not_constant(span, what);
                false
            }
        }
    }

    /// E0336: a statistic read or assigned in a kernel or a function (`how`), where only its
    /// atomic updates may touch it.
    fn statistic_in_kernel(&mut self, g: crate::info::GlobalId, span: Span, how: &str) {
        let info = &self.cx.info.globals[g.index()];
        if !info.statistic || !matches!(self.mode, Mode::Kernel(_) | Mode::Function(_)) {
            return;
        }
        let d = Diagnostic::error(
            "E0336",
            format!("the statistic `{}` is {how} in a kernel", info.name),
        )
        .with_label(span, format!("{how} here"))
        .with_help(
            "what kernels compute must not depend on a statistic: they update it only by \
             `atomicAdd`, `atomicMax` or `atomicMin`; `main` reads and resets it",
        );
        self.report(d);
    }

    /// Reports a construct of a kernel's own body (a `ForAll`, the worklist, a reduction, a
    /// lock, a barrier) in a function or outside a kernel; `true` in a kernel.
    fn kernel_body_only(&mut self, span: Span, what: &str) -> bool {
        if let Mode::Function(f) = self.mode {
            let name = self.cx.info.functions[f.index()].name.clone();
            let d = Diagnostic::error("E0334", format!("{what} cannot be used in a function"))
                .with_label(span, format!("inside function `{name}`"))
                .with_help(
                    "a function runs on the thread that calls it; keep ForAll, the worklist, \
                     ReduceAndReturn, Retry, Atomic, Exclusive and SyncRunningThreads in the \
                     kernel and pass the function what it needs",
                );
            self.report(d);
            return false;
        }
        self.kernel_only(span, what)
    }

    /// Reports a host-only construct outside `main`; `true` in `main`.
    fn host_only(&mut self, span: Span, what: &str) -> bool {
        match self.mode {
            Mode::Main => true,
            Mode::Kernel(_) | Mode::Function(_) => {
                let here = if matches!(self.mode, Mode::Kernel(_)) {
                    "not allowed in a kernel"
                } else {
                    "not allowed in a function"
                };
                let d = Diagnostic::error("E0301", format!("{what} can only be used in `main`"))
                    .with_label(span, here)
                    .with_help("kernels cannot launch kernels; orchestrate them from `main`");
                self.report(d);
                false
            }
            Mode::Const => {
                self.not_constant(span, what);
                false
            }
        }
    }

    fn not_constant(&mut self, span: Span, what: &str) {
        let d = Diagnostic::error("E0401", format!("{what} is not a constant"))
            .with_label(span, "not known at compile time")
            .with_help(
                "initializers of consts, params and globals use literals, consts and the \
                 built-in functions only",
            );
        self.report(d);
    }

    // ------------------------------------------------------------ expressions

    /// Checks `e` against an expected type and reports a mismatch.
    fn coerce(&mut self, e: &Expr, expected: Ty, origin: Option<(Span, String)>) -> Ty {
        let t = self.expr(e, Some(expected));
        if t == Ty::Void || expected.compatible(t) {
            return expected;
        }
        let mut d = Diagnostic::error(
            "E0201",
            format!("mismatched types: expected `{expected}`, found `{t}`"),
        )
        .with_label(e.span, format!("this is `{t}`"));
        if let Some((span, msg)) = origin {
            d = d.with_label(span, msg);
        }
        if let Some(h) = conversion_help(t, expected) {
            d = d.with_help(h);
        }
        self.report(d);
        Ty::Error
    }

    /// A `bool` condition.
    fn cond(&mut self, e: &Expr, what: &str) {
        let t = if lit_kind(e).is_some() {
            self.expr(e, None)
        } else {
            self.expr(e, Some(Ty::Bool))
        };
        if t != Ty::Bool && t != Ty::Error && t != Ty::Void {
            let mut d = Diagnostic::error(
                "E0202",
                format!("the condition of {what} must be `bool`, found `{t}`"),
            )
            .with_label(e.span, format!("this is `{t}`"));
            if t.is_numeric() {
                d = d.with_help("numbers are not truth values; compare explicitly, e.g. `x != 0`");
            }
            self.report(d);
        }
    }

    fn expr(&mut self, e: &Expr, expected: Option<Ty>) -> Ty {
        if let Some(kind) = lit_kind(e) {
            return self.literal(e, kind, expected);
        }
        let t = match &e.kind {
            ExprKind::Bool(_) => Ty::Bool,
            ExprKind::Int(_) | ExprKind::Float(_) => Ty::Error, // handled by `literal`
            ExprKind::Error => Ty::Error,                       // reported by the parser
            ExprKind::Name(ident) => self.name_value(e, ident),
            ExprKind::Unary { op, operand } => self.unary(*op, operand, expected),
            ExprKind::Binary { op, lhs, rhs } => self.binary(e, *op, lhs, rhs, expected),
            ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => {
                self.cond(cond, "`?:`");
                let (first, second) = if lit_kind(then_expr).is_some() {
                    (&**else_expr, &**then_expr)
                } else {
                    (&**then_expr, &**else_expr)
                };
                let t1 = self.expr(first, expected);
                let t2 = self.expr(second, Some(t1));
                if t1.mixes(t2) {
                    t1.join(t2)
                } else {
                    let d = Diagnostic::error(
                        "E0201",
                        format!("the branches of `?:` have different types, `{t1}` and `{t2}`"),
                    )
                    .with_label(second.span, format!("this is `{t2}`"))
                    .with_label(first.span, format!("this is `{t1}`"))
                    .with_help("both branches need one type; convert one with `as`");
                    self.report(d);
                    Ty::Error
                }
            }
            ExprKind::Cast { expr, ty } => self.cast(e, expr, Ty::from(ty.kind)),
            ExprKind::Call { func, args } => self.call_fn(e, func, args, expected),
            ExprKind::Field { base, field } => self.field(e, base, field, false),
            ExprKind::Index { base, prop, index } => {
                self.index(e, base, prop, index, Rw::Read, false)
            }
            ExprKind::Method { base, method, args } => self.method(e, base, method, args),
            ExprKind::ArrayIndex { base, index } => self.array_index(e, base, index, Rw::Read),
            ExprKind::Pop(x) => self.pop(e, x),
            ExprKind::Push(x) => self.push(e, x, false),
            ExprKind::Invoke { reduction, call } => {
                let what = match reduction {
                    Reduction::Any => "`Any Invoke`",
                    Reduction::All => "`All Invoke`",
                };
                let kw = Span {
                    end: call.span.start.max(e.span.start),
                    ..e.span
                };
                if self.host_only(kw, what) {
                    self.invocation(
                        call,
                        e.id,
                        e.span,
                        InvocationKind::ReduceInvoke,
                        Some((*reduction, kw)),
                        None,
                        None,
                    );
                    Ty::Bool
                } else {
                    self.misplaced_launch(call);
                    Ty::Error
                }
            }
        };
        self.set(e, t)
    }

    /// Arguments of a call that could not be matched to parameters: resolve their names, and
    /// accept the graph (it is an argument of most kernel launches).
    fn unchecked_args(&mut self, args: &[Expr]) {
        for a in args {
            if self.is_graph_name(a) {
                self.graph_arg(a);
            } else {
                self.expr(a, None);
            }
        }
    }

    /// A launch outside `main` (reported): resolve its arguments, note the kernel as used.
    fn misplaced_launch(&mut self, call: &Call) {
        if let Some(Symbol::Kernel(k)) = self.cx.symbol(&call.kernel.name) {
            self.cx.launched.insert(k);
        }
        self.unchecked_args(&call.args);
    }

    /// Whether `e` is a bare name of the graph (the program's, or a kernel's graph parameter).
    fn is_graph_name(&self, e: &Expr) -> bool {
        let ExprKind::Name(n) = &e.kind else {
            return false;
        };
        match self.lookup(&n.name) {
            Found::Sym(Symbol::Graph) => true,
            Found::Local(i) => self.locals[i].ty == Ty::Graph,
            _ => false,
        }
    }

    /// Records `e`, a graph name, as the graph argument of a launch.
    fn graph_arg(&mut self, e: &Expr) {
        if let ExprKind::Name(n) = &e.kind
            && let Found::Local(i) = self.lookup(&n.name)
        {
            self.locals[i].used = true;
        }
        self.cx.resolve(e.id, Resolution::Graph);
        self.set(e, Ty::Graph);
    }

    /// An expression made of literals: it takes the expected type (or `i32`/`f64`) and is
    /// folded to check that it fits.
    fn literal(&mut self, e: &Expr, kind: Lit, expected: Option<Ty>) -> Ty {
        let what = match kind {
            Lit::Int => "an integer literal",
            Lit::Float => "a floating-point literal",
        };
        let target = match expected {
            None => match kind {
                Lit::Int => Ty::I32,
                Lit::Float => Ty::F64,
            },
            Some(Ty::Error) => Ty::Error,
            Some(t) if t.is_float() => t,
            Some(t) if t.is_integer() && kind == Lit::Int => t,
            Some(t) => {
                let mut d = Diagnostic::error(
                    "E0201",
                    format!("mismatched types: expected `{t}`, found {what}"),
                )
                .with_label(e.span, format!("expected `{t}`"));
                if t.is_integer() {
                    d = d.with_help(format!(
                        "write an integer, or convert explicitly: `(...) as {t}`"
                    ));
                } else if t == Ty::Bool {
                    d = d.with_help("write `true` or `false`, or compare, e.g. `x != 0`");
                }
                self.report(d);
                Ty::Error
            }
        };
        if self.type_literal_tree(e, target) && target != Ty::Error {
            let result = eval(e, &self.cx.info.expr_types, &self.cx.info.resolutions, &[]);
            if let Err(err) = result {
                self.cx.report_eval_error(err);
            }
        }
        target
    }

    /// An integer literal expression being cast: it takes the target type if its value fits
    /// there, else the first of `i64`, `u64` that holds it, so that `-1 as u32` is the cast of
    /// an `i64` (wrapping to `0xffffffff`) and `3000000000 as u64` needs no suffix.
    fn cast_literal(&mut self, inner: &Expr, target: Ty) -> Ty {
        for candidate in [target, Ty::I64, Ty::U64] {
            if candidate.is_float() {
                return self.expr(inner, Some(candidate));
            }
            self.type_literal_tree(inner, candidate);
            let fits = eval(
                inner,
                &self.cx.info.expr_types,
                &self.cx.info.resolutions,
                &[],
            )
            .is_ok();
            if fits {
                return candidate;
            }
        }
        self.expr(inner, Some(target))
    }

    /// Gives every node of a literal expression the type `ty`; reports bit operators on
    /// floats. Returns `false` if it reported something.
    fn type_literal_tree(&mut self, e: &Expr, ty: Ty) -> bool {
        self.set(e, ty);
        let mut ok = true;
        let op = match &e.kind {
            ExprKind::Unary {
                op: UnaryOp::BitNot,
                ..
            } => Some("~"),
            ExprKind::Binary { op, .. } if is_bit_op(*op) => Some(op.spelling()),
            _ => None,
        };
        if let Some(op) = op
            && ty.is_float()
        {
            let d = Diagnostic::error("E0204", format!("`{op}` cannot be applied to `{ty}`"))
                .with_label(e.span, format!("a bit operator on `{ty}`"))
                .with_help("bit operators and shifts take integers");
            self.report(d);
            ok = false;
        }
        match &e.kind {
            ExprKind::Unary { operand, .. } => ok &= self.type_literal_tree(operand, ty),
            ExprKind::Binary { lhs, rhs, .. } => {
                ok &= self.type_literal_tree(lhs, ty);
                ok &= self.type_literal_tree(rhs, ty);
            }
            _ => {}
        }
        ok
    }

    fn name_value(&mut self, e: &Expr, ident: &Ident) -> Ty {
        match self.lookup(&ident.name) {
            Found::Local(i) => {
                if self.own_read != Some(e.id) && self.reduced_read(i, ident.span) {
                    return Ty::Error;
                }
                let l = &mut self.locals[i];
                l.used = true;
                let (def, kind, ty) = (l.def, l.kind, l.ty);
                self.cx.resolve(e.id, Resolution::Local { def, kind });
                if ty == Ty::Graph {
                    self.graph_as_value(ident);
                    return Ty::Error;
                }
                if let LocalKind::Array { len } = kind {
                    let d = Diagnostic::error(
                        "E0115",
                        format!("`{}` is a local array, not a value", ident.name),
                    )
                    .with_label(ident.span, format!("an array of {len} `{ty}`"))
                    .with_help(format!("use one element: `{}[i]`", ident.name));
                    self.report(d);
                    return Ty::Error;
                }
                ty
            }
            Found::Sym(Symbol::Const(c)) => {
                self.cx.resolve(e.id, Resolution::Const(c));
                self.cx.info.consts[c.index()].ty
            }
            Found::Sym(Symbol::Param(p)) => {
                self.cx.resolve(e.id, Resolution::Param(p));
                let info = &self.cx.info.params[p.index()];
                let (ty, decl) = (info.ty, info.span);
                if self.mode == Mode::Const {
                    self.runtime_in_constant(ident, "a param", decl);
                }
                ty
            }
            Found::Sym(Symbol::Global(g)) => {
                self.cx.resolve(e.id, Resolution::Global(g));
                let info = &self.cx.info.globals[g.index()];
                let (ty, decl) = (info.ty, info.span);
                if self.mode == Mode::Const {
                    self.runtime_in_constant(ident, "a global", decl);
                } else {
                    self.access.globals_read.insert(g);
                    self.statistic_in_kernel(g, ident.span, "read");
                }
                ty
            }
            Found::Sym(Symbol::Graph) => {
                if self.mode == Mode::Const {
                    self.not_constant(ident.span, "the graph");
                } else {
                    self.graph_as_value(ident);
                }
                Ty::Error
            }
            Found::Sym(Symbol::Prop(_)) => {
                let graph = self.cx.graph_name().unwrap_or("g").to_string();
                let d = Diagnostic::error(
                    "E0115",
                    format!("`{}` is a property, not a value", ident.name),
                )
                .with_label(ident.span, "a property of the graph")
                .with_help(format!(
                    "properties are reached through the graph: `{graph}.{}[i]`",
                    ident.name
                ));
                self.report(d);
                Ty::Error
            }
            Found::Sym(sym @ (Symbol::Array(_) | Symbol::Function(_) | Symbol::Kernel(_))) => {
                let name = &ident.name;
                let (what, help) = match sym {
                    Symbol::Array(_) => ("an array", format!("index it: `{name}[i]`")),
                    Symbol::Function(_) => ("a function", format!("call it: `{name}(...)`")),
                    _ => (
                        "a kernel",
                        format!("launch it from `main`: `Invoke {name}(...);`"),
                    ),
                };
                let d = Diagnostic::error("E0115", format!("`{name}` is {what}, not a value"))
                    .with_label(ident.span, what)
                    .with_help(help);
                self.report(d);
                Ty::Error
            }
            Found::None => {
                self.unknown_name(ident);
                Ty::Error
            }
        }
    }

    fn runtime_in_constant(&mut self, ident: &Ident, what: &str, decl: Span) {
        let d = Diagnostic::error(
            "E0401",
            format!("`{}` is {what}, which is not a constant", ident.name),
        )
        .with_label(ident.span, "only known at run time")
        .with_label(decl, format!("`{}` is declared here", ident.name))
        .with_help(
            "initializers of consts, params and globals use literals, consts and the built-in \
             functions only",
        );
        self.report(d);
    }

    fn graph_as_value(&mut self, ident: &Ident) {
        let d = Diagnostic::error("E0115", "the graph cannot be used as a value")
            .with_label(ident.span, "the graph")
            .with_help(format!(
                "use its parts: `{0}.prop[n]`, `{0}.nnodes`, `{0}.dst(e)`, ...",
                ident.name
            ));
        self.report(d);
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr, expected: Option<Ty>) -> Ty {
        match op {
            UnaryOp::Neg => {
                let t = self.expr(operand, expected.filter(|t| t.is_numeric()));
                if t.is_signed() || t.is_float() || t == Ty::Error {
                    return t;
                }
                let d = if t.is_integer() {
                    Diagnostic::error(
                        "E0204",
                        format!("cannot negate a value of unsigned type `{t}`"),
                    )
                    .with_label(operand.span, format!("this is `{t}`"))
                    .with_help("convert it to a signed type first: `-(x as i64)`")
                } else {
                    Diagnostic::error("E0204", format!("`-` cannot be applied to `{t}`"))
                        .with_label(operand.span, format!("this is `{t}`"))
                        .with_help("for logical negation use `!`")
                };
                self.report(d);
                Ty::Error
            }
            UnaryOp::Not => {
                let t = if lit_kind(operand).is_some() {
                    self.expr(operand, None)
                } else {
                    self.expr(operand, Some(Ty::Bool))
                };
                if t == Ty::Bool || t == Ty::Error {
                    return Ty::Bool;
                }
                let d = Diagnostic::error("E0204", format!("`!` takes a `bool`, found `{t}`"))
                    .with_label(operand.span, format!("this is `{t}`"))
                    .with_help("compare with zero (`x == 0`); for a bitwise not use `~`");
                self.report(d);
                Ty::Error
            }
            UnaryOp::BitNot => {
                let t = self.expr(operand, expected.filter(|t| t.is_integer()));
                if t.is_integer() || t == Ty::Error {
                    return t;
                }
                let d = Diagnostic::error("E0204", format!("`~` cannot be applied to `{t}`"))
                    .with_label(operand.span, format!("this is `{t}`"))
                    .with_help("`~` inverts the bits of an integer; for a `bool` use `!`");
                self.report(d);
                Ty::Error
            }
        }
    }

    fn op_error(&mut self, op: BinaryOp, operand: &Expr, t: Ty) {
        let help = match op {
            BinaryOp::And | BinaryOp::Or => {
                "`&&` and `||` take `bool`s; compare numbers explicitly, e.g. `x != 0`"
            }
            _ if is_bit_op(op) => "bit operators and shifts take integers",
            _ if t == Ty::Bool => {
                "arithmetic and ordering take numbers; for `bool`s use `&&`, `||`, `!`, `==`"
            }
            _ => "this operator takes numbers",
        };
        let d = Diagnostic::error(
            "E0204",
            format!("`{}` cannot be applied to `{t}`", op.spelling()),
        )
        .with_label(operand.span, format!("this is `{t}`"))
        .with_help(help);
        self.report(d);
    }

    fn binary(
        &mut self,
        _e: &Expr,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        expected: Option<Ty>,
    ) -> Ty {
        if op.is_logical() {
            let mut ok = true;
            for side in [lhs, rhs] {
                let t = if lit_kind(side).is_some() {
                    self.expr(side, None)
                } else {
                    self.expr(side, Some(Ty::Bool))
                };
                if !op_allows(op, t) {
                    self.op_error(op, side, t);
                    ok = false;
                }
            }
            return if ok { Ty::Bool } else { Ty::Error };
        }
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let l = self.expr(lhs, expected.filter(|t| t.is_integer()));
            let r = self.expr(rhs, Some(l).filter(|t| t.is_integer()));
            let mut ok = true;
            for (side, t) in [(lhs, l), (rhs, r)] {
                if !op_allows(op, t) {
                    self.op_error(op, side, t);
                    ok = false;
                }
            }
            return if ok { l } else { Ty::Error };
        }
        // `x & 1 == 1` is `x & (1 == 1)`: comparisons bind tighter than `&`, `^` and `|` (as
        // in C), so a bit operator meets a `bool`. Say so, as clang's -Wparentheses does.
        if matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor)
            && let Some((side, cmp)) = [lhs, rhs].into_iter().find_map(|side| match &side.kind {
                ExprKind::Binary { op: cmp, .. } if cmp.is_comparison() => Some((side, *cmp)),
                _ => None,
            })
        {
            self.expr(lhs, None);
            self.expr(rhs, None);
            let (b, c) = (op.spelling(), cmp.spelling());
            let d = Diagnostic::error("E0204", format!("`{b}` cannot be applied to `bool`"))
                .with_label(side.span, format!("this `{c}` is a `bool`"))
                .with_note(format!(
                    "`{c}` binds tighter than `{b}`: `a {b} b {c} c` is `a {b} (b {c} c)`"
                ))
                .with_help(format!(
                    "write `(a {b} b) {c} c` to compare the result of `{b}`"
                ));
            self.report(d);
            return Ty::Error;
        }
        let operand_expected = if op.is_comparison() { None } else { expected };
        // The operand with a type of its own goes first, so that a literal adapts to it.
        let (first, second) = if lit_kind(lhs).is_some() && lit_kind(rhs).is_none() {
            (rhs, lhs)
        } else {
            (lhs, rhs)
        };
        let t1 = self.expr(first, operand_expected);
        if !op_allows(op, t1) {
            self.op_error(op, first, t1);
            self.expr(second, None);
            return Ty::Error;
        }
        let t2 = self.expr(second, Some(t1));
        if t2 == Ty::Error {
            return Ty::Error;
        }
        if !t1.mixes(t2) {
            let (lt, rt) = if std::ptr::eq(first, lhs) {
                (t1, t2)
            } else {
                (t2, t1)
            };
            let mut d = Diagnostic::error(
                "E0201",
                format!("mismatched types: `{lt}` {} `{rt}`", op.spelling()),
            )
            .with_label(rhs.span, format!("this is `{rt}`"))
            .with_label(lhs.span, format!("this is `{lt}`"));
            d = d.with_help(
                conversion_help(rt, lt)
                    .unwrap_or_else(|| "both operands need one type".to_string()),
            );
            self.report(d);
            return Ty::Error;
        }
        if !op_allows(op, t2) {
            self.op_error(op, second, t2);
            return Ty::Error;
        }
        if op.is_comparison() {
            if !matches!(op, BinaryOp::Eq | BinaryOp::Ne) && t1 == Ty::Bool {
                self.op_error(op, first, t1);
                return Ty::Error;
            }
            Ty::Bool
        } else {
            t1.join(t2)
        }
    }

    fn cast(&mut self, e: &Expr, inner: &Expr, target: Ty) -> Ty {
        if !target.is_scalar() {
            self.expr(inner, None);
            let d = Diagnostic::error("E0205", format!("cannot cast to `{target}`"))
                .with_label(e.span, format!("`{target}` is not a value type"))
                .with_help("casts convert between numeric and index types");
            self.report(d);
            return Ty::Error;
        }
        let t = match lit_kind(inner) {
            Some(Lit::Int) if target.is_numeric() => self.cast_literal(inner, target),
            Some(Lit::Float) if target.is_float() => self.expr(inner, Some(target)),
            _ => self.expr(inner, None),
        };
        if t == Ty::Error || (t == Ty::Bool && target == Ty::Bool) {
            return target;
        }
        if matches!((t, target), (Ty::InEdge, Ty::Edge) | (Ty::Edge, Ty::InEdge)) {
            // Positions among the in-edges are not edge ids: a cast would index the wrong edge.
            let d = Diagnostic::error("E0205", format!("cannot cast `{t}` to `{target}`"))
                .with_label(e.span, "invalid cast")
                .with_help(
                    "an `in_edge` is a position among the in-edges, not an edge id: the edge it \
                     is is `g.edge_of(k)`",
                );
            self.report(d);
            return Ty::Error;
        }
        if t == Ty::Bool || target == Ty::Bool || !t.is_numeric() {
            let help = if t == Ty::Bool {
                "`bool` does not convert to numbers; write `b ? 1 : 0`"
            } else if target == Ty::Bool {
                "numbers do not convert to `bool`; compare instead, e.g. `x != 0`"
            } else {
                "casts convert between numeric and index types"
            };
            let d = Diagnostic::error("E0205", format!("cannot cast `{t}` to `{target}`"))
                .with_label(e.span, "invalid cast")
                .with_help(help);
            self.report(d);
            return Ty::Error;
        }
        target
    }

    // ------------------------------------------------------------ the graph

    /// Checks that `base` names the graph here; reports otherwise.
    fn graph_base(&mut self, base: &Ident) -> bool {
        if self.mode == Mode::Const {
            self.not_constant(base.span, "the graph");
            return false;
        }
        if self.cx.info.graph.is_none() {
            return false; // E0109 reported
        }
        match self.lookup(&base.name) {
            Found::Local(i) => {
                let l = &mut self.locals[i];
                l.used = true;
                match l.ty {
                    Ty::Graph => true,
                    Ty::Error => false,
                    t => {
                        let d =
                            Diagnostic::error("E0114", format!("`{}` is not the graph", base.name))
                                .with_label(base.span, format!("a local of type `{t}`"))
                                .with_help(self.graph_hint());
                        self.report(d);
                        false
                    }
                }
            }
            Found::Sym(Symbol::Graph) => match self.mode {
                Mode::Kernel(_) | Mode::Function(_) => {
                    if !self.graph_param_reported {
                        self.graph_param_reported = true;
                        self.no_graph_param(base);
                    }
                    false
                }
                _ => true,
            },
            Found::Sym(s) => {
                let d = Diagnostic::error("E0114", format!("`{}` is not the graph", base.name))
                    .with_label(base.span, format!("`{}` is {}", base.name, s.describe()))
                    .with_help(self.graph_hint());
                self.report(d);
                false
            }
            Found::None if self.cx.recovered => false,
            Found::None => {
                let mut d = Diagnostic::error("E0101", format!("unknown name `{}`", base.name))
                    .with_label(base.span, "not declared");
                d = d.with_help(self.graph_hint());
                self.report(d);
                false
            }
        }
    }

    fn graph_hint(&self) -> String {
        let name = match self.mode {
            Mode::Kernel(k) => self
                .cx
                .kernel_decl(k)
                .and_then(|d| {
                    d.params.iter().find(|p| {
                        matches!(
                            p.ty.kind,
                            irgl_syntax::ast::TypeKind::Graph | irgl_syntax::ast::TypeKind::Mesh
                        )
                    })
                })
                .map(|p| p.name.name.clone()),
            Mode::Function(f) => {
                match &self.cx.program.items[self.cx.info.functions[f.index()].item].kind {
                    irgl_syntax::ast::ItemKind::Function(d) => d
                        .params
                        .iter()
                        .find(|p| {
                            matches!(
                                p.ty.kind,
                                irgl_syntax::ast::TypeKind::Graph
                                    | irgl_syntax::ast::TypeKind::Mesh
                            )
                        })
                        .map(|p| p.name.name.clone()),
                    _ => None,
                }
            }
            _ => self.cx.graph_name().map(str::to_string),
        };
        match name {
            Some(n) => format!("the graph is `{n}` here"),
            None => "kernels reach the graph through a `graph` parameter".to_string(),
        }
    }

    fn no_graph_param(&mut self, base: &Ident) {
        let (what, word, name, span, has_param) = match self.mode {
            Mode::Function(f) => {
                let info = &self.cx.info.functions[f.index()];
                let has = info.graph_param.is_some();
                ("function", "Function", info.name.clone(), info.span, has)
            }
            Mode::Kernel(k) => {
                let info = &self.cx.info.kernels[k.index()];
                let has = info.graph_param.is_some();
                ("kernel", "Kernel", info.name.clone(), info.span, has)
            }
            _ => return,
        };
        let d = if has_param {
            Diagnostic::error(
                "E0318",
                format!("{what} `{name}` names its graph parameter differently"),
            )
            .with_label(
                base.span,
                format!("the program's graph is not visible in a {what}"),
            )
            .with_help(self.graph_hint())
        } else {
            let pass = if what == "kernel" {
                format!("`Invoke {name}({}, ...)`", base.name)
            } else {
                format!("`{name}({}, ...)`", base.name)
            };
            Diagnostic::error(
                "E0318",
                format!("{what} `{name}` uses the graph but has no `graph` parameter"),
            )
            .with_label(
                base.span,
                format!("the graph is not visible in this {what}"),
            )
            .with_label(span, format!("`{name}` is declared here"))
            .with_help(format!(
                "take it as a parameter, `{word} {name}(graph {}, ...)`, and pass it: {pass}",
                base.name
            ))
        };
        self.report(d);
    }

    fn prop_lookup(
        &mut self,
        base: &Ident,
        prop: &Ident,
    ) -> Option<(PropId, crate::info::PropInfo)> {
        let graph = self.cx.info.graph.as_ref()?;
        if let Some(id) = graph.prop_named(&prop.name) {
            if graph.props[id.index()].owner != irgl_syntax::ast::PropOwner::Array {
                return Some((id, graph.props[id.index()].clone()));
            }
            let d = Diagnostic::error(
                "E0105",
                format!("`{}` is an array, not a property of the graph", prop.name),
            )
            .with_label(prop.span, "an array")
            .with_help(format!("index it directly: `{}[i]`", prop.name));
            self.report(d);
            return None;
        }
        let names: Vec<&str> = graph
            .props
            .iter()
            .filter(|p| p.owner != irgl_syntax::ast::PropOwner::Array)
            .map(|p| p.name.as_str())
            .collect();
        let suggestion = similar(&prop.name, sorted(names)).map(str::to_string);
        let mut d = Diagnostic::error(
            "E0105",
            format!("the graph has no property `{}`", prop.name),
        )
        .with_label(prop.span, "unknown property");
        d = match suggestion {
            Some(s) => d.with_help(format!("did you mean `{}.{s}`?", base.name)),
            None => d.with_help(format!(
                "declare it in the graph: `node {}: u32;` or `edge {}: u32;`",
                prop.name, prop.name
            )),
        };
        self.report(d);
        None
    }

    /// `g.prop[i]`. `sync_ok`: a `lock`/`mark` property is expected here (Atomic, Exclusive).
    fn index(
        &mut self,
        e: &Expr,
        base: &Ident,
        prop: &Ident,
        index: &Expr,
        rw: Rw,
        sync_ok: bool,
    ) -> Ty {
        if !self.graph_base(base) {
            self.expr(index, None);
            return self.set(e, Ty::Error);
        }
        let Some((id, p)) = self.prop_lookup(base, prop) else {
            self.expr(index, None);
            return self.set(e, Ty::Error);
        };
        let (idx_ty, res, owner) = match p.owner {
            irgl_syntax::ast::PropOwner::Node => (Ty::Node, Resolution::NodeProperty(id), "node"),
            irgl_syntax::ast::PropOwner::Edge => (Ty::Edge, Resolution::EdgeProperty(id), "edge"),
            irgl_syntax::ast::PropOwner::Triangle => {
                (Ty::Triangle, Resolution::NodeProperty(id), "triangle")
            }
            irgl_syntax::ast::PropOwner::Vertex => {
                (Ty::Vertex, Resolution::NodeProperty(id), "vertex")
            }
            irgl_syntax::ast::PropOwner::Array => {
                unreachable!("prop_lookup does not find arrays")
            }
        };
        self.cx.resolve(e.id, res);
        let t = self.expr(index, Some(idx_ty));
        if t != Ty::Void && !idx_ty.compatible(t) {
            let mut d = Diagnostic::error(
                "E0206",
                format!(
                    "{owner} property `{}` is indexed by {} `{idx_ty}`, not {} `{t}`",
                    p.name,
                    crate::ty::article(idx_ty),
                    crate::ty::article(t)
                ),
            )
            .with_label(index.span, format!("this is `{t}`"))
            .with_label(p.span, format!("`{}` is declared on {owner}s here", p.name));
            d = match (idx_ty, t) {
                (Ty::Node, Ty::Edge) => d.with_help(format!(
                    "the node an edge `e` leads to is `{}.dst(e)`",
                    base.name
                )),
                (Ty::Edge, Ty::Node) => d.with_help(format!(
                    "to visit the edges of a node use `ForAll (e In {}.edges(n))`",
                    base.name
                )),
                (Ty::Edge, Ty::InEdge) => d.with_help(format!(
                    "an in-edge `k` is a position among the in-edges; the edge it is is `{}.edge_of(k)`",
                    base.name
                )),
                (Ty::Node, Ty::InEdge) => d.with_help(format!(
                    "the node an in-edge `k` comes from is `{}.src(k)`",
                    base.name
                )),
                _ => d.with_help(format!("convert the index: `(...) as {idx_ty}`")),
            };
            self.report(d);
        }
        if matches!(p.ty, Ty::Lock | Ty::Mark) {
            if !sync_ok {
                self.sync_prop_misuse(prop, &p);
                return self.set(e, Ty::Error);
            }
        } else {
            self.record_prop(id, rw);
        }
        self.set(e, p.ty)
    }

    fn sync_prop_misuse(&mut self, prop: &Ident, p: &crate::info::PropInfo) {
        let (construct, example) = if p.ty == Ty::Lock {
            (
                "the lock of `Atomic`",
                format!("Atomic (g.{}[n]) {{ ... }}", p.name),
            )
        } else {
            (
                "the object of `Exclusive`",
                format!("Exclusive (g.{}, [a, b]) {{ ... }}", p.name),
            )
        };
        let d = Diagnostic::error(
            "E0208",
            format!(
                "`{}` is a `{}` property: it can only be {construct}",
                p.name, p.ty
            ),
        )
        .with_label(prop.span, "cannot be read or written")
        .with_label(p.span, format!("declared as `{}` here", p.ty))
        .with_help(format!(
            "use it as `{example}`; to keep data per node, declare another property"
        ));
        self.report(d);
    }

    fn record_prop(&mut self, id: PropId, rw: Rw) {
        if rw != Rw::Write {
            self.access.props_read.insert(id);
        }
        if rw != Rw::Read {
            self.access.props_written.insert(id);
        }
    }

    fn record_global(&mut self, id: crate::info::GlobalId, rw: Rw) {
        if rw != Rw::Write {
            self.access.globals_read.insert(id);
        }
        if rw != Rw::Read {
            self.access.globals_written.insert(id);
        }
    }

    /// `g.nnodes`, `g.nedges`, or (with `mark_ok`) `g.mk` as the object of `Exclusive`.
    fn field(&mut self, e: &Expr, base: &Ident, field: &Ident, mark_ok: bool) -> Ty {
        if let Found::Local(i) = self.lookup(&base.name)
            && self.locals[i].ty == Ty::Point
        {
            return self.point_field(e, i, field);
        }
        if !self.graph_base(base) {
            return Ty::Error;
        }
        let g = &base.name;
        if self.is_mesh() {
            match field.name.as_str() {
                "ntriangles" => {
                    self.cx
                        .resolve(e.id, Resolution::GraphField(GraphField::NTriangles));
                    return Ty::U32;
                }
                "nvertices" => {
                    self.cx
                        .resolve(e.id, Resolution::GraphField(GraphField::NVertices));
                    return Ty::U32;
                }
                "triangles" => {
                    let d = Diagnostic::error("E0107", format!("`{g}.triangles` is not a value"))
                        .with_label(e.span, "can only be iterated")
                        .with_help(format!(
                            "write `ForAll (t In {g}.triangles)`, or use `{g}.ntriangles` for their number"
                        ));
                    self.report(d);
                    return Ty::Error;
                }
                "nnodes" | "nedges" | "nodes" => {
                    let d =
                        Diagnostic::error("E0107", format!("a mesh has no field `{}`", field.name))
                            .with_label(field.span, "a field of graphs")
                            .with_help("the mesh's fields are `ntriangles` and `nvertices`");
                    self.report(d);
                    return Ty::Error;
                }
                _ => {}
            }
        }
        match field.name.as_str() {
            _ if self.is_mesh() => {}
            "nnodes" => {
                self.cx
                    .resolve(e.id, Resolution::GraphField(GraphField::NNodes));
                return Ty::U32;
            }
            "nedges" => {
                self.cx
                    .resolve(e.id, Resolution::GraphField(GraphField::NEdges));
                // A count of arcs: as wide as an edge index.
                return Ty::Edge;
            }
            "nodes" => {
                let d = Diagnostic::error("E0107", format!("`{g}.nodes` is not a value"))
                    .with_label(e.span, "can only be iterated")
                    .with_help(format!(
                        "write `ForAll (n In {g}.nodes)`, or use `{g}.nnodes` for the number of nodes"
                    ));
                self.report(d);
                return Ty::Error;
            }
            _ => {}
        }
        let prop = self.cx.info.graph.as_ref().and_then(|gr| {
            gr.prop_named(&field.name)
                .map(|id| (id, gr.props[id.index()].clone()))
        });
        if let Some((id, p)) = prop {
            if p.ty == Ty::Mark && mark_ok {
                self.cx.resolve(e.id, Resolution::NodeProperty(id));
                return Ty::Mark;
            }
            if matches!(p.ty, Ty::Lock | Ty::Mark) {
                self.sync_prop_misuse(field, &p);
                return Ty::Error;
            }
            let d = Diagnostic::error(
                "E0215",
                format!("property `{}` is used without an index", p.name),
            )
            .with_label(e.span, format!("a whole {} property", p.owner.spelling()))
            .with_help(format!("read one element: `{g}.{}[i]`", p.name));
            self.report(d);
            return Ty::Error;
        }
        if self.is_mesh() {
            let d = Diagnostic::error("E0107", format!("the mesh has no field `{}`", field.name))
                .with_label(field.span, "unknown field");
            let d = match similar(&field.name, ["ntriangles", "nvertices"]) {
                Some(s) => d.with_help(format!("did you mean `{g}.{s}`?")),
                None => d.with_help("the mesh's fields are `ntriangles` and `nvertices`"),
            };
            self.report(d);
            return Ty::Error;
        }
        let mut d = Diagnostic::error("E0107", format!("the graph has no field `{}`", field.name))
            .with_label(field.span, "unknown field");
        d = match similar(&field.name, ["nedges", "nnodes"]) {
            Some(s) => d.with_help(format!("did you mean `{g}.{s}`?")),
            None => d.with_help("the graph's fields are `nnodes` and `nedges`"),
        };
        self.report(d);
        Ty::Error
    }

    fn method(&mut self, e: &Expr, base: &Ident, method: &Ident, args: &[Expr]) -> Ty {
        if self.is_mesh() {
            return self.mesh_method(e, base, method, args);
        }
        let sig = match method.name.as_str() {
            "dst" => Some((GraphMethod::Dst, Ty::Edge, Ty::Node)),
            "src" => Some((GraphMethod::Src, Ty::InEdge, Ty::Node)),
            "edge_of" => Some((GraphMethod::EdgeOf, Ty::InEdge, Ty::Edge)),
            "in_degree" => Some((GraphMethod::InDegree, Ty::Node, Ty::U32)),
            "in_edge_begin" => Some((GraphMethod::InEdgeBegin, Ty::Node, Ty::InEdge)),
            "in_edge_end" => Some((GraphMethod::InEdgeEnd, Ty::Node, Ty::InEdge)),
            "degree" => Some((GraphMethod::Degree, Ty::Node, Ty::U32)),
            "edge_begin" => Some((GraphMethod::EdgeBegin, Ty::Node, Ty::Edge)),
            "edge_end" => Some((GraphMethod::EdgeEnd, Ty::Node, Ty::Edge)),
            _ => None,
        };
        if !self.graph_base(base) {
            self.unchecked_args(args);
            return Ty::Error;
        }
        let g = &base.name;
        let Some((m, arg_ty, ret)) = sig else {
            self.unchecked_args(args);
            let is_prop = self
                .cx
                .info
                .graph
                .as_ref()
                .is_some_and(|gr| gr.prop_named(&method.name).is_some());
            let d = if method.name == "edges" {
                Diagnostic::error("E0107", format!("`{g}.edges(n)` is not a value"))
                    .with_label(e.span, "can only be iterated")
                    .with_help(format!(
                        "write `ForAll (e In {g}.edges(n))`, or use `{g}.edge_begin(n)` and `{g}.edge_end(n)`"
                    ))
            } else if is_prop {
                Diagnostic::error(
                    "E0107",
                    format!("`{}` is a property, not a method", method.name),
                )
                .with_label(method.span, "called like a method")
                .with_help(format!("index it with brackets: `{g}.{}[i]`", method.name))
            } else {
                let d = Diagnostic::error(
                    "E0107",
                    format!("the graph has no method `{}`", method.name),
                )
                .with_label(method.span, "unknown method");
                match similar(
                    &method.name,
                    [
                        "degree",
                        "dst",
                        "edge_begin",
                        "edge_end",
                        "src",
                        "edge_of",
                        "in_degree",
                        "in_edge_begin",
                        "in_edge_end",
                    ],
                ) {
                    Some(s) => d.with_help(format!("did you mean `{g}.{s}`?")),
                    None => d.with_help(
                        "the graph's methods are `dst(e)`, `degree(n)`, `edge_begin(n)`, `edge_end(n)`, \
                         and for in-edges `src(k)`, `edge_of(k)`, `in_degree(n)`, `in_edge_begin(n)`, \
                         `in_edge_end(n)`",
                    ),
                }
            };
            self.report(d);
            return Ty::Error;
        };
        self.cx.resolve(e.id, Resolution::GraphMethod(m));
        if m.incoming() && self.kernel_only(method.span, &format!("`{g}.{}`", method.name)) {
            self.needs_in_edges(method.span);
        }
        if args.len() != 1 {
            self.unchecked_args(args);
            self.arity_error(e.span, &format!("`{g}.{}`", method.name), 1, args.len());
            return ret;
        }
        self.coerce(&args[0], arg_ty, None);
        ret
    }

    /// In-edges need `graph g : in_edges` (E0116): the loader builds the transpose only then.
    fn needs_in_edges(&mut self, at: Span) {
        let Some(gr) = self.cx.info.graph.as_ref() else {
            return;
        };
        if gr.attrs.in_edges || gr.mesh || self.cx.in_edges_reported {
            return;
        }
        self.cx.in_edges_reported = true;
        let name = gr.name.clone();
        let d = Diagnostic::error(
            "E0116",
            "in-edges are read, but the graph does not declare them",
        )
        .with_label(at, "reads in-edges")
        .with_help(format!(
            "declare `graph {name} : in_edges {{ ... }}`: the program then builds the graph's \
                 transpose when it loads the graph (shared with the graph itself when it is also \
                 `symmetric` and no `edge_of` is used)"
        ));
        self.report(d);
    }

    // ------------------------------------------------------------ meshes, points, arrays

    /// The program's input is a mesh.
    fn is_mesh(&self) -> bool {
        self.cx.info.graph.as_ref().is_some_and(|g| g.mesh)
    }

    /// The type of worklist items: `triangle` in a mesh program, `node` otherwise.
    fn item_ty(&self) -> Ty {
        if self.is_mesh() {
            Ty::Triangle
        } else {
            Ty::Node
        }
    }

    fn wrong_iteration(&mut self, mesh: &Ident, what: &str) {
        let d = Diagnostic::error("E0006", format!("a mesh has no {what}"))
            .with_label(mesh.span, "the mesh")
            .with_help(format!(
                "iterate over its triangles: `ForAll (t In {}.triangles)`",
                mesh.name
            ));
        self.report(d);
    }

    /// `p.x`, `p.y` on a `point` local.
    fn point_field(&mut self, e: &Expr, local: usize, field: &Ident) -> Ty {
        let l = &mut self.locals[local];
        l.used = true;
        let (name, def) = (l.name.clone(), l.def);
        let y = match field.name.as_str() {
            "x" => false,
            "y" => true,
            other => {
                let d = Diagnostic::error("E0107", format!("a point has no field `{other}`"))
                    .with_label(field.span, "unknown field")
                    .with_help(format!(
                        "a point's coordinates are `{name}.x` and `{name}.y`"
                    ));
                self.report(d);
                return Ty::Error;
            }
        };
        self.cx.resolve(e.id, Resolution::PointCoord { def, y });
        Ty::F64
    }

    /// `m.vertex(t, i)`, `m.add_triangle(a, b, c)`, ...
    fn mesh_method(&mut self, e: &Expr, base: &Ident, method: &Ident, args: &[Expr]) -> Ty {
        if !self.graph_base(base) {
            self.unchecked_args(args);
            return Ty::Error;
        }
        const ALL: [MeshMethod; 8] = [
            MeshMethod::Vertex,
            MeshMethod::Neighbor,
            MeshMethod::Point,
            MeshMethod::Deleted,
            MeshMethod::AddVertex,
            MeshMethod::AddTriangle,
            MeshMethod::SetNeighbor,
            MeshMethod::Remove,
        ];
        let m = &base.name;
        let Some(mm) = ALL.iter().copied().find(|x| x.name() == method.name) else {
            self.unchecked_args(args);
            let d = Diagnostic::error("E0107", format!("the mesh has no method `{}`", method.name))
                .with_label(method.span, "unknown method");
            let d = match similar(&method.name, ALL.map(MeshMethod::name)) {
                Some(s) => d.with_help(format!("did you mean `{m}.{s}`?")),
                None => d.with_help(
                    "the mesh's methods are `vertex(t, i)`, `neighbor(t, i)`, `point(v)`, \
                     `deleted(t)`, `add_vertex(p)`, `add_triangle(a, b, c)`, \
                     `set_neighbor(t, i, n)` and `remove(t)`",
                ),
            };
            self.report(d);
            return Ty::Error;
        };
        self.cx.resolve(e.id, Resolution::MeshMethod(mm));
        let what = format!("`{m}.{}`", mm.name());
        if !self.kernel_only(e.span, &what) {
            self.unchecked_args(args);
            return Ty::Error;
        }
        if matches!(mm, MeshMethod::AddVertex | MeshMethod::AddTriangle)
            && !self.kernel_body_only(e.span, &what)
        {
            self.unchecked_args(args);
            return Ty::Error;
        }
        if matches!(mm, MeshMethod::AddVertex | MeshMethod::AddTriangle)
            && let Some(k) = self.kernel_mut()
        {
            k.grows_mesh = true;
        }
        let (params, ret) = mm.signature();
        if args.len() != params.len() {
            self.unchecked_args(args);
            self.arity_error(e.span, &what, params.len(), args.len());
            return ret;
        }
        for (a, &t) in args.iter().zip(params) {
            self.coerce(a, t, None);
        }
        ret
    }

    /// `orient(a, b, c)`, `point(x, y)`, ...: fixed parameter types.
    fn geometry_fn(&mut self, e: &Expr, name: &str, params: &[Ty], ret: Ty, args: &[Expr]) -> Ty {
        if self.mode == Mode::Const {
            self.unchecked_args(args);
            self.not_constant(e.span, &format!("`{name}`"));
            return Ty::Error;
        }
        if args.len() != params.len() {
            self.unchecked_args(args);
            self.arity_error(e.span, &format!("`{name}`"), params.len(), args.len());
            return ret;
        }
        for (a, &t) in args.iter().zip(params) {
            self.coerce(a, t, None);
        }
        ret
    }

    /// `a[i]`, read or assigned: the element type of the array local `a`.
    fn array_index(&mut self, e: &Expr, base: &Ident, index: &Expr, rw: Rw) -> Ty {
        let found = self.lookup(&base.name);
        let t = self.expr(index, Some(Ty::U32));
        let program_array = matches!(found, Found::Sym(Symbol::Array(_)));
        if t != Ty::Error && !t.is_integer() && !(program_array && t.is_u32_like()) {
            let d = Diagnostic::error(
                "E0206",
                format!("an array index must be an integer, not `{t}`"),
            )
            .with_label(index.span, format!("this is `{t}`"));
            self.report(d);
        }
        match found {
            Found::Local(i) if matches!(self.locals[i].kind, LocalKind::Array { .. }) => {
                let l = &mut self.locals[i];
                l.used = true;
                let (def, kind, ty) = (l.def, l.kind, l.ty);
                self.cx.resolve(e.id, Resolution::Local { def, kind });
                if let Some(k) = self.kernel_mut() {
                    k.indexes_arrays = true;
                }
                if let Some(f) = self.function_mut() {
                    f.indexes_arrays = true;
                }
                self.set(e, ty)
            }
            Found::Sym(Symbol::Array(p)) => {
                self.cx.resolve(e.id, Resolution::Array(p));
                self.record_prop(p, rw);
                let ty = self.cx.info.prop(p).map_or(Ty::Error, |p| p.ty);
                self.set(e, ty)
            }
            Found::None => {
                self.unknown_name(base);
                self.set(e, Ty::Error)
            }
            _ => {
                let d = Diagnostic::error(
                    "E0115",
                    format!("`{}` is not a local array", base.name),
                )
                .with_label(base.span, "indexed like an array")
                .with_help(format!(
                    "declare an array with `let {}: [u32; 16];`, or index a property: `g.prop[i]`",
                    base.name
                ));
                self.report(d);
                self.set(e, Ty::Error)
            }
        }
    }

    /// `let a: [T; len];`
    fn let_array(&mut self, s: &Stmt, name: &Ident, elem: &Type, len: &Expr) {
        let kw = keyword(s.span, "let");
        self.kernel_only(kw, "a local array");
        let mut ty = Ty::from(elem.kind);
        if !ty.is_value() {
            let d = Diagnostic::error("E0403", format!("an array cannot hold `{ty}`"))
                .with_label(elem.span, "not a value type")
                .with_help("arrays hold bool, integer, float, index and point values");
            self.report(d);
            ty = Ty::Error;
        }
        let lt = self.expr(len, Some(Ty::U32));
        let n = if lt == Ty::Error {
            None
        } else if !lt.is_integer() {
            let d = Diagnostic::error(
                "E0206",
                format!("the length of an array must be an integer, not `{lt}`"),
            )
            .with_label(len.span, format!("this is `{lt}`"));
            self.report(d);
            None
        } else {
            let consts: Vec<Option<crate::value::Value>> =
                self.cx.info.consts.iter().map(|c| c.value).collect();
            match eval(
                len,
                &self.cx.info.expr_types,
                &self.cx.info.resolutions,
                &consts,
            ) {
                Ok(v) => match v.as_i128() {
                    Some(n) if (1..=MAX_ARRAY_LEN as i128).contains(&n) => Some(n as u32),
                    _ => {
                        let d = Diagnostic::error(
                            "E0216",
                            format!("an array holds 1 to {MAX_ARRAY_LEN} elements"),
                        )
                        .with_label(len.span, "this length")
                        .with_help("arrays live in each thread's registers and local memory");
                        self.report(d);
                        None
                    }
                },
                Err(_) => {
                    let d = Diagnostic::error("E0216", "the length of an array must be a constant")
                        .with_label(len.span, "not a constant expression")
                        .with_help("use a literal or a `const`: `let cav: [triangle; MAX];`");
                    self.report(d);
                    None
                }
            }
        };
        let len = n.unwrap_or(1);
        self.cx.info.array_lens.insert(s.id, len);
        self.declare_local(name, s.id, LocalKind::Array { len }, ty, false);
    }

    /// The array of `Exclusive (marks, a[..n])`.
    fn exclusive_array(&mut self, array: &Expr, element_ty: Ty) {
        let ExprKind::Name(ident) = &array.kind else {
            return;
        };
        match self.lookup(&ident.name) {
            Found::Local(i) if matches!(self.locals[i].kind, LocalKind::Array { .. }) => {
                let l = &mut self.locals[i];
                l.used = true;
                let (def, kind, ty) = (l.def, l.kind, l.ty);
                self.cx.resolve(array.id, Resolution::Local { def, kind });
                self.set(array, ty);
                if !element_ty.compatible(ty) {
                    let d = Diagnostic::error(
                        "E0201",
                        format!(
                            "mismatched types: the marks are indexed by `{element_ty}`, the array holds `{ty}`"
                        ),
                    )
                    .with_label(array.span, format!("an array of `{ty}`"));
                    self.report(d);
                }
            }
            Found::None => self.unknown_name(ident),
            _ => {
                let d = Diagnostic::error(
                    "E0209",
                    format!("`{}` is not a local array", ident.name),
                )
                .with_label(array.span, "expected a local array")
                .with_help("write `Exclusive (m.mk, [a, b])`, or `Exclusive (m.mk, arr[..n])` over a local array");
                self.report(d);
            }
        }
    }

    fn arity_error(&mut self, span: Span, what: &str, expected: usize, found: usize) {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let d = Diagnostic::error(
            "E0207",
            format!(
                "{what} takes {expected} argument{}, but {found} {} given",
                plural(expected),
                if found == 1 { "was" } else { "were" }
            ),
        )
        .with_label(
            span,
            format!("expected {expected} argument{}", plural(expected)),
        );
        self.report(d);
    }

    // ------------------------------------------------------------ functions

    fn call_fn(&mut self, e: &Expr, func: &Ident, args: &[Expr], expected: Option<Ty>) -> Ty {
        let name = func.name.as_str();
        let builtin = match name {
            "min" => Some(Builtin::Min),
            "max" => Some(Builtin::Max),
            "abs" => Some(Builtin::Abs),
            "sqrt" => Some(Builtin::Sqrt),
            "fabs" => Some(Builtin::Fabs),
            "orient" => Some(Builtin::Orient),
            "incircle" => Some(Builtin::Incircle),
            "midpoint" => Some(Builtin::Midpoint),
            "split_point" => Some(Builtin::SplitPoint),
            "circumcenter" => Some(Builtin::Circumcenter),
            "min_angle" => Some(Builtin::MinAngle),
            "point" => Some(Builtin::MakePoint),
            "popc" => Some(Builtin::Popc),
            "ffs" => Some(Builtin::Ffs),
            "clz" => Some(Builtin::Clz),
            _ => None,
        };
        if let Some(b) = builtin {
            self.cx.resolve(e.id, Resolution::Builtin(b));
            if let Some((params, ret)) = b.geometry_signature() {
                return self.geometry_fn(e, name, params, ret, args);
            }
            return self.builtin(e, b, name, args, expected);
        }
        let atomic = match name {
            "atomicAdd" => Some(AtomicOp::Add),
            "atomicSub" => Some(AtomicOp::Sub),
            "atomicMin" => Some(AtomicOp::Min),
            "atomicMax" => Some(AtomicOp::Max),
            "atomicExch" => Some(AtomicOp::Exch),
            "atomicCAS" => Some(AtomicOp::Cas),
            "atomicOr" => Some(AtomicOp::Or),
            "atomicAnd" => Some(AtomicOp::And),
            "atomicXor" => Some(AtomicOp::Xor),
            _ => None,
        };
        if let Some(op) = atomic {
            self.cx.resolve(e.id, Resolution::Atomic(op));
            return self.atomic_fn(e, op, func, args);
        }
        if let Some(Symbol::Function(f)) = self.cx.symbol(name) {
            return self.user_call(e, f, func, args);
        }
        self.unchecked_args(args);
        let d = if let Some(Symbol::Kernel(_)) = self.cx.symbol(name) {
            Diagnostic::error(
                "E0108",
                format!("kernel `{name}` cannot be called like a function"),
            )
            .with_label(func.span, "a kernel")
            .with_help(format!("launch it from `main`: `Invoke {name}(...);`"))
        } else {
            let d = Diagnostic::error("E0108", format!("unknown function `{name}`"))
                .with_label(func.span, "not a built-in function");
            let known = [
                "abs",
                "atomicAdd",
                "atomicAnd",
                "atomicCAS",
                "atomicExch",
                "atomicMax",
                "atomicMin",
                "atomicOr",
                "atomicSub",
                "atomicXor",
                "circumcenter",
                "clz",
                "fabs",
                "ffs",
                "incircle",
                "max",
                "midpoint",
                "min",
                "min_angle",
                "orient",
                "point",
                "popc",
                "split_point",
                "sqrt",
            ];
            match similar(name, known) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(
                    "the functions are `min`, `max`, `abs`, `sqrt`, `fabs`, the bit functions \
                     `popc`, `ffs`, `clz`, the atomic functions (`atomicAdd`, `atomicMin`, ...) \
                     and the point functions \
                     (`point`, `orient`, `incircle`, `midpoint`, `split_point`, `circumcenter`, \
                     `min_angle`)",
                ),
            }
        };
        self.report(d);
        Ty::Error
    }

    fn builtin(
        &mut self,
        e: &Expr,
        b: Builtin,
        name: &str,
        args: &[Expr],
        expected: Option<Ty>,
    ) -> Ty {
        let arity = if matches!(b, Builtin::Min | Builtin::Max) {
            2
        } else {
            1
        };
        if args.len() != arity {
            self.unchecked_args(args);
            self.arity_error(e.span, &format!("`{name}`"), arity, args.len());
            return Ty::Error;
        }
        let bad = |t: Ty| -> Option<&'static str> {
            if t == Ty::Error {
                return None;
            }
            match b {
                _ if b.is_bit_count() && !matches!(t, Ty::U32 | Ty::U64) => {
                    Some("an unsigned integer (`u32` or `u64`)")
                }
                Builtin::Min | Builtin::Max if !t.is_numeric() => Some("numbers"),
                Builtin::Abs if !(t.is_signed() || t.is_float()) => {
                    Some("a signed integer or a float")
                }
                Builtin::Sqrt | Builtin::Fabs if !t.is_float() => Some("a float"),
                _ => None,
            }
        };
        let arg_expected = match b {
            Builtin::Sqrt | Builtin::Fabs => expected.filter(|t| t.is_float()),
            // The result is `u32` whatever the argument: a literal argument is a `u32` too.
            _ if b.is_bit_count() => Some(Ty::U32).filter(|_| lit_kind(&args[0]).is_some()),
            _ => expected.filter(|t| t.is_numeric()),
        };
        let (first, second) = match args {
            [a, c] if lit_kind(a).is_some() && lit_kind(c).is_none() => (c, Some(a)),
            [a, c] => (a, Some(c)),
            [a] => (a, None),
            _ => return Ty::Error,
        };
        let t1 = self.expr(first, arg_expected);
        if let Some(wanted) = bad(t1) {
            if let Some(s) = second {
                self.expr(s, None);
            }
            let mut d =
                Diagnostic::error("E0204", format!("`{name}` takes {wanted}, found `{t1}`"))
                    .with_label(first.span, format!("this is `{t1}`"));
            if t1.is_integer() && matches!(b, Builtin::Abs) {
                d = d.with_help("an unsigned value is its own absolute value");
            } else if b.is_bit_count() && t1.is_integer() {
                d = d.with_help("convert it: `(...) as u32`, or `as u64`");
            } else if t1.is_numeric() {
                d = d.with_help("convert it: `(...) as f64`, or `as f32`");
            }
            self.report(d);
            return Ty::Error;
        }
        if b.is_bit_count() {
            return Ty::U32;
        }
        let Some(second) = second else { return t1 };
        let t2 = self.expr(second, Some(t1));
        if !t1.mixes(t2) {
            let d = Diagnostic::error(
                "E0201",
                format!(
                    "the arguments of `{name}` have different types, `{}` and `{}`",
                    self.cx.info.expr_ty(args[0].id),
                    self.cx.info.expr_ty(args[1].id)
                ),
            )
            .with_label(second.span, format!("this is `{t2}`"))
            .with_label(first.span, format!("this is `{t1}`"))
            .with_help(conversion_help(t2, t1).unwrap_or_else(|| "both need one type".to_string()));
            self.report(d);
            return Ty::Error;
        }
        t1.join(t2)
    }

    fn atomic_fn(&mut self, e: &Expr, op: AtomicOp, func: &Ident, args: &[Expr]) -> Ty {
        let name = op.name();
        if !self.kernel_only(func.span, &format!("`{name}`")) {
            self.unchecked_args(args);
            return Ty::Error;
        }
        if let Some(k) = self.kernel_mut() {
            k.uses_atomic_functions = true;
        }
        if let Some(f) = self.function_mut() {
            f.uses_atomic_functions = true;
        }
        let arity = if op == AtomicOp::Cas { 3 } else { 2 };
        if args.len() != arity {
            self.unchecked_args(args);
            self.arity_error(e.span, &format!("`{name}`"), arity, args.len());
            return Ty::Error;
        }
        let place = &args[0];
        if let ExprKind::Name(ident) = &place.kind
            && let Found::Sym(Symbol::Global(g)) = self.lookup(&ident.name)
            && self.cx.info.globals[g.index()].statistic
        {
            let unused = self.statement_call == Some(e.id);
            if !matches!(op, AtomicOp::Add | AtomicOp::Max | AtomicOp::Min) || !unused {
                let why = if unused {
                    format!("`{name}` on a statistic")
                } else {
                    "its old value is used".to_string()
                };
                let d = Diagnostic::error(
                    "E0336",
                    format!("the statistic `{}` cannot be updated so", ident.name),
                )
                .with_label(e.span, why)
                .with_help(
                    "kernels update a statistic only by `atomicAdd`, `atomicMax` or `atomicMin` \
                     in a statement of its own; `main` reads it",
                );
                self.report(d);
            }
        }
        let t = self.atomic_place(place, name);
        let ok = t == Ty::Error
            || match op {
                AtomicOp::Add | AtomicOp::Exch => t.is_numeric(),
                _ => t.is_integer(),
            };
        if !ok {
            let d = Diagnostic::error("E0211", format!("`{name}` cannot operate on `{t}`"))
                .with_label(place.span, format!("this is `{t}`"))
                .with_help(
                    "`atomicAdd` and `atomicExch` take integers and floats; the other atomic \
                     functions take integers only",
                );
            self.report(d);
            self.unchecked_args(&args[1..]);
            return Ty::Error;
        }
        for a in &args[1..] {
            if t == Ty::Error {
                self.expr(a, None);
            } else {
                self.coerce(a, t, None);
            }
        }
        t
    }

    /// The first argument of an atomic function: a property element or a global.
    fn atomic_place(&mut self, place: &Expr, name: &str) -> Ty {
        let not_place = |what: String| {
            Diagnostic::error(
                "E0210",
                format!("the first argument of `{name}` must be a property element or a global"),
            )
            .with_label(place.span, what)
            .with_help("atomic functions update shared memory: `g.prop[i]` or a global")
        };
        match &place.kind {
            ExprKind::Index { base, prop, index } => {
                self.index(place, base, prop, index, Rw::ReadWrite, false)
            }
            ExprKind::ArrayIndex { base, .. }
                if matches!(self.lookup(&base.name), Found::Sym(Symbol::Array(_))) =>
            {
                let ExprKind::ArrayIndex { base, index } = &place.kind else {
                    unreachable!()
                };
                self.array_index(place, base, index, Rw::ReadWrite)
            }
            ExprKind::Name(ident) => match self.lookup(&ident.name) {
                Found::Sym(Symbol::Global(g)) => {
                    self.cx.resolve(place.id, Resolution::Global(g));
                    self.record_global(g, Rw::ReadWrite);
                    let t = self.cx.info.globals[g.index()].ty;
                    self.set(place, t)
                }
                Found::Local(_) => {
                    self.expr(place, None);
                    let d = not_place(format!(
                        "`{}` is a local, private to one thread",
                        ident.name
                    ));
                    self.report(d);
                    Ty::Error
                }
                _ => {
                    let t = self.expr(place, None);
                    if t != Ty::Error {
                        let d = not_place("not a property element or a global".to_string());
                        self.report(d);
                    }
                    Ty::Error
                }
            },
            _ => {
                self.expr(place, None);
                let d = not_place("not a property element or a global".to_string());
                self.report(d);
                Ty::Error
            }
        }
    }

    // ------------------------------------------------------------ worklists and launches

    fn pop(&mut self, e: &Expr, x: &Expr) -> Ty {
        if !self.kernel_body_only(e.span, "`WL.pop`") {
            self.expr(x, None);
            return Ty::Error;
        }
        if let Some(k) = self.kernel_mut() {
            k.pops = true;
        }
        self.expr(x, None);
        let def = match self.cx.info.resolutions.get(&x.id) {
            Some(Resolution::Local { def, .. }) => Some(*def),
            _ => None,
        };
        let ok = def.is_some_and(|d| self.foralls.iter().any(|f| f.worklist && f.stmt == d));
        if !ok && self.cx.info.expr_ty(x.id) != Ty::Error {
            let wl_var = self
                .scopes
                .iter()
                .flatten()
                .map(|&i| &self.locals[i])
                .find(|l| l.worklist_index)
                .map(|l| (l.name.clone(), l.span));
            let mut d = Diagnostic::error(
                "E0304",
                "`WL.pop` takes the variable of the enclosing `ForAll (i In WL)`",
            )
            .with_label(x.span, "not the index of a worklist ForAll");
            d = match wl_var {
                Some((name, span)) => d
                    .with_label(span, format!("the worklist index is `{name}`"))
                    .with_help(format!("write `WL.pop({name})`")),
                None => d.with_help(
                    "iterate over the worklist with `ForAll (i In WL)` and pop with `WL.pop(i)`",
                ),
            };
            self.report(d);
        }
        self.item_ty()
    }

    fn push(&mut self, e: &Expr, x: &Expr, statement: bool) -> Ty {
        if !self.kernel_body_only(e.span, "`WL.push`") {
            self.expr(x, None);
            return self.set(e, Ty::Error);
        }
        if let Some(k) = self.kernel_mut() {
            k.pushes = true;
        }
        if !statement {
            let d = Diagnostic::error("E0305", "`WL.push` has no value")
                .with_label(e.span, "used inside an expression")
                .with_help("write `WL.push(x);` as a statement of its own");
            self.report(d);
        }
        let item = self.item_ty();
        self.coerce(x, item, None);
        self.set(e, Ty::Void)
    }

    /// A kernel launch from `main` (or a misplaced one, already reported by the caller).
    #[allow(clippy::too_many_arguments)]
    fn invocation(
        &mut self,
        call: &Call,
        site: NodeId,
        site_span: Span,
        kind: InvocationKind,
        reduction: Option<(Reduction, Span)>,
        cond: Option<irgl_syntax::ast::IterateCondKind>,
        initial: Option<&Initial>,
    ) {
        let name = &call.kernel.name;
        let kernel = match self.cx.symbol(name) {
            Some(Symbol::Kernel(k)) => Some(k),
            Some(s) => {
                let mut d = Diagnostic::error("E0106", format!("`{name}` is not a kernel"))
                    .with_label(call.kernel.span, format!("`{name}` is {}", s.describe()));
                if let Some(span) = self.cx.symbol_span(name) {
                    d = d.with_label(span, "declared here");
                }
                self.report(d);
                None
            }
            None if self.cx.recovered => None,
            None => {
                let kernels: Vec<&str> = self
                    .cx
                    .info
                    .kernels
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect();
                let suggestion = similar(name, sorted(kernels)).map(str::to_string);
                let d = Diagnostic::error("E0106", format!("unknown kernel `{name}`"))
                    .with_label(call.kernel.span, "no kernel has this name");
                let d = match suggestion {
                    Some(s) => d.with_help(format!("did you mean `{s}`?")),
                    None => d.with_help(format!("declare it: `Kernel {name}(graph g) {{ ... }}`")),
                };
                self.report(d);
                None
            }
        };
        match kernel {
            Some(k) => {
                self.cx.launched.insert(k);
                self.kernel_args(k, call);
            }
            None => {
                self.cx.unknown_launch = true;
                self.unchecked_args(&call.args);
            }
        }
        if self.mode != Mode::Main {
            return;
        }
        let worklist = if !self.pipes.is_empty() {
            WorklistContext::Pipe
        } else {
            match initial {
                Some(Initial::List { .. }) => WorklistContext::InitialList,
                Some(Initial::AllNodes { .. }) => WorklistContext::InitialAllNodes,
                None => WorklistContext::None,
            }
        };
        let initial_span = initial.map(|i| match i {
            Initial::List { span, .. } | Initial::AllNodes { span, .. } => *span,
        });
        self.cx.info.invocations.push(InvocationInfo {
            site,
            call: call.id,
            span: call.span,
            site_span,
            initial_span,
            reduction_span: reduction.map(|(_, s)| s),
            kind,
            kernel,
            pipe: self.pipes.last().map(|p| p.0),
            outer_pipe: self.pipes.first().map(|p| p.0),
            worklist,
            reduction: reduction.map(|(r, _)| r),
            iterate_cond: cond,
        });
    }

    fn kernel_args(&mut self, k: KernelId, call: &Call) {
        let info = &self.cx.info.kernels[k.index()];
        let (kname, kspan, params) = (info.name.clone(), info.span, info.params.clone());
        let decl = self.cx.kernel_decl(k);
        if call.args.len() != params.len() {
            self.unchecked_args(&call.args);
            let signature = decl
                .map(|d| {
                    d.params
                        .iter()
                        .map(|p| format!("{} {}", p.ty.kind, p.name.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let d = Diagnostic::error(
                "E0207",
                format!(
                    "kernel `{kname}` takes {} argument{}, but {} {} given",
                    params.len(),
                    plural(params.len()),
                    call.args.len(),
                    if call.args.len() == 1 { "was" } else { "were" }
                ),
            )
            .with_label(
                call.span,
                format!("expected {} argument{}", params.len(), plural(params.len())),
            )
            .with_label(kspan, format!("`{kname}({signature})` is declared here"));
            self.report(d);
            return;
        }
        // The graph passed in the wrong position: one diagnostic for the swap.
        let graph_param = params.iter().position(|t| *t == Ty::Graph);
        let graph_arg = call.args.iter().position(|a| self.is_graph_name(a));
        if let (Some(gp), Some(ga)) = (graph_param, graph_arg)
            && gp != ga
            && !self.is_graph_name(&call.args[gp])
        {
            let graph = self.cx.graph_name().unwrap_or("g").to_string();
            let pname = |i: usize| {
                decl.and_then(|d| d.params.get(i))
                    .map(|p| format!("`{} {}`", p.ty.kind, p.name.name))
                    .unwrap_or_default()
            };
            let d = Diagnostic::error(
                "E0214",
                format!(
                    "the graph is argument {} of `{kname}`, not argument {}",
                    gp + 1,
                    ga + 1
                ),
            )
            .with_label(
                call.args[ga].span,
                format!("the graph is passed to {}", pname(ga)),
            )
            .with_label(
                call.args[gp].span,
                format!("parameter {} expects `{graph}`", pname(gp)),
            )
            .with_help("pass the arguments in the order of the kernel's parameters");
            self.report(d);
            self.unchecked_args(&call.args);
            return;
        }
        for (i, (arg, ty)) in call.args.iter().zip(params).enumerate() {
            let param = decl.and_then(|d| d.params.get(i));
            let pname = param.map(|p| p.name.name.clone()).unwrap_or_default();
            let is_graph_name = matches!(&arg.kind, ExprKind::Name(n)
                if matches!(self.lookup(&n.name), Found::Sym(Symbol::Graph)));
            if ty == Ty::Graph {
                if is_graph_name {
                    self.graph_arg(arg);
                } else {
                    self.expr(arg, None);
                    let graph = self.cx.graph_name().unwrap_or("g").to_string();
                    let mut d = Diagnostic::error(
                        "E0214",
                        format!(
                            "parameter `{pname}` of `{kname}` is the graph, so it takes `{graph}`"
                        ),
                    )
                    .with_label(arg.span, format!("expected the graph `{graph}`"));
                    if let Some(p) = param {
                        d = d.with_label(p.span, "declared as the graph here");
                    }
                    self.report(d.with_help(format!("pass the graph: `{graph}`")));
                }
            } else if is_graph_name {
                self.graph_arg(arg);
                let mut d = Diagnostic::error(
                    "E0214",
                    format!(
                        "the graph is passed to parameter `{pname}` of `{kname}`, which is a `{ty}`"
                    ),
                )
                .with_label(arg.span, format!("expected a `{ty}`"));
                if let Some(p) = param {
                    d = d.with_label(p.span, format!("`{pname}` is declared here"));
                }
                self.report(d.with_help(
                    "the graph goes to the kernel's `graph` parameter; check the argument order",
                ));
            } else if ty == Ty::Error {
                self.expr(arg, None);
            } else {
                let origin = param.map(|p| {
                    (
                        p.span,
                        format!("parameter `{pname}` of `{kname}` is `{ty}`"),
                    )
                });
                self.coerce(arg, ty, origin);
            }
        }
    }

    // ------------------------------------------------------------ statements

    fn block(&mut self, b: &Block) {
        self.scopes.push(Vec::new());
        for s in &b.stmts {
            self.stmt(s);
        }
        self.pop_scope();
    }

    fn nested(&mut self, b: &Block) {
        self.depth += 1;
        self.block(b);
        self.depth -= 1;
    }

    /// The target of an assignment.
    fn place(&mut self, target: &Expr, op: AssignOp) -> Ty {
        let rw = if op == AssignOp::Set {
            Rw::Write
        } else {
            Rw::ReadWrite
        };
        match &target.kind {
            ExprKind::Index { base, prop, index } => {
                self.index(target, base, prop, index, rw, false)
            }
            ExprKind::ArrayIndex { base, index } => self.array_index(target, base, index, rw),
            ExprKind::Name(ident) => {
                let (res, ty, read_only) = match self.lookup(&ident.name) {
                    Found::Local(i) => {
                        let l = &mut self.locals[i];
                        if rw == Rw::ReadWrite {
                            l.used = true;
                        }
                        let ro = match l.kind {
                            LocalKind::Let if l.forall_depth < self.foralls.len() => Some((
                                "a local of an enclosing scope, from inside a ForAll:",
                                l.span,
                            )),
                            LocalKind::Let => None,
                            LocalKind::ForAllVar => Some(("the ForAll variable", l.span)),
                            LocalKind::KernelParam => Some(("the kernel parameter", l.span)),
                            LocalKind::Array { .. } => Some(("the local array", l.span)),
                        };
                        let r = Resolution::Local {
                            def: l.def,
                            kind: l.kind,
                        };
                        let ty = if l.ty == Ty::Graph { Ty::Error } else { l.ty };
                        (Some(r), ty, ro)
                    }
                    Found::Sym(Symbol::Global(g)) => {
                        self.record_global(g, rw);
                        self.statistic_in_kernel(g, ident.span, "assigned");
                        (
                            Some(Resolution::Global(g)),
                            self.cx.info.globals[g.index()].ty,
                            None,
                        )
                    }
                    Found::Sym(Symbol::Const(c)) => {
                        let info = &self.cx.info.consts[c.index()];
                        (
                            Some(Resolution::Const(c)),
                            info.ty,
                            Some(("the const", info.span)),
                        )
                    }
                    Found::Sym(Symbol::Param(p)) => {
                        let info = &self.cx.info.params[p.index()];
                        (
                            Some(Resolution::Param(p)),
                            info.ty,
                            Some(("the param", info.span)),
                        )
                    }
                    _ => {
                        let t = self.expr(target, None);
                        if t != Ty::Error {
                            self.not_a_place(target);
                        }
                        return Ty::Error;
                    }
                };
                if let Some(r) = res {
                    self.cx.resolve(target.id, r);
                }
                self.set(target, ty);
                if let Some((what, decl)) = read_only {
                    let help = match what {
                        "a local of an enclosing scope, from inside a ForAll:" => {
                            if let Found::Local(i) = self.lookup(&ident.name)
                                && self.foralls.iter().any(|f| f.rejected.contains(&i))
                            {
                                // Its Reduce clause was rejected (E0321).
                                return Ty::Error;
                            }
                            let d = Diagnostic::error(
                                "E0320",
                                format!(
                                    "cannot assign to `{}` inside this ForAll: it is declared outside it",
                                    ident.name
                                ),
                            )
                            .with_label(target.span, "assigned here")
                            .with_label(decl, format!("`{}` is declared here", ident.name))
                            .with_help(
                                "the iterations of a ForAll may run on different threads, so they \
                                 cannot share a local; to combine them into it, reduce it (a \
                                 nested `ForAll (...) Reduce (sum: t) { t += e; }`, or `min`, \
                                 `max`, `any`, `all`); else use a property element or a global \
                                 (with an atomic), or declare the local inside the ForAll",
                            );
                            self.report(d);
                            return Ty::Error;
                        }
                        "the kernel parameter" => format!(
                            "kernel parameters are read-only; copy it into a local: `let {0}_ = {0};`",
                            ident.name
                        ),
                        "the ForAll variable" => {
                            "a ForAll variable is read-only; copy it into a local".to_string()
                        }
                        "the local array" => format!(
                            "assign its elements one at a time: `{}[i] = x;`",
                            ident.name
                        ),
                        _ => "consts and params are read-only; use a local or a global".to_string(),
                    };
                    let d = Diagnostic::error(
                        "E0213",
                        format!("cannot assign to {what} `{}`", ident.name),
                    )
                    .with_label(target.span, "assigned here")
                    .with_label(decl, format!("`{}` is declared here", ident.name))
                    .with_help(help);
                    self.report(d);
                    return Ty::Error;
                }
                ty
            }
            _ => {
                let t = self.expr(target, None);
                if t != Ty::Error {
                    self.not_a_place(target);
                }
                Ty::Error
            }
        }
    }

    fn not_a_place(&mut self, target: &Expr) {
        let d = Diagnostic::error("E0212", "cannot assign to this expression")
            .with_label(target.span, "not a place")
            .with_help("assign to a local, a property element `g.prop[i]` or a global");
        self.report(d);
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { name, ty, init } => {
                let declared = ty.as_ref().map(|t| (Ty::from(t.kind), t.span));
                let t = match declared {
                    Some((t, span)) if !t.is_value() => {
                        let d =
                            Diagnostic::error("E0403", format!("a local cannot have type `{t}`"))
                                .with_label(span, "not a value type")
                                .with_help(
                                    "locals hold bool, integer, float, index (node, edge, \
                                     triangle, vertex) and point values",
                                );
                        self.report(d);
                        self.expr(init, None);
                        Ty::Error
                    }
                    Some((t, span)) => {
                        self.coerce(
                            init,
                            t,
                            Some((span, format!("`{}` is declared `{t}` here", name.name))),
                        );
                        t
                    }
                    None => match self.expr(init, None) {
                        Ty::Void => Ty::Error,
                        t => t,
                    },
                };
                self.declare_local(name, s.id, LocalKind::Let, t, false);
            }
            StmtKind::LetArray { name, elem, len } => self.let_array(s, name, elem, len),
            StmtKind::Assign { target, op, value } => {
                if let ExprKind::Name(ident) = &target.kind
                    && let Found::Local(i) = self.lookup(&ident.name)
                    && let Some(combiner) = self.reduced_by_innermost(i)
                {
                    self.combine(s, target, i, combiner, *op, value);
                    return;
                }
                let t = self.place(target, *op);
                match op.binary() {
                    None => {
                        if t == Ty::Error {
                            self.expr(value, None);
                        } else {
                            self.coerce(value, t, None);
                        }
                    }
                    Some(bop @ (BinaryOp::Shl | BinaryOp::Shr)) => {
                        let r = self.expr(value, Some(t).filter(|t| t.is_integer()));
                        if !op_allows(bop, t) {
                            self.op_error(bop, target, t);
                        } else if !op_allows(bop, r) {
                            self.op_error(bop, value, r);
                        }
                    }
                    Some(bop) => {
                        if !op_allows(bop, t) {
                            self.op_error(bop, target, t);
                            self.expr(value, None);
                        } else {
                            self.coerce(value, t, None);
                        }
                    }
                }
            }
            StmtKind::Expr(e) => match &e.kind {
                ExprKind::Push(x) => {
                    self.push(e, x, true);
                }
                _ => {
                    self.statement_call = Some(e.id);
                    self.expr(e, None);
                    self.statement_call = None;
                }
            },
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.cond(cond, "`if`");
                self.nested(then_block);
                if let Some(b) = else_block {
                    self.nested(b);
                }
            }
            StmtKind::While { cond, body } => {
                self.lazy_expr("the condition of `while`", |b| {
                    b.cond(cond, "`while`");
                    Ty::Bool
                });
                self.frames.push(Frame::Loop);
                self.nested(body);
                self.frames.pop();
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push(Vec::new());
                self.depth += 1;
                if let Some(i) = init {
                    self.stmt(i);
                }
                if let Some(c) = cond {
                    self.lazy_expr("the condition of `for`", |b| {
                        b.cond(c, "`for`");
                        Ty::Bool
                    });
                }
                if let Some(st) = step {
                    self.stmt(st);
                }
                self.frames.push(Frame::Loop);
                self.block(body);
                self.frames.pop();
                self.depth -= 1;
                self.pop_scope();
            }
            StmtKind::Break | StmtKind::Continue => self.jump(s),
            StmtKind::Return(value) => self.return_stmt(s, value.as_ref()),
            StmtKind::Block(b) => self.nested(b),
            StmtKind::ForAll {
                var,
                iter,
                reduce,
                body,
            } => self.forall(s, var, iter, reduce, body),
            StmtKind::ReduceAndReturn(e) => {
                let kw = keyword(s.span, "ReduceAndReturn");
                if self.kernel_body_only(kw, "`ReduceAndReturn`")
                    && let Some(k) = self.kernel_mut()
                {
                    k.reduce_sites.push(ReduceSite {
                        stmt: s.id,
                        span: kw,
                    });
                }
                self.cond(e, "`ReduceAndReturn`");
            }
            StmtKind::Atomic {
                lock,
                body,
                otherwise,
            } => {
                let kw = keyword(s.span, "Atomic");
                if self.kernel_body_only(kw, "`Atomic`") {
                    self.not_in_locked(kw, "`Atomic`");
                    if let Some(k) = self.kernel_mut() {
                        k.uses_atomic = true;
                    }
                }
                let t = match &lock.kind {
                    ExprKind::Index { base, prop, index } => {
                        self.index(lock, base, prop, index, Rw::Read, true)
                    }
                    _ => self.expr(lock, None),
                };
                if t == Ty::Lock {
                    if let Some(Resolution::NodeProperty(p)) = self.cx.info.resolution(lock.id)
                        && let Some(k) = self.kernel_mut()
                    {
                        k.sync_props.insert(p);
                    }
                } else if t != Ty::Error {
                    let d = Diagnostic::error(
                        "E0209",
                        "the lock of `Atomic` must be an element of a `lock` property",
                    )
                    .with_label(lock.span, format!("this is `{t}`"))
                    .with_help("declare `node lk: lock;` in the graph and write `Atomic (g.lk[n]) { ... }`");
                    self.report(d);
                }
                let saved = self.locked.replace((kw, "Atomic"));
                self.frames.push(Frame::Locked(kw, "Atomic"));
                self.nested(body);
                self.frames.pop();
                self.locked = saved;
                if let Some(b) = otherwise {
                    self.nested(b);
                }
            }
            StmtKind::Exclusive {
                object,
                elements,
                upto,
                body,
                otherwise,
            } => {
                let kw = keyword(s.span, "Exclusive");
                if self.kernel_body_only(kw, "`Exclusive`") {
                    self.not_in_locked(kw, "`Exclusive`");
                    if let Some(k) = self.kernel_mut() {
                        k.uses_exclusive = true;
                    }
                }
                let t = match &object.kind {
                    ExprKind::Field { base, field } => {
                        let t = self.field(object, base, field, true);
                        self.set(object, t)
                    }
                    ExprKind::Index { base, prop, index } => {
                        let t = self.index(object, base, prop, index, Rw::Read, true);
                        if t == Ty::Mark {
                            let d = Diagnostic::error(
                                "E0209",
                                "the object of `Exclusive` is a whole `mark` property",
                            )
                            .with_label(object.span, "one element of it")
                            .with_help(format!(
                                "name the property and list the elements: `Exclusive ({}.{}, [a, b])`",
                                base.name, prop.name
                            ));
                            self.report(d);
                        }
                        if t == Ty::Mark { Ty::Error } else { t }
                    }
                    _ => self.expr(object, None),
                };
                if t == Ty::Mark {
                    if let Some(Resolution::NodeProperty(p)) = self.cx.info.resolution(object.id)
                        && let Some(k) = self.kernel_mut()
                    {
                        k.sync_props.insert(p);
                    }
                } else if t != Ty::Error {
                    let d = Diagnostic::error(
                        "E0209",
                        "the object of `Exclusive` must be a `mark` property",
                    )
                    .with_label(object.span, format!("this is `{t}`"))
                    .with_help("declare `node mk: mark;` in the graph and write `Exclusive (g.mk, [a, b]) { ... }`");
                    self.report(d);
                }
                let element_ty = match self.cx.info.resolution(object.id) {
                    Some(Resolution::NodeProperty(p)) => self
                        .cx
                        .info
                        .prop(p)
                        .map(|p| Ty::index_of(p.owner))
                        .unwrap_or(Ty::Node),
                    _ => Ty::Node,
                };
                match upto {
                    None => {
                        for el in elements {
                            self.coerce(el, element_ty, None);
                        }
                    }
                    Some(n) => {
                        if let [array] = elements.as_slice() {
                            self.exclusive_array(array, element_ty);
                        }
                        self.coerce(n, Ty::U32, None);
                    }
                }
                let saved = self.locked.replace((kw, "Exclusive"));
                self.frames.push(Frame::Locked(kw, "Exclusive"));
                self.nested(body);
                self.frames.pop();
                self.locked = saved;
                if let Some(b) = otherwise {
                    self.nested(b);
                }
            }
            StmtKind::SyncRunningThreads => {
                let kw = keyword(s.span, "SyncRunningThreads");
                if self.kernel_body_only(kw, "`SyncRunningThreads`") {
                    if let Some(k) = self.kernel_mut() {
                        k.sync_running_threads = true;
                    }
                    if !self.not_in_locked(kw, "`SyncRunningThreads`") {
                    } else if self.depth > 0 {
                        let d = Diagnostic::error(
                            "E0309",
                            "`SyncRunningThreads` must be a top-level statement of its kernel",
                        )
                        .with_label(kw, "nested inside another statement")
                        .with_help(
                            "a grid-wide barrier must be reached by every thread; move it out of \
                             `ForAll`, `if`, loops and blocks",
                        );
                        self.report(d);
                    }
                }
            }
            StmtKind::Retry { kind, item } => {
                let word = match kind {
                    RetryKind::Retry => "Retry",
                    RetryKind::Respawn => "Respawn",
                };
                let kw = keyword(s.span, word);
                if self.kernel_body_only(kw, &format!("`{word}`")) {
                    let in_wl = self.foralls.first().is_some_and(|f| f.worklist);
                    if in_wl {
                        if let Some(k) = self.kernel_mut() {
                            k.retry_sites.push(RetrySite {
                                stmt: s.id,
                                kind: *kind,
                                span: kw,
                            });
                        }
                    } else {
                        let d = Diagnostic::error(
                            "E0311",
                            format!("`{word}` can only be used inside `ForAll (i In WL)`"),
                        )
                        .with_label(kw, "not inside a worklist ForAll")
                        .with_help(format!(
                            "`{word}` puts an item back on the kernel's worklist, so the kernel \
                             must iterate over one: `ForAll (i In WL) {{ let n = WL.pop(i); ... }}`"
                        ));
                        self.report(d);
                    }
                }
                let t = self.item_ty();
                self.coerce(item, t, None);
            }
            StmtKind::Invoke(call) => {
                let kw = keyword(s.span, "Invoke");
                if self.host_only(kw, "`Invoke`") {
                    self.invocation(call, s.id, s.span, InvocationKind::Invoke, None, None, None);
                } else {
                    self.misplaced_launch(call);
                }
            }
            StmtKind::Iterate {
                cond,
                call,
                initial,
                step,
            } => {
                let kw = keyword(s.span, "Iterate");
                if let Some(c) = cond.as_ref().filter(|c| c.unordered) {
                    self.unordered(c, initial.is_some(), step.is_some());
                }
                if self.host_only(kw, "`Iterate`") {
                    if let Some(init) = initial {
                        self.initial(init);
                    }
                    self.invocation(
                        call,
                        s.id,
                        s.span,
                        InvocationKind::Iterate,
                        cond.as_ref().map(|c| (c.reduction, c.span)),
                        cond.as_ref().map(|c| c.kind),
                        initial.as_ref(),
                    );
                } else {
                    self.misplaced_launch(call);
                }
                if let Some(b) = step {
                    self.nested(b);
                }
            }
            StmtKind::Pipe { once, body } => {
                let kw = keyword(s.span, "Pipe");
                let _ = once;
                if self.host_only(kw, "`Pipe`") {
                    self.pipes.push((s.id, kw));
                    self.nested(body);
                    self.pipes.pop();
                } else {
                    self.nested(body);
                }
            }
            StmtKind::Error => {}
        }
    }

    /// Reports `what` inside the locked body of an `Atomic` or an `Exclusive`; `true` if not
    /// inside one. A thread holding a lock or marks must not wait for other threads (a
    /// barrier, another lock: they may be waiting for it) nor take more (a second
    /// `Exclusive` on elements it holds fails for ever: under `Retry`, a livelock).
    fn not_in_locked(&mut self, kw: Span, what: &str) -> bool {
        let Some((outer, construct)) = self.locked else {
            return true;
        };
        let d = Diagnostic::error(
            "E0310",
            format!("{what} cannot be used inside the locked body of `{construct}`"),
        )
        .with_label(kw, "inside a locked body")
        .with_label(
            outer,
            if construct == "Atomic" {
                "the lock is held from here"
            } else {
                "the marks are held from here"
            },
        )
        .with_help(
            "a locked body may not contain `ForAll`, `Atomic`, `Exclusive` or \
             `SyncRunningThreads`: nested locks and barriers can deadlock, and a nested \
             `Exclusive` can fail for ever; take every element in one `Exclusive`",
        );
        self.report(d);
        false
    }

    /// E0335: `Unordered` on an `Iterate` that is not `While Any` over a kernel without a
    /// worklist (no `Initial`, not in a `Pipe`) and without a step: only there may its rounds
    /// overlap (every round sweeps the same items, and the loop ends when none reports).
    fn unordered(&mut self, c: &irgl_syntax::ast::IterateCond, initial: bool, step: bool) {
        use irgl_syntax::ast::IterateCondKind;
        let why = if c.kind != IterateCondKind::While || c.reduction != Reduction::Any {
            Some("it needs `While Any`: the loop ends when no item of a round reports")
        } else if initial || !self.pipes.is_empty() {
            Some("its kernel pops a worklist, whose rounds are the frontiers")
        } else if step {
            Some("it has a step, which runs between rounds")
        } else {
            None
        };
        if let Some(why) = why {
            let d = Diagnostic::error(
                "E0335",
                "`Unordered` applies only to `Iterate Unordered While Any k(...);`",
            )
            .with_label(c.span, why)
            .with_help(
                "remove `Unordered`, or write the loop as `Iterate Unordered While Any k(...);` \
                 over a kernel of a topology-driven `ForAll` (docs/language.md, `Iterate`)",
            );
            self.report(d);
        }
    }

    fn initial(&mut self, init: &Initial) {
        let span = match init {
            Initial::List { span, .. } | Initial::AllNodes { span, .. } => *span,
        };
        if let Some(&(_, pipe)) = self.pipes.last() {
            let d = Diagnostic::error(
                "E0314",
                "an `Iterate` inside a `Pipe` cannot have `Initial`",
            )
            .with_label(span, "a second worklist")
            .with_label(pipe, "this `Pipe` provides the worklist")
            .with_help(
                "remove `Initial ...`: inside a Pipe, seed the worklist with a kernel that pushes",
            );
            self.report(d);
        }
        match init {
            Initial::List { items, .. } => {
                if self.is_mesh() {
                    let d = Diagnostic::error(
                        "E0008",
                        "a mesh program cannot seed a worklist with `Initial [..]`",
                    )
                    .with_label(span, "an initial list of triangles")
                    .with_help(
                        "seed the worklist inside a `Pipe` with a kernel that pushes triangles",
                    );
                    self.report(d);
                }
                for it in items {
                    self.coerce(it, Ty::Node, None);
                }
            }
            Initial::AllNodes { graph, .. } => {
                if self.graph_base(graph) && self.is_mesh() {
                    let d = Diagnostic::error("E0008", "a mesh has no nodes to seed a worklist")
                        .with_label(graph.span.to(span), "`Initial ...nodes`")
                        .with_help(
                            "seed the worklist inside a `Pipe` with a kernel that pushes triangles",
                        );
                    self.report(d);
                }
            }
        }
    }

    /// A call of a function the program declares.
    fn user_call(&mut self, e: &Expr, f: FuncId, func: &Ident, args: &[Expr]) -> Ty {
        self.cx.resolve(e.id, Resolution::Function(f));
        self.cx.called.insert(f);
        let info = &self.cx.info.functions[f.index()];
        let (params, graph_param, ret) = (info.params.clone(), info.graph_param, info.ret);
        let name = func.name.clone();
        let what = format!("function `{name}`");
        if self.mode == Mode::Const {
            self.unchecked_args(args);
            self.not_constant(e.span, &format!("a call of {what}"));
            return Ty::Error;
        }
        if !self.kernel_only(func.span, &format!("a call of {what}")) {
            self.unchecked_args(args);
            return Ty::Error;
        }
        if let Some(place) = self.lazy {
            let d = Diagnostic::error("E0333", format!("{what} cannot be called in {place}"))
                .with_label(func.span, format!("called in {place}"))
                .with_help(
                    "a function is inlined before the statement that calls it; call it in a \
                     statement of its own, `let r = f(...);`, and use `r` here",
                );
            self.report(d);
        }
        if ret == Ty::Void && self.statement_call != Some(e.id) {
            let d = Diagnostic::error("E0330", format!("{what} returns no value"))
                .with_label(e.span, "used as a value")
                .with_help(format!(
                    "call it as a statement, `{name}(...);`, or give it a return type"
                ));
            self.report(d);
        }
        match self.mode {
            Mode::Kernel(k) => self.cx.info.kernels[k.index()].calls.push((f, func.span)),
            Mode::Function(g) => self.cx.info.functions[g.index()].calls.push((f, func.span)),
            _ => {}
        }
        if args.len() != params.len() {
            self.unchecked_args(args);
            self.arity_error(e.span, &format!("`{name}`"), params.len(), args.len());
            return ret;
        }
        for (i, (a, &t)) in args.iter().zip(&params).enumerate() {
            if Some(i) == graph_param {
                match &a.kind {
                    ExprKind::Name(n) => {
                        if self.graph_base(n) {
                            self.cx.resolve(a.id, Resolution::Graph);
                        }
                    }
                    _ => {
                        self.expr(a, None);
                        let d = Diagnostic::error(
                            "E0114",
                            format!("argument {} of `{name}` must be the graph", i + 1),
                        )
                        .with_label(a.span, "not the graph")
                        .with_help(self.graph_hint());
                        self.report(d);
                    }
                }
            } else if t != Ty::Error {
                self.coerce(a, t, None);
            } else {
                self.expr(a, None);
            }
        }
        ret
    }

    /// `return e;` or `return;`.
    fn return_stmt(&mut self, s: &Stmt, value: Option<&Expr>) {
        let kw = keyword(s.span, "return");
        let Mode::Function(f) = self.mode else {
            if let Some(v) = value {
                self.expr(v, None);
            }
            let d = Diagnostic::error("E0330", "`return` outside of a function")
                .with_label(kw, "not inside a `Function`")
                .with_help(
                    "a kernel's thread ends with the end of its ForAll's body; use `continue` \
                     to end an iteration early",
                );
            self.report(d);
            return;
        };
        if let Some((at, construct)) = self.locked {
            let d = Diagnostic::error(
                "E0308",
                format!("`return` cannot leave the body of `{construct}`"),
            )
            .with_label(kw, format!("would leave the body of `{construct}`"))
            .with_label(at, "the body starts here");
            self.report(d);
        }
        let info = &self.cx.info.functions[f.index()];
        let (ret, name, decl) = (info.ret, info.name.clone(), info.span);
        match (value, ret) {
            (Some(v), Ty::Void) => {
                self.expr(v, None);
                let d = Diagnostic::error(
                    "E0330",
                    format!("function `{name}` returns no value"),
                )
                .with_label(v.span, "a value returned")
                .with_label(decl, "declared without a return type")
                .with_help(format!(
                    "declare the type after the parameters, `Function {name}(...): T`, or write `return;`"
                ));
                self.report(d);
            }
            (Some(v), t) => {
                if t != Ty::Error {
                    self.coerce(v, t, Some((decl, format!("`{name}` returns `{t}`"))));
                } else {
                    self.expr(v, None);
                }
            }
            (None, Ty::Void | Ty::Error) => {}
            (None, t) => {
                let d =
                    Diagnostic::error("E0330", format!("function `{name}` must return a `{t}`"))
                        .with_label(kw, "returns no value")
                        .with_help(format!("write `return e;` with `e` of type `{t}`"));
                self.report(d);
            }
        }
    }

    fn jump(&mut self, s: &Stmt) {
        let word = if matches!(s.kind, StmtKind::Break) {
            "break"
        } else {
            "continue"
        };
        let kw = keyword(s.span, word);
        let d = match self.frames.last().copied() {
            Some(Frame::Loop) => return,
            Some(Frame::ForAll(_)) if word == "continue" => return,
            Some(Frame::ForAll(forall)) => {
                Diagnostic::error("E0306", "`break` cannot leave a `ForAll`")
                    .with_label(kw, "would leave the ForAll")
                    .with_label(
                        forall,
                        "the iterations of this ForAll have no order to stop in",
                    )
                    .with_help("use `continue` to end this iteration early")
            }
            Some(Frame::Locked(at, construct)) => Diagnostic::error(
                "E0308",
                format!("`{word}` cannot leave the body of `{construct}`"),
            )
            .with_label(kw, format!("would leave the body of `{construct}`"))
            .with_label(at, "the body starts here")
            .with_help(format!(
                "the body of `{construct}` must run to its end so that its locks are released; \
                 use a flag and test it after the body"
            )),
            None => Diagnostic::error("E0307", format!("`{word}` outside of a loop"))
                .with_label(kw, "not inside `while`, `for` or `ForAll`")
                .with_help(format!(
                    "`{word}` works inside `while` and `for` loops{}",
                    if word == "continue" {
                        " and `ForAll`"
                    } else {
                        ""
                    }
                )),
        };
        self.report(d);
    }

    /// Checks a `ForAll`'s `Reduce (op: local, ...)` clause (E0321): each operator known,
    /// each local a `let` of an enclosing scope of the right type, reduced by every
    /// `ForAll` between its declaration and this one, named once; the `ForAll` nested.
    fn reduce_clauses(
        &mut self,
        kw: Span,
        clauses: &[ReduceClause],
    ) -> (Vec<(usize, Combiner)>, Vec<usize>) {
        let mut out: Vec<(usize, Combiner)> = Vec::new();
        // Every named local; those not in `out` at the end were rejected.
        let mut named: Vec<usize> = clauses
            .iter()
            .filter_map(|c| match self.lookup(&c.local.name) {
                Found::Local(i) => Some(i),
                _ => None,
            })
            .collect();
        let Some(first) = clauses.first() else {
            return (out, named);
        };
        if matches!(self.mode, Mode::Function(_)) {
            return (out, named); // the ForAll itself is E0334
        }
        if self.foralls.is_empty() {
            let d = Diagnostic::error("E0321", "a `Reduce` clause needs a nested ForAll")
                .with_label(
                    first.op.span.to(clauses[clauses.len() - 1].local.span),
                    "on the outermost ForAll",
                )
                .with_label(
                    kw,
                    "this ForAll spreads its iterations over the whole launch",
                )
                .with_help(
                    "reduce a node's edges in a ForAll nested in the outermost one; over the \
                 whole launch, use `ReduceAndReturn` or a global with an atomic",
                );
            self.report(d);
            return (out, named);
        }
        for c in clauses {
            let Some(combiner) = Combiner::parse(&c.op.name) else {
                let d = Diagnostic::error("E0321", format!("`{}` is not a reduction", c.op.name))
                    .with_label(c.op.span, "unknown reduction")
                    .with_help(
                        "a `Reduce` clause combines with `sum`, `min`, `max`, `any`, `all`, `or` or `and`",
                    );
                self.report(d);
                continue;
            };
            let i = match self.lookup(&c.local.name) {
                Found::Local(i) => i,
                _ => {
                    let d = Diagnostic::error(
                        "E0321",
                        format!("`{}` is not a local of an enclosing scope", c.local.name),
                    )
                    .with_label(c.local.span, "not a local")
                    .with_help(format!(
                        "declare it before the ForAll: `let {} = ...;`",
                        c.local.name
                    ));
                    self.report(d);
                    continue;
                }
            };
            let (kind, ty, span, depth) = {
                let l = &self.locals[i];
                (l.kind, l.ty, l.span, l.forall_depth)
            };
            if kind != LocalKind::Let {
                let what = match kind {
                    LocalKind::ForAllVar => "a ForAll variable",
                    LocalKind::KernelParam => "a kernel parameter",
                    _ => "a local array",
                };
                let d = Diagnostic::error(
                    "E0321",
                    format!("`{}` is {what}, which cannot be reduced", c.local.name),
                )
                .with_label(c.local.span, "reduced here")
                .with_label(span, "declared here")
                .with_help("reduce into a `let` local declared before the ForAll");
                self.report(d);
                continue;
            }
            self.locals[i].used = true;
            let fits = match combiner {
                Combiner::Sum | Combiner::Min | Combiner::Max => {
                    ty.is_integer() || ty.is_float() || ty == Ty::Error
                }
                Combiner::Any | Combiner::All => ty == Ty::Bool || ty == Ty::Error,
                Combiner::Or | Combiner::And => ty.is_integer() || ty == Ty::Error,
            };
            if !fits {
                let want = match combiner {
                    Combiner::Any | Combiner::All => "a `bool`",
                    Combiner::Or | Combiner::And => "an integer",
                    _ => "a number",
                };
                let d = Diagnostic::error(
                    "E0321",
                    format!(
                        "`{combiner}` reduces {want}, and `{}` is `{ty}`",
                        c.local.name
                    ),
                )
                .with_label(c.local.span, format!("a `{ty}`"))
                .with_label(span, "declared here")
                .with_help(match combiner {
                    Combiner::Any | Combiner::All => {
                        "`any` and `all` combine booleans; `sum`, `min` and `max` numbers; `or` and `and` the bits of integers"
                    }
                    Combiner::Or | Combiner::And => {
                        "`or` and `and` combine the bits of integers; `any` and `all` booleans; `sum`, `min` and `max` numbers"
                    }
                    _ => "`sum`, `min` and `max` combine numbers; `any` and `all` booleans; `or` and `and` the bits of integers",
                });
                self.report(d);
                continue;
            }
            if let Some(&(_, other)) = out.iter().find(|(j, _)| *j == i) {
                let d = Diagnostic::error(
                    "E0321",
                    format!("`{}` is reduced twice by this ForAll", c.local.name),
                )
                .with_label(c.local.span, format!("again, with `{combiner}`"))
                .with_help(format!(
                    "name it once; it is already reduced with `{other}`"
                ));
                self.report(d);
                continue;
            }
            // Every ForAll between the declaration and this one must reduce it alike.
            if let Some(f) = self.foralls[depth..]
                .iter()
                .find(|f| !f.reduce.contains(&(i, combiner)))
            {
                let d = Diagnostic::error(
                    "E0321",
                    format!(
                        "`{}` is declared outside an enclosing ForAll that does not reduce it",
                        c.local.name
                    ),
                )
                .with_label(c.local.span, "reduced here")
                .with_label(f.span, format!("this ForAll does not reduce `{}` with `{combiner}`", c.local.name))
                .with_label(span, "declared here")
                .with_help(format!(
                    "add `Reduce ({combiner}: {0})` to the enclosing ForAll too, or declare `{0}` inside it",
                    c.local.name
                ));
                self.report(d);
                continue;
            }
            out.push((i, combiner));
        }
        named.retain(|i| !out.iter().any(|(j, _)| j == i));
        (out, named)
    }

    /// The combiner of the innermost `ForAll`'s `Reduce` clause for local `i`, if the local
    /// is declared outside that `ForAll` and reduced by it.
    fn reduced_by_innermost(&self, i: usize) -> Option<Combiner> {
        let f = self.foralls.last()?;
        if self.locals[i].forall_depth >= self.foralls.len() {
            return None;
        }
        f.reduce.iter().find(|(j, _)| *j == i).map(|&(_, c)| c)
    }

    /// A reduced local read inside a `ForAll` that reduces it (E0322): its value there is
    /// a partial result of some iterations.
    fn reduced_read(&mut self, i: usize, at: Span) -> bool {
        let l = &self.locals[i];
        let Some(f) = self.foralls[l.forall_depth.min(self.foralls.len())..]
            .iter()
            .find(|f| f.reduce.iter().any(|(j, _)| *j == i))
        else {
            return false;
        };
        let combiner = f.reduce.iter().find(|(j, _)| *j == i).map(|&(_, c)| c);
        let fspan = f.span;
        let name = l.name.clone();
        let d = Diagnostic::error(
            "E0322",
            format!("`{name}` cannot be read inside the ForAll that reduces it"),
        )
        .with_label(at, "read here")
        .with_label(fspan, format!("this ForAll reduces `{name}`"))
        .with_help(format!(
            "inside the ForAll it holds a partial result; only {} updates it, and it has its \
             value after the ForAll",
            combiner.map(|c| c.update(&name)).unwrap_or_default()
        ));
        self.report(d);
        true
    }

    /// `t op= value` where the innermost `ForAll` reduces `t` with `combiner`: one of the
    /// update forms (else E0322); records the combine.
    fn combine(
        &mut self,
        s: &Stmt,
        target: &Expr,
        i: usize,
        combiner: Combiner,
        op: AssignOp,
        value: &Expr,
    ) {
        let name = self.locals[i].name.clone();
        let (def, kind, ty) = {
            let l = &self.locals[i];
            (l.def, l.kind, l.ty)
        };
        self.cx.resolve(target.id, Resolution::Local { def, kind });
        self.set(target, ty);
        let is_self = |e: &Expr| matches!(&e.kind, ExprKind::Name(n) if n.name == name);
        // The combined operand, and the `t` named in the value.
        let operand: Option<(&Expr, Option<&Expr>)> = match (combiner, op, &value.kind) {
            (Combiner::Sum, AssignOp::Add, _)
            | (Combiner::Or, AssignOp::BitOr, _)
            | (Combiner::And, AssignOp::BitAnd, _) => Some((value, None)),
            (Combiner::Min | Combiner::Max, AssignOp::Set, ExprKind::Call { func, args })
                if func.name == combiner.name() && args.len() == 2 =>
            {
                if is_self(&args[0]) && !is_self(&args[1]) {
                    Some((&args[1], Some(&args[0])))
                } else if is_self(&args[1]) && !is_self(&args[0]) {
                    Some((&args[0], Some(&args[1])))
                } else {
                    None
                }
            }
            (
                Combiner::Or | Combiner::And,
                AssignOp::Set,
                ExprKind::Binary {
                    op: op @ (BinaryOp::BitOr | BinaryOp::BitAnd),
                    lhs,
                    rhs,
                },
            ) if (*op == BinaryOp::BitOr) == (combiner == Combiner::Or) => {
                // `t = t | e` or `t = e | t` (`&` for `and`).
                if is_self(lhs) && !is_self(rhs) {
                    Some((&**rhs, Some(&**lhs)))
                } else if is_self(rhs) && !is_self(lhs) {
                    Some((&**lhs, Some(&**rhs)))
                } else {
                    None
                }
            }
            (Combiner::Any, AssignOp::Set, ExprKind::Bool(true))
            | (Combiner::All, AssignOp::Set, ExprKind::Bool(false)) => Some((value, None)),
            (
                Combiner::Any,
                AssignOp::Set,
                ExprKind::Binary {
                    op: BinaryOp::Or, ..
                },
            )
            | (
                Combiner::All,
                AssignOp::Set,
                ExprKind::Binary {
                    op: BinaryOp::And, ..
                },
            ) => {
                // `t` once among the operands of a chain of `||` (`&&`): the whole chain is
                // combined, with `t` read as the identity.
                let op = if combiner == Combiner::Any {
                    BinaryOp::Or
                } else {
                    BinaryOp::And
                };
                let mut leaves = Vec::new();
                chain_leaves(value, op, &mut leaves);
                let own: Vec<&Expr> = leaves.into_iter().filter(|e| is_self(e)).collect();
                match own[..] {
                    [t] => Some((value, Some(t))),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((operand, named)) = operand else {
            let d = Diagnostic::error(
                "E0322",
                format!("`{name}` is reduced with `{combiner}` by this ForAll: this is not its update"),
            )
            .with_label(target.span.to(value.span), "updated here")
            .with_label(self.foralls.last().map(|f| f.span).unwrap_or(s.span), format!("this ForAll reduces `{name}`"))
            .with_help(format!(
                "inside the ForAll, only {} updates `{name}` (its iterations run on different threads, and \
                 their updates are combined when it ends)",
                combiner.update(&name)
            ));
            self.report(d);
            return;
        };
        if let Some(t) = named {
            self.cx.resolve(t.id, Resolution::Local { def, kind });
            self.set(t, ty);
        }
        // In a chain of `||`/`&&`, `t` itself is read as the combiner's identity.
        let own = named.filter(|_| std::ptr::eq(operand, value)).map(|t| t.id);
        self.own_read = own;
        if ty == Ty::Error {
            self.expr(operand, None);
        } else {
            self.coerce(operand, ty, None);
        }
        self.own_read = None;
        if !std::ptr::eq(operand, value) {
            // The whole value keeps the local's type (for the info's completeness).
            self.set(value, ty);
            if let ExprKind::Call { .. } = &value.kind {
                self.cx.resolve(
                    value.id,
                    Resolution::Builtin(if combiner == Combiner::Min {
                        Builtin::Min
                    } else {
                        Builtin::Max
                    }),
                );
            }
        }
        self.cx.info.combines.insert(
            s.id,
            CombineInfo {
                combiner,
                local: def,
                value: operand.id,
                own,
            },
        );
    }

    fn forall(
        &mut self,
        s: &Stmt,
        var: &Ident,
        iter: &Iter,
        clauses: &[ReduceClause],
        body: &Block,
    ) {
        let kw = keyword(s.span, "ForAll");
        if self.kernel_body_only(kw, "`ForAll`") {
            self.not_in_locked(kw, "`ForAll`");
        }
        let (kind, var_ty) = match iter {
            Iter::Worklist { span } => {
                if let Some(outer) = self.foralls.last() {
                    let d = Diagnostic::error(
                        "E0303",
                        "`ForAll (i In WL)` must be the outermost ForAll of its kernel",
                    )
                    .with_label(*span, "a worklist ForAll nested in another ForAll")
                    .with_label(outer.span, "inside this ForAll")
                    .with_help(
                        "the worklist is spread over the kernel's threads by the outermost ForAll; \
                         move this ForAll out",
                    );
                    self.report(d);
                }
                if let Some(k) = self.kernel_mut() {
                    k.iterates_worklist = true;
                }
                (IterKind::Worklist, Ty::U32)
            }
            Iter::Nodes { graph } => {
                if self.graph_base(graph) && self.is_mesh() {
                    self.wrong_iteration(graph, "nodes");
                }
                (IterKind::Nodes, Ty::Node)
            }
            Iter::Triangles { mesh } => {
                if self.graph_base(mesh) && !self.is_mesh() {
                    let d = Diagnostic::error("E0006", "a graph has no triangles")
                        .with_label(mesh.span, "the graph")
                        .with_help("`ForAll (t In m.triangles)` needs a `mesh` declaration");
                    self.report(d);
                }
                (IterKind::Triangles, Ty::Triangle)
            }
            Iter::Edges { graph, node, dir } => {
                if self.graph_base(graph) {
                    if self.is_mesh() {
                        self.wrong_iteration(graph, "edges");
                        self.expr(node, None);
                    } else {
                        self.coerce(node, Ty::Node, None);
                    }
                } else {
                    self.expr(node, None);
                }
                if *dir == EdgeDir::In {
                    self.needs_in_edges(graph.span.to(node.span));
                    (IterKind::InEdges, Ty::InEdge)
                } else {
                    (IterKind::Edges, Ty::Edge)
                }
            }
            Iter::Range { lo, hi } => {
                let (first, second) = if lit_kind(lo).is_some() && lit_kind(hi).is_none() {
                    (&**hi, &**lo)
                } else {
                    (&**lo, &**hi)
                };
                let t1 = self.expr(first, None);
                let t2 = self.expr(second, Some(t1).filter(|t| t.is_integer()));
                let t = if !t1.mixes(t2) {
                    let d = Diagnostic::error(
                        "E0201",
                        format!(
                            "the bounds of a ForAll range have different types, `{}` and `{}`",
                            self.cx.info.expr_ty(lo.id),
                            self.cx.info.expr_ty(hi.id)
                        ),
                    )
                    .with_label(second.span, format!("this is `{t2}`"))
                    .with_label(first.span, format!("this is `{t1}`"))
                    .with_help(
                        conversion_help(t2, t1)
                            .unwrap_or_else(|| "both bounds need one type".to_string()),
                    );
                    self.report(d);
                    Ty::Error
                } else {
                    t1.join(t2)
                };
                if t != Ty::Error && !t.is_integer() {
                    let d = Diagnostic::error(
                        "E0204",
                        format!("a ForAll range needs integer bounds, found `{t}`"),
                    )
                    .with_label(lo.span.to(hi.span), format!("a range of `{t}`"))
                    .with_help("convert the bounds to an integer type with `as`");
                    self.report(d);
                }
                (IterKind::Range, t)
            }
        };
        let depth = self.foralls.len() as u32;
        let parent = self.foralls.last().map(|f| f.stmt);
        if let Some(k) = self.kernel_mut() {
            k.foralls.push(ForAllInfo {
                stmt: s.id,
                depth,
                parent,
                iter: kind,
                var_ty,
            });
        }
        let (reduce, rejected) = self.reduce_clauses(kw, clauses);
        if !reduce.is_empty() {
            let info = reduce
                .iter()
                .map(|&(i, combiner)| LoopReduction {
                    combiner,
                    local: self.locals[i].def,
                })
                .collect();
            self.cx.info.loop_reductions.insert(s.id, info);
        }
        self.scopes.push(Vec::new());
        self.declare_local(
            var,
            s.id,
            LocalKind::ForAllVar,
            var_ty,
            kind == IterKind::Worklist,
        );
        self.frames.push(Frame::ForAll(kw));
        self.foralls.push(ForAllCtx {
            stmt: s.id,
            span: kw,
            worklist: kind == IterKind::Worklist,
            reduce,
            rejected,
        });
        self.nested(body);
        self.foralls.pop();
        self.frames.pop();
        self.pop_scope();
    }
}

/// The operands of a maximal chain of `op` (`a || b || c`: `a`, `b`, `c`), parentheses being
/// part of the tree already.
fn chain_leaves<'e>(e: &'e Expr, op: BinaryOp, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary { op: o, lhs, rhs } if *o == op => {
            chain_leaves(lhs, op, out);
            chain_leaves(rhs, op, out);
        }
        _ => out.push(e),
    }
}
