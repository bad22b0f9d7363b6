//! The IR as stable, readable text: `irglc emit ir` and the IR snapshots.
//!
//! One statement a line, blocks indented by two spaces. Locals print as `v3:name`, globals
//! as `@name`, params as `$name`, consts by name, property elements as `prop[index]`;
//! binary operands that are themselves operations are parenthesized. Kernels list their
//! loops' schedules and shared memory; `Serial` loops that were asked for another schedule
//! say why they kept it.

use std::fmt::Write;

use crate::ir::*;

/// What a dump shows besides the program.
#[derive(Clone, Copy, Debug, Default)]
pub struct DumpOptions {
    /// Prefix every statement with its handle (`s12:`), for analysis tests.
    pub stmt_ids: bool,
}

/// The whole module.
pub fn dump_module(m: &Module, opts: DumpOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "program {} (from {})", m.name, m.source);
    let _ = writeln!(out, "block_size {}", m.launch.block_size);
    let mut attrs = Vec::new();
    if m.graph.symmetric {
        attrs.push("symmetric");
    }
    if m.graph.simple {
        attrs.push("simple");
    }
    let attrs = if attrs.is_empty() {
        String::new()
    } else {
        format!(" : {}", attrs.join(", "))
    };
    let word = if m.graph.mesh { "mesh" } else { "graph" };
    let _ = writeln!(out, "{word} {}{attrs}", m.graph.name);
    for (i, p) in m.graph.props.iter().enumerate() {
        let owner = p.owner.spelling();
        let input = if p.input { "input " } else { "" };
        let _ = writeln!(out, "  p{i} {input}{owner} {}: {}", p.name, p.ty);
    }
    for c in &m.consts {
        let _ = writeln!(out, "const {}: {} = {}", c.name, c.ty, c.value);
    }
    for p in &m.params {
        let _ = writeln!(out, "param ${}: {} = {}", p.name, p.ty, p.default);
    }
    for g in &m.globals {
        let _ = writeln!(out, "global @{}: {} = {}", g.name, g.ty, g.init);
    }
    if !m.outputs.is_empty() {
        let names: Vec<String> = m
            .outputs
            .iter()
            .map(|o| match o {
                Output::Property(p) => m.prop(*p).name.clone(),
                Output::Global(g) => format!("@{}", m.globals[g.index()].name),
                Output::Mesh => m.graph.name.clone(),
            })
            .collect();
        let _ = writeln!(out, "output {}", names.join(", "));
    }
    for (id, k) in m.kernels.iter() {
        out.push('\n');
        out.push_str(&dump_kernel(m, id, k, opts));
    }
    out.push('\n');
    let _ = writeln!(out, "main {{");
    let mut p = Printer {
        m,
        body: &m.host,
        out: String::new(),
        level: 1,
        opts,
    };
    p.block(&m.host.block);
    out.push_str(&p.out);
    out.push_str("}\n");
    out
}

/// One kernel.
pub fn dump_kernel(m: &Module, id: KernelId, k: &Kernel, opts: DumpOptions) -> String {
    let mut out = String::new();
    let params: Vec<String> = k
        .params
        .iter()
        .map(|p| match p {
            KernelParam::Graph(name) => format!("graph {name}"),
            KernelParam::Scalar(l) => {
                let local = &k.body.locals[*l];
                format!("{l}:{}: {}", local.name, local.ty)
            }
        })
        .collect();
    let shared = if k.shared_bytes > 0 {
        format!(" shared {} B", k.shared_bytes)
    } else {
        String::new()
    };
    let asynchronous = match k.asynchronous {
        Some(a) => format!(" async({})", a.name()),
        None => String::new(),
    };
    let asynchronous = if k.settled {
        format!("{asynchronous} settled (rounds without barriers, coherent reads)")
    } else {
        asynchronous
    };
    let backoff = match k.backoff {
        Some(b) => format!(
            " backoff(chunk {}, serial below {})",
            b.chunk, b.serial_below
        ),
        None => String::new(),
    };
    let version = match (k.serial_version, k.serial_of) {
        (Some(v), _) => match m.launch.serial_rule {
            Some(rule) => format!(" serial version {v} (on graphs of {rule})"),
            None => format!(" serial version {v}"),
        },
        (None, Some(of)) => format!(" serial version of {of}"),
        (None, None) => String::new(),
    };
    let version = match (k.no_grid_version, k.no_grid_of) {
        (Some(v), _) => format!(
            "{version} version without gd {v} (on graphs without a node past the grid's threshold)"
        ),
        (None, Some(of)) => format!("{version} the version of {of} without gd"),
        (None, None) => version,
    };
    let version = match (k.async_version, k.async_of) {
        (Some(v), _) => format!(
            "{version} asynchronous version {v} (run instead while the switch measures it cheaper)"
        ),
        (None, Some(of)) => format!("{version} the asynchronous version of {of}"),
        (None, None) => version,
    };
    let _ = writeln!(
        out,
        "kernel {id} {}({}){shared}{asynchronous}{backoff}{version} {{",
        k.name,
        params.join(", ")
    );
    let mut p = Printer {
        m,
        body: &k.body,
        out: String::new(),
        level: 1,
        opts,
    };
    p.block(&k.body.block);
    out.push_str(&p.out);
    out.push_str("}\n");
    out
}

