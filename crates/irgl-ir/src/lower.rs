//! Lowering: a checked program (AST + `ProgramInfo`) to a [`Module`].
//!
//! Names become handles, types come from the checker's tables, spans are kept. The
//! constructs that the baseline back end used to print inline become IR:
//! - `Atomic` becomes its lock protocol (`TryLock`, `Unlock`, and for the blocking form the
//!   divergence-free retry loop); `Exclusive` its marking protocol (`LetArray`, `TryMarks`,
//!   `ReleaseMarks`);
//! - `WL.push`, `Retry` and `Respawn` become `Push` statements;
//! - `Invoke`, `Iterate`, `Pipe` and `Any`/`All Invoke` become `Launch`, the retry loop,
//!   worklist swaps and emptiness tests, reduction resets and reads, inside `Region`s;
//!   a reduction used inside an expression is evaluated first into a temporary, keeping the
//!   left-to-right order and the short-circuits of `&&`, `||` and `?:`;
//! - a call of a `Function` is inlined: before the statement that calls it, a block binds the
//!   parameters to the arguments and runs the body, whose `return`s assign the result and
//!   leave (by falling off the end, by a `break` out of a wrapping loop, or through a `done`
//!   flag out of nested loops: see [`ReturnPlan`]). A call on the right of `&&`/`||` or in a
//!   branch of `?:` runs only when that side is evaluated: the left goes to a temporary and the
//!   call's block into an `if` on it, as for reductions. The checker keeps calls out of loop
//!   conditions, which would run them once instead of every trip, and forbids recursion, so
//!   inlining terminates. Every later pass sees plain statements.
//!
//! Lowering assumes the checker reported no error; a missing fact is a bug, and it panics.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use irgl_check::{FuncId, KernelInfo, OutputTarget, ProgramInfo, Resolution};
use irgl_syntax::ast;
use irgl_syntax::ast::{IterateCondKind, NodeId};

use crate::entity::Arena;
use crate::ir::*;

/// Lowers a program that checked without errors. `name` is the program's name, `source` its
/// file as the user named it. The launch configuration starts at 256 threads per block.
pub fn lower(program: &ast::Program, info: &ProgramInfo, name: &str, source: &str) -> Module {
    let graph = info.graph.as_ref().expect("a checked program has a graph");
    let module_graph = Graph {
        name: graph.name.clone(),
        mesh: graph.mesh,
        symmetric: graph.attrs.symmetric,
        in_edges: graph.attrs.in_edges,
        simple: graph.attrs.simple,
        props: graph
            .props
            .iter()
            .map(|p| Prop {
                name: p.name.clone(),
                owner: p.owner,
                ty: p.ty,
                input: p.input,
                span: p.span,
                len: None,
            })
            .collect(),
        input: graph.input,
    };
    let consts = info
        .consts
        .iter()
        .map(|c| Const {
            name: c.name.clone(),
            ty: c.ty,
            value: c.value.expect("a checked const has a value"),
            span: c.span,
        })
        .collect();
    let params = info
        .params
        .iter()
        .map(|p| Param {
            name: p.name.clone(),
            ty: p.ty,
            default: p.default.expect("a checked param has a default"),
            span: p.span,
        })
        .collect();
    let globals = info
        .globals
        .iter()
        .map(|g| Global {
            name: g.name.clone(),
            ty: g.ty,
            init: g.init.expect("a checked global has an initial value"),
            statistic: g.statistic,
            span: g.span,
        })
        .collect();
    let outputs = info
        .outputs
        .iter()
        .map(|o| {
            match o
                .target
                .expect("a checked output names a property or a global")
            {
                OutputTarget::Property(p) => Output::Property(p),
                OutputTarget::Global(g) => Output::Global(g),
                OutputTarget::Mesh => Output::Mesh,
            }
        })
        .collect();

    let cx = ModuleCx { info, program };
    let mut kernels = Arena::new();
    for k in &info.kernels {
        let ast::ItemKind::Kernel(decl) = &program.items[k.item].kind else {
            panic!("kernel {} is not a kernel item", k.name);
        };
        kernels.push(cx.kernel(k, decl));
    }
    let main = info.main.as_ref().expect("a checked program has main");
    let ast::ItemKind::Main(main_block) = &program.items[main.item].kind else {
        panic!("main is not a main item");
    };
    let mut b = BodyBuilder::new(&cx, Side::Host);
    // The lengths of the arrays, evaluated on the host when the program starts.
    let mut module_graph = module_graph;
    for item in &program.items {
        if let ast::ItemKind::Array(a) = &item.kind
            && let Some(p) = module_graph
                .props
                .iter_mut()
                .zip(&graph.props)
                .find(|(_, info)| info.decl == item.id)
                .map(|(p, _)| p)
        {
            p.len = Some(b.expr(&a.len));
        }
    }
    let block = b.block(main_block);
    b.body.block = block;
    Module {
        name: name.to_string(),
        source: source.to_string(),
        graph: module_graph,
        consts,
        params,
        globals,
        outputs,
        kernels,
        host: b.body,
        launch: LaunchConfig {
            block_size: 256,
            async_grid: GridSize::PerSm(1),
            async_local: false,
            grid: LaunchGrid::Resident,
            check_indices: false,
            wide_edges: false,
            serial_rule: None,
            switch_epoch_us: SWITCH_EPOCH_US,
            grid_wait: false,
        },
        partitioned: None,
    }
}

struct ModuleCx<'a> {
    info: &'a ProgramInfo,
    program: &'a ast::Program,
}

impl ModuleCx<'_> {
    fn kernel(&self, k: &KernelInfo, decl: &ast::KernelDecl) -> Kernel {
        let mut b = BodyBuilder::new(self, Side::Device);
        let mut params = Vec::new();
        for (p, ty) in decl.params.iter().zip(&k.params) {
            if *ty == Ty::Graph {
                params.push(KernelParam::Graph(p.name.name.clone()));
            } else {
                let l = b
                    .body
                    .add_local(p.name.name.clone(), *ty, LocalKind::Param, p.name.span);
                b.locals.insert(p.id, l);
                b.names[0].push(p.name.name.clone());
                params.push(KernelParam::Scalar(l));
            }
        }
        let block = b.block(&decl.body);
        b.body.block = block;
        Kernel::new(k.name.clone(), k.span, params, b.body)
    }

    fn kernel_info(&self, name: &str) -> (KernelId, &KernelInfo) {
        let id = self
            .info
            .kernel_named(name)
            .unwrap_or_else(|| panic!("kernel {name} was resolved"));
        (KernelId::from_index(id.index()), self.info.kernel(id))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Device,
    Host,
}

struct BodyBuilder<'a> {
    cx: &'a ModuleCx<'a>,
    side: Side,
    body: Body,
    /// Locals by the node that defines them (`Let`, `ForAll`, `KernelParam`).
    locals: HashMap<NodeId, LocalId>,
    foralls: u32,
    forall_depth: u32,
    regions: u32,
    pipe_depth: u32,
    temps: u32,
    /// While lowering an `any`/`all` update `t = t || e`: the `t` (read as the identity, the
    /// bool given).
    own_read: Option<(NodeId, bool)>,
    /// Statements that must run before the statement being lowered: inlined calls.
    pending: Block,
    /// The functions being inlined, innermost last.
    inline: Vec<InlineFrame>,
    /// The names declared in each enclosing scope, innermost last: an inlined function's
    /// locals avoid them.
    names: Vec<Vec<String>>,
}

/// A function being inlined.
struct InlineFrame {
    name: String,
    /// Where `return e` puts `e` (`None`: the function has no value, or the caller drops it).
    result: Option<LocalId>,
    /// Set by a `return` that leaves nested loops.
    done: Option<LocalId>,
    plan: Rc<ReturnPlan>,
}

/// How each `return` of a function leaves it once inlined, read off the function's body:
/// - at the end of the body (or of branches that end it): it falls off the end;
/// - directly in a loop that ends the body: `break` (the loop ends the function);
/// - elsewhere outside loops: `break` out of a one-pass loop wrapped around the body;
/// - deeper in loops: it sets a `done` flag and breaks, and each loop it leaves is followed by
///   `if (done) break;` (but the outermost one, when it ends the body).
///
/// Outside loops, an `if` without `else` whose branch always returns (an early return) takes
/// the statements after it as its `else` (a guard), so that its returns end the function.
#[derive(Default)]
struct ReturnPlan {
    exits: HashMap<NodeId, Exit>,
    guards: HashSet<NodeId>,
    check_after: HashSet<NodeId>,
    wrapper: bool,
    flag: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Exit {
    Fall,
    Break,
    Flag,
}

impl ReturnPlan {
    fn of(body: &ast::Block) -> ReturnPlan {
        let mut p = ReturnPlan::default();
        p.walk(&body.stmts, true, &mut Vec::new());
        p
    }

    /// `tail`: the end of `stmts` ends the function. `loops`: the enclosing loops, each with
    /// whether it ends the function.
    fn walk(&mut self, stmts: &[ast::Stmt], tail: bool, loops: &mut Vec<(NodeId, bool)>) {
        for (i, s) in stmts.iter().enumerate() {
            let last = tail && i + 1 == stmts.len();
            if let ast::StmtKind::If {
                then_block,
                else_block: None,
                ..
            } = &s.kind
                && loops.is_empty()
                && i + 1 < stmts.len()
                && irgl_check::always_returns(then_block)
            {
                self.guards.insert(s.id);
                self.walk(&then_block.stmts, tail, loops);
                self.walk(&stmts[i + 1..], tail, loops);
                return;
            }
            match &s.kind {
                ast::StmtKind::Return(_) => {
                    let exit = match loops.as_slice() {
                        [] if last => Exit::Fall,
                        [] => {
                            self.wrapper = true;
                            Exit::Break
                        }
                        [(_, true)] => Exit::Break,
                        _ => {
                            self.flag = true;
                            for (j, &(l, ends)) in loops.iter().enumerate() {
                                if j > 0 || !ends {
                                    self.check_after.insert(l);
                                }
                            }
                            if !loops[0].1 {
                                self.wrapper = true;
                            }
                            Exit::Flag
                        }
                    };
                    self.exits.insert(s.id, exit);
                }
                ast::StmtKind::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.walk(&then_block.stmts, last, loops);
                    if let Some(b) = else_block {
                        self.walk(&b.stmts, last, loops);
                    }
                }
                ast::StmtKind::Block(b) => self.walk(&b.stmts, last, loops),
                ast::StmtKind::While { body, .. } | ast::StmtKind::For { body, .. } => {
                    loops.push((s.id, loops.is_empty() && last));
                    self.walk(&body.stmts, false, loops);
                    loops.pop();
                }
                _ => {}
            }
        }
    }
}

impl<'a> BodyBuilder<'a> {
    fn new(cx: &'a ModuleCx<'a>, side: Side) -> Self {
        BodyBuilder {
            cx,
            side,
            body: Body::default(),
            locals: HashMap::new(),
            foralls: 0,
            forall_depth: 0,
            regions: 0,
            pipe_depth: 0,
            temps: 0,
            own_read: None,
            pending: Vec::new(),
            inline: Vec::new(),
            names: vec![Vec::new()],
        }
    }