struct Printer<'a> {
    m: &'a Module,
    body: &'a Body,
    out: String,
    level: usize,
    opts: DumpOptions,
}

impl Printer<'_> {
    fn line(&mut self, s: StmtId, text: &str) {
        for _ in 0..self.level {
            self.out.push_str("  ");
        }
        if self.opts.stmt_ids {
            let _ = write!(self.out, "{s}: ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn close(&mut self, text: &str) {
        for _ in 0..self.level {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn block(&mut self, b: &Block) {
        for &s in b {
            self.stmt(s);
        }
    }

    fn nested(&mut self, s: StmtId, head: &str, b: &Block) {
        self.line(s, &format!("{head} {{"));
        self.level += 1;
        self.block(b);
        self.level -= 1;
        self.close("}");
    }

    fn local(&self, l: LocalId) -> String {
        format!("{l}:{}", self.body.locals[l].name)
    }

    fn decl(&self, l: LocalId) -> String {
        let local = &self.body.locals[l];
        format!("{l}:{}: {}", local.name, local.ty)
    }

    fn place(&self, p: &Place) -> String {
        match p {
            Place::Local(l) => self.local(*l),
            Place::Global(g) => format!("@{}", self.m.globals[g.index()].name),
            Place::Element { prop, index } => {
                format!("{}[{}]", self.m.prop(*prop).name, self.expr(*index))
            }
            Place::ArrayElement { array, index } => {
                format!("{}[{}]", self.local(*array), self.expr(*index))
            }
        }
    }

    fn space(&self, s: &Space) -> String {
        match s {
            Space::Worklist => "WL".into(),
            Space::Nodes => "nodes".into(),
            Space::SplitNodes => "split nodes".into(),
            Space::Triangles => "triangles".into(),
            Space::Edges { node, dir } => format!("{}({})", dir.method(), self.expr(*node)),
            Space::Range { lo, hi } => format!("{}..{}", self.operand(*lo), self.operand(*hi)),
            Space::Inspected => "inspected".into(),
        }
    }

    fn stmt(&mut self, s: StmtId) {
        let st = &self.body.stmts[s];
        match &st.kind {
            StmtKind::Let { local, init } => {
                let text = match init {
                    Some(e) => format!("let {} = {}", self.decl(*local), self.expr(*e)),
                    None => format!("let {}", self.decl(*local)),
                };
                self.line(s, &text);
            }
            StmtKind::LetArray { local, elems } => {
                let items: Vec<String> = elems.iter().map(|e| self.expr(*e)).collect();
                let l = &self.body.locals[*local];
                let len = match l.kind {
                    LocalKind::Array { len } => len as usize,
                    _ => items.len(),
                };
                let init = if items.is_empty() {
                    "zero".to_string()
                } else {
                    format!("[{}]", items.join(", "))
                };
                let text = format!("let {local}:{}: [{}; {len}] = {init}", l.name, l.ty);
                self.line(s, &text);
            }
            StmtKind::Assign { place, op, value } => {
                let op = op.map_or("=".to_string(), |o| format!("{}=", o.spelling()));
                let text = format!("{} {op} {}", self.place(place), self.expr(*value));
                self.line(s, &text);
            }
            StmtKind::Eval(e) => {
                let text = self.expr(*e);
                self.line(s, &text);
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let head = format!("if {}", self.expr(*cond));
                self.line(s, &format!("{head} {{"));
                self.level += 1;
                self.block(then_block);
                self.level -= 1;
                if !else_block.is_empty() {
                    self.close("} else {");
                    self.level += 1;
                    self.block(else_block);
                    self.level -= 1;
                }
                self.close("}");
            }
            StmtKind::Loop(l) => {
                let mut head = "loop".to_string();
                if let Some(c) = l.cond {
                    head = format!("loop while {}", self.expr(c));
                }
                self.line(s, &format!("{head} {{"));
                self.level += 1;
                if !l.init.is_empty() {
                    self.close("init:");
                    self.block(&l.init);
                    self.close("body:");
                }
                self.block(&l.body);
                if !l.step.is_empty() {
                    self.close("step:");
                    self.block(&l.step);
                }
                self.level -= 1;
                self.close("}");
            }
            StmtKind::Break => self.line(s, "break"),
            StmtKind::Continue => self.line(s, "continue"),
            StmtKind::Block(b) => self.nested(s, "scope", b),
            StmtKind::ForAll(f) => {
                let sched = match &f.schedule {
                    Schedule::Grid { uniform: false } => "grid".to_string(),
                    Schedule::Grid { uniform: true } => "grid uniform".to_string(),
                    Schedule::Serial { why: None } => "serial".to_string(),
                    Schedule::Serial { why: Some(w) } => format!("serial: {w}"),
                    Schedule::Block(b) => {
                        let pols: Vec<String> = b
                            .policies
                            .iter()
                            .zip(&b.thresholds)
                            .map(|(p, t)| {
                                if *p == Policy::Grid {
                                    format!("{p}>=auto")
                                } else if *t > 0 {
                                    format!("{p}>={t}")
                                } else {
                                    p.name()
                                }
                            })
                            .collect();
                        let closure: Vec<String> =
                            b.closure.iter().map(|l| self.local(*l)).collect();
                        let note = b
                            .note
                            .as_ref()
                            .map(|n| format!("; {n}"))
                            .unwrap_or_default();
                        format!(
                            "block {} from ({}, {}) closure [{}]{note}",
                            pols.join("+"),
                            self.local(b.state.count),
                            self.local(b.state.begin),
                            closure.join(", ")
                        )
                    }
                };
                let reduce: String = f
                    .reductions
                    .iter()
                    .map(|r| format!(" reduce {} {}", r.combiner, self.local(r.local)))
                    .collect();
                let head = format!(
                    "forall {} {} in {} [{sched}]{reduce}",
                    f.id,
                    self.decl(f.var),
                    self.space(&f.space)
                );
                self.nested(s, &head, &f.body);
            }
            StmtKind::Push(p) => {
                let verb = match p.kind {
                    PushKind::Push => "push",
                    PushKind::Retry => "retry",
                    PushKind::Respawn => "respawn",
                };
                let text = format!(
                    "{verb} {}{}",
                    self.expr(p.item),
                    slot(p.aggregation, &p.note)
                );
                self.line(s, &text);
            }
            StmtKind::Accumulate(a) => {
                let text = format!(
                    "add @{} {}{}",
                    self.m.globals[a.global.index()].name,
                    self.expr(a.value),
                    slot(a.aggregation, &a.note)
                );
                self.line(s, &text);
            }
            StmtKind::Reduce(e) => {
                let text = format!("reduce {}", self.expr(*e));
                self.line(s, &text);
            }
            StmtKind::Combine {
                local,
                combiner,
                value,
            } => {
                let text = format!(
                    "combine {combiner} {} {}",
                    self.local(*local),
                    self.expr(*value)
                );
                self.line(s, &text);
            }
            StmtKind::Unlock { locks, index } => {
                let text = format!("unlock {}[{}]", self.m.prop(*locks).name, self.expr(*index));
                self.line(s, &text);
            }
            StmtKind::ReleaseMarks { marks, ids, count } => {
                let text = format!(
                    "release_marks {} {}{}",
                    self.m.prop(*marks).name,
                    self.local(*ids),
                    count
                        .map(|c| format!("[..{}]", self.local(c)))
                        .unwrap_or_default()
                );
                self.line(s, &text);
            }
            StmtKind::CopyArray { dst, src, count } => {
                let text = format!(
                    "copy {} = {}[..{}]",
                    self.local(*dst),
                    self.local(*src),
                    self.local(*count)
                );
                self.line(s, &text);
            }
            StmtKind::MeshUpdate(m, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(*a)).collect();
                let text = format!("mesh.{}({})", m.name(), args.join(", "));
                self.line(s, &text);
            }
            StmtKind::GridSync => self.line(s, "grid_sync"),
            StmtKind::Phase(p) => {
                let head = match p.guard {
                    PhaseGuard::Active => "phase active".to_string(),
                    PhaseGuard::Reached(l) => format!("phase reached {l}"),
                };
                self.nested(s, &head, &p.body);
            }
            StmtKind::Inspect(i) => {
                let text = format!(
                    "inspect {} {} -> ({}, {}, {})",
                    i.loop_id,
                    self.space(&i.space),
                    self.local(i.state.reached),
                    self.local(i.state.count),
                    self.local(i.state.begin)
                );
                self.line(s, &text);
            }
            StmtKind::Launch(l) => {
                let args: Vec<String> = l.args.iter().map(|a| self.expr(*a)).collect();
                let reduce = match l.reduce {
                    None => String::new(),
                    Some(Reduction::Any) => " reduce any".into(),
                    Some(Reduction::All) => " reduce all".into(),
                };
                let backoff = if l.backoff { " with backoff" } else { "" };
                let text = format!(
                    "launch {} {}({}){reduce}{backoff}",
                    l.kernel,
                    self.m.kernels[l.kernel].name,
                    args.join(", ")
                );
                self.line(s, &text);
            }
            StmtKind::WorklistClear => self.line(s, "wl.clear"),
            StmtKind::WorklistInit(Initial::List(items)) => {
                let items: Vec<String> = items.iter().map(|e| self.expr(*e)).collect();
                let text = format!("wl.init [{}]", items.join(", "));
                self.line(s, &text);
            }
            StmtKind::WorklistInit(Initial::AllNodes) => self.line(s, "wl.init nodes"),
            StmtKind::WorklistSwap(w) => {
                let text = format!("wl.swap {}", wl_name(*w));
                self.line(s, &text);
            }
            StmtKind::ReduceReset(r) => {
                let text = format!("reduce.reset {}", reduction_name(*r));
                self.line(s, &text);
            }
            StmtKind::Region(r) => {
                let kind = match r.kind {
                    RegionKind::Iterate(k) => format!("iterate {}", self.m.kernels[k].name),
                    RegionKind::Pipe { once: true } => "pipe once".to_string(),
                    RegionKind::Pipe { once: false } => "pipe".to_string(),
                };
                let rounds = match (r.unordered, r.settled) {
                    (_, true) => " unordered, settled (no barrier between rounds)",
                    (true, false) => " unordered",
                    (false, false) => "",
                };
                let head = format!("region {} {kind}{rounds}", r.id);
                self.nested(s, &head, &r.body);
            }
            StmtKind::CountIteration => self.line(s, "count_iteration"),
            StmtKind::Control(c) => {
                let names = |ls: &[LocalId]| {
                    ls.iter()
                        .map(|&l| self.local(l))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let kernels: Vec<&str> = c
                    .kernels
                    .iter()
                    .map(|&k| self.m.kernels[k].name.as_str())
                    .collect();
                let head = format!(
                    "control {} (outlined {}) in [{}] out [{}] calls [{}] grid {}",
                    c.id,
                    c.origin,
                    names(&c.inputs),
                    names(&c.outputs),
                    kernels.join(", "),
                    c.grid
                );
                self.nested(s, &head, &c.body);
            }
        }
    }

    /// An operand: parenthesized when it is itself an operation.
    fn operand(&self, e: ExprId) -> String {
        let text = self.expr(e);
        match self.body.exprs[e].kind {
            ExprKind::Binary(..) | ExprKind::Select { .. } | ExprKind::Cast(_) => {
                format!("({text})")
            }
            _ => text,
        }
    }

    fn expr(&self, e: ExprId) -> String {
        let x = &self.body.exprs[e];
        match &x.kind {
            ExprKind::Literal(l) => literal(*l, x.ty),
            ExprKind::Local(l) => self.local(*l),
            ExprKind::Const(c) => self.m.consts[c.index()].name.clone(),
            ExprKind::Param(p) => format!("${}", self.m.params[p.index()].name),
            ExprKind::Global(g) => format!("@{}", self.m.globals[g.index()].name),
            ExprKind::Element { prop, index } => {
                format!("{}[{}]", self.m.prop(*prop).name, self.expr(*index))
            }
            ExprKind::ArrayElement { array, index } => {
                format!("{}[{}]", self.local(*array), self.expr(*index))
            }
            ExprKind::MeshQuery(m, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(*a)).collect();
                format!("mesh.{}({})", m.name(), args.join(", "))
            }
            ExprKind::Unary(op, a) => format!("{}{}", op.spelling(), self.operand(*a)),
            ExprKind::Binary(op, a, b) => {
                format!(
                    "{} {} {}",
                    self.operand(*a),
                    op.spelling(),
                    self.operand(*b)
                )
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => format!(
                "{} ? {} : {}",
                self.operand(*cond),
                self.operand(*then_expr),
                self.operand(*else_expr)
            ),
            ExprKind::Cast(a) => format!("{} as {}", self.operand(*a), x.ty),
            ExprKind::Builtin(b, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(*a)).collect();
                format!("{}({})", builtin_name(*b), args.join(", "))
            }
            ExprKind::Atomic { op, place, args } => {
                let mut parts = vec![self.place(place)];
                parts.extend(args.iter().map(|a| self.expr(*a)));
                format!("{}({})", op.name(), parts.join(", "))
            }
            ExprKind::FetchAdd {
                global,
                value,
                aggregation,
                note,
            } => format!(
                "fetch_add(@{}, {}){}",
                self.m.globals[global.index()].name,
                self.expr(*value),
                slot(*aggregation, note)
            ),
            ExprKind::GraphSize(f) => match f {
                GraphField::NNodes => "nnodes".into(),
                GraphField::NEdges => "nedges".into(),
                GraphField::NTriangles => "ntriangles".into(),
                GraphField::NVertices => "nvertices".into(),
            },
            ExprKind::GraphQuery(m, a) => {
                format!("{}({})", m.name(), self.expr(*a))
            }
            ExprKind::Split(q, v) => format!("{}({})", q.name(), self.expr(*v)),
            ExprKind::Pop(i) => format!("pop({})", self.expr(*i)),
            ExprKind::TryLock { locks, index } => {
                format!(
                    "try_lock {}[{}]",
                    self.m.prop(*locks).name,
                    self.expr(*index)
                )
            }
            ExprKind::TryMarks { marks, ids, count } => {
                format!(
                    "try_marks {} {}{}",
                    self.m.prop(*marks).name,
                    self.local(*ids),
                    count
                        .map(|c| format!("[..{}]", self.local(c)))
                        .unwrap_or_default()
                )
            }
            ExprKind::WorklistSize(w) => format!("wl.{}.size", wl_name(*w)),
            ExprKind::ReduceResult => "reduce.result".into(),
        }
    }
}

fn wl_name(w: WorklistRef) -> &'static str {
    match w {
        WorklistRef::In => "in",
        WorklistRef::Out => "out",
        WorklistRef::Retry => "retry",
    }
}

fn reduction_name(r: Reduction) -> &'static str {
    match r {
        Reduction::Any => "any",
        Reduction::All => "all",
    }
}

fn builtin_name(b: Builtin) -> &'static str {
    match b {
        Builtin::Popc => "popc",
        Builtin::Ffs => "ffs",
        Builtin::Clz => "clz",
        Builtin::Min => "min",
        Builtin::Max => "max",
        Builtin::Abs => "abs",
        Builtin::Sqrt => "sqrt",
        Builtin::Fabs => "fabs",
        Builtin::Orient => "orient",
        Builtin::Incircle => "incircle",
        Builtin::Midpoint => "midpoint",
        Builtin::SplitPoint => "split_point",
        Builtin::Circumcenter => "circumcenter",
        Builtin::MinAngle => "min_angle",
        Builtin::MakePoint => "point",
        Builtin::PointX => "x",
        Builtin::PointY => "y",
    }
}

/// A literal with a type suffix where the type is not `u32`, `node`, `edge` or `bool`.
fn literal(l: Literal, ty: Ty) -> String {
    match l {
        Literal::Bool(b) => b.to_string(),
        Literal::Int(v) if ty.is_u32_like() => v.to_string(),
        Literal::Int(v) => format!("{v}{ty}"),
        Literal::Float(v) => format!("{v:?}{ty}"),
    }
}

/// An aggregation slot as dumps show it after the statement: ` [warp] (why)`.
fn slot(aggregation: Aggregation, note: &Option<String>) -> String {
    let level = match aggregation {
        Aggregation::None => "",
        Aggregation::Thread => " [thread]",
        Aggregation::Warp => " [warp]",
        Aggregation::Block => " [block]",
        Aggregation::BlockLoop => " [block loop]",
    };
    match note {
        Some(n) => format!("{level} ({n})"),
        None => level.to_string(),
    }
}