    fn info(&self) -> &'a ProgramInfo {
        self.cx.info
    }

    fn ty(&self, e: &ast::Expr) -> Ty {
        match self.info().expr_ty(e.id) {
            Ty::Error | Ty::Void => panic!("expression {} at {:?} has no value type", e.id, e.span),
            t => t,
        }
    }

    fn temp(&mut self, stem: &str, ty: Ty, span: Span) -> LocalId {
        let name = format!("irgl_{stem}{}", self.temps);
        self.temps += 1;
        self.body.add_local(name, ty, LocalKind::Temp, span)
    }

    fn add(&mut self, kind: ExprKind, ty: Ty, span: Span) -> ExprId {
        self.body.add_expr(kind, ty, span)
    }

    fn stmt_into(&mut self, out: &mut Block, kind: StmtKind, span: Span) {
        out.push(self.body.add_stmt(kind, span));
    }

    fn int(&mut self, v: u64, ty: Ty) -> ExprId {
        self.add(ExprKind::Literal(Literal::Int(v)), ty, Span::NONE)
    }

    fn local_expr(&mut self, l: LocalId) -> ExprId {
        let ty = self.body.locals[l].ty;
        self.add(ExprKind::Local(l), ty, Span::NONE)
    }

    /// `a && b` (`a || b`) whose right side has statements of its own (`rhs`: them and `b`),
    /// run only when it is evaluated: appends `let t = a; if (t) { ...; t = b; }` (`!t` for
    /// `||`) to `out` (`t`, a `bool` temporary).
    fn short_circuit(
        &mut self,
        t: LocalId,
        op: ast::BinaryOp,
        l: ExprId,
        rhs: (Block, ExprId),
        span: Span,
        out: &mut Block,
    ) {
        let (mut rhs, r) = rhs;
        self.stmt_into(
            out,
            StmtKind::Let {
                local: t,
                init: Some(l),
            },
            span,
        );
        self.stmt_into(
            &mut rhs,
            StmtKind::Assign {
                place: Place::Local(t),
                op: None,
                value: r,
            },
            span,
        );
        let test = self.local_expr(t);
        let cond = if op == ast::BinaryOp::And {
            test
        } else {
            self.not(test)
        };
        self.stmt_into(
            out,
            StmtKind::If {
                cond,
                then_block: rhs,
                else_block: Vec::new(),
            },
            span,
        );
    }

    /// `c ? a : b` whose branches have statements of their own (`arms`: each branch's
    /// statements and value), run only on their side: appends `if (c) { ...; t = a; } else {
    /// ...; t = b; }` to `out` (`t`, a temporary declared before).
    fn select_into(
        &mut self,
        t: LocalId,
        c: ExprId,
        arms: Vec<(Block, ExprId)>,
        span: Span,
        out: &mut Block,
    ) {
        let mut branches = Vec::new();
        for (mut block, v) in arms {
            self.stmt_into(
                &mut block,
                StmtKind::Assign {
                    place: Place::Local(t),
                    op: None,
                    value: v,
                },
                span,
            );
            branches.push(block);
        }
        let else_block = branches.pop().unwrap_or_default();
        let then_block = branches.pop().unwrap_or_default();
        self.stmt_into(
            out,
            StmtKind::If {
                cond: c,
                then_block,
                else_block,
            },
            span,
        );
    }

    fn not(&mut self, e: ExprId) -> ExprId {
        self.add(ExprKind::Unary(UnaryOp::Not, e), Ty::Bool, Span::NONE)
    }

    /// `size(wl) == 0` or `size(wl) != 0`.
    fn wl_test(&mut self, wl: WorklistRef, empty: bool) -> ExprId {
        let size = self.add(ExprKind::WorklistSize(wl), Ty::U32, Span::NONE);
        let zero = self.int(0, Ty::U32);
        let op = if empty { BinaryOp::Eq } else { BinaryOp::Ne };
        self.add(ExprKind::Binary(op, size, zero), Ty::Bool, Span::NONE)
    }

    fn local_of(&self, def: NodeId) -> LocalId {
        *self
            .locals
            .get(&def)
            .unwrap_or_else(|| panic!("local defined at {def} was lowered before its use"))
    }

    fn declare(&mut self, def: NodeId, name: &ast::Ident, kind: LocalKind) -> LocalId {
        let ty = *self
            .info()
            .local_types
            .get(&def)
            .unwrap_or_else(|| panic!("local {} has a type", name.name));
        let text = self.fresh_name(&name.name);
        if let Some(scope) = self.names.last_mut() {
            scope.push(text.clone());
        }
        let l = self.body.add_local(text, ty, kind, name.span);
        self.locals.insert(def, l);
        l
    }

    /// A local's name: its own, but inside an inlined function one that no enclosing scope
    /// declares (so that an argument never reads the parameter that shadows it, nor a
    /// `return` assigns a local of the function instead of the caller's), prefixed with the
    /// function's name.
    fn fresh_name(&self, name: &str) -> String {
        let Some(frame) = self.inline.last() else {
            return name.to_string();
        };
        let taken = |n: &str| self.names.iter().any(|s| s.iter().any(|x| x == n));
        if !taken(name) {
            return name.to_string();
        }
        let base = format!("{}_{name}", frame.name);
        if !taken(&base) {
            return base;
        }
        (1..)
            .map(|i| format!("{base}{i}"))
            .find(|n| !taken(n))
            .expect("a free name")
    }

    /// Inlines a call of function `f` (see the module documentation) into `self.pending`.
    /// The value goes to `into` (the local of a `let` the call initializes, when no argument
    /// mentions a local of its name), to a new temporary when `value` is set, or nowhere.
    /// Returns the local that holds the value.
    fn inline_call(
        &mut self,
        f: FuncId,
        args: &[ast::Expr],
        into: Option<(NodeId, &ast::Ident)>,
        value: bool,
        span: Span,
    ) -> Option<LocalId> {
        let info = self.info().function(f);
        let ast::ItemKind::Function(decl) = &self.cx.program.items[info.item].kind else {
            panic!("function {} is not a function item", info.name);
        };
        // Arguments first, in order, in the caller's scope.
        let mut bound = Vec::new();
        for (i, (a, p)) in args.iter().zip(&decl.params).enumerate() {
            if Some(i) == info.graph_param {
                continue;
            }
            bound.push((p, self.expr(a)));
        }
        let ret = info.ret;
        let result = match into {
            Some((def, name))
                if !bound.iter().any(|&(_, e)| {
                    let mut hit = false;
                    crate::visit::walk_expr(&self.body, e, &mut |x| {
                        if let ExprKind::Local(l) = self.body.exprs[x].kind {
                            hit |= self.body.locals[l].name == name.name;
                        }
                    });
                    hit
                }) =>
            {
                let l = self.declare(def, name, LocalKind::Let);
                Some(l)
            }
            Some(_) | None if value && ret != Ty::Void => Some(self.temp(&info.name, ret, span)),
            _ => None,
        };
        if let Some(r) = result {
            let s = self.body.add_stmt(
                StmtKind::Let {
                    local: r,
                    init: None,
                },
                span,
            );
            self.pending.push(s);
        }
        let outer = std::mem::take(&mut self.pending);
        let plan = Rc::new(ReturnPlan::of(&decl.body));
        self.inline.push(InlineFrame {
            name: info.name.clone(),
            result,
            done: None,
            plan: plan.clone(),
        });
        let mut block = Vec::new();
        let mut params = Vec::new();
        self.names.push(Vec::new());
        for (p, arg) in bound {
            let l = self.declare(p.id, &p.name, LocalKind::Let);
            params.push((l, arg, block.len()));
            self.stmt_into(
                &mut block,
                StmtKind::Let {
                    local: l,
                    init: Some(arg),
                },
                p.span,
            );
        }
        if plan.flag {
            let done = self.temp(&format!("{}_done", info.name), Ty::Bool, span);
            let no = self.add(ExprKind::Literal(Literal::Bool(false)), Ty::Bool, span);
            self.stmt_into(
                &mut block,
                StmtKind::Let {
                    local: done,
                    init: Some(no),
                },
                span,
            );
            self.inline.last_mut().expect("the frame").done = Some(done);
        }
        let mut body = self.block(&decl.body);
        if plan.wrapper {
            let brk = self.body.add_stmt(StmtKind::Break, span);
            body.push(brk);
            let l = self.body.add_stmt(
                StmtKind::Loop(Loop {
                    init: Vec::new(),
                    cond: None,
                    step: Vec::new(),
                    body,
                }),
                span,
            );
            body = vec![l];
        }
        // A parameter the body never reads is not declared (its argument is evaluated only
        // for an atomic in it).
        let mut dropped = Vec::new();
        for &(l, arg, at) in &params {
            if !uses_local(&self.body, &body, l) {
                dropped.push(at);
                if crate::visit::expr_any(&self.body, arg, &|k| {
                    matches!(k, ExprKind::Atomic { .. })
                }) {
                    let s = self.body.add_stmt(StmtKind::Eval(arg), span);
                    block[at] = s;
                    dropped.pop();
                }
            }
        }
        let mut i = 0;
        block.retain(|_| {
            i += 1;
            !dropped.contains(&(i - 1))
        });
        block.extend(body);
        self.names.pop();
        self.inline.pop();
        self.pending = outer;
        let s = self.body.add_stmt(StmtKind::Block(block), span);
        self.pending.push(s);
        result
    }

    // ------------------------------------------------------------------ expressions

    /// An expression without kernel launches.
    fn expr(&mut self, e: &ast::Expr) -> ExprId {
        let span = e.span;
        if let Some((own, identity)) = self.own_read
            && own == e.id
        {
            // The reduced local inside its own `||`/`&&` update: the combiner's identity.
            let ty = self.info().expr_ty(e.id);
            return self.add(ExprKind::Literal(Literal::Bool(identity)), ty, span);
        }
        let kind = match &e.kind {
            ast::ExprKind::Int(v) => ExprKind::Literal(Literal::Int(*v)),
            ast::ExprKind::Float(v) => ExprKind::Literal(Literal::Float(*v)),
            ast::ExprKind::Bool(b) => ExprKind::Literal(Literal::Bool(*b)),
            ast::ExprKind::Name(n) => match self.info().resolution(e.id) {
                Some(Resolution::Local { def, .. }) => ExprKind::Local(self.local_of(def)),
                Some(Resolution::Const(c)) => ExprKind::Const(c),
                Some(Resolution::Param(p)) => ExprKind::Param(p),
                Some(Resolution::Global(g)) => ExprKind::Global(g),
                r => panic!("name {} resolved to {r:?} as a value", n.name),
            },
            ast::ExprKind::Unary { op, operand } => ExprKind::Unary(*op, self.expr(operand)),
            ast::ExprKind::Binary { op, lhs, rhs } if op.is_logical() && self.has_call(rhs) => {
                // `a && f(x)`: the call (inlined) only when `a` holds.
                let t = self.temp("cond", Ty::Bool, span);
                let l = self.expr(lhs);
                let outer = std::mem::take(&mut self.pending);
                let r = self.expr(rhs);
                let then_block = std::mem::replace(&mut self.pending, outer);
                let mut out = std::mem::take(&mut self.pending);
                self.short_circuit(t, *op, l, (then_block, r), span, &mut out);
                self.pending = out;
                ExprKind::Local(t)
            }
            ast::ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                ExprKind::Binary(*op, l, r)
            }
            ast::ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } if self.has_call(then_expr) || self.has_call(else_expr) => {
                // `c ? f(x) : y`: each branch's calls (inlined) only on its side.
                let ty = self.info().expr_ty(e.id);
                let t = self.temp("value", ty, span);
                let c = self.expr(cond);
                let s = self.body.add_stmt(
                    StmtKind::Let {
                        local: t,
                        init: None,
                    },
                    span,
                );
                self.pending.push(s);
                let mut arms = Vec::new();
                for arm in [then_expr, else_expr] {
                    let outer = std::mem::take(&mut self.pending);
                    let v = self.expr(arm);
                    arms.push((std::mem::replace(&mut self.pending, outer), v));
                }
                let mut out = std::mem::take(&mut self.pending);
                self.select_into(t, c, arms, span, &mut out);
                self.pending = out;
                ExprKind::Local(t)
            }
            ast::ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.expr(cond);
                let t = self.expr(then_expr);
                let f = self.expr(else_expr);
                ExprKind::Select {
                    cond: c,
                    then_expr: t,
                    else_expr: f,
                }
            }
            ast::ExprKind::Cast { expr, .. } => ExprKind::Cast(self.expr(expr)),
            ast::ExprKind::Call { func, args } => match self.info().resolution(e.id) {
                Some(Resolution::Builtin(b)) => {
                    let args = args.iter().map(|a| self.expr(a)).collect();
                    ExprKind::Builtin(b, args)
                }
                Some(Resolution::Atomic(op)) => {
                    let place = self.place(&args[0]);
                    let rest = args[1..].iter().map(|a| self.expr(a)).collect();
                    ExprKind::Atomic {
                        op,
                        place,
                        args: rest,
                    }
                }
                Some(Resolution::Function(f)) => {
                    let r = self
                        .inline_call(f, args, None, true, span)
                        .expect("a function used as a value has one");
                    ExprKind::Local(r)
                }
                r => panic!("call of {} resolved to {r:?}", func.name),
            },
            ast::ExprKind::Field { field, .. } => match self.info().resolution(e.id) {
                Some(Resolution::GraphField(f)) => ExprKind::GraphSize(f),
                Some(Resolution::PointCoord { def, y }) => {
                    let p = self.local_expr(self.local_of(def));
                    let b = if y { Builtin::PointY } else { Builtin::PointX };
                    ExprKind::Builtin(b, vec![p])
                }
                r => panic!("field {} resolved to {r:?}", field.name),
            },
            ast::ExprKind::Index { index, prop, .. } => {
                let p = self.prop_of(e, &prop.name);
                ExprKind::Element {
                    prop: p,
                    index: self.expr(index),
                }
            }
            ast::ExprKind::ArrayIndex { base, index } => match self.info().resolution(e.id) {
                Some(Resolution::Local { def, .. }) => ExprKind::ArrayElement {
                    array: self.local_of(def),
                    index: self.expr(index),
                },
                Some(Resolution::Array(prop)) => ExprKind::Element {
                    prop,
                    index: self.expr(index),
                },
                r => panic!("array {} resolved to {r:?}", base.name),
            },
            ast::ExprKind::Method { method, args, .. } => match self.info().resolution(e.id) {
                Some(Resolution::GraphMethod(m)) => ExprKind::GraphQuery(m, self.expr(&args[0])),
                Some(Resolution::MeshMethod(m)) => {
                    ExprKind::MeshQuery(m, args.iter().map(|a| self.expr(a)).collect())
                }
                r => panic!("method {} resolved to {r:?}", method.name),
            },
            ast::ExprKind::Pop(i) => ExprKind::Pop(self.expr(i)),
            ast::ExprKind::Push(_) => panic!("WL.push at {span:?} used as a value"),
            ast::ExprKind::Invoke { .. } => panic!("kernel launch at {span:?} in device code"),
            ast::ExprKind::Error => panic!("erroneous expression at {span:?} after checking"),
        };
        let ty = self.ty(e);
        self.add(kind, ty, span)
    }

    fn prop_of(&self, e: &ast::Expr, name: &str) -> PropId {
        match self.info().resolution(e.id) {
            Some(Resolution::NodeProperty(p) | Resolution::EdgeProperty(p)) => p,
            r => panic!("property {name} resolved to {r:?}"),
        }
    }

    fn place(&mut self, e: &ast::Expr) -> Place {
        match &e.kind {
            ast::ExprKind::Name(n) => match self.info().resolution(e.id) {
                Some(Resolution::Local { def, .. }) => Place::Local(self.local_of(def)),
                Some(Resolution::Global(g)) => Place::Global(g),
                r => panic!("place {} resolved to {r:?}", n.name),
            },
            ast::ExprKind::Index { prop, index, .. } => Place::Element {
                prop: self.prop_of(e, &prop.name),
                index: self.expr(index),
            },
            ast::ExprKind::ArrayIndex { base, index } => match self.info().resolution(e.id) {
                Some(Resolution::Local { def, .. }) => Place::ArrayElement {
                    array: self.local_of(def),
                    index: self.expr(index),
                },
                Some(Resolution::Array(prop)) => Place::Element {
                    prop,
                    index: self.expr(index),
                },
                r => panic!("array {} resolved to {r:?}", base.name),
            },
            _ => panic!("assignment to a non-place at {:?}", e.span),
        }
    }

    /// A host expression that may launch kernels: the launches and what must be evaluated
    /// before them go to `pre`, in source order.
    fn host_expr(&mut self, e: &ast::Expr, pre: &mut Block) -> ExprId {
        if !has_invoke(e) {
            return self.expr(e);
        }
        let span = e.span;
        let ty = self.ty(e);
        let kind = match &e.kind {
            ast::ExprKind::Invoke { reduction, call } => {
                self.reduce_invoke(call, *reduction, pre);
                let t = self.temp("result", Ty::Bool, span);
                let read = self.add(ExprKind::ReduceResult, Ty::Bool, span);
                self.stmt_into(
                    pre,
                    StmtKind::Let {
                        local: t,
                        init: Some(read),
                    },
                    span,
                );
                ExprKind::Local(t)
            }
            ast::ExprKind::Unary { op, operand } => {
                ExprKind::Unary(*op, self.host_expr(operand, pre))
            }
            ast::ExprKind::Cast { expr, .. } => ExprKind::Cast(self.host_expr(expr, pre)),
            ast::ExprKind::Binary { op, lhs, rhs } if op.is_logical() && has_invoke(rhs) => {
                // `a && b`: b (and its launches) only when a holds.
                let t = self.temp("cond", Ty::Bool, span);
                let l = self.host_expr(lhs, pre);
                let mut then_block = Vec::new();
                let r = self.host_expr(rhs, &mut then_block);
                self.short_circuit(t, *op, l, (then_block, r), span, pre);
                ExprKind::Local(t)
            }
            ast::ExprKind::Binary { op, lhs, rhs } => {
                let l = self.host_expr(lhs, pre);
                let l = if has_invoke(rhs) {
                    self.spill(l, pre)
                } else {
                    l
                };
                let r = self.host_expr(rhs, pre);
                ExprKind::Binary(*op, l, r)
            }
            ast::ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } if has_invoke(then_expr) || has_invoke(else_expr) => {
                let t = self.temp("value", ty, span);
                self.stmt_into(
                    pre,
                    StmtKind::Let {
                        local: t,
                        init: None,
                    },
                    span,
                );
                let c = self.host_expr(cond, pre);
                let mut arms = Vec::new();
                for arm in [then_expr, else_expr] {
                    let mut block = Vec::new();
                    let v = self.host_expr(arm, &mut block);
                    arms.push((block, v));
                }
                self.select_into(t, c, arms, span, pre);
                ExprKind::Local(t)
            }
            ast::ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.host_expr(cond, pre);
                ExprKind::Select {
                    cond: c,
                    then_expr: self.expr(then_expr),
                    else_expr: self.expr(else_expr),
                }
            }
            ast::ExprKind::Call { func, args } => match self.info().resolution(e.id) {
                Some(Resolution::Builtin(b)) => ExprKind::Builtin(b, self.host_args(args, pre)),
                r => panic!("host call of {} resolved to {r:?}", func.name),
            },
            ast::ExprKind::Index { prop, index, .. } => {
                let p = self.prop_of(e, &prop.name);
                ExprKind::Element {
                    prop: p,
                    index: self.host_expr(index, pre),
                }
            }
            ast::ExprKind::Method { method, args, .. } => match self.info().resolution(e.id) {
                Some(Resolution::GraphMethod(m)) => {
                    ExprKind::GraphQuery(m, self.host_expr(&args[0], pre))
                }
                r => panic!("method {} resolved to {r:?}", method.name),
            },
            _ => panic!("expression at {span:?} cannot hold a launch"),
        };
        self.add(kind, ty, span)
    }

    /// Arguments evaluated left to right even when a later one launches a kernel.
    fn host_args(&mut self, args: &[ast::Expr], pre: &mut Block) -> Vec<ExprId> {
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let v = self.host_expr(a, pre);
            let later_launch = args[i + 1..].iter().any(has_invoke);
            out.push(if later_launch { self.spill(v, pre) } else { v });
        }
        out
    }

    /// Evaluates `e` into a temporary now, unless no kernel can change its value.
    fn spill(&mut self, e: ExprId, pre: &mut Block) -> ExprId {
        if is_stable(&self.body, e) {
            return e;
        }
        let ty = self.body.exprs[e].ty;
        let span = self.body.exprs[e].span;
        let t = self.temp("value", ty, span);
        self.stmt_into(
            pre,
            StmtKind::Let {
                local: t,
                init: Some(e),
            },
            span,
        );
        self.local_expr(t)
    }

    // ------------------------------------------------------------------ statements

    fn block(&mut self, b: &ast::Block) -> Block {
        self.names.push(Vec::new());
        let out = self.stmts(&b.stmts);
        self.names.pop();
        out
    }

    fn stmts(&mut self, stmts: &[ast::Stmt]) -> Block {
        let mut out = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            if let Some(frame) = self.inline.last()
                && frame.plan.guards.contains(&s.id)
            {
                // An early return: the rest of the block is its `else`.
                let ast::StmtKind::If {
                    cond, then_block, ..
                } = &s.kind
                else {
                    panic!("a guard is an `if`");
                };
                let outer = std::mem::take(&mut self.pending);
                let cond = self.expr(cond);
                out.append(&mut self.pending);
                self.pending = outer;
                let then_block = self.block(then_block);
                self.names.push(Vec::new());
                let else_block = self.stmts(&stmts[i + 1..]);
                self.names.pop();
                self.stmt_into(
                    &mut out,
                    StmtKind::If {
                        cond,
                        then_block,
                        else_block,
                    },
                    s.span,
                );
                return out;
            }
            self.stmt(s, &mut out);
        }
        out
    }

    /// Lowers a statement into `out`, after the calls it inlines.
    fn stmt(&mut self, s: &ast::Stmt, out: &mut Block) {
        let outer = std::mem::take(&mut self.pending);
        let mut mine = Vec::new();
        self.stmt_kind(s, &mut mine);
        out.append(&mut self.pending);
        out.extend(mine);
        self.pending = outer;
        if let Some(frame) = self.inline.last()
            && frame.plan.check_after.contains(&s.id)
        {
            let done = frame.done.expect("a flag where returns leave nested loops");
            let test = self.local_expr(done);
            let brk = self.body.add_stmt(StmtKind::Break, s.span);
            self.stmt_into(
                out,
                StmtKind::If {
                    cond: test,
                    then_block: vec![brk],
                    else_block: Vec::new(),
                },
                s.span,
            );
        }
    }

    fn stmt_kind(&mut self, s: &ast::Stmt, out: &mut Block) {
        let span = s.span;
        match &s.kind {
            ast::StmtKind::LetArray { name, .. } => {
                let local = self.declare(s.id, name, LocalKind::Let);
                let len = match self.info().array_lens.get(&s.id) {
                    Some(&len) => len,
                    None => panic!("array {} has a length", name.name),
                };
                self.body.locals[local].kind = LocalKind::Array { len };
                self.stmt_into(
                    out,
                    StmtKind::LetArray {
                        local,
                        elems: Vec::new(),
                    },
                    span,
                );
            }
            ast::StmtKind::Let { name, init, .. }
                if let ast::ExprKind::Call { args, .. } = &init.kind
                    && let Some(Resolution::Function(f)) = self.info().resolution(init.id) =>
            {
                self.inline_call(f, args, Some((s.id, name)), true, span);
                if !self.locals.contains_key(&s.id) {
                    // An argument mentions a local named like this one: a temporary took the
                    // value.
                    let Some(&last) = self.pending.iter().rev().nth(1) else {
                        panic!("an inlined call leaves its result");
                    };
                    let StmtKind::Let { local: temp, .. } = self.body.stmts[last].kind else {
                        panic!("an inlined call declares its result first");
                    };
                    let value = self.local_expr(temp);
                    let local = self.declare(s.id, name, LocalKind::Let);
                    self.stmt_into(
                        out,
                        StmtKind::Let {
                            local,
                            init: Some(value),
                        },
                        span,
                    );
                }
            }
            ast::StmtKind::Let { name, init, .. } => {
                let init = self.value(init, out);
                let local = self.declare(s.id, name, LocalKind::Let);
                self.stmt_into(
                    out,
                    StmtKind::Let {
                        local,
                        init: Some(init),
                    },
                    span,
                );
            }
            ast::StmtKind::Assign { target, op, value } => {
                if let Some(c) = self.info().combines.get(&s.id).copied() {
                    let mut operand = operand_of(value, c.value);
                    let mut own = c.own;
                    // `t = t || e` combines `e` itself; in longer chains `t` reads as the
                    // identity.
                    if let (Some(t), ast::ExprKind::Binary { lhs, rhs, .. }) = (own, &operand.kind)
                    {
                        if lhs.id == t {
                            (operand, own) = (&**rhs, None);
                        } else if rhs.id == t {
                            (operand, own) = (&**lhs, None);
                        }
                    }
                    self.own_read = own.map(|own| (own, c.combiner == Combiner::All));
                    let value = self.expr(operand);
                    self.own_read = None;
                    let local = self.local_of(c.local);
                    self.stmt_into(
                        out,
                        StmtKind::Combine {
                            local,
                            combiner: c.combiner,
                            value,
                        },
                        span,
                    );
                } else {
                    self.assign(target, *op, value, span, out)
                }
            }
            ast::StmtKind::Expr(e) => match &e.kind {
                ast::ExprKind::Call { args, .. }
                    if let Some(Resolution::Function(f)) = self.info().resolution(e.id) =>
                {
                    self.inline_call(f, args, None, false, span);
                }
                ast::ExprKind::Push(x) => {
                    let item = self.expr(x);
                    self.stmt_into(
                        out,
                        StmtKind::Push(Push {
                            target: WorklistRef::Out,
                            kind: PushKind::Push,
                            item,
                            aggregation: Aggregation::None,
                            note: None,
                        }),
                        span,
                    );
                }
                ast::ExprKind::Invoke { reduction, call } if self.side == Side::Host => {
                    // The reduction's value is not used: launch for the effect.
                    self.reduce_invoke(call, *reduction, out);
                }
                ast::ExprKind::Method { args, .. }
                    if matches!(
                        self.info().resolution(e.id),
                        Some(Resolution::MeshMethod(m)) if m.signature().1 == Ty::Void
                    ) =>
                {
                    let Some(Resolution::MeshMethod(m)) = self.info().resolution(e.id) else {
                        unreachable!()
                    };
                    let args = args.iter().map(|a| self.expr(a)).collect();
                    self.stmt_into(out, StmtKind::MeshUpdate(m, args), span);
                }
                _ => {
                    let v = self.value(e, out);
                    self.stmt_into(out, StmtKind::Eval(v), span);
                }
            },
            ast::StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let cond = self.value(cond, out);
                let then_block = self.block(then_block);
                let else_block = else_block
                    .as_ref()
                    .map(|b| self.block(b))
                    .unwrap_or_default();
                self.stmt_into(
                    out,
                    StmtKind::If {
                        cond,
                        then_block,
                        else_block,
                    },
                    span,
                );
            }
            ast::StmtKind::While { cond, body } => {
                self.loop_stmt(None, Some(cond), None, body, span, out)
            }
            ast::StmtKind::For {
                init,
                cond,
                step,
                body,
            } => self.loop_stmt(
                init.as_deref(),
                cond.as_ref(),
                step.as_deref(),
                body,
                span,
                out,
            ),
            ast::StmtKind::Break => self.stmt_into(out, StmtKind::Break, span),
            ast::StmtKind::Return(value) => {
                let frame = self
                    .inline
                    .last()
                    .expect("`return` inside an inlined function");
                let (result, done) = (frame.result, frame.done);
                let exit = frame.plan.exits[&s.id];
                if let Some(v) = value {
                    let v = self.expr(v);
                    match result {
                        Some(r) => self.stmt_into(
                            out,
                            StmtKind::Assign {
                                place: Place::Local(r),
                                op: None,
                                value: v,
                            },
                            span,
                        ),
                        None if crate::visit::expr_any(&self.body, v, &|k| {
                            matches!(k, ExprKind::Atomic { .. })
                        }) =>
                        {
                            self.stmt_into(out, StmtKind::Eval(v), span)
                        }
                        None => {}
                    }
                }
                if exit == Exit::Flag {
                    let done = done.expect("a flag for this return");
                    let yes = self.add(ExprKind::Literal(Literal::Bool(true)), Ty::Bool, span);
                    self.stmt_into(
                        out,
                        StmtKind::Assign {
                            place: Place::Local(done),
                            op: None,
                            value: yes,
                        },
                        span,
                    );
                }
                if exit != Exit::Fall {
                    self.stmt_into(out, StmtKind::Break, span);
                }
            }
            ast::StmtKind::Continue => self.stmt_into(out, StmtKind::Continue, span),
            ast::StmtKind::Block(b) => {
                let b = self.block(b);
                self.stmt_into(out, StmtKind::Block(b), span);
            }
            ast::StmtKind::ForAll {
                var, iter, body, ..
            } => self.forall(s, var, iter, body, out),
            ast::StmtKind::ReduceAndReturn(e) => {
                let v = self.expr(e);
                self.stmt_into(out, StmtKind::Reduce(v), span);
            }
            ast::StmtKind::Atomic {
                lock,
                body,
                otherwise,
            } => self.atomic(lock, body, otherwise.as_ref(), span, out),
            ast::StmtKind::Exclusive {
                object,
                elements,
                upto: None,
                body,
                otherwise,
            } => self.exclusive(object, elements, body, otherwise.as_ref(), span, out),
            ast::StmtKind::Exclusive {
                object,
                elements,
                upto: Some(upto),
                body,
                otherwise,
            } => self.exclusive_prefix(
                object,
                &elements[0],
                upto,
                body,
                otherwise.as_ref(),
                span,
                out,
            ),
            ast::StmtKind::SyncRunningThreads => self.stmt_into(out, StmtKind::GridSync, span),
            ast::StmtKind::Retry { kind, item } => {
                let item = self.expr(item);
                let kind = match kind {
                    ast::RetryKind::Retry => PushKind::Retry,
                    ast::RetryKind::Respawn => PushKind::Respawn,
                };
                self.stmt_into(
                    out,
                    StmtKind::Push(Push {
                        target: WorklistRef::Retry,
                        kind,
                        item,
                        aggregation: Aggregation::None,
                        note: None,
                    }),
                    span,
                );
            }
            ast::StmtKind::Invoke(call) => self.invoke(call, None, out),
            ast::StmtKind::Iterate {
                cond,
                call,
                initial,
                step,
            } => self.iterate(
                cond.as_ref(),
                call,
                initial.as_ref(),
                step.as_ref(),
                span,
                out,
            ),
            ast::StmtKind::Pipe { once, body } => self.pipe(*once, body, span, out),
            ast::StmtKind::Error => panic!("erroneous statement at {span:?} after checking"),
        }
    }

    /// A value on either side: on the host, launches inside it go to `out` first.
    fn value(&mut self, e: &ast::Expr, out: &mut Block) -> ExprId {
        match self.side {
            Side::Device => self.expr(e),
            Side::Host => self.host_expr(e, out),
        }
    }

    fn assign(
        &mut self,
        target: &ast::Expr,
        op: ast::AssignOp,
        value: &ast::Expr,
        span: Span,
        out: &mut Block,
    ) {
        let mut place = self.place(target);
        let value = if self.side == Side::Host && has_invoke(value) {
            // The place's index is evaluated before the launches of the value.
            if let Place::Element { prop, index } = place {
                place = Place::Element {
                    prop,
                    index: self.spill(index, out),
                };
            }
            self.host_expr(value, out)
        } else {
            self.expr(value)
        };
        self.stmt_into(
            out,
            StmtKind::Assign {
                place,
                op: op.binary(),
                value,
            },
            span,
        );
    }

    fn loop_stmt(
        &mut self,
        init: Option<&ast::Stmt>,
        cond: Option<&ast::Expr>,
        step: Option<&ast::Stmt>,
        body: &ast::Block,
        span: Span,
        out: &mut Block,
    ) {
        let mut init_block = Vec::new();
        if let Some(s) = init {
            self.stmt(s, &mut init_block);
        }
        let mut body_block = Vec::new();
        let cond = match cond {
            Some(c) if self.side == Side::Host && has_invoke(c) => {
                // The condition launches kernels: test it at the top of the body.
                let mut pre = Vec::new();
                let c = self.host_expr(c, &mut pre);
                let stop = self.not(c);
                let brk = self.body.add_stmt(StmtKind::Break, span);
                body_block.extend(pre);
                self.stmt_into(
                    &mut body_block,
                    StmtKind::If {
                        cond: stop,
                        then_block: vec![brk],
                        else_block: Vec::new(),
                    },
                    span,
                );
                None
            }
            Some(c) => Some(self.expr(c)),
            None => None,
        };
        if self.side == Side::Host && launches(body) {
            self.stmt_into(&mut body_block, StmtKind::CountIteration, span);
        }
        body_block.extend(self.block(body));
        let mut step_block = Vec::new();
        if let Some(s) = step {
            self.stmt(s, &mut step_block);
        }
        self.stmt_into(
            out,
            StmtKind::Loop(Loop {
                init: init_block,
                cond,
                step: step_block,
                body: body_block,
            }),
            span,
        );
    }

    fn forall(
        &mut self,
        s: &ast::Stmt,
        var: &ast::Ident,
        iter: &ast::Iter,
        body: &ast::Block,
        out: &mut Block,
    ) {
        let id = LoopId::from_index(self.foralls as usize);
        self.foralls += 1;
        let space = match iter {
            ast::Iter::Worklist { .. } => Space::Worklist,
            ast::Iter::Nodes { .. } => Space::Nodes,
            ast::Iter::Triangles { .. } => Space::Triangles,
            ast::Iter::Edges { node, dir, .. } => Space::Edges {
                node: self.expr(node),
                dir: *dir,
            },
            ast::Iter::Range { lo, hi } => Space::Range {
                lo: self.expr(lo),
                hi: self.expr(hi),
            },
        };
        let reductions = self
            .info()
            .loop_reductions
            .get(&s.id)
            .map(|rs| {
                rs.iter()
                    .map(|r| LoopReduce {
                        local: self.local_of(r.local),
                        combiner: r.combiner,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let var = self.declare(s.id, var, LocalKind::ForAllVar);
        let schedule = if self.forall_depth == 0 {
            Schedule::Grid { uniform: false }
        } else {
            Schedule::Serial { why: None }
        };
        self.forall_depth += 1;
        let body = self.block(body);
        self.forall_depth -= 1;
        self.stmt_into(
            out,
            StmtKind::ForAll(ForAll {
                id,
                var,
                space,
                body,
                schedule,
                reductions,
            }),
            s.span,
        );
    }

    /// `Atomic (g.lk[i]) { body } [Else { otherwise }]` as its lock protocol.
    fn atomic(
        &mut self,
        lock: &ast::Expr,
        body: &ast::Block,
        otherwise: Option<&ast::Block>,
        span: Span,
        out: &mut Block,
    ) {
        let ast::ExprKind::Index { prop, index, .. } = &lock.kind else {
            panic!("the lock of Atomic at {span:?} is not a property element");
        };
        let locks = self.prop_of(lock, &prop.name);
        let index_ty = self.ty(index);
        let index = self.expr(index);
        let slot = self.temp("lock", index_ty, span);
        let mut scope = Vec::new();
        self.stmt_into(
            &mut scope,
            StmtKind::Let {
                local: slot,
                init: Some(index),
            },
            span,
        );
        let mut locked = self.block(body);
        let unlock_index = self.local_expr(slot);
        self.stmt_into(
            &mut locked,
            StmtKind::Unlock {
                locks,
                index: unlock_index,
            },
            span,
        );
        let try_index = self.local_expr(slot);
        let taken = self.add(
            ExprKind::TryLock {
                locks,
                index: try_index,
            },
            Ty::Bool,
            span,
        );
        match otherwise {
            Some(otherwise) => {
                let else_block = self.block(otherwise);
                self.stmt_into(
                    &mut scope,
                    StmtKind::If {
                        cond: taken,
                        then_block: locked,
                        else_block,
                    },
                    span,
                );
            }
            None => {
                // Divergence-free blocking: every lane retries the whole try-and-run, so a
                // lane that holds the lock always gets to run its body and release it.
                let done = self.temp("done", Ty::Bool, span);
                let no = self.add(ExprKind::Literal(Literal::Bool(false)), Ty::Bool, span);
                self.stmt_into(
                    &mut scope,
                    StmtKind::Let {
                        local: done,
                        init: Some(no),
                    },
                    span,
                );
                let yes = self.add(ExprKind::Literal(Literal::Bool(true)), Ty::Bool, span);
                self.stmt_into(
                    &mut locked,
                    StmtKind::Assign {
                        place: Place::Local(done),
                        op: None,
                        value: yes,
                    },
                    span,
                );
                let attempt = self.body.add_stmt(
                    StmtKind::If {
                        cond: taken,
                        then_block: locked,
                        else_block: Vec::new(),
                    },
                    span,
                );
                let d = self.local_expr(done);
                let not_done = self.not(d);
                self.stmt_into(
                    &mut scope,
                    StmtKind::Loop(Loop {
                        init: Vec::new(),
                        cond: Some(not_done),
                        step: Vec::new(),
                        body: vec![attempt],
                    }),
                    span,
                );
            }
        }
        self.stmt_into(out, StmtKind::Block(scope), span);
    }

    /// The `mark` property that `Exclusive` names.
    fn marks_of(&self, object: &ast::Expr, span: Span) -> PropId {
        match self.info().resolution(object.id) {
            Some(Resolution::NodeProperty(p)) => p,
            r => panic!("the object of Exclusive at {span:?} resolved to {r:?}"),
        }
    }

    /// `Exclusive (g.mk, [a, b]) { body } [Else { otherwise }]` as its marking protocol.
    fn exclusive(
        &mut self,
        object: &ast::Expr,
        elements: &[ast::Expr],
        body: &ast::Block,
        otherwise: Option<&ast::Block>,
        span: Span,
        out: &mut Block,
    ) {
        let marks = self.marks_of(object, span);
        let elems: Vec<ExprId> = elements
            .iter()
            .map(|e| {
                let v = self.expr(e);
                if self.body.exprs[v].ty.is_u32_like() {
                    v
                } else {
                    self.add(ExprKind::Cast(v), Ty::U32, e.span)
                }
            })
            .collect();
        let ids = self.temp("ids", Ty::U32, span);
        self.body.locals[ids].kind = LocalKind::Array {
            len: elems.len() as u32,
        };
        let mut scope = Vec::new();
        self.stmt_into(&mut scope, StmtKind::LetArray { local: ids, elems }, span);
        self.marking_protocol(marks, ids, None, body, otherwise, span, scope, out);
    }

    /// `Exclusive (m.mk, a[..n]) { body } [Else { otherwise }]`: the protocol over a copy of
    /// the array's first `n` elements (the protocol sorts its array in place).
    #[allow(clippy::too_many_arguments)]
    fn exclusive_prefix(
        &mut self,
        object: &ast::Expr,
        array: &ast::Expr,
        upto: &ast::Expr,
        body: &ast::Block,
        otherwise: Option<&ast::Block>,
        span: Span,
        out: &mut Block,
    ) {
        let marks = self.marks_of(object, span);
        let src = match self.info().resolution(array.id) {
            Some(Resolution::Local { def, .. }) => self.local_of(def),
            r => panic!("the array of Exclusive at {span:?} resolved to {r:?}"),
        };
        let LocalKind::Array { len } = self.body.locals[src].kind else {
            panic!("the array of Exclusive at {span:?} is not an array local");
        };
        let mut scope = Vec::new();
        let n = self.temp("n", Ty::U32, span);
        let value = self.expr(upto);
        self.stmt_into(
            &mut scope,
            StmtKind::Let {
                local: n,
                init: Some(value),
            },
            span,
        );
        let ids = self.temp("ids", Ty::U32, span);
        self.body.locals[ids].kind = LocalKind::Array { len };
        self.stmt_into(
            &mut scope,
            StmtKind::LetArray {
                local: ids,
                elems: Vec::new(),
            },
            span,
        );
        self.stmt_into(
            &mut scope,
            StmtKind::CopyArray {
                dst: ids,
                src,
                count: n,
            },
            span,
        );
        self.marking_protocol(marks, ids, Some(n), body, otherwise, span, scope, out);
    }

    /// The end of both forms of `Exclusive`: `if (TryMarks) { body; ReleaseMarks } else
    /// { otherwise }` after the statements in `scope` that fill `ids`, all in one scope.
    #[allow(clippy::too_many_arguments)]
    fn marking_protocol(
        &mut self,
        marks: PropId,
        ids: LocalId,
        count: Option<LocalId>,
        body: &ast::Block,
        otherwise: Option<&ast::Block>,
        span: Span,
        mut scope: Block,
        out: &mut Block,
    ) {
        let mut locked = self.block(body);
        self.stmt_into(
            &mut locked,
            StmtKind::ReleaseMarks { marks, ids, count },
            span,
        );
        let else_block = otherwise.map(|b| self.block(b)).unwrap_or_default();
        let taken = self.add(ExprKind::TryMarks { marks, ids, count }, Ty::Bool, span);
        self.stmt_into(
            &mut scope,
            StmtKind::If {
                cond: taken,
                then_block: locked,
                else_block,
            },
            span,
        );
        self.stmt_into(out, StmtKind::Block(scope), span);
    }

    // ------------------------------------------------------------------ orchestration

    /// One invocation: a launch, the re-launches over the retry worklist, the swap.
    fn invoke(&mut self, call: &ast::Call, reduce: Option<Reduction>, out: &mut Block) {
        let cx = self.cx;
        let (kernel, k) = cx.kernel_info(&call.kernel.name);
        let retries = !k.retry_sites.is_empty();
        let span = call.span;
        // Scalar arguments, evaluated once even when the kernel is launched again.
        let mut args = Vec::new();
        for (i, (ty, a)) in k.params.iter().zip(&call.args).enumerate() {
            if *ty == Ty::Graph {
                continue;
            }
            let v = self.host_expr(a, out);
            let later_launch = call.args[i + 1..].iter().any(has_invoke);
            let v = if retries || later_launch {
                self.spill(v, out)
            } else {
                v
            };
            args.push(v);
        }
        self.stmt_into(
            out,
            StmtKind::Launch(Launch {
                kernel,
                args: args.clone(),
                reduce,
                backoff: false,
            }),
            span,
        );
        if retries {
            let again: Vec<ExprId> = args.iter().map(|&a| self.body.clone_expr(a)).collect();
            let mut body = Vec::new();
            self.stmt_into(&mut body, StmtKind::WorklistSwap(WorklistRef::Retry), span);
            self.stmt_into(
                &mut body,
                StmtKind::Launch(Launch {
                    kernel,
                    args: again,
                    reduce,
                    backoff: false,
                }),
                span,
            );
            let cond = self.wl_test(WorklistRef::Retry, false);
            self.stmt_into(
                out,
                StmtKind::Loop(Loop {
                    init: Vec::new(),
                    cond: Some(cond),
                    step: Vec::new(),
                    body,
                }),
                span,
            );
        }
        if k.uses_worklist() {
            self.stmt_into(out, StmtKind::WorklistSwap(WorklistRef::Out), span);
        }
    }

    /// `Any`/`All Invoke k(..)`: reset the flag, invoke with the reduction.
    fn reduce_invoke(&mut self, call: &ast::Call, reduction: Reduction, out: &mut Block) {
        self.stmt_into(out, StmtKind::ReduceReset(reduction), call.span);
        self.invoke(call, Some(reduction), out);
    }

    fn next_region(&mut self) -> RegionId {
        let r = RegionId::from_index(self.regions as usize);
        self.regions += 1;
        r
    }

    fn iterate(
        &mut self,
        cond: Option<&ast::IterateCond>,
        call: &ast::Call,
        initial: Option<&ast::Initial>,
        step: Option<&ast::Block>,
        span: Span,
        out: &mut Block,
    ) {
        let id = self.next_region();
        let cx = self.cx;
        let (kernel, k) = cx.kernel_info(&call.kernel.name);
        let mut region = Vec::new();
        match initial {
            Some(ast::Initial::List { items, span: ispan }) => {
                let mut values = Vec::new();
                for item in items {
                    let v = self.host_expr(item, out);
                    values.push(v);
                }
                self.stmt_into(&mut region, StmtKind::WorklistClear, *ispan);
                self.stmt_into(
                    &mut region,
                    StmtKind::WorklistInit(Initial::List(values)),
                    *ispan,
                );
            }
            Some(ast::Initial::AllNodes { span: ispan, .. }) => {
                self.stmt_into(&mut region, StmtKind::WorklistClear, *ispan);
                self.stmt_into(
                    &mut region,
                    StmtKind::WorklistInit(Initial::AllNodes),
                    *ispan,
                );
            }
            None => {}
        }
        let mut round = Vec::new();
        match cond {
            Some(c) => {
                self.reduce_invoke(call, c.reduction, &mut round);
                self.stmt_into(&mut round, StmtKind::CountIteration, span);
                let result = self.add(ExprKind::ReduceResult, Ty::Bool, c.span);
                let stop = match c.kind {
                    IterateCondKind::While => self.not(result),
                    IterateCondKind::Until => result,
                };
                let brk = self.body.add_stmt(StmtKind::Break, c.span);
                self.stmt_into(
                    &mut round,
                    StmtKind::If {
                        cond: stop,
                        then_block: vec![brk],
                        else_block: Vec::new(),
                    },
                    c.span,
                );
            }
            None => {
                self.invoke(call, None, &mut round);
                self.stmt_into(&mut round, StmtKind::CountIteration, span);
            }
        }
        if k.uses_worklist() {
            let empty = self.wl_test(WorklistRef::In, true);
            let brk = self.body.add_stmt(StmtKind::Break, span);
            self.stmt_into(
                &mut round,
                StmtKind::If {
                    cond: empty,
                    then_block: vec![brk],
                    else_block: Vec::new(),
                },
                span,
            );
        }
        if let Some(step) = step {
            let step = self.block(step);
            round.extend(step);
        }
        let the_loop = self.body.add_stmt(
            StmtKind::Loop(Loop {
                init: Vec::new(),
                cond: None,
                step: Vec::new(),
                body: round,
            }),
            span,
        );
        if k.uses_worklist() {
            // An empty initial worklist invokes nothing.
            let nonempty = self.wl_test(WorklistRef::In, false);
            self.stmt_into(
                &mut region,
                StmtKind::If {
                    cond: nonempty,
                    then_block: vec![the_loop],
                    else_block: Vec::new(),
                },
                span,
            );
        } else {
            region.push(the_loop);
        }
        self.stmt_into(
            out,
            StmtKind::Region(Region {
                id,
                kind: RegionKind::Iterate(kernel),
                body: region,
                unordered: cond.is_some_and(|c| c.unordered),
                settled: false,
            }),
            span,
        );
    }

    fn pipe(&mut self, once: bool, body: &ast::Block, span: Span, out: &mut Block) {
        let id = self.next_region();
        let mut region = Vec::new();
        if self.pipe_depth == 0 {
            self.stmt_into(&mut region, StmtKind::WorklistClear, span);
        }
        self.pipe_depth += 1;
        let mut inner = self.block(body);
        self.pipe_depth -= 1;
        if once {
            region.extend(inner);
        } else {
            self.stmt_into(&mut inner, StmtKind::CountIteration, span);
            let empty = self.wl_test(WorklistRef::In, true);
            let brk = self.body.add_stmt(StmtKind::Break, span);
            self.stmt_into(
                &mut inner,
                StmtKind::If {
                    cond: empty,
                    then_block: vec![brk],
                    else_block: Vec::new(),
                },
                span,
            );
            self.stmt_into(
                &mut region,
                StmtKind::Loop(Loop {
                    init: Vec::new(),
                    cond: None,
                    step: Vec::new(),
                    body: inner,
                }),
                span,
            );
        }
        self.stmt_into(
            out,
            StmtKind::Region(Region {
                id,
                kind: RegionKind::Pipe { once },
                body: region,
                unordered: false,
                settled: false,
            }),
            span,
        );
    }
}

impl BodyBuilder<'_> {
    /// Whether an expression calls a function of the program (inlined before the statement).
    fn has_call(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ast::ExprKind::Call { .. }
                if matches!(self.info().resolution(e.id), Some(Resolution::Function(_))) =>
            {
                true
            }
            ast::ExprKind::Unary { operand, .. } => self.has_call(operand),
            ast::ExprKind::Binary { lhs, rhs, .. } => self.has_call(lhs) || self.has_call(rhs),
            ast::ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => self.has_call(cond) || self.has_call(then_expr) || self.has_call(else_expr),
            ast::ExprKind::Cast { expr, .. } => self.has_call(expr),
            ast::ExprKind::Call { args, .. } | ast::ExprKind::Method { args, .. } => {
                args.iter().any(|a| self.has_call(a))
            }
            ast::ExprKind::Index { index, .. } => self.has_call(index),
            _ => false,
        }
    }
}

/// Whether an expression launches a kernel (`Any`/`All Invoke`).
fn has_invoke(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::Invoke { .. } => true,
        ast::ExprKind::Unary { operand, .. } => has_invoke(operand),
        ast::ExprKind::Binary { lhs, rhs, .. } => has_invoke(lhs) || has_invoke(rhs),
        ast::ExprKind::Ternary {
            cond,
            then_expr,
            else_expr,
        } => has_invoke(cond) || has_invoke(then_expr) || has_invoke(else_expr),
        ast::ExprKind::Cast { expr, .. } => has_invoke(expr),
        ast::ExprKind::Call { args, .. } | ast::ExprKind::Method { args, .. } => {
            args.iter().any(has_invoke)
        }
        ast::ExprKind::Index { index, .. } => has_invoke(index),
        _ => false,
    }
}

/// Whether an expression's value cannot change when a kernel runs: it reads no global and no
/// property element.
fn is_stable(body: &Body, e: ExprId) -> bool {
    !crate::visit::expr_any(body, e, &|k| {
        matches!(
            k,
            ExprKind::Global(_)
                | ExprKind::Element { .. }
                | ExprKind::ReduceResult
                | ExprKind::WorklistSize(_)
        )
    })
}

/// Whether a host block launches a kernel: its loop then counts as iterations of the run.
fn launches(b: &ast::Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        ast::StmtKind::Invoke(_) | ast::StmtKind::Iterate { .. } | ast::StmtKind::Pipe { .. } => {
            true
        }
        ast::StmtKind::Let { init: e, .. } | ast::StmtKind::Expr(e) => has_invoke(e),
        ast::StmtKind::Assign { value, .. } => has_invoke(value),
        ast::StmtKind::If {
            cond,
            then_block,
            else_block,
        } => has_invoke(cond) || launches(then_block) || else_block.as_ref().is_some_and(launches),
        ast::StmtKind::While { cond, body } => has_invoke(cond) || launches(body),
        ast::StmtKind::For { body, .. } | ast::StmtKind::Block(body) => launches(body),
        _ => false,
    })
}

/// The operand `id` of an update of a reduced local: the value itself or one of its direct
/// operands (`e` in `t = min(t, e)` or `t = t || e`), as the checker recorded it.
fn operand_of(value: &ast::Expr, id: NodeId) -> &ast::Expr {
    if value.id == id {
        return value;
    }
    let children: Vec<&ast::Expr> = match &value.kind {
        ast::ExprKind::Call { args, .. } => args.iter().collect(),
        ast::ExprKind::Binary { lhs, rhs, .. } => vec![&**lhs, &**rhs],
        _ => Vec::new(),
    };
    children
        .into_iter()
        .find(|e| e.id == id)
        .unwrap_or_else(|| panic!("the combined operand {id} is not in its update"))
}

/// Whether `block` reads or assigns local `l`.
fn uses_local(body: &Body, block: &Block, l: LocalId) -> bool {
    let mut hit = false;
    crate::visit::walk_block_exprs(body, block, &mut |e| {
        hit |= body.exprs[e].kind == ExprKind::Local(l);
    });
    crate::visit::walk_stmts(body, block, &mut |s| {
        if let StmtKind::Assign {
            place: Place::Local(x),
            ..
        } = &body.stmts[s].kind
        {
            hit |= *x == l;
        }
    });
    hit
}
